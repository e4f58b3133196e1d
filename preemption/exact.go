package preemption

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/gangsched/gangsched/placement"
)

// MaxExactUnits is the most candidate victim units (pods, and whole
// disruptionMode-PodGroup groups) a placement may have for [Find] to
// search it exactly: up to 2^20 subsets, each pruned by cost and by a
// capacity bound before any solve. Above it Find takes its heuristic.
const MaxExactUnits = 20

// MaxExactSolves is the most solves one [Find] makes (its first ones
// included) before its exact search stops, as when the budget runs out: the plan is then not
// proven and, with nothing found, the heuristic takes over. The budget
// alone does not bound the search's time: a solve's steps do not count a
// hook's own work (a DRA reserver's device search), so a cycle of a host
// such as the gang scheduler could spend seconds on one Find.
const MaxExactSolves = 512

// found is the cheapest victim set found so far, over every placement.
type found struct {
	cost  Cost
	r     result
	names []*unit // r.victims by name (see [compareNames])
}

// room counts member slots (see [slots]) on the nodes of one placement for
// the exact search: a base over every node, adjusted on the few nodes the
// candidates' pods free. Slots are a necessary condition for the group to
// fit, so a set of victims whose removal leaves too few needs no solve.
type room struct {
	least []int64
	need  int64
	total int64
	rows  []int64 // R values per touched node
	cnt   []int64 // slots per touched node
}

func (m *room) count(row []int64) int64 {
	c := m.need
	for r, q := range m.least {
		if q > 0 {
			if row[r] < q {
				return 0
			}
			c = min(c, row[r]/q)
		}
	}
	return c
}

func (m *room) enough() bool { return m.total >= m.need }

// clone returns a copy of m with its own rows.
func (m *room) clone() room {
	c := *m
	c.rows, c.cnt = slices.Clone(m.rows), slices.Clone(m.cnt)
	return c
}

// exact is the branch-and-bound search of one placement's units.
type exact struct {
	f     *finder
	units []*unit   // the placement's candidates, in eviction order
	at    [][]int32 // per unit and pod, the pod's touched node, -1 when outside the placement
	opts  placement.Options
	rank  int
	place string
	// ties is set in the ties pass: units are in name order, and sets of
	// the best's cost compete by name; done once a set at or after the
	// best's names was met (every later set comes after it).
	ties, done bool
	// all counts the slots with the set and every undecided unit removed,
	// only with the set alone.
	all, only room
	set       []*unit
	sum       setCost   // the cost of set, kept as it grows and shrinks
	bufs      [][]int32 // per depth, the units still viable there
	// For the resource bound (see [exact.more]): per resource, the room
	// the members need in all, the room of the placement's untouched
	// nodes, and the candidates by what they free, most first; per
	// candidate, what it frees on the placement's nodes.
	needAll, untouched []int64
	byRes              [][]int32
	q                  [][]int64
	us                 []*unit // scratch of beatsWith
}

// setCost is a victim set's [Cost] kept incrementally: adding or removing
// a unit, or costing the set with one more, is O(its budget hits).
type setCost struct {
	c      *costing
	k      Cost
	counts []int64   // per budget, the set's pods it guards
	undo   []maxPrio // the highest priority and its start before each add
}

type maxPrio struct {
	p     int32
	start time.Time
}

func newSetCost(c *costing) setCost {
	return setCost{c: c, k: Cost{MaxPriority: math.MinInt32}, counts: make([]int64, len(c.a.budgets))}
}

// with returns the cost of the set with u added.
func (s *setCost) with(u *unit) Cost {
	k := s.k
	n := len(u.pods)
	k.Pods += n
	k.PrioritySum += int64(n) * (int64(u.v.Priority) - math.MinInt32)
	switch {
	case u.v.Priority > k.MaxPriority:
		k.MaxPriority, k.Start = u.v.Priority, u.v.StartTime
	case u.v.Priority == k.MaxPriority && compareStart(u.v.StartTime, k.Start) < 0:
		k.Start = u.v.StartTime
	}
	for _, h := range s.c.hits(u) {
		c, left := s.counts[h.b], s.c.a.left[h.b]
		k.BudgetViolations += max(0, c+int64(h.n)-left) - max(0, c-left)
	}
	return k
}

func (s *setCost) add(u *unit) {
	s.undo = append(s.undo, maxPrio{s.k.MaxPriority, s.k.Start})
	s.k = s.with(u)
	for _, h := range s.c.hits(u) {
		s.counts[h.b] += int64(h.n)
	}
}

// pop removes u, the unit added last.
func (s *setCost) pop(u *unit) {
	for _, h := range s.c.hits(u) {
		c, left := s.counts[h.b], s.c.a.left[h.b]
		s.counts[h.b] -= int64(h.n)
		s.k.BudgetViolations -= max(0, c-left) - max(0, c-int64(h.n)-left)
	}
	n := len(u.pods)
	s.k.Pods -= n
	s.k.PrioritySum -= int64(n) * (int64(u.v.Priority) - math.MinInt32)
	m := s.undo[len(s.undo)-1]
	s.undo = s.undo[:len(s.undo)-1]
	s.k.MaxPriority, s.k.Start = m.p, m.start
}

// exactSearch searches the subsets of units (at most MaxExactUnits, in
// eviction order) for the cheapest whose removal lets the group fit with
// opts, in the placement of the given nodes (nil: every node; inP marks
// them otherwise), improving f.best. Each branch costs the caller's budget
// one step per undecided unit, each solve its Decision.Steps; when the
// budget runs out the search stops and f.cut is set.
//
// Pruning: a set whose cost is not below the best is never extended
// (every superset costs more); nor is one whose removal together with
// every undecided unit leaves too few member slots; nor one none of whose
// one-unit extensions beats the best when it does not fit itself.
//
// The first pass keeps, of sets that cost the same, the one it meets
// first, and notes that it met one ([finder.sawTie]). The ties pass
// (ties set, after an exact first pass found the best) searches the
// units in name order: the include-first walk then meets sets in the
// order of their sorted names (a set before its extensions), so the first
// of the best's cost that fits is the one the tie rule picks, and the
// walk stops at the first set whose names do not come before the best's.
// Sets cheaper than the best are known not to fit and are only extended.
func (f *finder) exactSearch(units []*unit, nodes []placement.NodeID, inP []bool, opts placement.Options, rank int, place string, ties bool) error {
	if f.missing || len(units) == 0 {
		return nil
	}
	if ties {
		units = byName(units)
	}
	e := &exact{f: f, units: units, opts: opts, rank: rank, place: place, sum: newSetCost(f.cost), ties: ties}
	R := len(f.res)
	base := room{least: f.leastReq(), need: int64(f.need)}
	row := make([]int64, 0, R)
	if nodes == nil {
		for free, n := range f.s.FreeRows() {
			base.total += base.count(free) * int64(n)
		}
	} else {
		for _, id := range nodes {
			row = f.s.AppendFree(row[:0], id)
			base.total += base.count(row)
		}
	}
	var touched []placement.NodeID
	e.at = make([][]int32, len(units))
	for i, u := range units {
		ids := u.nodeIDs(f.s)
		e.at[i] = make([]int32, len(ids))
		for j, id := range ids {
			if inP != nil && !inP[id] {
				e.at[i][j] = -1
				continue
			}
			t := slices.Index(touched, id)
			if t < 0 {
				t = len(touched)
				touched = append(touched, id)
				base.rows = f.s.AppendFree(base.rows, id)
				base.cnt = append(base.cnt, base.count(base.rows[t*R:(t+1)*R]))
			}
			e.at[i][j] = int32(t)
		}
	}
	e.resourceBound(nodes, touched, base.rows)
	e.only = base.clone()
	e.all = base
	for i := range units {
		e.shift(&e.all, i, 1)
	}
	if !e.all.enough() {
		return nil // even every candidate leaves too little room
	}
	rest := make([]int32, len(units))
	for i := range rest {
		rest[i] = int32(i)
	}
	e.bufs = make([][]int32, len(units)+1)
	for d := range e.bufs {
		e.bufs[d] = make([]int32, 0, len(units))
	}
	return e.visit(rest, 0, false)
}

// shift frees unit i's room in m (sign 1) or takes it back (sign -1).
func (e *exact) shift(m *room, i int, sign int64) {
	R := len(e.f.res)
	req := e.units[i].rows(e.f)
	for j, t := range e.at[i] {
		if t < 0 {
			continue
		}
		row := m.rows[int(t)*R : int(t+1)*R]
		for r, q := range req[j*R : (j+1)*R] {
			row[r] += sign * q
		}
		c := m.count(row)
		m.total += c - m.cnt[t]
		m.cnt[t] = c
	}
}

// beats reports whether evicting e.set (and extra, unit index i of
// e.units; -1 for none) may replace the best: in the first pass when it is
// cheaper, in the ties pass when it costs no more. A set that only ties
// loses in the first pass, and is noted for the ties pass when it leaves
// enough member slots (else it cannot fit).
func (e *exact) beats(extra int) bool {
	b := e.f.best
	if b == nil {
		return true
	}
	k := e.sum.k
	if extra >= 0 {
		k = e.sum.with(e.units[extra])
	}
	x := k.Compare(b.cost)
	if x == 0 && !e.ties {
		enough := e.only.enough()
		if extra >= 0 {
			e.shift(&e.only, extra, 1)
			enough = e.only.enough()
			e.shift(&e.only, extra, -1)
		}
		if enough {
			e.f.sawTie(k)
		}
	}
	return x < 0 || (x == 0 && e.ties)
}

// visit explores the sets that extend e.set with units of rest (indexes
// into e.units, in eviction order), depth deep; added says whether e.set
// just grew (and so is worth a solve). e.all counts e.set and rest
// removed.
func (e *exact) visit(rest []int32, depth int, added bool) error {
	f := e.f
	if e.done {
		return nil
	}
	if f.left <= 0 {
		f.cut = true
		f.limitBy(LimitBudget)
		return nil
	}
	f.left -= int64(1 + len(rest))
	if added && e.ties && f.compareToBest(e.set, e.rank, e.place) >= 0 {
		e.done = true // every set met from here on comes later by name
		return nil
	}
	if !e.all.enough() || (added && !e.beats(-1)) {
		return nil
	}
	switch {
	case added && e.ties:
		if e.sum.k.Compare(f.best.cost) == 0 {
			if e.only.enough() {
				ok, err := e.try()
				e.done = ok
				return err
			}
			return nil // a superset would cost more
		}
	case added && e.only.enough():
		ok, err := e.try()
		if ok || err != nil {
			return err // a superset would cost more
		}
	}
	if len(rest) == 0 {
		return nil
	}
	if f.best != nil {
		// A unit that does not beat the best added to e.set never will
		// added to a superset: it leaves the subtree, its room too.
		viable := e.bufs[depth][:0]
		for _, i := range rest {
			if e.beats(int(i)) {
				viable = append(viable, i)
			} else {
				e.shift(&e.all, int(i), -1)
			}
		}
		all := rest
		defer func() {
			for _, i := range all {
				if !slices.Contains(viable, i) {
					e.shift(&e.all, int(i), 1)
				}
			}
		}()
		if len(viable) == 0 || !e.all.enough() {
			return nil
		}
		rest = viable
	}
	if k, ok := e.more(rest); !ok || (k > 1 && f.best != nil && !e.beatsWith(rest, k)) {
		return nil
	}
	i, tail := rest[0], rest[1:]
	u := e.units[i]
	e.set = append(e.set, u)
	e.sum.add(u)
	e.shift(&e.only, int(i), 1)
	err := e.visit(tail, depth+1, true)
	e.shift(&e.only, int(i), -1)
	e.sum.pop(u)
	e.set = e.set[:len(e.set)-1]
	if err != nil || f.cut || e.done {
		return err
	}
	e.shift(&e.all, int(i), -1)
	err = e.visit(tail, depth+1, false)
	e.shift(&e.all, int(i), 1)
	return err
}

// try solves the group without e.set and records it as the best when it
// fits.
func (e *exact) try() (bool, error) {
	f := e.f
	if f.solves >= MaxExactSolves {
		f.cut = true
		f.limitBy(LimitSolves)
		return false, nil
	}
	snap, err := f.s.Apply(placement.Change{Remove: podKeys(e.set)})
	if err != nil {
		return false, err
	}
	d, err := f.solve(snap, e.opts, true)
	if err != nil {
		return false, err
	}
	f.left -= d.Steps
	if d.Status != placement.Scheduled {
		if !d.Proven {
			f.limitBy(LimitUnprovenSolve)
		}
		return false, nil
	}
	victims := slices.Clone(e.set)
	if e.ties {
		// In eviction order, as every result's victims are.
		slices.SortFunc(victims, func(a, b *unit) int { return cmp.Compare(a.pos, b.pos) })
	}
	f.best = &found{
		cost:  e.sum.k,
		r:     result{ok: true, victims: victims, snap: snap, d: d, solved: true, name: e.place, rank: e.rank},
		names: byName(e.set),
	}
	return true, nil
}

// offer makes r (a heuristic's result in a placement) the best when it is
// cheaper, or costs the same and comes first by the tie rule.
func (f *finder) offer(r result) {
	k := f.cost.of(r.victims)
	names := byName(r.victims)
	if f.best == nil {
		f.best = &found{cost: k, r: r, names: names}
		return
	}
	x := k.Compare(f.best.cost)
	if x == 0 {
		x = f.compareToBest(names, r.rank, r.name)
	}
	if x < 0 {
		f.best = &found{cost: k, r: r, names: names}
	}
}

// lowerBound is the area bound of units in the placement of nodes
// (ascending): every victim set of the area that could let the group fit
// costs at least its cost (see [kBound]), with k the fewest units that
// free the room the members need in all. It returns false when not even
// every unit frees enough. O(nodes + units × (pods + log units)).
func (f *finder) lowerBound(units []*unit, nodes []placement.NodeID, rank int, place string) (bound, bool) {
	R := len(f.res)
	least := f.leastReq()
	avail := make([]int64, R)
	row := make([]int64, 0, R)
	for _, id := range nodes {
		if id < 0 || int(id) >= f.s.NumNodes() {
			continue // Solve rejects such a placement
		}
		for r, v := range f.s.AppendFree(row[:0], id) {
			if v > 0 {
				avail[r] = satAdd(avail[r], v)
			}
		}
	}
	q := make([]int64, len(units))
	k := 1
	for r, l := range least {
		if l <= 0 || f.missing {
			continue
		}
		need := int64(math.MaxInt64)
		if int64(f.need) <= math.MaxInt64/l {
			need = int64(f.need) * l
		}
		short := need - avail[r]
		if short <= 0 {
			continue
		}
		for i, u := range units {
			q[i] = 0
			req := u.rows(f)
			for j, id := range u.nodeIDs(f.s) {
				if _, ok := slices.BinarySearch(nodes, id); ok {
					q[i] = satAdd(q[i], req[j*R+r])
				}
			}
		}
		slices.SortFunc(q, func(a, b int64) int { return cmp.Compare(b, a) })
		c := 0
		for _, v := range q {
			if short <= 0 {
				break
			}
			short -= v
			c++
		}
		if short > 0 {
			return bound{}, false
		}
		k = max(k, c)
	}
	pos := units[0].pos
	for _, u := range units {
		pos = min(pos, u.pos)
	}
	return bound{cost: kBound(units, k, Cost{MaxPriority: math.MinInt32}), pos: pos, rank: rank, place: place}, true
}

// kBound is a lower bound on the cost of set (its cost) with k more units
// of us (k ≤ len(us)): the k fewest pods, the k smallest priority sums,
// and the k-th lowest priority added, each a lower bound of its part, so
// that the whole is one in the lexicographic order. When that priority
// is above the set's, the start is the latest that k units of it could
// have: at least k less those of lower priority are of it.
func kBound(us []*unit, k int, set Cost) Cost {
	n := len(us)
	pods, sums, prios := make([]int, 0, n), make([]int64, 0, n), make([]int32, 0, n)
	for _, u := range us {
		pods = append(pods, len(u.pods))
		sums = append(sums, int64(len(u.pods))*(int64(u.v.Priority)-math.MinInt32))
		prios = append(prios, u.v.Priority)
	}
	slices.Sort(pods)
	slices.Sort(sums)
	slices.Sort(prios)
	lb := set
	for j := range k {
		lb.Pods += pods[j]
		lb.PrioritySum += sums[j]
	}
	if p := prios[k-1]; p > lb.MaxPriority {
		below := 0
		var starts []time.Time
		for _, u := range us {
			switch {
			case u.v.Priority < p:
				below++
			case u.v.Priority == p:
				starts = append(starts, u.v.StartTime)
			}
		}
		slices.SortFunc(starts, func(a, b time.Time) int { return compareStart(b, a) }) // latest first
		lb.MaxPriority, lb.Start = p, time.Time{}
		if at := max(1, k-below); at <= len(starts) {
			lb.Start = starts[at-1]
		}
	}
	return lb
}

// resourceBound prepares the resource bound of the placement of nodes
// (nil: every node), given its touched nodes and their free rows.
func (e *exact) resourceBound(nodes, touched []placement.NodeID, rows []int64) {
	f := e.f
	R := len(f.res)
	least := f.leastReq()
	e.needAll, e.untouched = make([]int64, R), make([]int64, R)
	for r, q := range least {
		if q > 0 {
			e.needAll[r] = math.MaxInt64
			if int64(f.need) <= math.MaxInt64/q {
				e.needAll[r] = int64(f.need) * q
			}
		}
	}
	add := func(row []int64, n int64) {
		for r, v := range row {
			if v > 0 {
				e.untouched[r] = satAdd(e.untouched[r], satMul(v, n))
			}
		}
	}
	if nodes == nil {
		for free, n := range f.s.FreeRows() {
			add(free, int64(n))
		}
	} else {
		row := make([]int64, 0, R)
		for _, id := range nodes {
			add(f.s.AppendFree(row[:0], id), 1)
		}
	}
	// Take the touched nodes out again (unless saturated): their room is
	// read from the set's rows.
	for t := range touched {
		for r, v := range rows[t*R : (t+1)*R] {
			if v > 0 && e.untouched[r] < math.MaxInt64 {
				e.untouched[r] -= v
			}
		}
	}
	e.q = make([][]int64, len(e.units))
	for i, u := range e.units {
		e.q[i] = make([]int64, R)
		req := u.rows(f)
		for j, t := range e.at[i] {
			if t >= 0 {
				for r, v := range req[j*R : (j+1)*R] {
					e.q[i][r] = satAdd(e.q[i][r], v)
				}
			}
		}
	}
	e.byRes = make([][]int32, R)
	for r := range R {
		idx := make([]int32, len(e.units))
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(e.q[b][r], e.q[a][r]) })
		e.byRes[r] = idx
	}
}

// more returns how many more units of rest the set needs at least: per
// resource, the members need needAll in all; the room a node offers is at
// most its free room after the set, plus what the units added free there,
// so the units that free the most must cover what is short. It returns
// false when even all of rest cannot (a necessary condition, as member
// slots are). O(resources × units).
func (e *exact) more(rest []int32) (int, bool) {
	R := len(e.f.res)
	var mask uint32
	for _, i := range rest {
		mask |= 1 << i
	}
	k := 1
	for r, need := range e.needAll {
		if need <= 0 {
			continue
		}
		avail := e.untouched[r]
		for t := range e.only.cnt {
			if v := e.only.rows[t*R+r]; v > 0 {
				avail = satAdd(avail, v)
			}
		}
		short, c := need-avail, 0
		for _, i := range e.byRes[r] {
			if short <= 0 {
				break
			}
			if mask&(1<<i) != 0 {
				short -= e.q[i][r]
				c++
			}
		}
		if short > 0 {
			return 0, false
		}
		k = max(k, c)
	}
	return k, true
}

// beatsWith reports whether the set with k more units of rest could beat
// the best (see [kBound]).
func (e *exact) beatsWith(rest []int32, k int) bool {
	us := e.us[:0]
	for _, i := range rest {
		us = append(us, e.units[i])
	}
	e.us = us
	lb := kBound(us, k, e.sum.k)
	x := lb.Compare(e.f.best.cost)
	if x == 0 && !e.ties {
		e.f.sawTie(lb)
	}
	return x < 0 || (x == 0 && e.ties)
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(v, n int64) int64 {
	if n > 0 && v > math.MaxInt64/n {
		return math.MaxInt64
	}
	return v * n
}
