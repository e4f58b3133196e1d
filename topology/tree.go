package topology

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gangsched/gangsched/placement"
)

// DomainID is a domain's dense index in a [Tree]: domains are numbered level
// by level, widest level first, and by path inside a level.
type DomainID int32

// Domain is a read-only view of one topology domain: the nodes whose labels
// agree on the values of every key from the widest level down to Level.
type Domain struct {
	// ID is the domain's index in the tree.
	ID DomainID
	// Level indexes the tree's keys: 0 is the widest.
	Level int
	// Key is the topology key of the level, e.g. "topology.kubernetes.io/rack".
	Key string
	// Value is this domain's value of Key; "" is a real value (a node
	// labelled rack="" is in domain ""), distinct from a missing label.
	Value string
	// Path identifies the domain: the values from the widest level down,
	// joined by "/". A value that is empty or holds characters outside
	// [A-Za-z0-9._-] is written Go-quoted (e.g. `zone-1/""`), so distinct
	// domains always have distinct paths. Paths break every tie.
	Path string
	// Parent is the enclosing domain one level wider, or -1 at level 0.
	Parent DomainID
	// Nodes are the domain's nodes, ascending. The slice is shared: do not
	// modify it.
	Nodes []placement.NodeID
}

type domain struct {
	level    int
	parent   DomainID
	value    string
	path     string
	nodes    []placement.NodeID // ascending
	children []DomainID         // one level narrower, ascending path
	direct   []placement.NodeID // nodes in no child domain (all of them at the deepest level)
	// plain: every node of the domain is a plainNode, so a member without
	// nodeSelector or node affinity passes each of its static filters
	// (the generator's slots then skips asking node by node).
	plain bool
}

// Tree is the domain tree of a node set for an ordered list of topology keys
// (widest first, e.g. zone > block > rack > kubernetes.io/hostname), in the
// manner of Kueue's Topology levels. A node belongs to one domain at each
// level down to the first key it lacks, and to none from there on. The
// structure is static and shared read-only by every snapshot derived with
// [placement.Snapshot.Apply] from the snapshot it was built from (NodeIDs
// and labels never change across Apply).
//
// A Tree also caches per-domain free-capacity aggregates for the snapshot it
// last served and moves them to another snapshot in O(changed nodes × depth);
// the cache is guarded by a mutex, so a Tree is safe for concurrent use, and
// its answers never depend on which snapshot it served before.
type Tree struct {
	keys       []string
	doms       []domain
	levelStart []DomainID          // domains of level l: levelStart[l]..levelStart[l+1]-1
	nodeDom    []DomainID          // node*len(keys)+level; -1 = none
	byPath     map[string]DomainID // path -> ID
	allNodes   []placement.NodeID
	snap       *placement.Snapshot // identifies the node set
	noEmpty    bool                // TreeOptions.EmptyValueIsNoDomain
	unlabelled int                 // nodes without a domain at the narrowest level (a level's label missing), which no plan uses

	mu      sync.Mutex
	cap     *capacity
	bound   *boundMembers
	plan    *planScratch // PlanPodSets' per-unit arrays, reused
	gen     genScratch   // Generate's per-domain arrays, reused
	changed changedMemo  // the last ChangedNodes answer: moveTo and moveCounts ask for one pair
}

// MaxLevels is the most keys a [Tree] takes: the 16 levels Kueue's
// Topology allows (kueue.x-k8s.io/v1beta2 spec.levels, maxItems 16) and
// the hostname level a Topology without it is planned with (package
// kube's KueueTreeLevels). Real topologies have three to five, and a
// tree's cost grows with the square of its depth (paths are a level long
// each).
const MaxLevels = 17

// NewTree builds the domain tree of s's nodes for keys, widest level first.
// A key that no node carries gives an empty level (a constraint naming it is
// rejected later, by [Tree.SolverOptions]). Cost: O(nodes × levels²):
// O(nodes × levels) map look-ups of paths up to levels long, plus sorting
// the domains by path.
//
// Errors (a [*placement.FieldError] wrapping placement.ErrInvalid or
// placement.ErrDuplicate): a nil s, no keys or more than [MaxLevels], an
// empty key, a key listed twice.
func NewTree(s *placement.Snapshot, keys []string) (*Tree, error) {
	return NewTreeWithOptions(s, keys, TreeOptions{})
}

// TreeOptions adjust how [NewTreeWithOptions] reads node labels.
type TreeOptions struct {
	// EmptyValueIsNoDomain puts a node whose label value is "" in no
	// domain of that level (nor of the narrower ones), as a node without
	// the label: Kubernetes v1.38. Otherwise "" is a domain like any other
	// value (v1.36, v1.37).
	EmptyValueIsNoDomain bool
}

// NewTreeWithOptions is [NewTree] with opts.
func NewTreeWithOptions(s *placement.Snapshot, keys []string, opts TreeOptions) (*Tree, error) {
	if s == nil {
		return nil, placement.Errorf(placement.ErrInvalid, "topology tree", "snapshot", "must not be nil")
	}
	if len(keys) == 0 {
		return nil, placement.Errorf(placement.ErrInvalid, "topology tree", "keys", "no topology keys given")
	}
	if len(keys) > MaxLevels {
		return nil, placement.Errorf(placement.ErrInvalid, "topology tree", "keys", "%d keys, more than the %d levels a topology may have", len(keys), MaxLevels)
	}
	for i, k := range keys {
		if k == "" {
			return nil, placement.Errorf(placement.ErrInvalid, "topology tree", fmt.Sprintf("keys[%d]", i), "topology key must not be empty")
		}
		if j := slices.Index(keys, k); j < i {
			return nil, placement.Errorf(placement.ErrDuplicate, fmt.Sprintf("topology key %q", k), fmt.Sprintf("keys[%d]", i), "listed twice (also keys[%d])", j)
		}
	}
	L := len(keys)
	n := s.NumNodes()
	t := &Tree{keys: slices.Clone(keys), snap: s, noEmpty: opts.EmptyValueIsNoDomain, nodeDom: make([]DomainID, n*L), byPath: map[string]DomainID{}}
	// First pass: each node's path at every level it reaches.
	type proto struct {
		parent string
		value  string
		nodes  []placement.NodeID
	}
	levels := make([]map[string]*proto, L)
	for l := range levels {
		levels[l] = map[string]*proto{}
	}
	paths := make([]string, n*L)
	for id := range placement.NodeID(n) {
		t.allNodes = append(t.allNodes, id)
		labels := s.Node(id).Labels
		path := ""
		for l, k := range keys {
			v, ok := labels[k]
			if !ok || (v == "" && opts.EmptyValueIsNoDomain) {
				break
			}
			parent := path
			if l > 0 {
				path += "/"
			}
			path += Segment(v)
			paths[int(id)*L+l] = path
			p := levels[l][path]
			if p == nil {
				p = &proto{parent: parent, value: v}
				levels[l][path] = p
			}
			p.nodes = append(p.nodes, id) // ascending: ids are visited in order
		}
	}
	// Second pass: number the domains level by level in path order.
	for l := range L {
		t.levelStart = append(t.levelStart, DomainID(len(t.doms)))
		for _, path := range slices.Sorted(maps.Keys(levels[l])) {
			p := levels[l][path]
			d := domain{level: l, parent: -1, value: p.value, path: path, nodes: p.nodes, plain: true}
			id := DomainID(len(t.doms))
			if l > 0 {
				d.parent = t.byPath[p.parent]
				t.doms[d.parent].children = append(t.doms[d.parent].children, id)
			}
			t.byPath[path] = id
			t.doms = append(t.doms, d)
		}
	}
	t.levelStart = append(t.levelStart, DomainID(len(t.doms)))
	for id := range placement.NodeID(n) {
		plain := plainNode(s.Node(id))
		for l := range L {
			i := int(id)*L + l
			t.nodeDom[i] = -1
			if paths[i] != "" { // never "" once set: Segment("") is `""`
				t.nodeDom[i] = t.byPath[paths[i]]
				t.doms[t.nodeDom[i]].plain = t.doms[t.nodeDom[i]].plain && plain
			}
		}
		if t.nodeDom[int(id)*L+L-1] < 0 {
			t.unlabelled++
		}
		// The node is a direct member of its deepest domain.
		for l := L - 1; l >= 0; l-- {
			if d := t.nodeDom[int(id)*L+l]; d >= 0 {
				t.doms[d].direct = append(t.doms[d].direct, id)
				break
			}
		}
	}
	return t, nil
}

// Segment writes one label value of a domain's path (its Placement.Name,
// values joined by '/', widest first): as is when it is a non-empty run of
// [A-Za-z0-9._-] (every valid Kubernetes label value), Go-quoted otherwise,
// so the empty value reads `""`. Plain segments contain neither '/' nor
// '"', so a path splits back into its values unambiguously: paths are
// unique.
func Segment(v string) string {
	if v == "" {
		return `""`
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return strconv.Quote(v)
		}
	}
	return v
}

// Keys returns the tree's topology keys, widest first.
func (t *Tree) Keys() []string { return slices.Clone(t.keys) }

// Level returns the level of key (0 is the widest).
func (t *Tree) Level(key string) (int, bool) {
	l := slices.Index(t.keys, key)
	return l, l >= 0
}

func (t *Tree) view(id DomainID) Domain {
	d := &t.doms[id]
	return Domain{ID: id, Level: d.level, Key: t.keys[d.level], Value: d.value, Path: d.path, Parent: d.parent, Nodes: d.nodes}
}

func (t *Tree) valid(id DomainID) bool { return id >= 0 && int(id) < len(t.doms) }

// Domain returns the domain with the given ID.
func (t *Tree) Domain(id DomainID) (Domain, bool) {
	if !t.valid(id) {
		return Domain{}, false
	}
	return t.view(id), true
}

// Find returns the domain with the given path (see [Domain].Path).
func (t *Tree) Find(path string) (Domain, bool) {
	id, ok := t.byPath[path]
	if !ok {
		return Domain{}, false
	}
	return t.view(id), true
}

// DomainOf returns node's domain at level, if the node has one there.
func (t *Tree) DomainOf(node placement.NodeID, level int) (Domain, bool) {
	id := t.domainOf(node, level)
	if id < 0 {
		return Domain{}, false
	}
	return t.view(id), true
}

func (t *Tree) domainOf(node placement.NodeID, level int) DomainID {
	if node < 0 || int(node) >= len(t.allNodes) || level < 0 || level >= len(t.keys) {
		return -1
	}
	return t.nodeDom[int(node)*len(t.keys)+level]
}

// allIn reports whether every node of nodes is in domain d of level (a
// level of t): one pass over the level's column of nodeDom, where asking
// domainOf node by node through a closure cost a p=4096 resize a
// nanosecond or two for each of its hundreds of existing nodes.
func (t *Tree) allIn(nodes []placement.NodeID, level int, d DomainID) bool {
	L, n := len(t.keys), placement.NodeID(len(t.allNodes))
	for _, id := range nodes {
		if id < 0 || id >= n || t.nodeDom[int(id)*L+level] != d {
			return false
		}
	}
	return true
}

// Domains yields the domains of level in path order (nothing for a level out
// of range).
func (t *Tree) Domains(level int) iter.Seq[Domain] {
	return func(yield func(Domain) bool) {
		if level < 0 || level >= len(t.keys) {
			return
		}
		for id := t.levelStart[level]; id < t.levelStart[level+1]; id++ {
			if !yield(t.view(id)) {
				return
			}
		}
	}
}

func (t *Tree) levelDomains(level int) []DomainID {
	return t.appendLevel(make([]DomainID, 0, t.levelStart[level+1]-t.levelStart[level]), level)
}

// appendLevel appends the domains of level to out.
func (t *Tree) appendLevel(out []DomainID, level int) []DomainID {
	for id := t.levelStart[level]; id < t.levelStart[level+1]; id++ {
		out = append(out, id)
	}
	return out
}

// ancestor returns d's enclosing domain at level (d itself at its own level).
func (t *Tree) ancestor(d DomainID, level int) DomainID {
	for d >= 0 && t.doms[d].level > level {
		d = t.doms[d].parent
	}
	return d
}

func keyList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}
