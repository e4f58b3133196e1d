package placement

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gangsched/gangsched/internal/arith"
)

// search improves on the greedy attempt seed in placement p with a
// depth-first search over member-to-node choices: it looks for the largest
// number of placed members (from all down to the requirement) that
// satisfies the group, then for the best preference score at that number.
// The search is complete — it misses no assignment — but stops at half of
// the budget left; the result says whether it finished (proven) or not
// (cut). The scratch state is clean on return.
func (sv *solver) search(p *Placement, seed *attempt) *attempt {
	sb := sv.opts.SearchBudget
	if sb <= 0 {
		sb = DefaultSearchBudget
	}
	d := &dfs{sv: sv, p: p, order: sv.ffdOrder(), limit: sv.steps + min(sb, (sv.budget-sv.steps)/2)}
	bySearchBudget := sb <= (sv.budget-sv.steps)/2
	d.depth = make([]int, len(sv.members))
	for k, i := range d.order {
		d.depth[i] = k
	}
	d.types(p)
	best := seed
	lo := sv.need
	if sv.ok(seed) {
		lo = seed.placed + 1
	}
	// Targets above the room in p are proven out: not even the smallest
	// members fit in total. The sums grow with the target, so the largest
	// with room is found by bisection.
	free := sv.freeIn(p)
	hi := lo - 1 + sort.Search(len(sv.members)-lo+1, func(t int) bool { return !sv.smallestFit(free, lo+t) })
	for target := hi; target >= lo && !d.cut; target-- {
		if f := d.run(target, false, 0); f != nil {
			best = f
			break
		}
	}
	if !d.cut && sv.ok(best) && !sv.cons.empty() && best.pref < sv.cons.maxPref {
		if f := d.run(best.placed, true, best.pref); f != nil {
			best = f
		}
	}
	best.proven = !d.cut
	best.cut = d.cut
	sv.searchBudgetCut = sv.searchBudgetCut || (d.cut && bySearchBudget)
	return best
}

type dfs struct {
	sv       *solver
	p        *Placement
	order    []int // members in search order (first-fit decreasing)
	depth    []int // position of each member in order
	k        int   // current depth
	limit    int64 // step count at which the search stops
	cut      bool
	typeOf   []int32 // per node of p: nodes of one type are interchangeable
	stamp    []int32 // per type: the candidates() call that last saw it
	calls    int32
	target   int
	optimize bool
	bestPref int64
	cur      *attempt
	found    *attempt
}

// types groups the nodes of p that the search may treat as one: the same
// allocatable, usage, taints, schedulability and values of every label the
// group reads. With caller hooks (a NodeScorer included), or node affinity
// on node names, every node is its own type, since a hook may single out
// any node.
func (d *dfs) types(p *Placement) {
	sv := d.sv
	d.typeOf = make([]int32, len(p.Nodes))
	keySet, byName := map[string]bool{}, false
	for _, m := range sv.members {
		for k := range sv.pod(m.row).NodeSelector {
			keySet[k] = true
		}
		byName = affinityKeys(sv.pod(m.row), keySet) || byName
	}
	if len(sv.opts.Filters) > 0 || len(sv.reservers) > 0 || byName || sv.opts.NodeScorer != nil {
		for j := range d.typeOf {
			d.typeOf[j] = int32(j)
		}
		d.stamp = make([]int32, len(p.Nodes))
		return
	}
	if c := sv.cons; c != nil {
		for ti := range c.terms {
			keySet[c.keyOf(&c.terms[ti])] = true
		}
		for _, sg := range c.subs {
			if sg.key != "" {
				for _, k := range sg.levels {
					keySet[k] = true
				}
			}
		}
	}
	keys := slices.Sorted(maps.Keys(keySet))
	ids := map[string]int32{}
	var b strings.Builder
	for j, id := range p.Nodes {
		b.Reset()
		n := &sv.s.b.nodes[id]
		// The static type covers allocatable, taints and schedulability
		// without printing strings that could run together.
		fmt.Fprint(&b, sv.s.b.typeOf[id], sv.s.usedRow(id))
		for _, k := range keys {
			v, ok := n.Labels[k]
			fmt.Fprintf(&b, "|%t%q", ok, v)
		}
		t, ok := ids[b.String()]
		if !ok {
			t = int32(len(ids))
			ids[b.String()] = t
		}
		d.typeOf[j] = t
	}
	d.stamp = make([]int32, len(ids))
}

// run searches for an assignment of at least target members; with optimize
// it keeps going for the highest preference score above minPref.
func (d *dfs) run(target int, optimize bool, minPref int64) *attempt {
	d.target, d.optimize, d.bestPref, d.found = target, optimize, minPref, nil
	d.cur = d.sv.newAttempt(d.p)
	d.rec(0, 0)
	d.sv.undo(d.cur)
	return d.found
}

// rec decides member order[k]; it returns true to stop the whole search.
func (d *dfs) rec(k, skipped int) bool {
	sv, a := d.sv, d.cur
	if a.placed+len(d.order)-k < d.target {
		return false
	}
	if k == len(d.order) {
		return d.leaf()
	}
	d.k = k
	i := d.order[k]
	m := &sv.members[i]
	lb, onlySkip := NodeID(-1), false
	if k > 0 && d.twins(d.order[k-1], i) {
		// Identical members take non-decreasing nodes, and once one waits
		// the rest wait: other orders repeat the same assignments.
		if prev := a.node[d.order[k-1]]; prev < 0 {
			onlySkip = true
		} else {
			lb = prev
		}
	}
	if !onlySkip && sv.missingOf(m) == "" {
		for _, id := range d.candidates(i, lb) {
			sv.assign(a, i, id)
			stop := d.rec(k+1, skipped)
			sv.unassign(a)
			if stop {
				return true
			}
		}
		if d.cut {
			return true
		}
	}
	if onlySkip {
		// The rest of this run of identical members waits too: one frame
		// skips them all, however many pods a set has.
		j := k + 1
		for j < len(d.order) && d.twins(d.order[j], i) {
			j++
		}
		if skipped+(j-k) <= len(d.order)-d.target {
			return d.rec(j, skipped+(j-k))
		}
		return false
	}
	if skipped < len(d.order)-d.target {
		return d.rec(k+1, skipped+1)
	}
	return false
}

// twins reports whether the search takes members i and j as
// interchangeable: of one class, in a group without affinity terms or
// sub-groups. Members of one class under affinity are interchangeable too
// (see splitUnalike), but the search tries each of them, as one member at
// a time: which of equal assignments it finds first, and what it proves
// within a budget, stay those of members apart
// (TestProp_AlikeClassesAreMembersApart).
func (d *dfs) twins(i, j int) bool {
	sv := d.sv
	return sv.cons == nil && sv.class[sv.members[i].row] == sv.class[sv.members[j].row]
}

func (d *dfs) leaf() bool {
	sv, a := d.sv, d.cur
	if a.placed < sv.need || a.placed == 0 {
		return false
	}
	var pref int64
	if !sv.cons.empty() {
		var v string
		if v, pref = sv.cons.judge(sv.pos); v != "" {
			return false
		}
	}
	if d.optimize && pref <= d.bestPref {
		return false
	}
	f := &attempt{p: d.p, node: slices.Clone(a.node), seq: slices.Clone(a.seq), placed: a.placed, pref: pref}
	d.found, d.bestPref = f, pref
	return !d.optimize || sv.cons.empty() || pref == sv.cons.maxPref
}

// candidates lists the nodes of p (at or above lb) where member i may go
// now, one per type among nodes the search has not touched, best first
// (preference, then the node score, then node name).
func (d *dfs) candidates(i int, lb NodeID) []NodeID {
	sv := d.sv
	m := &sv.members[i]
	d.calls++
	type c struct {
		id          NodeID
		pref, score int64
	}
	var out []c
	undecided := func(q int32) bool { return d.depth[int(q)-sv.bound] > d.k }
	// Every node visited counts, the ones skipped as duplicates of an
	// earlier one of their type too: the budget bounds time, not just
	// choices.
	sv.steps += int64(len(d.p.Nodes))
	if sv.steps > d.limit {
		d.cut = true
		return nil
	}
	prefs := sv.prefsOf(i)
	for j, id := range d.p.Nodes {
		if id < lb {
			continue
		}
		if _, touched := sv.w.offset(id); !touched {
			t := d.typeOf[j]
			if d.stamp[t] == d.calls {
				continue
			}
			d.stamp[t] = d.calls
		}
		if !sv.fits(m, id) || (sv.pos != nil && !sv.cons.allow(sv.bound+i, id, sv.pos, false, undecided)) {
			continue
		}
		if sv.norm != nil {
			out = append(out, c{id, prefs.on(id), 0}) // scored together below
			continue
		}
		out = append(out, c{id, prefs.on(id), sv.memberScore(m, id)})
	}
	if sv.norm != nil {
		ids := sv.normIDs[:0]
		for _, x := range out {
			ids = append(ids, x.id)
		}
		sv.normIDs = ids
		scores := sv.candidateScores(m, ids)
		if sv.hookErr != nil {
			return nil
		}
		for k := range out {
			out[k].score = scores[k]
		}
	}
	slices.SortFunc(out, func(x, y c) int {
		if x.pref != y.pref {
			return cmp.Compare(y.pref, x.pref)
		}
		if x.score != y.score {
			return cmp.Compare(y.score, x.score)
		}
		return cmp.Compare(int64(x.id), int64(y.id))
	})
	ids := make([]NodeID, len(out))
	for j := range out {
		ids[j] = out[j].id
	}
	return ids
}

// freeIn sums, per resource, the free quantities of p's nodes.
func (sv *solver) freeIn(p *Placement) []int64 {
	free := make([]int64, sv.R)
	for _, id := range p.Nodes {
		alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
		for r := range sv.R {
			free[r] = arith.SatAdd(free[r], max(alloc[r]-used[r], 0))
		}
	}
	return free
}

// roomIfEmpty is roomFor on an empty cluster: each node of p keeps its
// allocatable less only what the group's bound members use there (they are
// never moved). When it fails for every placement, removing pods cannot
// help: the decision is Unresolvable.
func (sv *solver) roomIfEmpty(p *Placement, target int) bool {
	if len(sv.boundNodes) == 0 { // nothing stays: the allocatable, summed
		if len(p.Nodes) == len(sv.s.b.nodes) {
			return sv.smallestFit(sv.s.b.allocSum, target) // kept by the snapshot
		}
		if classRow := sv.prep.classRow; len(classRow) == 1 && !roomFastOff {
			return sv.allocReaches(p, sv.req(int32(classRow[0])), target)
		}
		free := make([]int64, sv.R)
		for _, id := range p.Nodes {
			for r, q := range sv.s.allocRow(id) {
				free[r] = arith.SatAdd(free[r], q)
			}
		}
		return sv.smallestFit(free, target)
	}
	boundUse := map[NodeID][]int64{}
	for _, b := range sv.s.GroupMembers(sv.g.Key()) {
		id, _ := sv.s.NodeOf(b)
		u := boundUse[id]
		if u == nil {
			u = make([]int64, sv.R)
			boundUse[id] = u
		}
		u[sv.s.b.podsR]++
		for name, q := range b.Requests {
			if r, ok := sv.s.b.resIdx[name]; ok {
				u[r] = arith.SatAdd(u[r], q)
			}
		}
	}
	free := make([]int64, sv.R)
	for _, id := range p.Nodes {
		u := boundUse[id]
		for r, q := range sv.s.allocRow(id) {
			if u != nil {
				q = max(q-u[r], 0)
			}
			free[r] = arith.SatAdd(free[r], q)
		}
	}
	return sv.smallestFit(free, target)
}

// roomFastOff turns off allocReaches and roomSomewhereIfEmpty's memory of
// usable placements, so that tests can compare them with the general path.
var roomFastOff bool

// allocReaches is roomIfEmpty without bound members for one member class
// (smallestFit's: target copies of req): the allocatable of p's nodes is
// summed for the requested resources only, and only until each reaches
// target copies. Allocatable is never negative, so a sum that reaches its
// need stays there, and one that never does is the full (saturating) sum
// smallestFit compares: summing every resource of a block's nodes was a
// tenth of a failing block resize.
func (sv *solver) allocReaches(p *Placement, req []int64, target int) bool {
	var buf [8]int64
	need := buf[:0]
	if len(req) > len(buf) {
		need = make([]int64, 0, len(req))
	}
	short := 0 // resources whose sum is below need
	for _, q := range req {
		n := arith.MulSat(q, int64(target))
		if n > 0 {
			short++
		}
		need = append(need, n)
	}
	for _, id := range p.Nodes {
		if short == 0 {
			return true
		}
		alloc := sv.s.allocRow(id)
		for r, n := range need {
			if n > 0 {
				if n -= alloc[r]; n <= 0 {
					short--
				}
				need[r] = n
			}
		}
	}
	return short == 0
}

// smallestFit reports whether, for every resource, the target smallest
// requests among the pending pods add up to no more than free[r]. Per
// resource, the member classes (identical pods; every pod of a class
// requests the same) are sorted once with running sums, so each target
// costs O(log classes).
func (sv *solver) smallestFit(free []int64, target int) bool {
	if classRow := sv.prep.classRow; len(classRow) == 1 {
		// One class (a gang of identical members, a pod set): the
		// target smallest requests are target copies of its one, with no
		// table to build.
		for r, q := range sv.req(int32(classRow[0])) {
			if arith.MulSat(q, int64(target)) > free[r] {
				return false
			}
		}
		return true
	}
	if sv.smallest == nil {
		classRow, classPods := sv.prep.classRow, sv.prep.classPods
		sv.smallest = make([]smallestSums, sv.R)
		n := len(classRow)
		buf := make([]int64, 3*n*sv.R) // one allocation for every resource's three columns
		order := make([]int32, n)
		for r := range sv.R {
			sm := &sv.smallest[r]
			col := buf[3*n*r : 3*n*(r+1)]
			sm.q, sm.pods, sm.sum = col[:n:n], col[n:2*n:2*n], col[2*n:]
			for c := range order {
				order[c] = int32(c)
			}
			q := func(c int32) int64 { return sv.req(int32(classRow[c]))[r] }
			slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(q(x), q(y)) })
			var pods, sum int64
			for j, c := range order {
				n := int64(classPods[c])
				pods, sum = pods+n, arith.SatAdd(sum, arith.MulSat(q(c), n))
				sm.q[j], sm.pods[j], sm.sum[j] = q(c), pods, sum
			}
		}
	}
	for r := range sv.R {
		if sv.smallest[r].of(int64(target)) > free[r] {
			return false
		}
	}
	return true
}

// smallestSums holds one resource's requests in ascending order, a member
// class per entry, with running counts and sums.
type smallestSums struct {
	q, pods, sum []int64 // per class in order: its request, pods and Σ requests so far
}

// of returns the sum of the target smallest requests.
func (sm *smallestSums) of(target int64) int64 {
	j, _ := slices.BinarySearch(sm.pods, target) // the first row that reaches target
	if j == len(sm.pods) {
		j--
	}
	before, sum := int64(0), int64(0)
	if j > 0 {
		before, sum = sm.pods[j-1], sm.sum[j-1]
	}
	return arith.SatAdd(sum, arith.MulSat(sm.q[j], target-before))
}
