package scaleup

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// DefaultMaxNodes is the MaxNodes a zero [Options].MaxNodes stands for.
const DefaultMaxNodes = 256

// DefaultMaxSolves is the MaxSolves a zero [Options].MaxSolves stands for.
const DefaultMaxSolves = 1000

// Options configures [Suggest]. The zero value adds nodes to existing
// domains only, as many per domain as needed, up to [DefaultMaxNodes], in at
// most [DefaultMaxSolves] solves.
type Options struct {
	// TopologyKeys are the levels of the topology tree, widest first, as
	// [topology.NewTree] takes them (a rack is named by its block too); nil
	// means the constraints' keys in their order, as the gang cycle does.
	TopologyKeys []string
	// Filters are the caller's per-pod, per-node checks (e.g. required node
	// affinity), applied to existing and added nodes alike.
	Filters []placement.Filter
	// NewDomain, when not empty, lets the nodes form a new domain of the
	// required key with this value: under the first domain of the next
	// wider level, by path (a new rack of the first block), or at the
	// widest level. Such a domain is offered only to a group with no bound
	// member and after every existing domain (it can only help when
	// MaxDomainNodes keeps nodes out of them, or Filters reject theirs). It
	// must not be the value of an existing domain there. Ignored for a
	// group without a required key, and when that key is
	// kubernetes.io/hostname: each added node is then a new domain of its
	// own, named after the node.
	NewDomain string
	// MaxDomainNodes is the most nodes a domain of the required key may hold
	// with the added ones (a rack's slots); 0 means no limit.
	MaxDomainNodes int
	// MaxNodes is the most nodes one suggestion may add; 0 means
	// [DefaultMaxNodes].
	MaxNodes int
	// MaxSolves caps the calls of [placement.Solve] (each on one domain's
	// nodes and the added ones); 0 means [DefaultMaxSolves]. A search cut
	// short sets Suggestion.Truncated.
	MaxSolves int
}

// Suggestion is the answer of [Suggest]: Count nodes of Shape added to the
// domain Domain of Key make the group fit.
type Suggestion struct {
	// Found reports whether some choice within Options.MaxNodes does; when
	// false, Reason says why and the fields below Found are zero.
	Found bool
	// Shape names the NodeShape of the added nodes; "" when Count is 0.
	Shape string
	// Count is how many nodes to add; 0 when the group fits as it is.
	Count int
	// Key is the group's narrowest required topology key, "" without one.
	Key string
	// Domain is the path of the domain of Key the nodes join (see
	// topology.Domain.Path); "" without a Key (the cluster) or when Count
	// is 0.
	Domain string
	// NewDomain is set when Domain is a new domain (Options.NewDomain).
	NewDomain bool
	// Nodes are the nodes to add, ascending by name: the shape's labels,
	// allocatable and taints, the domain's labels of Key and every wider
	// level, no label of a narrower level, and kubernetes.io/hostname set
	// to the node's name.
	Nodes []placement.Node
	// Reason says why no suggestion was found; "" when Found.
	Reason string
	// Solves counts the calls of placement.Solve the search made.
	Solves int
	// Proven is set when the answer is exact: every solve that said "does
	// not fit" was proven (placement.Decision.Proven) and the search was
	// not Truncated, so no choice of fewer nodes of one shape in one
	// domain makes the group fit (or, when not Found, no choice of up to
	// Options.MaxNodes does).
	Proven bool
	// Truncated is set when Options.MaxSolves stopped the search: a Found
	// suggestion is then valid but may not be the fewest nodes.
	Truncated bool
}

// Suggest answers, for a PodGroup that does not fit on s, "what would make
// it fit": the fewest nodes of one of the shapes to add, and the domain of
// its required topology key to add them to, so that [placement.Solve]
// schedules the group with its constraints (cluster-autoscaler's scale-up
// for a gang: kubernetes/autoscaler#8783 asks for exactly this). The nodes
// of one suggestion are of one shape, as cluster-autoscaler grows one node
// group per scale-up. Running pods stay where they are: to ask what a group
// needs on an idle cluster, pass a snapshot without them.
//
// The group fits when Solve's decision is Scheduled (for a gang, MinCount
// members with the bound ones; for a basic group, one more member). Ties
// break by fewest nodes, then existing domains before the new one, then
// domain path, then shape name. cs are the group's
// schedulingConstraints.topology; preferred ones are read only to check
// them, since they change where a group goes, not whether it fits. With
// bound members, only their domain is considered. With
// kubernetes.io/hostname required (every member on one node), the answer
// is one new node of a shape that holds them all, in the first domain of
// each wider level.
//
// Errors (a [*placement.FieldError], nothing is suggested): a nil s or g;
// no shapes, a shape without a name or with one used twice, a negative
// allocatable, a shape with no capacity (see [NodeShape]); a negative
// option; an Options.NewDomain that an existing domain has; a required key
// below kubernetes.io/hostname in the tree (each added node would be a
// domain of its own there); and what Solve, [topology.NewTree] and
// [topology.Tree.SolverOptions] return for the group and cs
// ([topology.ErrNoDomain] for a key without domains).
//
// Cost: one Solve on s, then per candidate (domain × shape, ordered by a
// lower bound on the nodes it needs from summed free capacity, pruned when
// that bound exceeds the best found) one Solve on the domain's nodes plus
// the most nodes that could help, and a binary search down from there; at
// most Options.MaxSolves solves in all, each on a snapshot of one domain.
func Suggest(s *placement.Snapshot, g *placement.Group, cs []topology.Constraint, shapes []NodeShape, opts Options) (Suggestion, error) {
	if s == nil || g == nil {
		return Suggestion{}, placement.Errorf(placement.ErrInvalid, "scale-up", "snapshot and group", "must not be nil")
	}
	shapes, err := checkShapes(shapes)
	if err != nil {
		return Suggestion{}, err
	}
	if err := checkOptions(&opts); err != nil {
		return Suggestion{}, err
	}
	keys := opts.TopologyKeys
	if len(keys) == 0 {
		for _, c := range cs {
			if !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	var tree *topology.Tree
	var popts placement.Options
	if len(cs) > 0 {
		if tree, err = topology.NewTree(s, keys); err != nil {
			return Suggestion{}, err
		}
		if popts, err = tree.SolverOptions(cs, topology.MostAllocated); err != nil {
			return Suggestion{}, err
		}
	}
	level := -1 // the narrowest required level
	for _, c := range cs {
		if l, _ := tree.Level(c.Key); !c.Preferred {
			level = max(level, l)
		}
	}
	sug := Suggestion{Solves: 1}
	if level >= 0 {
		sug.Key = keys[level]
		if i := slices.Index(keys[:level], HostnameLabel); i >= 0 {
			return Suggestion{}, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("topology key %q", sug.Key), "spec.schedulingConstraints.topology",
				"is below %s (level %d of the tree): each added node would be a domain of its own", HostnameLabel, i)
		}
	}
	popts.Filters = opts.Filters
	d, err := placement.Solve(s, g, popts)
	if err != nil {
		return Suggestion{}, err
	}
	if d.Status == placement.Scheduled {
		sug.Found, sug.Proven = true, true
		return sug, nil
	}
	// "No node added" is a choice too: it is proven only when this solve is.
	sr := &search{s: s, g: g, keys: keys, level: level, shapes: shapes, opts: opts,
		need: d.Required - d.Bound, solves: 1, proven: d.Proven, perNode: level >= 0 && keys[level] == HostnameLabel}
	sr.sums = sr.needSums()
	doms, err := sr.domains(tree)
	if err != nil {
		return Suggestion{}, err
	}
	best, err := sr.run(doms)
	if err != nil {
		return Suggestion{}, err
	}
	sug.Solves, sug.Truncated = sr.solves, sr.truncated
	sug.Proven = sr.proven && !sr.truncated
	if best == nil {
		sug.Reason = sr.reason(len(doms))
		return sug, nil
	}
	sug.Found, sug.Shape, sug.Count = true, best.shape.Name, best.count
	sug.Domain, sug.NewDomain = best.dom.path, best.dom.isNew
	if sr.perNode {
		sug.Domain = sr.pathOf(best.nodes[0].Labels) // the node is the domain
	}
	sug.Nodes = make([]placement.Node, best.count)
	for i, n := range best.nodes[:best.count] {
		n.Allocatable, n.Taints = maps.Clone(n.Allocatable), slices.Clone(n.Taints) // the caller's, not the shape's
		sug.Nodes[i] = n
	}
	slices.SortFunc(sug.Nodes, func(a, b placement.Node) int { return cmp.Compare(a.Name, b.Name) })
	return sug, nil
}

func checkOptions(o *Options) error {
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{{"MaxDomainNodes", &o.MaxDomainNodes, 0}, {"MaxNodes", &o.MaxNodes, DefaultMaxNodes}, {"MaxSolves", &o.MaxSolves, DefaultMaxSolves}} {
		if *f.v < 0 {
			return placement.Errorf(placement.ErrInvalid, "scale-up options", f.name, "must not be negative, got %d", *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	for i, f := range o.Filters {
		if f == nil {
			return placement.Errorf(placement.ErrInvalid, "scale-up options", fmt.Sprintf("Filters[%d]", i), "must not be nil")
		}
	}
	return nil
}
