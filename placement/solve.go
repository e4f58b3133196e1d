package placement

import (
	"cmp"
	"fmt"
	"github.com/gangsched/gangsched/internal/arith"
	"maps"
	"math/bits"
	"slices"
	"strings"
)

// DefaultBudget is the budget a zero Options.Budget stands for: enough for
// a 4,096-member group over 10,000 nodes with hooks on every pair.
const DefaultBudget int64 = 1 << 27

// Options configures [Solve]. The zero value solves with upstream's
// defaults: one placement holding every node, resource fit plus
// nodeSelector, taints and unschedulable as filters, and [DefaultScorer].
type Options struct {
	// Filters are the caller's per-pod, per-node checks, applied after the
	// built-in ones.
	Filters []Filter
	// Reservers create stateful per-solve hooks (e.g. DRA claim
	// allocation); see [Reserver].
	Reservers []NewReserverFunc
	// Generator yields candidate placements; nil means one placement named
	// "" with every node (a group without topology constraints). Solve
	// skips a placement that lacks the node of a bound member.
	Generator PlacementGenerator
	// Scorer ranks feasible placements; nil means [DefaultScorer].
	Scorer PlacementScorer
	// PlacementFilters check each feasible placement's whole assignment.
	PlacementFilters []PlacementFilter
	// Budget caps the work of one solve, counted in node visits (a pass
	// over a placement's nodes that starts under it may end over it): a member
	// placed one by one costs the nodes of the placement, a run of
	// identical members placed as a batch costs them once, a batch over the
	// whole cluster costs its classes of identical nodes. 0 means
	// [DefaultBudget]. It is counted, never timed, so the same input always
	// gives the same decision (and Decision.Steps reports what was spent).
	Budget int64
	// SearchBudget caps the exhaustive search in one placement, in the same
	// units, within what is left of Budget (at most half of it); 0 means
	// [DefaultSearchBudget]. A search cut short leaves Decision.Proven
	// false.
	SearchBudget int64
	// NodeScoring chooses each member's node inside a placement; the zero
	// value is gangsched's packing, [UpstreamNodeScoring] kube-scheduler's
	// default profile. See [NodeScoring].
	NodeScoring NodeScoring
	// StatusOnly is for a caller that reads only whether the group is
	// Scheduled, and Bound and Required (a victim search trying what-ifs,
	// KEP-5710). When no placement is feasible, the decision then comes
	// without the explanation of the first waiting member (Reasons is
	// empty, Message gives the count that fits only), and an Unschedulable
	// status is not told apart from Unresolvable, which costs a pass over
	// the placements' nodes. Every other decision, Scheduled ones
	// included, is the same as without it.
	StatusOnly bool
}

// DefaultSearchBudget is the search budget a zero Options.SearchBudget
// stands for: a few milliseconds of search per placement.
const DefaultSearchBudget int64 = 1 << 20

// Solve decides where the pending members of g go on s: all-or-nothing
// for a gang (bound plus placed members reach MinCount, every sub-group
// reaches its own minimum, or nothing is placed), as many as fit for a
// basic group. It never moves bound members and never modifies s. The
// decision depends only on the contents of s and g, never on the order of
// g.Members or of the snapshot's input slices.
//
// How: the generator's placements are tried rank by rank. In each placement
// the members first go greedily, in [MemberOrder], each to the node that
// passes every filter and scores highest by Options.NodeScoring, ties by
// node name — by default the most allocated after taking it, so members
// pack (kube-scheduler's default profile spreads them instead, see
// [NodeScoring]); a member that fits nowhere waits. When that leaves members
// waiting and the members differ (requests, selectors, caller filters,
// affinity, sub-groups), the solver tries first-fit decreasing, then a
// complete depth-first search over member-to-node choices — identical
// nodes and identical members are tried once — within the budget, so a
// placement is found whenever one exists and the search can finish
// (Decision.Proven says whether it did). A placement is feasible when
// enough members fit, every constraint holds and every PlacementFilter
// accepts it; the feasible placement of the lowest rank with the highest
// score wins, ties by placement name.
//
// Pods of a [PodSet] are members like the others (same order, same
// batches), answered in Decision.PodSetAssignments instead of one
// assignment each.
//
// Errors (a [*FieldError], for bad input only — "does not fit" is a
// decision): an invalid group (see [Group]; an invalid [PodSet], more
// than [MaxPending] pods or [MaxPodSets] sets, or pod sets combined with
// affinity terms, SubGroups or Options.Reservers), a member with invalid
// requests or affinity terms, bound members of a sub-group already in two
// domains of its key, a generated placement whose node IDs are not
// ascending, unique and of s, or an error from a generator or a
// NewReserverFunc; a nil s or g, a nil hook in opts, or a NewReserverFunc
// that returns a nil Reserver.
func Solve(s *Snapshot, g *Group, opts Options) (Decision, error) {
	if err := checkArgs("Solve", s, g, &opts, nil); err != nil {
		return Decision{}, err
	}
	bound := s.GroupMembers(g.Key())
	members, err := g.validate(s, bound)
	if err != nil {
		return Decision{}, err
	}
	// Hooks get a private copy that carries the compiled members, so that
	// they need not read every member's maps again; the caller's Group is
	// never written.
	gc := *g
	gc.prep = &prepared{b: s.b, bound: len(bound)}
	if len(g.PodSets) > 0 {
		if len(opts.Reservers) > 0 {
			return Decision{}, Errorf(ErrInvalid, groupObj(g), "Options.Reservers", "cannot be combined with pod sets: list the pods as members")
		}
		gc.PodSets = slices.Clone(g.PodSets)
		gc.prep.starts = make([]int, len(g.PodSets)+1)
		gc.prep.starts[0] = len(g.Members)
		for k := range gc.PodSets {
			// Hooks and messages see the set's pods as pods of the group
			// named after the set.
			t := &gc.PodSets[k].Template
			t.Namespace, t.Name, t.SchedulingGroup, t.NodeName, t.UID = g.Namespace, gc.PodSets[k].Name, g.Name, "", ""
			gc.prep.starts[k+1] = gc.prep.starts[k] + int(gc.PodSets[k].Count)
		}
	}
	g = &gc
	if err := opts.NodeScoring.Validate(); err != nil {
		return Decision{}, err
	}
	sv := &solver{s: s, g: g, opts: opts, R: len(s.b.res), bound: len(bound), budget: opts.Budget, ns: compileNodeScoring(s.b, opts.NodeScoring)}
	sv.sc = scratchPool.Get().(*scratch)
	sv.gs = sv.sc.gs
	if sv.budget <= 0 {
		sv.budget = DefaultBudget
	}
	if opts.Scorer == nil {
		sv.opts.Scorer = DefaultScorer{}
	}
	boundAffinity := slices.ContainsFunc(bound, func(p *Pod) bool { return p.Affinity != nil })
	if err := sv.prepareMembers(members, boundAffinity); err != nil {
		return Decision{}, err
	}
	// Constraints between members: sub-groups or affinity terms, which
	// validate ruled out with pod sets.
	constrained := len(g.SubGroups) > 0 || boundAffinity
	for i := 0; i < len(g.Members) && !members.noAffinity; i++ {
		constrained = constrained || g.Members[i].Affinity != nil
	}
	if constrained && len(g.PodSets) == 0 {
		pending := make([]*Pod, len(sv.members)) // in member order
		for i, m := range sv.members {
			pending[i] = sv.pod(m.row)
		}
		if len(g.SubGroups) > 0 {
			if err := validateSubGroups(g, append(slices.Clone(bound), pending...)); err != nil {
				return Decision{}, err
			}
		}
		sv.cons = compileCons(s, g, bound, pending)
		sv.pos = make([]NodeID, len(bound)+len(pending))
	}
	if sv.cons != nil {
		if err := sv.cons.boundConflict(g); err != nil {
			return Decision{}, err
		}
		for i := range sv.pos {
			sv.pos[i] = -1
			if i < len(bound) {
				sv.pos[i], _ = s.b.byName(bound[i].NodeName)
			}
		}
	}
	sv.required, sv.need = len(bound)+1, 1
	if g.IsGang() {
		sv.required = max(int(g.MinCount), len(bound)+1)
		sv.need = max(int(g.MinCount)-len(bound), 1)
	}
	for i, nr := range opts.Reservers {
		r, err := nr(s, sv.hookGroup())
		if err != nil {
			return Decision{}, err
		}
		if r == nil {
			return Decision{}, Errorf(ErrInvalid, groupObj(g), fmt.Sprintf("Options.Reservers[%d]", i), "returned a nil Reserver and no error")
		}
		sv.reservers = append(sv.reservers, r)
	}
	var placements []Placement
	if opts.Generator == nil {
		placements = []Placement{{Nodes: s.b.allNodes}}
	} else {
		var err error
		if placements, err = opts.Generator.Generate(s, sv.hookGroup()); err != nil {
			return Decision{}, err
		}
	}
	// An attempt touches at most a node per pod it places, and only nodes
	// of its placement.
	most := 0
	for i := range placements {
		most = max(most, len(placements[i].Nodes))
	}
	sv.w = sv.sc.work(sv.R, len(s.b.nodes), min(g.NumPending(), most))
	sv.boundNodes = make([]NodeID, len(bound))
	for i, b := range bound {
		sv.boundNodes[i], _ = s.NodeOf(b)
	}
	d, err := sv.solve(placements)
	sv.release()
	return d, err
}

// checkPlacement rejects a generator's placement whose node IDs are not
// ascending, unique and of s: a repeated node would be filled twice over,
// and an unknown one does not exist.
func checkPlacement(s *Snapshot, p *Placement) error {
	for i, id := range p.Nodes {
		if id < 0 || int(id) >= s.NumNodes() {
			return Errorf(ErrInvalid, fmt.Sprintf("placement %q", p.Name), fmt.Sprintf("nodes[%d]", i), "node ID %d is not in 0..%d", id, s.NumNodes()-1)
		}
		if i > 0 && id <= p.Nodes[i-1] {
			return Errorf(ErrInvalid, fmt.Sprintf("placement %q", p.Name), fmt.Sprintf("nodes[%d]", i), "node ID %d does not follow %d: IDs must ascend without duplicates", id, p.Nodes[i-1])
		}
	}
	return nil
}

// member is one pending pod: 8 bytes and no pointer, so that the pods of a
// large pod set cost little to list and nothing to the garbage collector.
// What it shares with its row (a member, or a pod set whose pods are
// identical) is kept per row.
type member struct {
	row   int32 // its pod is sv.pod(row), its requests sv.req(row)
	index int32 // pending index (see Group.NumPending)
}

type solver struct {
	s            *Snapshot
	g            *Group
	hg           Group // see hookGroup
	opts         Options
	R            int
	members      []member
	sc           *scratch // memory from the pool; see release
	bySize       []int    // ffdOrder, once built
	gs           groupScratch
	reqs         []int64 // per class, the requests indexed like Snapshot.b.res; the pods count is 1
	class        []int32 // per row: rows of one class are interchangeable
	size         []int64 // per row, for first-fit decreasing: sum of request/largest allocatable
	cols         []int   // the columns of the tracked resources but pods, in compile's lookup order
	bound        int
	required     int // members (bound included) the decision must reach
	need         int // pending members that must be placed
	reservers    []Reserver
	cons         *cons
	pos          []NodeID // with cons: node of every member, bound first
	boundNodes   []NodeID
	missing      map[*Pod]ResourceName // member or template -> an untracked resource it requests
	smallest     []smallestSums        // per resource, built on first use
	insufficient []string              // per resource, its Reason; built on first use
	w            *work
	classes      int // distinct member classes
	steps        int64
	budget       int64
	exhausted    bool
	lastRun      bool        // the greedy's last batched run: see assignRun
	ns           *nodeScorer // nil: packing (nodeScore's own)
	// searchBudgetCut is set when a search stopped at Options.SearchBudget
	// rather than at its share of what was left of Options.Budget.
	searchBudgetCut bool
}

// prepareMembers sorts the pending pods into member order, validates them
// and compiles their requests into vectors, reading each member's and each
// pod set's maps once. The vectors are kept in g.prep (g is Solve's private
// copy), where hooks read them through [Group.RequestVector]. What
// validate learnt of g.Members spares passes over them. boundAffinity
// says a bound member has affinity terms, which may tell pending members
// apart by their labels.
func (sv *solver) prepareMembers(members checked, boundAffinity bool) error {
	g := sv.g
	n := len(g.Members)
	// A row is a member or a pod set, whose pods are consecutive in member
	// order: they are identical.
	rows := grow(sv.sc.rows, n+len(g.PodSets))
	sv.sc.rows = rows
	for i := range rows {
		rows[i] = int32(i)
	}
	byOrder := func(a, b int32) int { return MemberOrder(sv.pod(a), sv.pod(b)) }
	// Hosts usually pass members already in member order (the gang cycle
	// does): checking costs n-1 comparisons, sorting n log n. Members of
	// one priority and queue time (the usual gang) compare by name alone:
	// identical fields mean equal times.
	inOrder, first := true, 1
	if members.inOrder {
		first = max(n, 1)
	}
	for i := first; i < len(rows) && inOrder; i++ {
		a, b := sv.pod(rows[i-1]), sv.pod(rows[i])
		if a.Priority == b.Priority && a.QueuedAt == b.QueuedAt && a.Namespace == b.Namespace {
			inOrder = a.Name <= b.Name
		} else {
			inOrder = MemberOrder(a, b) <= 0
		}
	}
	if !inOrder {
		slices.SortFunc(rows, byOrder)
	}
	// Members are merged into classes only when nothing can tell them
	// apart: labels matter to affinity (a bound member's too) and
	// sub-groups, and a caller's Filter or Reserver sees the pod itself (a
	// pod set's pods, one pod to a hook, stay one class).
	distinct := boundAffinity || len(g.SubGroups) > 0 || len(sv.opts.Filters) > 0 || len(sv.opts.Reservers) > 0
	for i := 0; i < n && !members.noAffinity; i++ { // pod set templates have none
		distinct = distinct || g.Members[i].Affinity != nil
	}
	b := sv.s.b
	sv.members = grow(sv.sc.members, g.NumPending())
	// Per row its class, per class one request vector: rows of a class
	// request the same. Hooks read both through g.prep, possibly after the
	// solve, so they do not come from the pool.
	sv.class, sv.size = make([]int32, len(rows)), grow(sv.sc.size, len(rows))
	sv.reqs = sv.reqs[:0]
	req := make([]int64, sv.R) // the member being compiled
	sv.cols = sv.sc.cols[:0]
	for j := range sv.R {
		if j != b.podsR {
			sv.cols = append(sv.cols, j)
		}
	}
	var classes classIndex
	i := 0
	for k, row := range rows {
		start, count := int(row), 1
		if int(row) >= n {
			start, count = g.prep.starts[int(row)-n], int(g.PodSets[int(row)-n].Count)
		}
		m := &sv.members[i]
		m.row = row
		m.index = int32(start)
		if !sv.compile(row, req) {
			return firstBadPod(g.Members) // the slow path names the field
		}
		if prev := rows[max(k-1, 0)]; k > 0 && sv.sameClass(prev, row, req, distinct) {
			sv.class[row], sv.size[row] = sv.class[prev], sv.size[prev] // runs of identical members are the rule
		} else {
			sv.class[row] = classes.of(sv, row, req, distinct)
			sv.size[row] = b.ffdSize(req)
		}
		// A pod set's other pods: one 8-byte store each, no bounds check.
		rest := sv.members[i+1 : i+count]
		for c := range rest {
			rest[c] = member{row: row, index: int32(start + 1 + c)}
		}
		i += count
	}
	sv.classes = len(classes.reps)
	g.prep.req, g.prep.rowClass = sv.reqs, sv.class
	g.prep.classRow, g.prep.classPods = classes.reps, make([]int, sv.classes)
	for _, row := range rows {
		g.prep.classPods[sv.class[row]] += 1
		if int(row) >= n {
			g.prep.classPods[sv.class[row]] += int(g.PodSets[int(row)-n].Count) - 1
		}
	}
	return nil
}

// ffdSize is a pod's size for first-fit decreasing: the sum, over the
// resources it requests (the pod count excluded), of its request as a share
// of the largest allocatable.
func (b *base) ffdSize(req []int64) int64 {
	var size int64
	for j, q := range req {
		if j != b.podsR {
			size += arith.MulDiv(min(q, b.largest[j]), scoreScale, b.largest[j])
		}
	}
	return size
}

// compile fills req with the requests of row from its pod's map and
// reports whether they are valid. Looking up each tracked resource beats
// iterating the map; the map is iterated only when it holds a name the
// snapshot does not track, the pods count (never looked up: a pod never
// lists it) or an invalid entry, which the count of found names reveals.
func (sv *solver) compile(row int32, req []int64) bool {
	b := sv.s.b
	p := sv.pod(row)
	clear(req)
	req[b.podsR] = 1
	// Each name found moves to the front of sv.cols, so a run of members
	// alike finds all theirs before any miss (a miss hashes the name too).
	found, cols := 0, sv.cols
	for k := 0; k < len(cols) && found < len(p.Requests); k++ {
		j := cols[k]
		q, ok := p.Requests[b.res[j]]
		if !ok {
			continue
		}
		if q < 0 {
			return false
		}
		req[j] = q
		cols[k], cols[found] = cols[found], j
		found++
	}
	if p.Name == "" {
		return false
	}
	if found == len(p.Requests) {
		return true
	}
	for r, q := range p.Requests {
		if r == "" || r == ResourcePods || q < 0 {
			return false
		}
		if _, known := b.resIdx[r]; !known && q > 0 {
			if sv.missing == nil {
				sv.missing = map[*Pod]ResourceName{}
			}
			if old, ok := sv.missing[p]; !ok || r < old {
				sv.missing[p] = r // the first by name, whatever the map order
			}
			sv.g.prep.untracked = true
		}
	}
	return true
}

// hookGroup returns the group to hand a hook: a fresh copy of sv.g, so
// that a hook reassigning its fields (Members, PodSets) reaches neither
// the caller's group nor the one the solver reads its rows from.
func (sv *solver) hookGroup() *Group {
	sv.hg = *sv.g
	return &sv.hg
}

// pod returns the pod of row: a member, or a pod set's template.
func (sv *solver) pod(row int32) *Pod {
	if n := len(sv.g.Members); int(row) >= n {
		return &sv.g.PodSets[int(row)-n].Template
	}
	return &sv.g.Members[row]
}

// req returns the requests of row (see member): its class's.
func (sv *solver) req(row int32) []int64 {
	o := int(sv.class[row]) * sv.R
	return sv.reqs[o : o+sv.R : o+sv.R]
}

// missingOf is the first resource (by name) that member m requests and no
// node has, or "".
func (sv *solver) missingOf(m *member) ResourceName { return sv.missing[sv.pod(m.row)] }

// firstBadPod returns the error of the first member, in key order, whose
// own fields are invalid.
func firstBadPod(members []Pod) error {
	order := make([]*Pod, len(members))
	for i := range members {
		order[i] = &members[i]
	}
	slices.SortFunc(order, func(a, b *Pod) int { return a.Key().Compare(b.Key()) })
	for _, p := range order {
		if err := checkPod(p); err != nil {
			return err
		}
	}
	return nil
}

// classIndex finds, for each row, an earlier interchangeable row: rows are
// told apart by a hash of their requests, and compared in full only when
// the hashes match. A group has a few classes, usually one: the first
// eight are scanned, a map indexes more.
type classIndex struct {
	reps   []int              // class id -> its first row
	hashes []uint64           // class id -> its requests' hash
	byHash map[uint64][]int32 // hash -> class ids, once there are many
}

// of returns the class of row, whose requests are req, creating it (with
// req appended to sv.reqs) when no earlier row is interchangeable.
func (c *classIndex) of(sv *solver, row int32, req []int64, withLabels bool) int32 {
	h := uint64(14695981039346656037)
	for _, q := range req {
		h = (h ^ uint64(q)) * 1099511628211
	}
	same := func(id int32) bool { return c.hashes[id] == h && sv.sameClass(int32(c.reps[id]), row, req, withLabels) }
	if c.byHash == nil {
		for id := range int32(len(c.reps)) {
			if same(id) {
				return id
			}
		}
	} else {
		for _, id := range c.byHash[h] {
			if same(id) {
				return id
			}
		}
	}
	id := int32(len(c.reps))
	c.reps, c.hashes = append(c.reps, int(row)), append(c.hashes, h)
	switch {
	case c.byHash != nil:
		c.byHash[h] = append(c.byHash[h], id)
	case len(c.reps) > 8:
		c.byHash = map[uint64][]int32{}
		for k, hk := range c.hashes {
			c.byHash[hk] = append(c.byHash[hk], int32(k))
		}
	}
	sv.reqs = append(sv.reqs, req...)
	return id
}

// sameClass reports whether row, whose requests are req, is
// interchangeable with row a, which has a class: the solver reads the same
// of both. Labels and affinity matter only to groups with affinity terms
// or sub-groups, and then no two members are merged.
func (sv *solver) sameClass(a, row int32, req []int64, withLabels bool) bool {
	if withLabels || !slices.Equal(sv.req(a), req) || (sv.missing != nil && sv.missing[sv.pod(a)] != sv.missing[sv.pod(row)]) {
		return false
	}
	pa, pb := sv.pod(a), sv.pod(row)
	// Ranging over even an empty map costs an iterator: most pods have no
	// selector.
	if len(pa.NodeSelector)+len(pb.NodeSelector) > 0 && !maps.Equal(pa.NodeSelector, pb.NodeSelector) {
		return false
	}
	return slices.Equal(pa.Tolerations, pb.Tolerations)
}

// attempt is the outcome of placing the members in one placement.
type attempt struct {
	p         *Placement
	node      []NodeID // per member (in member order), -1 = waiting; nil when batched
	seq       []int    // with node: members in the order they were placed
	segs      []seg    // batched: the placed members; see segsOf
	normal    bool     // segs is segsOf's
	placed    int
	pref      int64  // preference score of the affinity terms
	violation string // a broken constraint, when enough members fit
	proven    bool   // the placed count is the most possible here
	cut       bool   // the search stopped at its budget
	untried   bool   // the budget ran out before every member was tried
	short     bool   // counted by shortByClasses: the first placed members fit, the rest wait; no segments
	score     int64
	as        []Assignment // as handed to the placement filters and scorer
	reject    Rejection    // from a PlacementFilter
}

// ok reports whether the attempt satisfies the group's requirements.
func (sv *solver) ok(a *attempt) bool {
	return a.placed >= sv.need && a.placed > 0 && a.violation == ""
}

// usable checks a generated placement before its first attempt (so that
// placements of ranks never reached cost nothing) and reports whether it
// holds every bound member's node: one that does not cannot hold the whole
// group (DESIGN.md invariant 5, which Verify checks), whatever the
// generator thought.
func (sv *solver) usable(p *Placement) (bool, error) {
	if len(p.Nodes) > 0 && len(p.Nodes) == len(sv.s.b.nodes) && &p.Nodes[0] == &sv.s.b.allNodes[0] {
		return true, nil
	}
	if err := checkPlacement(sv.s, p); err != nil {
		return false, err
	}
	for _, id := range sv.boundNodes {
		if _, in := slices.BinarySearch(p.Nodes, id); !in {
			return false, nil
		}
	}
	return true, nil
}

func (sv *solver) solve(placements []Placement) (Decision, error) {
	d := Decision{Group: sv.g.Key(), Bound: sv.bound, Required: sv.required}
	ranks := make([]int, 0, 4)
	for i := range placements {
		ranks = append(ranks, placements[i].Rank)
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)

	var bestFail *attempt // most members placed, first tried; not rejected
	var rejected *attempt // first rejected by a PlacementFilter
	resolvableReject := false
	proven, cut := true, false
	for _, rank := range ranks {
		var win *attempt
		for i := range placements {
			p := &placements[i]
			if p.Rank != rank {
				continue
			}
			if sv.exhausted {
				break // the budget ran out in the placement before
			}
			if ok, err := sv.usable(p); err != nil {
				return Decision{}, err
			} else if !ok {
				continue
			}
			a := sv.attempt(p)
			cut = cut || a.cut
			if sv.ok(a) {
				// Without a hook to read them, the assignments are only
				// listed for the winner: a SumScorer reads the sums of
				// the solver's classes.
				if ss, bySums := sv.opts.Scorer.(SumScorer); bySums && len(sv.opts.PlacementFilters) == 0 {
					a.score = ss.ScoreSums(sv.s, sv.hookGroup(), p, int64(a.placed), sv.placedSums(a))
				} else {
					a.as = sv.assignments(a)
				}
				for _, f := range sv.opts.PlacementFilters {
					if r := f.FilterPlacement(sv.s, sv.hookGroup(), p, a.as); !r.OK() {
						a.reject = r
						break
					}
				}
				if a.reject.OK() {
					if a.as != nil {
						a.score = sv.opts.Scorer.Score(sv.s, sv.hookGroup(), p, a.as)
					}
					if win == nil || a.score > win.score || (a.score == win.score && p.Name < win.p.Name) {
						win = a
					}
					continue
				}
				if rejected == nil {
					rejected = a
				}
				resolvableReject = resolvableReject || !a.reject.Unresolvable
				proven = proven && a.proven
				continue
			}
			proven = proven && a.proven
			if bestFail == nil || a.placed > bestFail.placed {
				bestFail = a
			}
		}
		if win != nil {
			d.Status = Scheduled
			d.Placement = *win.p
			d.Assignments, d.PodSetAssignments = sv.outputs(win)
			d.Waiting = sv.waiting(win)
			d.Score = win.score
			d.MostFit = sv.bound + win.placed
			d.Steps = sv.steps
			d.Truncated = sv.exhausted
			d.Proven = win.proven
			d.Message = fmt.Sprintf("%d of %d members placed%s", win.placed, len(sv.members), inName(win.p))
			if sv.bound > 0 {
				d.Message += fmt.Sprintf(" (%d already bound)", sv.bound)
			}
			return d, nil
		}
		if sv.exhausted {
			break
		}
	}
	d.Steps = sv.steps
	d.Proven = proven && !cut && !sv.exhausted
	d.Waiting = make([]Key, 0, len(sv.g.Members))
	for i := range sv.members {
		if int(sv.members[i].index) < len(sv.g.Members) {
			d.Waiting = append(d.Waiting, sv.pod(sv.members[i].row).Key())
		}
	}
	d.Status = Unschedulable
	if sv.exhausted || cut {
		d.Status = BudgetExhausted
	}
	if bestFail == nil && rejected == nil {
		d.Status = Unresolvable
		d.Message = fmt.Sprintf("0 of min %d members fit: no candidate placement", sv.required)
		if sv.exhausted {
			d.Status = BudgetExhausted
			d.Message = fmt.Sprintf("budget of %d steps exhausted before any placement was tried", sv.budget)
		}
		return d, nil
	}
	if rejected != nil {
		d.Placement = *rejected.p
		d.MostFit = sv.bound + rejected.placed
		d.Message = fmt.Sprintf("%d of min %d members fit%s but the placement was rejected: %s",
			d.MostFit, sv.required, inName(rejected.p), rejected.reject.Reason)
		if !resolvableReject && bestFail == nil && d.Status == Unschedulable {
			d.Status = Unresolvable
		}
		return d, nil
	}
	d.Placement = *bestFail.p
	d.MostFit = sv.bound + bestFail.placed
	if sv.opts.StatusOnly {
		d.Message = fmt.Sprintf("%d of min %d members fit%s", d.MostFit, sv.required, inName(bestFail.p))
		return d, nil
	}
	first, reasons, unresolvable := sv.diagnose(bestFail)
	d.Reasons = reasons
	// Unresolvable is proven whatever the budget: it asks what could fit on
	// an empty cluster, not what the search found.
	if (d.Status == Unschedulable || d.Status == BudgetExhausted) && (unresolvable || !sv.roomSomewhereIfEmpty(placements)) {
		d.Status, d.Proven = Unresolvable, true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of min %d members fit%s", d.MostFit, sv.required, inName(bestFail.p))
	if sv.bound > 0 {
		fmt.Fprintf(&b, " (%d bound)", sv.bound)
	}
	if bestFail.violation != "" {
		fmt.Fprintf(&b, "; %s", bestFail.violation)
	} else if first != nil && !bestFail.untried {
		who := sv.pod(first.row).Key().String()
		if int(first.index) >= len(sv.g.Members) {
			who = "a pod of pod set " + who
		}
		fmt.Fprintf(&b, "; %s fits on none of %d nodes", who, len(bestFail.p.Nodes))
		if len(reasons) > 0 {
			fmt.Fprintf(&b, ": %s", formatReasons(reasons))
		}
	}
	switch {
	case d.Status != BudgetExhausted:
	case sv.exhausted || !sv.searchBudgetCut:
		fmt.Fprintf(&b, "; budget of %d steps exhausted", sv.budget)
	default:
		fmt.Fprintf(&b, "; search budget exhausted")
	}
	d.Message = b.String()
	return d, nil
}

// roomSomewhereIfEmpty reports whether some usable placement could hold the
// members the group needs once every pod but its bound members were gone
// (a necessary condition, by summed allocatable).
func (sv *solver) roomSomewhereIfEmpty(placements []Placement) bool {
	for i := range placements {
		if ok, err := sv.usable(&placements[i]); err == nil && ok && sv.roomIfEmpty(&placements[i], sv.need) {
			return true
		}
	}
	return false
}

func inName(p *Placement) string {
	if p.Name == "" {
		return ""
	}
	return " in " + p.Name
}

// assignments lists an attempt's assignments as hooks see them: the
// members' in member order, then one entry per pod set and node (sorted
// by set name, then node name) with its pod count.
func (sv *solver) assignments(a *attempt) []Assignment {
	runs := sv.setRuns(a)
	out := sv.memberAssignments(a, len(runs), true)
	n := len(sv.g.Members)
	for _, r := range runs {
		out = append(out, Assignment{Pod: sv.pod(int32(r.row)).Key(), Node: sv.s.b.nodes[r.id].Name, NodeID: r.id,
			Member: sv.g.PodSetStart(r.row - n), Count: r.count})
	}
	return out
}

// outputs lists a winning attempt's assignments as a Decision gives them:
// the members' in member order (Member zeroed: it depends on the input
// order) and the pod sets' by set name, then node name. The list the hooks
// saw is reused when it is still the solver's own, members' entries in
// place (moving Assignments costs write barriers); a caller's
// PlacementFilter or PlacementScorer may have reordered or changed it.
func (sv *solver) outputs(a *attempt) ([]Assignment, []PodSetAssignment) {
	runs := sv.setRuns(a)
	as := a.as
	n := len(sv.g.Members)
	k := 0
	if as == nil || !sv.intact(a, runs) {
		as = sv.memberAssignments(a, 0, false)
		k = len(as)
	} else {
		for k < len(as) && as[k].Member < n {
			as[k].Member = 0
			k++
		}
	}
	var sets []PodSetAssignment
	if len(runs) > 0 {
		sets = make([]PodSetAssignment, len(runs))
		for i, r := range runs {
			// Field by field: a struct literal is copied in with a bulk
			// write barrier over the whole entry while the collector runs.
			e := &sets[i]
			e.PodSet, e.Node, e.NodeID, e.Count = sv.g.PodSets[r.row-n].Name, sv.s.b.nodes[r.id].Name, r.id, r.count
		}
		if k == 0 {
			return nil, sets
		}
	}
	return as[:k:k], sets
}

// intact reports whether a.as is still the list assignments made of
// attempt a, whose pod sets' runs are runs: O(entries), no allocation.
func (sv *solver) intact(a *attempt, runs []setRun) bool {
	n, as, k := len(sv.g.Members), a.as, 0
	for _, s := range sv.segsOf(a) {
		if int(sv.members[s.start].index) >= n {
			continue
		}
		for i := s.start; i < s.start+s.n; i++ {
			m := &sv.members[i]
			if k == len(as) || as[k] != (Assignment{Pod: sv.pod(m.row).Key(), Node: sv.s.b.nodes[s.node].Name, NodeID: s.node, Member: int(m.index)}) {
				return false
			}
			k++
		}
	}
	if len(as)-k != len(runs) {
		return false
	}
	for j, r := range runs {
		if as[k+j] != (Assignment{Pod: sv.pod(int32(r.row)).Key(), Node: sv.s.b.nodes[r.id].Name, NodeID: r.id,
			Member: sv.g.PodSetStart(r.row - n), Count: r.count}) {
			return false
		}
	}
	return true
}

// setRun is a pod set's pods on one node: row is the set's row.
type setRun struct {
	row   int
	id    NodeID
	count int32
}

// memberAssignments returns the members' assignments of attempt a in
// member order, with capacity for extra more entries; with indexes, each
// entry's Member is set (hooks read it), otherwise left 0 (a Decision's).
func (sv *solver) memberAssignments(a *attempt, extra int, indexes bool) []Assignment {
	n := len(sv.g.Members)
	if n == 0 {
		return make([]Assignment, 0, extra) // pod sets only: no pod to look at
	}
	segs, members := sv.segsOf(a), 0
	for _, s := range segs {
		if int(sv.members[s.start].index) < n {
			members += int(s.n)
		}
	}
	// Entries are written field by field into the zeroed slice: a struct
	// copy costs a bulk write barrier while the GC runs.
	out := make([]Assignment, members, members+extra)
	k := 0
	for _, s := range segs {
		if int(sv.members[s.start].index) >= n {
			continue
		}
		name := sv.s.b.nodes[s.node].Name
		for _, m := range sv.members[s.start : s.start+s.n] {
			e, p := &out[k], sv.pod(m.row)
			e.Pod.Namespace, e.Pod.Name, e.Node, e.NodeID = p.Namespace, p.Name, name, s.node
			if indexes {
				e.Member = int(m.index)
			}
			k++
		}
	}
	return out
}

// setRuns returns attempt a's pod set pods per set and node, sorted by set
// name, then node name (node IDs follow names).
func (sv *solver) setRuns(a *attempt) []setRun {
	n := len(sv.g.Members)
	if len(sv.g.PodSets) == 0 {
		return nil
	}
	// A set's run sorts as one integer: the set's rank by name (below
	// MaxPodSets, 2^10), the node, then the run's pod count in the low 21
	// bits (MaxPending is 2^20); sorting those by rank and node beats
	// sorting Assignments by string.
	const countBits = 21
	nodeBits := bits.Len(uint(len(sv.s.b.nodes)))
	rank, byRank := sv.podSetRanks()
	keys := sv.sc.keys[:0]
	for _, s := range sv.segsOf(a) {
		if m := &sv.members[s.start]; int(m.index) >= n {
			keys = append(keys, (uint64(rank[int(m.row)-n])<<nodeBits|uint64(s.node))<<countBits|uint64(s.n))
		}
	}
	sv.sc.sortTmp = sortByBits(keys, countBits, nodeBits+bits.Len(uint(len(sv.g.PodSets))), sv.sc.sortTmp)
	sv.sc.keys = keys
	runs := sv.sc.runs[:0]
	for i, r := range keys {
		key, count := r>>countBits, int32(r&(1<<countBits-1))
		if i > 0 && keys[i-1]>>countBits == key {
			runs[len(runs)-1].count += count
			continue
		}
		runs = append(runs, setRun{row: n + byRank[key>>nodeBits], id: NodeID(key & (1<<nodeBits - 1)), count: count})
	}
	sv.sc.runs = runs
	return runs
}

// podSetRanks returns each pod set's rank among the group's sets by name,
// and the set of each rank.
func (sv *solver) podSetRanks() (rank, byRank []int) {
	byRank = make([]int, len(sv.g.PodSets))
	for k := range byRank {
		byRank[k] = k
	}
	slices.SortFunc(byRank, func(x, y int) int { return strings.Compare(sv.g.PodSets[x].Name, sv.g.PodSets[y].Name) })
	rank = make([]int, len(byRank))
	for r, k := range byRank {
		rank[k] = r
	}
	return rank, byRank
}

// waiting lists the members attempt a leaves waiting, in member order.
func (sv *solver) waiting(a *attempt) []Key {
	var out []Key
	if len(sv.g.Members) == 0 {
		return out // a pod set's waiting pods are not listed
	}
	sv.gaps(a, func(i, j int) bool {
		if m := &sv.members[i]; int(m.index) < len(sv.g.Members) {
			out = append(out, sv.pod(m.row).Key())
		}
		return true
	})
	return out
}

// gaps calls f on the waiting members of attempt a, a row's at once:
// members i..j-1, of one row, in member order, until f returns false.
func (sv *solver) gaps(a *attempt, f func(i, j int) bool) {
	from := 0
	if a.short {
		from = a.placed // the first a.placed members are placed; no segments say so
	}
	for k, segs := 0, sv.segsOf(a); k <= len(segs); k++ {
		to := len(sv.members)
		if k < len(segs) {
			to = int(segs[k].start)
		}
		for i := from; i < to; {
			j := min(sv.rowEnd(i), to)
			if !f(i, j) {
				return
			}
			i = j
		}
		if k < len(segs) {
			from = int(segs[k].start + segs[k].n)
		}
	}
}

func (sv *solver) spend(n int64) bool {
	sv.steps += n
	if sv.steps > sv.budget {
		sv.exhausted = true
		return false
	}
	return true
}

// attempt finds the best assignment of the members in p: the greedy pass in
// member order, then first-fit decreasing, then the complete search. It
// leaves the scratch state clean; when the whole budget ran out, it returns
// the best assignment found so far, marked cut (what the greedy placed is
// valid).
func (sv *solver) attempt(p *Placement) *attempt {
	exact := sv.classes == 1 && sv.cons.empty() && len(sv.opts.Filters) == 0 && len(sv.reservers) == 0
	a, short := (*attempt)(nil), false
	if exact {
		a, short = sv.shortByClasses(p)
	}
	if !short {
		a = sv.greedy(p, sv.memberOrder())
	}
	if sv.exhausted {
		a.cut, a.untried = true, true // what the greedy pass placed is still a valid answer
		return a
	}
	if sv.done(a) || exact {
		// Identical members with no constraint between them: taking the
		// first in member order on the most allocated nodes places as many
		// as any assignment could.
		a.proven = true
		return a
	}
	if b := sv.greedy(p, sv.ffdOrder()); sv.better(b, a) {
		a = b
		a.untried = sv.exhausted // cut short, it may not have tried every member
	}
	if sv.exhausted {
		a.cut = true
		return a
	}
	if sv.done(a) {
		a.proven = true
		return a
	}
	return sv.search(p, a)
}

// done reports whether an attempt cannot be improved: every member placed,
// every constraint met, every preference held.
func (sv *solver) done(a *attempt) bool {
	return a.placed == len(sv.members) && a.violation == "" && (sv.cons.empty() || a.pref == sv.cons.maxPref)
}

// better orders attempts: satisfying the group first, then more members,
// then a higher preference score; ties keep the earlier one.
func (sv *solver) better(x, y *attempt) bool {
	if sv.ok(x) != sv.ok(y) {
		return sv.ok(x)
	}
	if x.placed != y.placed {
		return x.placed > y.placed
	}
	return x.pref > y.pref
}

// memberOrder is the members' indexes in member order: the identity. It
// is never modified, so the pool keeps one, filled once for the largest
// group so far.
func (sv *solver) memberOrder() []int {
	n := len(sv.members)
	if id := sv.sc.identity; len(id) < n {
		id = slices.Grow(id, n-len(id))
		for i := len(id); i < n; i++ {
			id = append(id, i)
		}
		sv.sc.identity = id
	}
	return sv.sc.identity[:n:n]
}

// ffdOrder is first-fit decreasing: the largest members first (by the sum
// of their requests relative to the largest node), ties in member order.
// Like memberOrder, it is built once and never modified.
func (sv *solver) ffdOrder() []int {
	if sv.bySize == nil {
		sv.bySize = append(sv.sc.bySize[:0], sv.memberOrder()...)
		slices.SortStableFunc(sv.bySize, func(i, j int) int { return cmp.Compare(sv.size[sv.members[j].row], sv.size[sv.members[i].row]) })
	}
	return sv.bySize
}

// finish computes the attempt's constraint verdict and preference score.
func (sv *solver) finish(a *attempt) {
	if sv.cons.empty() {
		return
	}
	a.violation = sv.cons.violation(sv.pos)
	a.pref = sv.cons.pref(sv.pos)
}
