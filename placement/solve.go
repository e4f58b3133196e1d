package placement

import (
	"cmp"
	"container/heap"
	"fmt"
	"maps"
	"math"
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
	// Budget caps the member-on-node evaluations of one solve; 0 means
	// [DefaultBudget]. It is counted, never timed, so the same input
	// always gives the same decision.
	Budget int64
}

// Solve decides where the pending members of g go on s: all-or-nothing
// for a gang (bound plus placed members reach MinCount, or nothing is
// placed), as many as fit for a basic group. It never moves bound members
// and never modifies s. The decision depends only on the contents of s and
// g, never on the order of g.Members or of the snapshot's input slices.
//
// How: the generator's placements are tried rank by rank. In each placement
// the members, in [MemberOrder], go one by one to the node that passes every
// filter and is the most allocated after taking the member (kube-scheduler
// NodeResourcesFit MostAllocated, so members pack), ties by node name; a
// member that fits nowhere waits. A placement is feasible when enough
// members fit and every PlacementFilter accepts it. The feasible placement
// of the lowest rank with the highest score wins, ties by placement name.
//
// Errors (a [*FieldError], for bad input only — "does not fit" is a
// decision): an invalid group (see [Group]), a member with invalid requests,
// a generated placement whose node IDs are not ascending, unique and of s,
// or an error from a generator or a NewReserverFunc.
func Solve(s *Snapshot, g *Group, opts Options) (Decision, error) {
	bound := s.GroupMembers(g.Key())
	if err := g.validate(s, len(bound)); err != nil {
		return Decision{}, err
	}
	sv := &solver{s: s, g: g, opts: opts, R: len(s.b.res), bound: len(bound), budget: opts.Budget}
	if sv.budget <= 0 {
		sv.budget = DefaultBudget
	}
	if opts.Scorer == nil {
		sv.opts.Scorer = DefaultScorer{}
	}
	sv.prepareMembers()
	sv.required, sv.need = len(bound)+1, 1
	if g.IsGang() {
		sv.required = max(int(g.MinCount), len(bound)+1)
		sv.need = max(int(g.MinCount)-len(bound), 1)
	}
	for _, nr := range opts.Reservers {
		r, err := nr(s, g)
		if err != nil {
			return Decision{}, err
		}
		sv.reservers = append(sv.reservers, r)
	}
	sv.w = newWork(sv.R)
	var placements []Placement
	if opts.Generator == nil {
		placements = []Placement{{Nodes: s.b.allNodes}}
	} else {
		var err error
		if placements, err = opts.Generator.Generate(s, g); err != nil {
			return Decision{}, err
		}
		for i := range placements {
			if err := checkPlacement(s, &placements[i]); err != nil {
				return Decision{}, err
			}
		}
		// A placement without a bound member's node cannot hold the whole
		// group (DESIGN.md invariant 5, which Verify checks): not a
		// candidate, whatever the generator thought.
		placements = slices.DeleteFunc(slices.Clone(placements), func(p Placement) bool {
			return slices.ContainsFunc(bound, func(b *Pod) bool {
				id, _ := s.NodeOf(b)
				_, in := slices.BinarySearch(p.Nodes, id)
				return !in
			})
		})
	}
	return sv.solve(placements), nil
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

type member struct {
	pod     *Pod
	req     []int64 // indexed like Snapshot.b.res; the pods count is 1
	missing ResourceName
	class   int32 // members of one class are interchangeable
}

type solver struct {
	s         *Snapshot
	g         *Group
	opts      Options
	R         int
	members   []member
	bound     int
	required  int // members (bound included) the decision must reach
	need      int // pending members that must be placed
	reservers []Reserver
	w         *work
	steps     int64
	budget    int64
	exhausted bool
}

func (sv *solver) prepareMembers() {
	g := sv.g
	order := make([]*Pod, len(g.Members))
	for i := range g.Members {
		order[i] = &g.Members[i]
	}
	slices.SortFunc(order, MemberOrder)
	classes := map[string]int32{}
	sv.members = make([]member, len(order))
	for i, p := range order {
		m := &sv.members[i]
		m.pod = p
		m.req = make([]int64, sv.R)
		m.req[sv.s.b.podsR] = 1
		for _, r := range slices.Sorted(maps.Keys(p.Requests)) {
			q := p.Requests[r]
			if j, ok := sv.s.b.resIdx[r]; ok {
				m.req[j] = q
			} else if q > 0 && m.missing == "" {
				m.missing = r
			}
		}
		key := classKey(p)
		c, ok := classes[key]
		if !ok {
			c = int32(len(classes))
			classes[key] = c
		}
		m.class = c
	}
}

// classKey encodes what the built-in filters read of a pod, so that pods
// with equal keys fit on exactly the same nodes.
func classKey(p *Pod) string {
	var b strings.Builder
	for _, r := range slices.Sorted(maps.Keys(p.Requests)) {
		fmt.Fprintf(&b, "%q=%d;", r, p.Requests[r])
	}
	b.WriteByte('|')
	for _, k := range slices.Sorted(maps.Keys(p.NodeSelector)) {
		fmt.Fprintf(&b, "%q=%q;", k, p.NodeSelector[k])
	}
	b.WriteByte('|')
	for _, t := range p.Tolerations {
		fmt.Fprintf(&b, "%q,%q,%q,%q;", t.Key, t.Operator, t.Value, t.Effect)
	}
	return b.String()
}

// attempt is the outcome of placing the members in one placement.
type attempt struct {
	p      *Placement
	idx    int      // position in the generator's output
	node   []NodeID // per member (in member order); -1 = waiting
	placed int
	score  int64
	reject Rejection // from a PlacementFilter
}

func (sv *solver) solve(placements []Placement) Decision {
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
	for _, rank := range ranks {
		var win *attempt
		for i := range placements {
			p := &placements[i]
			if p.Rank != rank {
				continue
			}
			a := sv.attempt(p, i)
			if a == nil {
				break // budget
			}
			if a.placed >= sv.need && a.placed > 0 {
				as := sv.assignments(a)
				for _, f := range sv.opts.PlacementFilters {
					if r := f.FilterPlacement(sv.s, sv.g, p, as); !r.OK() {
						a.reject = r
						break
					}
				}
				if a.reject.OK() {
					a.score = sv.opts.Scorer.Score(sv.s, sv.g, p, as)
					if win == nil || a.score > win.score || (a.score == win.score && p.Name < win.p.Name) {
						win = a
					}
					continue
				}
				if rejected == nil {
					rejected = a
				}
				resolvableReject = resolvableReject || !a.reject.Unresolvable
				continue
			}
			if bestFail == nil || a.placed > bestFail.placed {
				bestFail = a
			}
		}
		if win != nil {
			d.Status = Scheduled
			d.Placement = *win.p
			d.Assignments = sv.assignments(win)
			d.Waiting = sv.waiting(win)
			d.Score = win.score
			d.MostFit = sv.bound + win.placed
			d.Steps = sv.steps
			d.Truncated = sv.exhausted
			where := ""
			if win.p.Name != "" {
				where = " in " + win.p.Name
			}
			d.Message = fmt.Sprintf("%d of %d members placed%s", win.placed, len(sv.members), where)
			if sv.bound > 0 {
				d.Message += fmt.Sprintf(" (%d already bound)", sv.bound)
			}
			return d
		}
		if sv.exhausted {
			break
		}
	}
	d.Steps = sv.steps
	d.Waiting = make([]Key, len(sv.members))
	for i := range sv.members {
		d.Waiting[i] = sv.members[i].pod.Key()
	}
	d.Status = Unschedulable
	if sv.exhausted {
		d.Status = BudgetExhausted
	}
	if bestFail == nil && rejected == nil {
		d.Status = Unresolvable
		d.Message = fmt.Sprintf("0 of min %d members fit: no candidate placement", sv.required)
		if sv.exhausted {
			d.Status = BudgetExhausted
			d.Message = fmt.Sprintf("budget of %d steps exhausted before any placement was tried", sv.budget)
		}
		return d
	}
	if rejected != nil {
		d.Placement = *rejected.p
		d.MostFit = sv.bound + rejected.placed
		d.Message = fmt.Sprintf("%d of min %d members fit%s but the placement was rejected: %s",
			d.MostFit, sv.required, inName(rejected.p), rejected.reject.Reason)
		if !resolvableReject && bestFail == nil && d.Status == Unschedulable {
			d.Status = Unresolvable
		}
		return d
	}
	d.Placement = *bestFail.p
	d.MostFit = sv.bound + bestFail.placed
	first, reasons, unresolvable := sv.diagnose(bestFail)
	d.Reasons = reasons
	if unresolvable && d.Status == Unschedulable {
		d.Status = Unresolvable
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of min %d members fit%s", d.MostFit, sv.required, inName(bestFail.p))
	if sv.bound > 0 {
		fmt.Fprintf(&b, " (%d bound)", sv.bound)
	}
	if first != nil {
		fmt.Fprintf(&b, "; %s fits on none of %d nodes: %s", first.pod.Key(), len(bestFail.p.Nodes), formatReasons(reasons))
	}
	if sv.exhausted {
		fmt.Fprintf(&b, "; budget of %d steps exhausted", sv.budget)
	}
	d.Message = b.String()
	return d
}

func inName(p *Placement) string {
	if p.Name == "" {
		return ""
	}
	return " in " + p.Name
}

func (sv *solver) assignments(a *attempt) []Assignment {
	out := make([]Assignment, 0, a.placed)
	for i, n := range a.node {
		if n >= 0 {
			out = append(out, Assignment{Pod: sv.members[i].pod.Key(), Node: sv.s.b.nodes[n].Name, NodeID: n})
		}
	}
	return out
}

func (sv *solver) waiting(a *attempt) []Key {
	var out []Key
	for i, n := range a.node {
		if n < 0 {
			out = append(out, sv.members[i].pod.Key())
		}
	}
	return out
}

func (sv *solver) fastPath() bool { return len(sv.opts.Filters) == 0 && len(sv.reservers) == 0 }

// attempt places the members in p; it leaves the scratch state clean. It
// returns nil when the budget ran out.
func (sv *solver) attempt(p *Placement, idx int) *attempt {
	a := sv.place(p, idx)
	sv.undo(a)
	if sv.exhausted {
		return nil
	}
	return a
}

// place runs the member-by-member placement and leaves its scratch state
// for diagnose; the caller must undo it.
func (sv *solver) place(p *Placement, idx int) *attempt {
	a := &attempt{p: p, idx: idx, node: make([]NodeID, len(sv.members))}
	for i := range a.node {
		a.node[i] = -1
	}
	for i := 0; i < len(sv.members); {
		if sv.exhausted || a.placed+len(sv.members)-i < sv.need {
			break // cannot reach the requirement any more
		}
		j := i + 1
		if sv.fastPath() {
			for j < len(sv.members) && sv.members[j].class == sv.members[i].class {
				j++
			}
			sv.placeRun(p, a, i, j)
		} else {
			sv.placeOne(p, a, i)
		}
		i = j
	}
	return a
}

func (sv *solver) undo(a *attempt) {
	for i := len(a.node) - 1; i >= 0; i-- {
		if n := a.node[i]; n >= 0 && len(sv.reservers) > 0 {
			ni := NodeInfo{sv.s, sv.w, n}
			for k := len(sv.reservers) - 1; k >= 0; k-- {
				sv.reservers[k].Unreserve(sv.members[i].pod, ni)
			}
		}
	}
	sv.w.reset()
}

func (sv *solver) spend(n int64) bool {
	sv.steps += n
	if sv.steps > sv.budget {
		sv.exhausted = true
		return false
	}
	return true
}

// staticOK applies the built-in filters that do not depend on usage.
func staticOK(p *Pod, n *Node) bool {
	if n.Unschedulable && !toleratesUnschedulable(p) {
		return false
	}
	for k, v := range p.NodeSelector {
		if lv, ok := n.Labels[k]; !ok || lv != v {
			return false
		}
	}
	for _, t := range n.Taints {
		if t.Effect == TaintEffectPreferNoSchedule {
			continue
		}
		if !tolerated(p, t) {
			return false
		}
	}
	return true
}

// toleratesUnschedulable mirrors the NodeUnschedulable plugin: a pod that
// tolerates the node.kubernetes.io/unschedulable:NoSchedule taint may go to
// a cordoned node.
func toleratesUnschedulable(p *Pod) bool {
	return tolerated(p, Taint{Key: "node.kubernetes.io/unschedulable", Effect: TaintEffectNoSchedule})
}

func tolerated(p *Pod, t Taint) bool {
	for _, tol := range p.Tolerations {
		if tol.Tolerates(t) {
			return true
		}
	}
	return false
}

// capacity returns how many copies of req fit on node id now (at most
// limit).
func (sv *solver) capacity(req []int64, id NodeID, limit int64) int64 {
	alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
	off, hasExtra := sv.w.at[id]
	c := limit
	for r, q := range req {
		if q == 0 {
			continue
		}
		free := alloc[r] - used[r]
		if hasExtra {
			free -= sv.w.slab[int(off)+r]
		}
		if free < q {
			return 0
		}
		c = min(c, free/q)
	}
	return c
}

const scoreScale = 1 << 30

// nodeScore is the MostAllocated score of node id after one more copy of
// req: the sum over requested resources (the pods count excluded) of
// requested/allocatable, scaled by 2^30. It only compares nodes for one
// member, so the sum needs no averaging.
func (sv *solver) nodeScore(req []int64, id NodeID) int64 {
	alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
	off, hasExtra := sv.w.at[id]
	var sc int64
	for r, q := range req {
		if q == 0 || r == sv.s.b.podsR {
			continue
		}
		u := used[r] + q
		if hasExtra {
			u += sv.w.slab[int(off)+r]
		}
		sc += mulDiv(u, scoreScale, alloc[r])
	}
	return sc
}

// mulDiv returns a*b/c for 0 <= a <= c, without overflow.
func mulDiv(a, b, c int64) int64 {
	if c <= 0 || a <= 0 {
		return 0
	}
	if a >= c {
		return b
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// fits reports whether member m may go to node id now, including hooks.
func (sv *solver) fits(m *member, id NodeID) bool {
	if m.missing != "" || !staticOK(m.pod, &sv.s.b.nodes[id]) || sv.capacity(m.req, id, 1) == 0 {
		return false
	}
	ni := NodeInfo{sv.s, sv.w, id}
	for _, f := range sv.opts.Filters {
		if !f.Filter(m.pod, ni).OK() {
			return false
		}
	}
	for _, r := range sv.reservers {
		if !r.Filter(m.pod, ni).OK() {
			return false
		}
	}
	return true
}

func (sv *solver) placeOne(p *Placement, a *attempt, i int) {
	m := &sv.members[i]
	if !sv.spend(int64(len(p.Nodes))) {
		return
	}
	best, bestScore := NodeID(-1), int64(math.MinInt64)
	for _, id := range p.Nodes {
		if !sv.fits(m, id) {
			continue
		}
		if sc := sv.nodeScore(m.req, id); sc > bestScore {
			best, bestScore = id, sc
		}
	}
	if best < 0 {
		return
	}
	a.node[i] = best
	a.placed++
	sv.w.add(best, m.req, 1)
	ni := NodeInfo{sv.s, sv.w, best}
	for _, r := range sv.reservers {
		r.Reserve(m.pod, ni)
	}
}

// placeRun places members i..j-1, which share one class, exactly as
// placeOne would one by one: the most-allocated node stays the most
// allocated after taking a member, so it is filled before the next.
func (sv *solver) placeRun(p *Placement, a *attempt, i, j int) {
	m := &sv.members[i]
	if m.missing != "" || !sv.spend(int64(len(p.Nodes))) {
		return
	}
	want := int64(j - i)
	h := make(candHeap, 0, len(p.Nodes))
	for _, id := range p.Nodes {
		if !staticOK(m.pod, &sv.s.b.nodes[id]) {
			continue
		}
		c := sv.capacity(m.req, id, want)
		if c == 0 {
			continue
		}
		h = append(h, cand{id: id, cap: c, score: sv.nodeScore(m.req, id)})
	}
	heap.Init(&h)
	k := i
	for k < j && h.Len() > 0 {
		c := heap.Pop(&h).(cand)
		n := min(c.cap, int64(j-k))
		sv.w.add(c.id, m.req, n)
		for range n {
			a.node[k] = c.id
			k++
		}
		a.placed += int(n)
	}
}

type cand struct {
	id    NodeID
	cap   int64
	score int64
}

type candHeap []cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score > h[j].score
	}
	return h[i].id < h[j].id
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// diagnose re-runs the best failed attempt and explains why its first
// waiting member fits on none of the placement's nodes. unresolvable is set
// when too few members could fit even if the cluster were empty.
func (sv *solver) diagnose(best *attempt) (first *member, reasons []ReasonCount, unresolvable bool) {
	saved, budget := sv.exhausted, sv.budget
	sv.exhausted, sv.budget = false, math.MaxInt64
	a := sv.place(best.p, best.idx)
	defer func() { sv.undo(a); sv.exhausted, sv.budget = saved, budget }()
	for i, n := range a.node {
		if n < 0 {
			first = &sv.members[i]
			break
		}
	}
	if first == nil {
		return nil, nil, false
	}
	counts := map[string]int{}
	for _, id := range best.p.Nodes {
		for _, r := range sv.reasons(first, id) {
			counts[r.Reason]++
		}
	}
	for r, n := range counts {
		reasons = append(reasons, ReasonCount{Reason: r, Nodes: n})
	}
	slices.SortFunc(reasons, func(x, y ReasonCount) int {
		if c := cmp.Compare(y.Nodes, x.Nodes); c != 0 {
			return c
		}
		return strings.Compare(x.Reason, y.Reason)
	})
	// Unresolvable only when, even with every other pod gone, fewer than
	// need members could be placed: those placed here, plus waiting ones
	// that some node rejects for no unresolvable reason. Looking at the
	// first waiting member alone called a gang unresolvable when it could
	// do without that member.
	can := a.placed
	known := map[int32]bool{} // by class, when only built-in filters apply
	for i, n := range a.node {
		if can >= sv.need {
			break
		}
		if n >= 0 {
			continue
		}
		m := &sv.members[i]
		ok, cached := known[m.class]
		if !cached {
			ok = sv.resolvable(m)
			if sv.fastPath() {
				known[m.class] = ok
			}
		}
		if ok {
			can++
		}
	}
	return first, reasons, can < sv.need
}

// resolvable reports whether some node of the cluster rejects m for no
// unresolvable reason, so that m would fit there if pods left.
func (sv *solver) resolvable(m *member) bool {
	for id := range sv.s.b.nodes {
		if !slices.ContainsFunc(sv.reasons(m, NodeID(id)), func(r Rejection) bool { return r.Unresolvable }) {
			return true
		}
	}
	return false
}

// reasons lists every reason member m does not fit node id now.
func (sv *solver) reasons(m *member, id NodeID) []Rejection {
	var out []Rejection
	n := &sv.s.b.nodes[id]
	p := m.pod
	if m.missing != "" {
		out = append(out, Rejection{Reason: "Insufficient " + string(m.missing), Unresolvable: true})
	}
	if n.Unschedulable && !toleratesUnschedulable(p) {
		out = append(out, Rejection{Reason: "node(s) were unschedulable", Unresolvable: true})
	}
	for k, v := range p.NodeSelector {
		if lv, ok := n.Labels[k]; !ok || lv != v {
			out = append(out, Rejection{Reason: "node(s) didn't match Pod's node selector", Unresolvable: true})
			break
		}
	}
	for _, t := range n.Taints {
		if t.Effect != TaintEffectPreferNoSchedule && !tolerated(p, t) {
			out = append(out, Rejection{Reason: "node(s) had untolerated taint {" + t.Key + ": " + t.Value + "}", Unresolvable: true})
			break
		}
	}
	alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
	for r, q := range m.req {
		if q == 0 {
			continue
		}
		name := "Insufficient " + string(sv.s.b.res[r])
		if r == sv.s.b.podsR {
			name = "Too many pods"
		}
		if alloc[r] < q {
			out = append(out, Rejection{Reason: name, Unresolvable: true})
		} else if alloc[r]-used[r]-sv.w.extra(id, r) < q {
			out = append(out, Rejection{Reason: name})
		}
	}
	ni := NodeInfo{sv.s, sv.w, id}
	for _, f := range sv.opts.Filters {
		if r := f.Filter(p, ni); !r.OK() {
			out = append(out, r)
		}
	}
	for _, rv := range sv.reservers {
		if r := rv.Filter(p, ni); !r.OK() {
			out = append(out, r)
		}
	}
	return out
}

// DefaultScorer is upstream's default placement scoring (KEP-5732): the
// NodeResourcesFit MostAllocated score of the whole placement after the
// assignment — the mean over the resources the group requests (the pods
// count excluded) of requested/allocatable summed over the placement's
// nodes — plus the PodGroupPodsCount score, members placed (bound included)
// over all members, with equal weights. Each part is scaled to 0..1,000,000,
// so the score is in 0..2,000,000.
type DefaultScorer struct{}

var _ PlacementScorer = DefaultScorer{}

// Score implements [PlacementScorer]. It costs O(nodes in p + assignments).
func (DefaultScorer) Score(s *Snapshot, g *Group, p *Placement, a []Assignment) int64 {
	const scale = 1_000_000
	R := len(s.b.res)
	requested := make([]bool, R)
	for i := range g.Members {
		for r, q := range g.Members[i].Requests {
			if j, ok := s.b.resIdx[r]; ok && q > 0 && j != s.b.podsR {
				requested[j] = true
			}
		}
	}
	alloc := make([]int64, R)
	used := make([]int64, R)
	for _, id := range p.Nodes {
		ar, ur := s.allocRow(id), s.usedRow(id)
		for r := range R {
			if requested[r] {
				alloc[r] = satAdd(alloc[r], ar[r])
				used[r] = satAdd(used[r], max(ur[r], 0))
			}
		}
	}
	byKey := make(map[Key]*Pod, len(g.Members))
	for i := range g.Members {
		byKey[g.Members[i].Key()] = &g.Members[i]
	}
	for _, as := range a {
		for r, q := range byKey[as.Pod].Requests {
			if j, ok := s.b.resIdx[r]; ok && requested[j] {
				used[j] = satAdd(used[j], q)
			}
		}
	}
	var sum, n int64
	for r := range R {
		if requested[r] {
			sum += mulDiv(used[r], scale, alloc[r])
			n++
		}
	}
	var most int64
	if n > 0 {
		most = sum / n
	}
	bound := int64(len(s.GroupMembers(g.Key())))
	total := bound + int64(len(g.Members))
	if total == 0 { // a group with no members has nothing to count
		return most
	}
	count := (bound + int64(len(a))) * scale / total
	return most + count
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
