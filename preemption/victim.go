package preemption

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// Victim is one unit of eviction: a single pod, or a whole PodGroup whose
// disruptionMode is PodGroup (every bound member, on every node).
type Victim struct {
	// PodGroup is the PodGroup the victim belongs to: the group evicted
	// when Whole, the pod's group otherwise; zero for a pod outside any
	// group.
	PodGroup placement.Key
	// Whole is set when the victim is the whole PodGroup.
	Whole bool
	// Pods are the pods to evict, sorted by namespace/name.
	Pods []placement.Key
	// Priority is the victim's priority in preemption: the PodGroup's
	// spec.priority when set, else the pod's spec.priority; for a whole
	// group the highest over its members.
	Priority int32
	// StartTime is the pod's status.startTime; for a whole group the
	// earliest over its members. Zero means not started.
	StartTime time.Time
	// ExceedsBudgets lists, sorted, the disruption budgets that evicting
	// this victim goes beyond, given the victims of the same plan that
	// rank below it (those are counted against the budgets first). Empty
	// when every budget holds.
	ExceedsBudgets []placement.Key
}

func (v *Victim) grouped() bool { return v.PodGroup.Name != "" }

// key is the unique name of the victim: its group when whole, its pod
// otherwise (none for a Victim without pods, which Find never returns but
// a caller may sort).
func (v *Victim) key() placement.Key {
	if v.Whole || len(v.Pods) == 0 {
		return v.PodGroup
	}
	return v.Pods[0]
}

// VictimOrder ranks victims, most important first (scenario P9, after
// kube-scheduler's MoreImportantPod extended to PodGroups): higher priority
// first; at equal priority a victim belonging to a PodGroup before a pod
// outside any group; then the larger victim (more pods); then the one that
// started earlier (a victim that has not started counts as the latest);
// then a whole group before a pod; then the greater namespace/name, so that
// otherwise equal pods are evicted in name order. It returns a negative
// number when a is the more important; it is a total order over distinct
// victims.
//
// Find's heuristic (above [MaxExactUnits] candidates) evicts the least
// important victims it can and gives back the most important ones first;
// the exact search takes candidates in the same order. Plans themselves
// are compared by [Cost].
func VictimOrder(a, b *Victim) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	if a.grouped() != b.grouped() {
		if a.grouped() {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(len(b.Pods), len(a.Pods)); c != 0 {
		return c
	}
	if c := compareStart(a.StartTime, b.StartTime); c != 0 {
		return c
	}
	if a.Whole != b.Whole {
		if a.Whole {
			return -1
		}
		return 1
	}
	return b.key().Compare(a.key())
}

// compareStart orders start times earliest first, zero (not started) last.
func compareStart(a, b time.Time) int {
	switch {
	case a.IsZero() && b.IsZero():
		return 0
	case a.IsZero():
		return 1
	case b.IsZero():
		return -1
	}
	return a.Compare(b)
}

// unit is a candidate victim with what the search needs.
type unit struct {
	v     Victim
	pods  []*placement.Pod
	nodes []placement.NodeID // node of pods[i]; nil until nodeIDs resolves it
	req   []int64            // requests of pods[i] at [i*R:], like finder.res; nil until rows
	// overBudget is set when evicting the unit, after every less important
	// candidate, would go beyond a budget; such units are evicted last and
	// given back first.
	overBudget bool
	// removed is set while the finder's slot count has u removed; keep
	// marks victims while slotsWithout compares sets.
	removed, keep bool
	// pos is u's position in eviction order.
	pos int
	// hits are the budgets guarding u's pods, once hitsDone (see
	// [costing.hits]).
	hits     []budgetHit
	hitsDone bool
}

// nodeIDs returns the nodes of u's pods. They are resolved on first use:
// the search looks at the nodes of few candidates, and a lookup by node
// name for every bound pod would cost more than the rest of collect.
func (u *unit) nodeIDs(s *placement.Snapshot) []placement.NodeID {
	if u.nodes == nil {
		u.nodes = make([]placement.NodeID, len(u.pods))
		for i, p := range u.pods {
			u.nodes[i], _ = s.NodeOf(p)
		}
	}
	return u.nodes
}

// rows returns the requests of u's pods, R values each indexed like f.res
// (the pod count included), read from their maps on first use: the search
// adds them and takes them back several times.
func (u *unit) rows(f *finder) []int64 {
	if u.req == nil {
		R := len(f.res)
		u.req = make([]int64, len(u.pods)*R)
		for j, p := range u.pods {
			row := u.req[j*R : (j+1)*R]
			for name, q := range p.Requests {
				row[f.resIdx[name]] += q
			}
			row[f.podsR]++
		}
	}
	return u.req
}

// cand is a candidate victim before it becomes a [unit]: what
// [VictimOrder] compares, as plain numbers, and the index of its source.
// It holds no pointer, so that the heap moves it without write barriers.
type cand struct {
	rank    uint64 // priority, grouped, pods: greater is more important
	sec     int64  // the start time's Unix seconds and nanoseconds
	nsec    int32
	src     int32 // index into queue.src
	started bool  // the start time is set
	mono    bool  // it carries a monotonic clock reading
	whole   bool
}

// source is what a candidate stands for: a whole group's summary, or a pod.
type source struct {
	g *placement.BoundGroup
	p *placement.Pod
}

func (c source) start() time.Time {
	if c.g != nil {
		return c.g.EarliestStart
	}
	return c.p.StartTime
}

func (c source) key() placement.Key {
	if c.g != nil {
		return c.g.Key
	}
	return c.p.Key()
}

// add lists a candidate: the whole group g, or the pod p.
func (q *queue) add(prio int32, pods int, grouped bool, g *placement.BoundGroup, p *placement.Pod) {
	src := source{g: g, p: p}
	q.heap = append(q.heap, newCand(prio, pods, grouped, src, int32(len(q.src0)+len(q.src))))
	q.src = append(q.src, src)
}

// newCand is the candidate for src, of priority prio, with pods pods, at
// index i of its queue's sources.
func newCand(prio int32, pods int, grouped bool, src source, i int32) cand {
	c := cand{rank: uint64(uint32(prio)^(1<<31))<<32 | uint64(min(pods, math.MaxInt32)), src: i, whole: src.g != nil}
	if grouped {
		c.rank |= 1 << 31
	}
	if t := src.start(); !t.IsZero() {
		c.started, c.mono = true, t != t.Round(0)
		c.sec, c.nsec = t.Unix(), int32(t.Nanosecond())
	}
	return c
}

// source returns what candidate index i stands for.
func (q *queue) source(i int32) source {
	if int(i) < len(q.src0) {
		return q.src0[i]
	}
	return q.src[int(i)-len(q.src0)]
}

func (c *cand) priority() int32 { return int32(uint32(c.rank>>32) ^ (1 << 31)) }

func (c *cand) grouped() bool { return c.rank&(1<<31) != 0 }

// order is [VictimOrder] on candidates: negative when a is the more
// important.
func (q *queue) order(a, b *cand) int {
	// Higher priority, then grouped, then more pods: one comparison.
	if c := cmp.Compare(b.rank, a.rank); c != 0 {
		return c
	}
	// compareStart: not started counts as the latest; time.Time.Compare
	// uses the monotonic readings when both times carry one, else the
	// seconds and nanoseconds.
	switch {
	case !a.started || !b.started:
		if c := cmp.Compare(boolInt(!a.started), boolInt(!b.started)); c != 0 {
			return c
		}
	case a.mono && b.mono:
		if c := q.source(a.src).start().Compare(q.source(b.src).start()); c != 0 {
			return c
		}
	default:
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
			return c
		}
	}
	if a.whole != b.whole {
		if a.whole {
			return -1
		}
		return 1
	}
	return q.source(b.src).key().Compare(q.source(a.src).key())
}

// queue is the candidates in eviction order — those within every budget
// first, then the others, each part least important first — made into
// units only as far as the search reads: it usually needs a few dozen of
// thousands, so the rest stay in a heap, never sorted.
type queue struct {
	s    *placement.Snapshot
	heap []cand   // least important first
	src0 []source // shared, read only: cand.src below len(src0) indexes it
	src  []source // cand.src - len(src0) indexes it
	// sorted, shared and read only, lists candidates least important
	// first beside the heap (an Index's whole groups): those whose src
	// is marked in hit, from at on.
	sorted []cand
	hit    []bool
	at     int
	// units, shared, holds what the units of src0's entries read of their
	// pods once one search has read them (see [unitData]); set with f,
	// whose resources index the rows, before the first unit is made.
	units []atomic.Pointer[unitData]
	f     *finder
	done  []*unit // the order's first units
	slab  []unit  // where units are allocated
	over  []*unit // popped units beyond a budget, to follow every other
	left  *allowance
	total int
}

// listOf is a queue of units already in eviction order.
func listOf(units []*unit) *queue { return &queue{done: units, total: len(units)} }

func (q *queue) len() int { return q.total }

// upto returns the first k units of the order (all when k > len).
func (q *queue) upto(k int) []*unit {
	k = min(k, q.total)
	for len(q.done) < k {
		c, ok := q.next()
		if !ok {
			for _, u := range q.over {
				u.pos = len(q.done)
				q.done = append(q.done, u)
			}
			q.over = nil
			continue
		}
		u := q.unit(c)
		if q.left != nil {
			u.overBudget = len(q.left.take(u.pods, false)) > 0
			if u.overBudget {
				q.over = append(q.over, u)
				continue
			}
		}
		u.pos = len(q.done)
		q.done = append(q.done, u)
	}
	return q.done[:k]
}

func (q *queue) all() []*unit { return q.upto(q.total) }

func (q *queue) less(i, j int) bool { return q.order(&q.heap[j], &q.heap[i]) < 0 }

func (q *queue) down(i int) {
	n := len(q.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && q.less(c+1, c) {
			c++
		}
		if !q.less(c, i) {
			return
		}
		q.heap[i], q.heap[c] = q.heap[c], q.heap[i]
		i = c
	}
}

// next takes the least important candidate left, from the heap or the
// sorted list, or returns false when none is left.
func (q *queue) next() (cand, bool) {
	for q.at < len(q.sorted) && !q.hit[q.sorted[q.at].src] {
		q.at++
	}
	if q.at < len(q.sorted) && (len(q.heap) == 0 || q.order(&q.sorted[q.at], &q.heap[0]) > 0) {
		q.at++
		return q.sorted[q.at-1], true
	}
	if len(q.heap) == 0 {
		return cand{}, false
	}
	return q.pop(), true
}

func (q *queue) pop() cand {
	c := q.heap[0]
	n := len(q.heap) - 1
	q.heap[0] = q.heap[n]
	q.heap = q.heap[:n]
	q.down(0)
	return c
}

// unit makes the candidate a unit, reading a whole group's pods.
func (q *queue) unit(c cand) *unit {
	src := q.source(c.src)
	if len(q.slab) == cap(q.slab) {
		// Units come in runs (a prefix, then doubling): allocated 32 at a
		// time, they cost a few allocations a search.
		q.slab = make([]unit, 0, 32)
	}
	q.slab = append(q.slab, unit{v: Victim{Priority: c.priority(), StartTime: src.start()}})
	u := &q.slab[len(q.slab)-1]
	if int(c.src) < len(q.units) {
		if d := q.units[c.src].Load(); d != nil {
			u.v.PodGroup, u.v.Whole = src.g.Key, true
			u.pods, u.v.Pods, u.nodes, u.req = d.pods, d.keys, d.nodes, d.req
			return u
		}
	}
	if src.g != nil {
		u.v.PodGroup, u.v.Whole = src.g.Key, true
		u.pods = q.s.BoundMembers(src.g)
	} else {
		u.pods = []*placement.Pod{src.p}
		if c.grouped() {
			u.v.PodGroup = placement.Key{Namespace: src.p.Namespace, Name: src.p.SchedulingGroup}
		}
	}
	u.v.Pods = make([]placement.Key, len(u.pods))
	for i, p := range u.pods {
		u.v.Pods[i] = p.Key()
	}
	if int(c.src) < len(q.units) { // an Index's whole group, first read
		u.nodeIDs(q.s)
		u.rows(q.f)
		q.units[c.src].Store(&unitData{pods: u.pods, keys: u.v.Pods, nodes: u.nodes, req: u.req})
	}
	return u
}

// collect returns the candidate victims of priority below prio, in
// eviction order (see [queue]). Pods of the preemptor group itself are
// never candidates. Cost: O(groups + ungrouped pods + pods of groups in
// disruptionMode Pod) to list them, then O(log) per unit read. With an
// Index's join of s's base, the whole groups it joined are copied in
// eviction order from it (a sorted list is a heap), and only the others
// are added to the heap one by one.
func collect(s *placement.Snapshot, g *placement.Group, j *joiner, prio int32, budgets bool) *queue {
	q := &queue{s: s}
	var hit []bool // per entry of j.old, a candidate whole group of s
	listed := 0    // entries in hit
	if j.old != nil {
		// Only the candidates j.old lacks go to q.heap: merge allocates.
		q.src0 = j.old.src
		hit = make([]bool, len(j.old.e))
	} else {
		n := 0
		for range s.BoundGroups() {
			n++ // one candidate per group, usually: the heap is allocated once
		}
		q.heap, q.src = make([]cand, 0, n), make([]source, 0, n)
	}
	gk := g.Key()
	self := -1 // the preemptor's own entry in j.old
	if j.old != nil {
		if k, ok := slices.BinarySearchFunc(j.old.e, gk, func(e joinedGroup, k placement.Key) int { return e.g.Key.Compare(k) }); ok {
			self = k
		}
	}
	for bg := range s.BoundGroups() {
		var spec PodGroupSpec
		i := -1
		if old := j.old; old != nil && j.next < len(old.gs) && old.gs[j.next] == bg {
			// The joined entry next in line, as j.spec would find it: most
			// groups of a base searched before. Read from the join's
			// compact arrays, so that the pass never reads bg itself.
			i = j.next
			j.next++
			if i == self {
				continue
			}
			j.hits++
			if m := old.meta[i]; m.whole {
				if m.pp < prio {
					hit[i] = true // read from j.old.sorted in turn
					listed++
				}
				continue
			}
			spec = old.e[i].spec
		} else {
			if bg.Key == gk {
				continue
			}
			spec, i = j.spec(bg) // each key once: BoundGroups yields each group once
		}
		if spec.DisruptionMode == DisruptionModePodGroup {
			if i >= 0 {
				if j.old.e[i].pp < prio {
					hit[i] = true // read from j.old.sorted in turn
					listed++
				}
				continue
			}
			pp := bg.MaxPriority
			if spec.Priority != nil {
				pp = *spec.Priority
			}
			if pp < prio {
				q.add(pp, bg.Pods, true, bg, nil)
			}
			continue
		}
		for _, p := range s.BoundMembers(bg) {
			pp := p.Priority
			if spec.Priority != nil {
				pp = *spec.Priority
			}
			if pp < prio {
				q.add(pp, 1, true, nil, p)
			}
		}
	}
	for p := range s.UngroupedPods() {
		if p.Priority < prio {
			q.add(p.Priority, 1, false, nil, p)
		}
	}
	q.heapify()
	q.total = len(q.heap) + listed
	if listed > 0 {
		q.sorted, q.hit, q.units = j.old.sorted, hit, j.old.units
	}
	if budgets {
		q.left = newAllowance(j.in.Budgets)
	}
	j.done()
	return q
}

// heapify makes q.heap a heap, O(candidates).
func (q *queue) heapify() {
	for i := len(q.heap)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// allowance counts the disruptions each budget still allows.
type allowance struct {
	budgets []*DisruptionBudget
	byNS    map[string][]int // namespace -> indexes into budgets
	left    []int64
	need    []int64 // scratch, per budget
}

func newAllowance(bs []DisruptionBudget) *allowance {
	a := &allowance{budgets: sortedBudgets(bs), byNS: map[string][]int{}}
	a.left = make([]int64, len(a.budgets))
	a.need = make([]int64, len(a.budgets))
	for i, b := range a.budgets {
		a.left[i] = int64(b.DisruptionsAllowed)
		a.byNS[b.Namespace] = append(a.byNS[b.Namespace], i)
	}
	return a
}

// take counts the eviction of pods against the budgets and returns the
// budgets it goes beyond, sorted. With force unset, a unit that goes beyond
// some budget takes nothing (the allowance stays for more important
// units); with force set it is counted anyway, as a plan's victims are.
// Cost: O(pods × budgets of their namespace).
func (a *allowance) take(pods []*placement.Pod, force bool) []placement.Key {
	var hit []int
	for _, p := range pods {
		for _, i := range a.byNS[p.Namespace] {
			if a.budgets[i].matches(p) {
				if a.need[i] == 0 {
					hit = append(hit, i)
				}
				a.need[i]++
			}
		}
	}
	slices.Sort(hit)
	var over []placement.Key
	for _, i := range hit {
		if a.need[i] > a.left[i] {
			over = append(over, a.budgets[i].Key())
		}
	}
	for _, i := range hit {
		if len(over) == 0 || force {
			a.left[i] -= a.need[i]
		}
		a.need[i] = 0
	}
	return over
}
