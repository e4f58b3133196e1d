package topology

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
)

// Constraint is one entry of a PodGroup's spec.schedulingConstraints.topology
// (KEP-5732): a topology key that all members must share one domain of, or,
// with Preferred, should share as far as the cluster allows (a soft
// constraint; upstream plans it beyond v1.36). The zero value is required,
// as upstream's constraints are and as gang.TopologyConstraint's is.
type Constraint struct {
	Key       string
	Preferred bool
	// SliceSize, when positive, makes the constraint a slice layer instead
	// (Kueue's podset-slice-required-topology with podset-slice-size): the
	// members are cut into slices of SliceSize pods, each in one domain of
	// Key. Slices are planned by [Tree.PlanPodSets] (see
	// [Tree.MembersRequest]); [Tree.SolverOptions] rejects them.
	SliceSize int32
}

// Generator is a [placement.PlacementGenerator] (KEP-5732 PlacementGenerate)
// over a [Tree]. Make one with [Tree.SolverOptions]; see there for the
// placements it proposes.
type Generator struct {
	tree      *Tree
	required  int // level, or -1
	preferred int // narrowest preferred level below required, or -1
	scorer    *Scorer
}

var _ placement.PlacementGenerator = (*Generator)(nil)

// ErrNoDomain is wrapped by [Tree.SolverOptions] for a constraint whose
// level has no domain in the tree: no node carries its key, or every node
// that does lacks the label of a wider level (such a node is in no domain
// of the narrower levels, TestScenario_T9). It wraps placement.ErrNotFound.
// It describes the nodes as they are now, not malformed input: while nodes
// come and go a host may take it as "the group cannot be placed yet", as
// the gang cycle does (an Unresolvable decision with the error's detail).
var ErrNoDomain = fmt.Errorf("%w: no domain at the topology level", placement.ErrNotFound)

// emptyLevel says why level l of t has no domain: which nodes carry its
// key and which wider label they lack.
func (t *Tree) emptyLevel(l int) string {
	carry, lacks := 0, make([]int, l) // nodes carrying keys[l]; per wider level, how many of them lack it first
	for id := range placement.NodeID(len(t.allNodes)) {
		labels := t.snap.Node(id).Labels
		if v, ok := labels[t.keys[l]]; !ok || (v == "" && t.noEmpty) {
			continue
		}
		carry++
		for w := range l {
			if v, ok := labels[t.keys[w]]; !ok || (v == "" && t.noEmpty) {
				lacks[w]++
				break // the first missing level is what cuts the node off
			}
		}
	}
	if carry == 0 {
		return "no node carries this label"
	}
	var parts []string
	for w, n := range lacks {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d of them lack the wider level %q", n, t.keys[w]))
		}
	}
	return fmt.Sprintf("%d nodes carry this label but none is in a domain of it: %s (a node is in a domain of a level only with the labels of every wider level)",
		carry, strings.Join(parts, ", "))
}

// SolverOptions turns a PodGroup's topology constraints into the solver's
// options: a [Generator] and a [Scorer] with the given scoring, over t. With
// no constraints it returns the zero placement.Options (one placement
// holding every node, placement.DefaultScorer). The caller may add Filters,
// Reservers and PlacementFilters to the result.
//
// The generator works with the narrowest required key R (a wider required
// key is implied: a domain's path includes its ancestors) and the narrowest
// preferred key P narrower than R (a preferred key at R or wider is already
// satisfied; a wider preferred key adds nothing, since the search widens one
// tree level at a time anyway). Placements come in tiers
// (placement.Placement.Rank); the solver stops at the first tier where one
// is feasible and takes that tier's best score:
//
//  1. The domains of P (or of R when no narrower key is preferred), each a
//     placement named by its path; when members are bound, only the domain
//     holding them all. Domains are tried best first by the score they
//     would get if every member fit, and the first tier ends at the first
//     domain whose aggregates and nodes prove that every member fits, since
//     no later domain can score more. This gives exactly the best-scoring
//     feasible domain, as if all were tried, unless a Filter, Reserver or
//     PlacementFilter the caller adds rejects that proven domain (then some
//     better domain of the next tier may be missed, never a feasible one).
//     With no preferred key, the domains whose aggregates show they cannot
//     hold the minimum come last, tried only to explain the failure.
//  2. With a preferred key, widening one tree level at a time from P's
//     parent level up to R (or to the whole cluster, named "", when nothing
//     is required): each domain restricted to the fewest of its sub-domains
//     one level down that can hold every member by free capacity (largest
//     first; those holding bound members always), in tiers by that number —
//     fewest sub-domains first (TestScenario_T14) — then every such domain
//     whole.
//
// With a required key every member, bound ones included, ends in one domain
// of R; a node without R's label (or a wider key's) is never used
// (TestScenario_T9).
//
// Errors (a [*placement.FieldError]; nothing is returned): a constraint
// with an empty key (ErrInvalid), a key that is not a level of t
// (ErrNotFound), a key whose level has no domain ([ErrNoDomain]: no node
// carries it, or those that do lack a wider level's label), an unknown
// Scoring (ErrInvalid). Generate itself fails when bound members sit in two
// domains of R, or on a node without R's label (ErrInvalid), or when given
// a snapshot not derived from t's.
func (t *Tree) SolverOptions(cs []Constraint, scoring Scoring) (placement.Options, error) {
	if scoring != MostAllocated && scoring != BestFit {
		return placement.Options{}, placement.Errorf(placement.ErrInvalid, "topology options", "scoring", "unknown %v", scoring)
	}
	if len(cs) == 0 {
		return placement.Options{}, nil
	}
	required := -1
	levels := map[int]bool{}
	for i, c := range cs {
		l, err := t.constraintLevel(i, c)
		if err != nil {
			return placement.Options{}, err
		}
		if c.SliceSize != 0 {
			return placement.Options{}, placement.Errorf(placement.ErrInvalid, fmt.Sprintf("topology key %q", c.Key), fmt.Sprintf("spec.schedulingConstraints.topology[%d].key", i),
				"a slice layer (sliceSize %d) is planned by Tree.PlanPodSets, not by the solver", c.SliceSize)
		}
		if !c.Preferred {
			required = max(required, l)
		} else {
			levels[l] = true
		}
	}
	preferred := -1
	for l := range levels {
		if l > required {
			preferred = max(preferred, l)
		}
	}
	sc := &Scorer{tree: t, kind: scoring}
	return placement.Options{Generator: &Generator{tree: t, required: required, preferred: preferred, scorer: sc}, Scorer: sc}, nil
}

// constraintLevel returns the level of cs[i] = c, a PodGroup's
// constraint, after checking that its key is not empty (ErrInvalid), is
// a level of t (ErrNotFound) and has a domain (ErrNoDomain).
func (t *Tree) constraintLevel(i int, c Constraint) (int, error) {
	obj, field := fmt.Sprintf("topology key %q", c.Key), fmt.Sprintf("spec.schedulingConstraints.topology[%d].key", i)
	if c.Key == "" {
		return 0, placement.Errorf(placement.ErrInvalid, obj, field, "must not be empty")
	}
	l, ok := t.Level(c.Key)
	if !ok {
		return 0, placement.Errorf(placement.ErrNotFound, obj, field, "is not a level of the topology tree (levels: %s)", keyList(t.keys))
	}
	if t.levelStart[l] == t.levelStart[l+1] {
		return 0, placement.Errorf(ErrNoDomain, obj, field, "%s", t.emptyLevel(l))
	}
	return l, nil
}

// shape summarises a group's pending members per resource of a snapshot.
type shape struct {
	g         placement.GroupView // its RequestVector gives each member's requests
	s         *placement.Snapshot
	requested []bool  // requested > 0 by some member, pods excluded (MostAllocated's resources)
	total     []int64 // Σ over members (saturating); pods = n
	needSum   []int64 // Σ of the need smallest requests (saturating)
	minReq    []int64 // smallest request
	maxReq    []int64 // largest request: a node with room for it has room for any member
	unknown   bool    // a member requests a resource no node has
	n, need   int
	bound     int
	podsR     int
	anyReq    bool
	vectors   []int64 // the four vectors' memory, kept for shapeInto
}

func newShape(c *capacity, bound int, g placement.GroupView) *shape {
	return shapeInto(new(shape), c, bound, g)
}

// shapeInto is newShape written into sh, reusing the memory of its
// vectors when they have the room (generate's shape is the tree's).
func shapeInto(sh *shape, c *capacity, bound int, g placement.GroupView) *shape {
	R := len(c.res)
	q, req := sh.vectors, sh.requested
	if cap(q) < 4*R {
		q = make([]int64, 4*R) // one allocation for the four vectors
	}
	if cap(req) < R {
		req = make([]bool, R)
	}
	q, req = q[:4*R], req[:R]
	clear(q)
	clear(req)
	*sh = shape{n: g.NumPending(), bound: bound, podsR: c.podsR, g: g, s: c.snap, requested: req, vectors: q,
		total: q[:R:R], needSum: q[R : 2*R : 2*R], minReq: q[2*R : 3*R : 3*R], maxReq: q[3*R:]}
	sh.need = 1
	if g.IsGang() {
		sh.need = max(int(g.MinCount)-sh.bound, 1)
	}
	sh.need = min(sh.need, max(sh.n, 1))
	sh.unknown = g.RequestsUntracked(c.snap)
	// Pods with one vector count together (a class of identical members,
	// a pod set): the solver grouped them once.
	type qty struct{ q, count int64 }
	var vecs [][]int64
	var counts []int64
	for row, count := range g.RequestCounts(c.snap) {
		for r, q := range row {
			sh.total[r] = arith.SatAdd(sh.total[r], arith.MulSat(q, int64(count)))
			if len(vecs) == 0 || q < sh.minReq[r] {
				sh.minReq[r] = q
			}
			sh.maxReq[r] = max(sh.maxReq[r], q)
			if q > 0 && r != c.podsR {
				sh.requested[r] = true
			}
		}
		vecs, counts = append(vecs, row), append(counts, int64(count))
	}
	if sh.need == sh.n {
		copy(sh.needSum, sh.total) // the common gang: every member is needed
	} else {
		// Per resource, the sum of the need smallest requests.
		col := make([]qty, len(vecs))
		for r := range R {
			for u, v := range vecs {
				col[u] = qty{v[r], counts[u]}
			}
			slices.SortFunc(col, func(x, y qty) int { return cmp.Compare(x.q, y.q) })
			left := int64(sh.need)
			for _, x := range col {
				take := min(x.count, left)
				sh.needSum[r] = arith.SatAdd(sh.needSum[r], arith.MulSat(x.q, take))
				if left -= take; left == 0 {
					break
				}
			}
		}
	}
	for r := range R {
		sh.anyReq = sh.anyReq || sh.requested[r]
	}
	return sh
}

// vec returns member i's requests (see placement.GroupView.RequestVector).
func (sh *shape) vec(i int) []int64 { return sh.g.RequestVector(sh.s, i) }

// scored reports whether BestFit measures leftover capacity in r: the
// resources the group requests, or the pod count when it requests none.
func (sh *shape) scored(r int) bool {
	return sh.requested[r] || (!sh.anyReq && r == sh.podsR)
}

// Generate implements [placement.PlacementGenerator]; see
// [Tree.SolverOptions] for the placements. Cost: O(domains of the levels
// used × resources) from the aggregates, plus the nodes of the domains it
// must inspect to prove a fit (at most the first tier's), plus
// O(changed nodes) to bring the aggregates to s.
//
// Errors (a [*placement.FieldError]): a zero Generator; a nil s or g; s
// not derived with Apply from the tree's snapshot; and those listed at
// [Tree.SolverOptions] for bound members.
func (gen *Generator) Generate(s *placement.Snapshot, g placement.GroupView) ([]placement.Placement, error) {
	t := gen.tree
	if t == nil {
		return nil, placement.Errorf(placement.ErrInvalid, "topology generator", "tree", "zero Generator: make one with Tree.SolverOptions")
	}
	if g.Group == nil {
		return nil, placement.Errorf(placement.ErrInvalid, "topology generator", "group", "must not be nil")
	}
	ps, _, err := gen.generate(s, g, (*builder).tiered, nil)
	return ps, err
}

var _ placement.PlacementNarrower = (*Generator)(nil)

// ForgetsViews implements [placement.ViewForgetter]: a generate reads
// the group's view under the tree's lock and drops it (the builder and
// shape, genScratch.forget) before it returns; what the tree keeps of a
// group (its bound members) is keyed by value.
func (gen *Generator) ForgetsViews() bool { return true }

var _ placement.ViewForgetter = (*Generator)(nil)

// GenerateHolding implements [placement.PlacementNarrower]: with a
// required key and no narrower preferred one, the placements holding
// nodes are at most the one domain of the required level that holds them
// all, which it answers alone, at the tier Generate would give it (or
// nothing, when Generate would not propose it). Otherwise (nodes in no
// or two domains of the level; a preferred key: widening's restrictions
// are not whole domains; a domain too small by its aggregates while the
// best one by score bound cannot be proven to hold the group) it returns
// Generate's whole answer with ok false. Cost: when the domain may hold
// the group and, with MostAllocated, its score bound beats what a
// per-level index of the domains' requested shares allows any other
// (the common elastic case: the existing pods make their domain the most
// allocated), or when member affinity or sub-groups keep any domain from
// being proven to hold the group, O(resources × log domains) after the
// aggregates catch up with s. Otherwise Generate's, less emitting every
// domain: the aggregates of the candidate domains and, for the tier, the
// nodes of the domains ranked before the one answered until one holds
// the group.
func (gen *Generator) GenerateHolding(s *placement.Snapshot, g placement.GroupView, nodes []placement.NodeID) ([]placement.Placement, bool, error) {
	if gen.tree == nil || g.Group == nil || len(nodes) == 0 {
		ps, err := gen.Generate(s, g) // its errors
		return ps, false, err
	}
	return gen.generate(s, g, (*builder).tiered, nodes)
}

// generate is Generate with the first level's tiers cut by tiered (the
// tests compare another way of cutting them), or, with hold, what
// GenerateHolding answers: ok when the answer is narrowed to the
// placements holding hold.
func (gen *Generator) generate(s *placement.Snapshot, g placement.GroupView, tiered func(b *builder, doms []DomainID, diagnose bool), hold []placement.NodeID) (ps []placement.Placement, ok bool, err error) {
	t := gen.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.gen.forget()
	b, err := gen.builder(s, g)
	if err != nil {
		return nil, false, err
	}
	first := max(gen.required, gen.preferred)
	if first < 0 {
		return []placement.Placement{{Nodes: t.allNodes}}, false, nil
	}
	doms := b.candidates(first)
	if hold != nil && gen.preferred < 0 {
		if d := t.domainOf(hold[0], first); d >= 0 && t.allIn(hold, first, d) {
			if rank, emitted, decided := b.holdingTier(doms, d, first); decided {
				b.out = t.gen.take(1)
				if emitted {
					b.emit(d, t.doms[d].nodes, rank)
				}
				return b.out, true, nil
			}
		}
	}
	tiered(b, doms, gen.preferred < 0)
	if gen.preferred >= 0 {
		for q := first - 1; q >= max(gen.required, 0); q-- {
			b.widen(b.candidates(q), q+1, q == gen.required)
		}
		if gen.required < 0 {
			b.widen([]DomainID{-1}, 0, true)
		}
	}
	return b.out, false, nil
}

// builder returns what generate builds g's placements on s with: the
// aggregates caught up with s, g's bound members and shape, and the
// required domain holding the bound members. The builder and its shape
// are the tree's (t.gen), rebuilt by each call: t.mu must be held until
// the caller is done with them and has called t.gen.forget.
func (gen *Generator) builder(s *placement.Snapshot, g placement.GroupView) (*builder, error) {
	t := gen.tree
	c, err := t.capacityFor(s)
	if err != nil {
		return nil, err
	}
	bm := t.boundOf(s, g.Key())
	b := &t.gen.b
	*b = builder{t: t, c: c, s: s, g: g, sh: shapeInto(&t.gen.sh, c, len(bm.nodes), g), scorer: gen.scorer, scope: -1,
		bound: bm.nodes, boundPods: bm.pods, classes: b.classes[:0]}
	b.static(g)
	// Affinity between members and sub-group minimums or keys can keep the
	// solver from placing every member where resources suffice: then no
	// domain is proven to hold the group, and the first tier holds every
	// domain that might. So it does when preferred node affinity ranks
	// the domains before their score.
	b.constrained = bm.affinity || len(g.SubGroups) > 0 || prefersNodes(g.Group)
	for i := range g.Members {
		b.constrained = b.constrained || g.Members[i].Affinity != nil
	}
	if gen.required >= 0 && len(b.bound) > 0 {
		if b.scope, err = b.boundDomain(gen.required); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// boundMembers are a group's bound members on one snapshot. The solver
// calls the generator and then the scorer with the same snapshot and group;
// the tree keeps the last answer, which cannot go stale because snapshots
// are immutable.
type boundMembers struct {
	s        *placement.Snapshot
	group    placement.Key
	nodes    []placement.NodeID
	pods     []placement.Key
	affinity bool // some bound member has pod (anti-)affinity terms
}

// boundOf returns g's bound members on s; t.mu must be held.
func (t *Tree) boundOf(s *placement.Snapshot, g placement.Key) *boundMembers {
	if bm := t.bound; bm != nil && bm.s == s && bm.group == g {
		return bm
	}
	bm := &boundMembers{s: s, group: g}
	for _, p := range s.GroupMembers(g) {
		if id, ok := s.NodeOf(p); ok {
			bm.nodes = append(bm.nodes, id)
			bm.pods = append(bm.pods, p.Key())
			bm.affinity = bm.affinity || p.Affinity != nil
		}
	}
	t.bound = bm
	return bm
}

type builder struct {
	t       *Tree
	c       *capacity
	s       *placement.Snapshot
	g       placement.GroupView
	sh      *shape
	scorer  *Scorer
	classes []*placement.Pod // one member per distinct nodeSelector+tolerations
	// plainPass: no class has a nodeSelector or node affinity, so every
	// class passes a plainNode (taints and cordons are all it could fail).
	plainPass bool
	bound     []placement.NodeID
	boundPods []placement.Key
	scope     DomainID // the required domain holding the bound members, or -1
	// constrained is set when members have affinity terms or the group has
	// sub-groups: holdsAll proves nothing then.
	constrained bool
	rank        int
	out         []placement.Placement
}

// static keeps one member of each class of built-in static filter inputs,
// so that checking a node for every member costs one call per class.
func (b *builder) static(g placement.GroupView) {
	seen := map[string]bool{}
	plain := false // a member without selector or tolerations is kept
	b.plainPass = true
	keep := func(p *placement.Pod) {
		b.plainPass = b.plainPass && len(p.NodeSelector) == 0 && p.NodeAffinity == nil
		if len(p.NodeSelector) == 0 && len(p.Tolerations) == 0 && p.NodeAffinity == nil {
			if !plain {
				plain = true
				b.classes = append(b.classes, p)
			}
			return
		}
		var k strings.Builder
		for _, key := range slices.Sorted(maps.Keys(p.NodeSelector)) {
			fmt.Fprintf(&k, "%q=%q;", key, p.NodeSelector[key])
		}
		k.WriteByte('|')
		for _, tol := range p.Tolerations {
			fmt.Fprintf(&k, "%q,%q,%q,%q;", tol.Key, tol.Operator, tol.Value, tol.Effect)
		}
		// Node affinity by identity: pods that share one (a template's
		// copies) are one class, others are kept apart, which costs only
		// time.
		fmt.Fprintf(&k, "|%p", p.NodeAffinity)
		if !seen[k.String()] {
			seen[k.String()] = true
			b.classes = append(b.classes, p)
		}
	}
	for i := range g.Members {
		keep(&g.Members[i])
	}
	for i := range g.PodSets {
		keep(&g.PodSets[i].Template)
	}
}

func (b *builder) boundDomain(level int) (DomainID, error) {
	obj := fmt.Sprintf("PodGroup %q", b.g.Key().String())
	field := "spec.schedulingConstraints.topology"
	key := b.t.keys[level]
	d := DomainID(-1)
	for i, id := range b.bound {
		di := b.t.domainOf(id, level)
		if di < 0 {
			return -1, placement.Errorf(placement.ErrInvalid, obj, field, "bound member %s is on node %q, which is in no domain of required key %q: the group already breaks its constraint",
				b.boundPods[i], b.s.Node(id).Name, key)
		}
		if d >= 0 && di != d {
			j := slices.IndexFunc(b.bound, func(n placement.NodeID) bool { return b.t.domainOf(n, level) == d })
			return -1, placement.Errorf(placement.ErrInvalid, obj, field, "bound members are in two domains of required key %q: %s in %s and %s in %s; the group already breaks its constraint",
				key, b.boundPods[j], b.t.doms[d].path, b.boundPods[i], b.t.doms[di].path)
		}
		d = di
	}
	return d, nil
}

// candidates returns the domains of level inside the scope that hold every
// bound member, in path order. Level -1 stands for the whole cluster.
func (b *builder) candidates(level int) []DomainID {
	if len(b.bound) > 0 {
		d := b.t.domainOf(b.bound[0], level)
		for _, id := range b.bound[1:] {
			if b.t.domainOf(id, level) != d {
				return nil
			}
		}
		if d < 0 {
			return nil
		}
		return []DomainID{d}
	}
	// The tree's buffer: what Generate keeps of the candidates are
	// copies, and each caller is done with them before the next call.
	all := b.t.appendLevel(b.t.gen.doms[:0], level)
	b.t.gen.doms = all
	if b.scope < 0 {
		return all
	}
	sl := b.t.doms[b.scope].level
	return slices.DeleteFunc(all, func(d DomainID) bool { return b.t.ancestor(d, sl) != b.scope })
}

// canHold is the aggregate test: d might hold the need smallest members.
// It is necessary, not sufficient.
func (b *builder) canHold(d DomainID) bool {
	R := len(b.c.res)
	for r := range R {
		i := int(d)*R + r
		if b.c.freeSum[i] < b.sh.needSum[r] || (b.sh.minReq[r] > 0 && b.c.maxFree[i] < b.sh.minReq[r]) {
			return false
		}
	}
	return !b.sh.unknown
}

// holdsAll proves from the nodes of d that the solver places every pending
// member there: each node counts the copies of the largest member (per
// resource) it has room for, and while a counted node holds fewer members
// than that, any member still fits on it.
func (b *builder) holdsAll(d DomainID) bool {
	return !b.sh.unknown && !b.constrained && b.slots(d) >= int64(b.sh.n)
}

func (b *builder) admits(id placement.NodeID) bool {
	node := b.s.Node(id)
	for _, p := range b.classes {
		if !placement.StaticFit(p, node) {
			return false
		}
	}
	return true
}

func (b *builder) emit(d DomainID, nodes []placement.NodeID, rank int) {
	name := ""
	if d >= 0 {
		name = b.t.doms[d].path
	}
	b.out = append(b.out, placement.Placement{Name: name, Nodes: nodes, Rank: rank})
}

// cand is a candidate domain with the upper bound of its score.
type cand struct {
	d  DomainID
	ub int64
}

// split divides doms into those the aggregates say might hold the group,
// with their score bounds, and those that cannot; both keep doms' order.
func (b *builder) split(doms []DomainID) (ok []cand, short []DomainID) {
	ok, short = b.t.gen.ok[:0], b.t.gen.short[:0] // the tree's, reused
	defer func() { b.t.gen.ok, b.t.gen.short = ok, short }()
	for _, d := range doms {
		if b.canHold(d) {
			ok = append(ok, cand{d, b.scorer.upper(b.c, b.sh, d)})
		} else {
			short = append(short, d)
		}
	}
	return ok, short
}

// tiered emits single-domain placements best bound first (see
// SolverOptions, step 1); with diagnose, the domains that cannot hold the
// minimum follow in a last tier.
func (b *builder) tiered(doms []DomainID, diagnose bool) {
	ok, short := b.split(doms)
	// The first tier ends at the first domain by bound that holds every
	// member. That is usually the first: finding it costs a pass over the
	// candidates (which are in ID order, as doms is), where sorting them
	// all by bound cost a sort.
	best := bestByBound(ok)
	if len(ok) > 0 && b.holdsAll(ok[best].d) {
		first := []cand{ok[best]} // before Delete shifts ok
		b.emitTiers([2][]cand{first, slices.Delete(ok, best, best+1)}, short, diagnose)
		return
	}
	b.emitTiers(b.cutBySorting(ok), short, diagnose)
}

// holdingTier is what tiered(doms, true) emits of domain d, decided: its
// rank, or emitted false when it emits no placement of d. As tiered
// does, the first tier ends at the first domain by score bound that holds
// every member: d is in it unless a domain before it by bound holds them.
// A domain the aggregates rule out follows the tiers only as the closest
// of those ruled out; its rank is not decided (the caller emits every
// domain) when the tiers are cut by sorting, which costs what emitting
// them does. d, of level, is decided without reading the other
// candidates when [builder.leads] proves it first; else every
// candidate's bound is read (split).
func (b *builder) holdingTier(doms []DomainID, d DomainID, level int) (rank int, emitted, decided bool) {
	if b.canHold(d) && slices.Contains(doms, d) && b.leads(d, level) {
		return 0, true, true
	}
	ok, short := b.split(doms)
	i := slices.IndexFunc(ok, func(c cand) bool { return c.d == d })
	if i < 0 {
		switch {
		case !slices.Contains(short, d) || b.closest(short) != d:
			return 0, false, true
		case len(ok) == 0:
			return 0, true, true
		case b.holdsAll(ok[bestByBound(ok)].d):
			return min(len(ok), 2), true, true // ok[best] alone, then the rest
		}
		return 0, false, false
	}
	best := bestByBound(ok)
	if best == i {
		return 0, true, true
	}
	if b.holdsAll(ok[best].d) {
		return 1, true, true
	}
	for j, c := range ok {
		if j != best && byBound(c, ok[i]) < 0 && b.holdsAll(c.d) {
			return 1, true, true
		}
	}
	return 0, true, true
}

// leads reports, for a candidate d the aggregates say might hold the
// group, that tiered puts d in the first tier without reading the other
// candidates: d's rank is 1 only when a candidate before it by score bound
// holds every member (see holdingTier), and none does when holdsAll
// proves nothing (constrained), or when d's bound beats what the level's
// share index allows any other domain of level. Otherwise (not proven)
// the caller reads every candidate's bound.
func (b *builder) leads(d DomainID, level int) bool {
	if b.constrained {
		return true
	}
	if b.scorer.kind != MostAllocated {
		return false // the index bounds MostAllocated's score only
	}
	rivals, ok := b.scorer.rivalsUpper(b.c, b.c.shares(b.t, level), b.sh, d)
	return ok && rivals < b.scorer.upper(b.c, b.sh, d)
}

// bestByBound returns the index of the first of ok by byBound.
func bestByBound(ok []cand) int {
	best := 0
	for i := range ok {
		if byBound(ok[i], ok[best]) < 0 {
			best = i
		}
	}
	return best
}

// byBound orders candidates by score bound, best first, then by ID (IDs
// follow path order within a level).
func byBound(x, y cand) int {
	if c := cmp.Compare(y.ub, x.ub); c != 0 {
		return c
	}
	return cmp.Compare(x.d, y.d)
}

// cutBySorting sorts ok by bound, cuts the first tier after the first that
// holds every member, and returns both tiers in ID order.
func (b *builder) cutBySorting(ok []cand) [2][]cand {
	slices.SortFunc(ok, byBound)
	cut := len(ok)
	for i := range ok {
		if b.holdsAll(ok[i].d) {
			cut = i + 1
			break
		}
	}
	byID := func(x, y cand) int { return cmp.Compare(x.d, y.d) }
	slices.SortFunc(ok[:cut], byID)
	slices.SortFunc(ok[cut:], byID)
	return [2][]cand{ok[:cut], ok[cut:]}
}

// emitTiers emits each non-empty tier at its own rank; with diagnose, the
// closest of the domains short of the minimum follows in a last tier.
func (b *builder) emitTiers(tiers [2][]cand, short []DomainID, diagnose bool) {
	// Sized for what it emits: a group that fits nowhere emits one
	// placement, not one per candidate. An answer Solve released is
	// reused.
	b.out = b.t.gen.take(len(tiers[0]) + len(tiers[1]) + 1)
	for _, part := range tiers {
		if len(part) == 0 {
			continue
		}
		for _, c := range part {
			b.emit(c.d, b.t.doms[c.d].nodes, b.rank)
		}
		b.rank++
	}
	if diagnose && len(short) > 0 {
		// The capacity sums prove that none of these domains can hold the
		// group; trying each would cost O(members) per domain just to say
		// so. One, the closest to holding it, is enough to explain.
		d := b.closest(short)
		b.emit(d, b.t.doms[d].nodes, b.rank)
		b.rank++
	}
}

// closest returns the domain of doms with room for the most members by a
// per-node count (the copies of the largest member each admitting node
// holds, as holdsAll counts), ties by ID. Domains are counted in order of
// an upper bound from their free sums (no node holds more copies than its
// free quantity allows, so no domain more than its sum does) and the count
// stops once no bound left can beat or tie the best: O(nodes of the
// domains counted), against O(members) per domain for trying each. The
// best bound is found, and the others checked against the first count,
// by multiplying (⌊F/q⌋ ≥ k exactly when F ≥ k·q): dividing every
// domain's sums was most of a failing rack set's generator. A count that
// reaches the best bound ends the search at once (equal domains, the
// rule); only when a rival's bound could still beat or tie it are the
// bounds divided out and sorted.
func (b *builder) closest(doms []DomainID) DomainID {
	if len(doms) == 1 {
		return doms[0] // nothing to compare it with
	}
	R := len(b.c.res)
	n := int64(b.sh.n)
	kq := slices.Grow(b.t.gen.kq[:0], 2*R)[:2*R] // the tree's, reused
	b.t.gen.kq = kq
	lo, hi := kq[:R], kq[R:]
	best := doms[0]
	ub := b.closestBound(best)
	b.times(lo, ub)
	b.times(hi, ub+1)
	for _, d := range doms[1:] {
		switch {
		case ub < n && b.boundAtLeast(d, hi):
			best, ub = d, b.closestBound(d)
			b.times(lo, ub)
			b.times(hi, ub+1)
		case d < best && b.boundAtLeast(d, lo):
			best = d // the same bound, a smaller ID
		}
	}
	most := b.slots(best)
	if most == ub {
		// best has the largest bound, the smallest ID among its ties,
		// and counts up to it: no bound beats or ties it before it.
		return best
	}
	b.times(lo, most)
	b.times(hi, most+1)
	rival := func(d DomainID) bool {
		return d != best && (most < n && b.boundAtLeast(d, hi) || d < best && b.boundAtLeast(d, lo))
	}
	if !slices.ContainsFunc(doms, rival) {
		return best
	}
	cs := b.t.gen.closest[:0] // the tree's, reused
	for _, d := range doms {
		cs = append(cs, cand{d, b.closestBound(d)})
	}
	b.t.gen.closest = cs
	slices.SortFunc(cs, byBound)
	best, most = cs[0].d, -1
	for _, c := range cs {
		if c.ub < most || (c.ub == most && c.d > best) {
			break // sorted by bound, then ID: nothing left beats best
		}
		if k := b.slots(c.d); k > most || (k == most && c.d < best) {
			best, most = c.d, k
		}
	}
	return best
}

// closestBound is closest's upper bound on the copies of the largest
// member d holds: its free sum over the largest request, per resource.
func (b *builder) closestBound(d DomainID) int64 {
	R := len(b.c.res)
	ub := int64(b.sh.n)
	for r := range R {
		if q := b.sh.maxReq[r]; q > 0 {
			ub = min(ub, b.c.freeSum[int(d)*R+r]/q)
		}
	}
	return ub
}

// times sets kq[r] to k copies of the largest request of r, -1 when that
// overflows (no sum reaches it); 0 for a resource not requested.
func (b *builder) times(kq []int64, k int64) {
	for r := range kq {
		q := b.sh.maxReq[r]
		switch {
		case q <= 0 || k <= 0:
			kq[r] = 0
		case k > math.MaxInt64/q:
			kq[r] = -1
		default:
			kq[r] = k * q
		}
	}
}

// boundAtLeast reports whether closestBound(d) ≥ k, given kq = times(k)
// and k ≤ the group's pending members: each requested resource's free
// sum holds k copies.
func (b *builder) boundAtLeast(d DomainID, kq []int64) bool {
	R := len(kq)
	for r, need := range kq {
		if need < 0 || b.c.freeSum[int(d)*R+r] < need {
			return false
		}
	}
	return true
}

// slots counts the copies of the largest member d's admitting nodes hold
// (see closest), up to the pending members. A node with a free class (see
// freeClasses) holds what its class's row does, counted once per class
// and call: a cluster has few node shapes and usage states, and dividing
// every node's row was most of the count of a failing block set whose
// nodes differ one from the next (a third of the resize). Of the other
// nodes, one whose free row equals the one before it holds as many
// copies (a load per resource where counting costs a division). When
// every node of d is plain and no member has a nodeSelector or node
// affinity, every node admits the group: asking each (admits) was a third
// of the count of a failing block set.
func (b *builder) slots(d DomainID) int64 {
	R := len(b.c.res)
	n := int64(b.sh.n)
	plain := b.plainPass && b.t.doms[d].plain
	if plain {
		// Each requested resource free alike on every node of d (its
		// free sum is its largest free times the nodes): every node holds
		// the same copies, and an empty block is counted without reading
		// its nodes.
		if k, ok := b.uniformCopies(d); ok {
			return min(n, k*int64(len(b.t.doms[d].nodes)))
		}
	}
	fc, cc := b.c.freeClassesOf(), &b.t.gen.slots
	cc.next() // a count per class for this builder's largest member
	cc.fit(len(fc.index))
	of, at, cnt, gen := fc.of, cc.at, cc.cnt, cc.gen
	var sum, kPrev int64
	var prev []int64 // the free row kPrev was counted from
	for _, id := range b.t.doms[d].nodes {
		var k int64
		if c := of[id]; c >= 0 {
			if at[c] != gen {
				at[c], cnt[c] = gen, b.copies(fc.rows[int(c)*R:int(c+1)*R])
			}
			k = cnt[c]
		} else {
			row := b.c.nodeFree[int(id)*R : int(id+1)*R]
			if prev == nil || !slices.Equal(row, prev) {
				kPrev, prev = b.copies(row), row
			}
			k = kPrev
		}
		if k > 0 && (plain || b.admits(id)) {
			if sum += k; sum >= n {
				return n
			}
		}
	}
	return sum
}

// copies is the copies of the largest member a node whose free row is
// row holds, up to the pending members.
func (b *builder) copies(row []int64) int64 {
	k := int64(b.sh.n)
	for r, f := range row {
		if q := b.sh.maxReq[r]; q > 0 {
			k = min(k, max(f, 0)/q)
		}
	}
	return k
}

// uniformCopies returns the copies of the largest member each node of d
// holds, up to the pending members, when the aggregates prove every node
// of d holds as many: for each requested resource the free sum (of
// max(free, 0)) equals the largest free times the nodes, which no node
// below the largest allows. ok is false otherwise, or when that product
// would pass int64 (the sum is clamped there).
func (b *builder) uniformCopies(d DomainID) (k int64, ok bool) {
	R := len(b.c.res)
	nodes := int64(len(b.t.doms[d].nodes))
	k = int64(b.sh.n)
	for r := range R {
		q := b.sh.maxReq[r]
		if q <= 0 {
			continue
		}
		i := int(d)*R + r
		f := b.c.maxFree[i]
		if f < 0 || nodes == 0 || f > math.MaxInt64/nodes || b.c.freeSum[i] != f*nodes {
			return 0, false
		}
		k = min(k, f/q)
	}
	return k, true
}

// widen emits, for each domain D of doms (-1: the whole cluster), D
// restricted to the fewest sub-domains at level prev that can hold every
// member, in tiers by their number, then every D whole. With last set every
// D is emitted whole, even one that cannot hold the minimum, so that the
// solver can explain the failure.
func (b *builder) widen(doms []DomainID, prev int, last bool) {
	R := len(b.c.res)
	type restricted struct {
		d     DomainID
		nodes []placement.NodeID
		k     int
	}
	var rs []restricted
	var wholes []DomainID
	maxK := 0
	for _, D := range doms {
		if D >= 0 && !last && !b.canHold(D) {
			continue
		}
		subs := b.subDomains(D, prev)
		must := map[DomainID]bool{}
		outside := false // a bound member in no sub-domain: no restriction holds it
		for _, id := range b.bound {
			sd := b.t.domainOf(id, prev)
			must[sd] = true
			outside = outside || sd < 0
		}
		// Sub-domains with bound members first, then by how many copies of
		// the largest member their summed free capacity holds, then path.
		type sub struct {
			d     DomainID
			must  bool
			slots int64
		}
		keyed := make([]sub, len(subs))
		for i, d := range subs {
			v := int64(math.MaxInt64)
			for r := range R {
				if q := b.sh.maxReq[r]; q > 0 {
					v = min(v, b.c.freeSum[int(d)*R+r]/q)
				}
			}
			keyed[i] = sub{d, must[d], v}
		}
		slices.SortFunc(keyed, func(x, y sub) int {
			if x.must != y.must {
				if x.must {
					return -1
				}
				return 1
			}
			if c := cmp.Compare(y.slots, x.slots); c != 0 {
				return c
			}
			return cmp.Compare(x.d, y.d)
		})
		for i := range keyed {
			subs[i] = keyed[i].d
		}
		free := make([]int64, R)
		covered, k := false, 0
		for _, sd := range subs {
			if outside {
				break
			}
			k++
			covered = true
			for r := range R {
				free[r] = arith.SatAdd(free[r], b.c.freeSum[int(sd)*R+r])
				covered = covered && free[r] >= b.sh.total[r]
			}
			if covered && k >= len(must) {
				break
			}
		}
		whole := b.allNodes(D)
		if covered && !b.sh.unknown {
			var nodes []placement.NodeID
			for _, sd := range subs[:k] {
				nodes = append(nodes, b.t.doms[sd].nodes...)
			}
			slices.Sort(nodes)
			if len(nodes) == len(whole) {
				nodes = whole
			} else {
				wholes = append(wholes, D)
			}
			rs = append(rs, restricted{D, nodes, k})
			maxK = max(maxK, k)
		} else {
			wholes = append(wholes, D)
		}
	}
	slices.SortStableFunc(rs, func(x, y restricted) int { return cmp.Compare(x.k, y.k) })
	for _, r := range rs {
		b.emit(r.d, r.nodes, b.rank+r.k)
	}
	b.rank += maxK + 1
	if len(wholes) > 0 {
		for _, D := range wholes {
			b.emit(D, b.allNodes(D), b.rank)
		}
		b.rank++
	}
}

func (b *builder) allNodes(D DomainID) []placement.NodeID {
	if D < 0 {
		return b.t.allNodes
	}
	return b.t.doms[D].nodes
}

// subDomains returns the domains of level inside D (-1: the whole
// cluster), in path order.
func (b *builder) subDomains(D DomainID, level int) []DomainID {
	if D < 0 {
		return b.t.levelDomains(level)
	}
	cur := []DomainID{D}
	for l := b.t.doms[D].level; l < level; l++ {
		var next []DomainID
		for _, d := range cur {
			next = append(next, b.t.doms[d].children...)
		}
		cur = next
	}
	return cur
}
