package placement

import (
	"cmp"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
)

// member is one pending pod: 8 bytes and no pointer, so that the pods of a
// large pod set cost little to list and nothing to the garbage collector.
// What it shares with its row (a member, or a pod set whose pods are
// identical) is kept per row.
type member struct {
	row   int32 // its pod is sv.pod(row), its requests sv.req(row)
	index int32 // pending index (see Group.NumPending)
}

// prepareMembers sorts the pending pods into member order, validates them and
// compiles their requests into vectors, reading each member's and each pod
// set's maps once. The vectors are kept in sv.prep, where hooks read them
// through [GroupView.RequestVector]. What validate learnt of g.Members spares
// passes over them.
func (sv *solver) prepareMembers(members checked) error {
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
	// apart: labels matter to sub-groups, and a caller's Filter sees the
	// pod itself (a pod set's pods, one pod to a hook, stay one class).
	// So does a Reserver, but what it tells apart is known only once it
	// exists: splitClasses refines the classes then. What affinity terms
	// tell apart is known once they are compiled: splitUnalike refines
	// the classes then, so that members of equal requests, labels and
	// terms stay one class.
	distinct := len(g.SubGroups) > 0 || len(sv.opts.Filters) > 0
	sv.splitLater = !distinct && len(sv.opts.Reservers) > 0
	b := sv.s.b
	// A group that is one pod set and nothing else (an elastic delta, a
	// Kueue pod set) lists pod i as {row 0, index i}: the pool's table,
	// never modified, serves in place of writing one member per pod.
	oneSet := n == 0 && len(g.PodSets) == 1
	if oneSet {
		sv.members = fixedTable(&sv.sc.oneSet, g.NumPending(), func(i int) member { return member{row: 0, index: int32(i)} })
	} else {
		sv.members = grow(sv.sc.members, g.NumPending())
	}
	// Per row its class, per class one request vector: rows of a class
	// request the same. Hooks read both through sv.prep, possibly after the
	// solve, so what sv.prep keeps does not come from the pool (see
	// classTables).
	// A class a row in member order, as distinct members of one kind in
	// order have: the tables are identities and ones, which the pool keeps
	// (never modified, only extended) in place of three allocations.
	tables := distinct && inOrder && len(g.PodSets) == 0
	sv.size = grow(sv.sc.size, len(rows))
	if tables {
		sv.class = fixedTable(&sv.sc.identity32, len(rows), func(i int) int32 { return int32(i) })
	} else {
		sv.class = grow(sv.sc.class, len(rows)) // written below, kept by classTables
		sv.sc.class = sv.class
	}
	// One class's vector (a gang of identical members) fits in the
	// Solve's own prepared; more grow out of it.
	sv.reqs = sv.prep.oneReq[:0]
	if distinct { // a class a row
		sv.reqs = slices.Grow(sv.reqs, len(rows)*sv.R)
	}
	req := grow(sv.sc.req, sv.R) // the member being compiled
	sv.sc.req = req
	sv.cols = sv.sc.cols[:0]
	for j := range sv.R {
		if j != b.podsR {
			sv.cols = append(sv.cols, j)
		}
	}
	classes := classIndex{reps: sv.sc.reps[:0], hashes: sv.sc.hashes[:0]}
	// Members the caller found alike (compiledRows.alike) are one class,
	// as sameClass would find member by member: the first is compiled,
	// the others take its class and size.
	alike := sv.pre != nil && sv.pre.alike && !distinct && len(g.PodSets) == 0
	i := 0
	for k, row := range rows {
		start, count := int(row), 1
		if int(row) >= n {
			start, count = sv.prep.starts[int(row)-n], int(g.PodSets[int(row)-n].Count)
		}
		if !oneSet {
			m := &sv.members[i]
			m.row = row
			m.index = int32(start)
		}
		if k > 0 && alike {
			sv.class[row], sv.size[row] = sv.class[rows[k-1]], sv.size[rows[k-1]]
			i++
			continue
		}
		if !sv.compile(row, req) {
			return firstBadPod(g.Members) // the slow path names the field
		}
		// With tables, members are distinct: sameClass says no.
		if prev := rows[max(k-1, 0)]; k > 0 && sv.sameClass(prev, row, req, distinct) {
			sv.class[row], sv.size[row] = sv.class[prev], sv.size[prev] // runs of identical members are the rule
		} else {
			if tables {
				sv.reqs = append(sv.reqs, req...) // class row, already set
			} else {
				sv.class[row] = classes.of(sv, row, req, distinct)
			}
			if k > 0 && slices.Equal(sv.req(prev), req) {
				sv.size[row] = sv.size[prev] // distinct members, alike requests
			} else {
				sv.size[row] = b.ffdSize(req)
			}
		}
		// A pod set's other pods: one 8-byte store each, no bounds check.
		// (A member has none: its row is itself.)
		if !oneSet && count > 1 {
			rest := sv.members[i+1 : i+count]
			for c := range rest {
				rest[c] = member{row: row, index: int32(start + 1 + c)}
			}
		}
		i += count
	}
	sv.prep.req, sv.prep.rowClass = sv.reqs, sv.class
	if tables {
		sv.classes = len(rows)
		sv.prep.classRow = fixedTable(&sv.sc.identity, len(rows), func(i int) int { return i })
		sv.prep.classPods = fixedTable(&sv.sc.ones, len(rows), func(int) int { return 1 })
		return nil
	}
	sv.classTables(classes.reps)
	sv.sc.reps, sv.sc.hashes = classes.reps[:0], classes.hashes[:0]
	return nil
}

// classTables sets sv.prep's class tables from prepareMembers' classes
// (reps, each class's first row) and sv.class, the pool's: what sv.prep
// keeps must not be written by a later Solve (see GroupView). One class —
// a gang of identical members, the rule — needs no allocation: every row
// is of class 0 (the pool's zeros, never modified), its row is one entry
// of the pool's identity, and its count sits in the Solve's own prepared.
// More classes take two: the rows' classes copied out of the pool, and
// the classes' rows and counts.
func (sv *solver) classTables(reps []int) {
	rows := len(sv.class)
	sv.classes = len(reps)
	if len(reps) == 1 {
		r := reps[0]
		sv.class = fixedTable(&sv.sc.zeros32, rows, func(int) int32 { return 0 })
		sv.prep.classRow = fixedTable(&sv.sc.identity, r+1, func(i int) int { return i })[r:]
		sv.prep.onePods[0] = sv.g.NumPending()
		sv.prep.classPods = sv.prep.onePods[:]
		sv.prep.rowClass = sv.class
		return
	}
	sv.class = slices.Clone(sv.class)
	ints := make([]int, 2*len(reps))
	classRow, classPods := ints[:len(reps):len(reps)], ints[len(reps):]
	copy(classRow, reps)
	n := len(sv.g.Members)
	for row := range rows {
		classPods[sv.class[row]] += 1
		if row >= n {
			classPods[sv.class[row]] += int(sv.g.PodSets[row-n].Count) - 1
		}
	}
	sv.prep.rowClass, sv.prep.classRow, sv.prep.classPods = sv.class, classRow, classPods
}

// splitClasses gives each row a class of its own once the reservers
// exist, as prepareMembers does for members that a Filter or affinity may
// tell apart: the search takes members of one class as interchangeable,
// and a Reserver may not. (Members a ClassReserver cannot tell apart are
// placed in runs by the greedy passes through sv.hclass, but the search
// keeps them apart, so that its decisions are those of one by one.)
// Class ids follow member order, as prepareMembers gives them. Reservers
// come without pod sets: a row is a member.
func (sv *solver) splitClasses() {
	n := len(sv.members)
	of, reqs, classRow, classPods := make([]int32, len(sv.class)), make([]int64, n*sv.R), make([]int, n), make([]int, n)
	for k, m := range sv.members {
		of[m.row], classRow[k], classPods[k] = int32(k), int(m.row), 1
		copy(reqs[k*sv.R:], sv.req(m.row))
	}
	sv.reqs, sv.class, sv.classes = reqs, of, n
	sv.prep.req, sv.prep.rowClass, sv.prep.classRow, sv.prep.classPods = reqs, of, classRow, classPods
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
	if sv.pre != nil && int(row) < len(sv.g.Members) {
		copy(req, sv.pre.of(int(row), sv.R))
		return true
	}
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
	if p.Name == "" || !validScoreRequests(p.ScoreRequests) || !validTolerations(p.Tolerations) {
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
			sv.prep.untracked = true
		}
	}
	return true
}

// hookGroup returns the view to hand a hook: a fresh copy of sv.g, so
// that a hook reassigning its fields (Members, PodSets) reaches neither
// the caller's group nor the one the solver reads its rows from, with what
// the solver compiled of its members.
//
// The copy is the Solve's own (see hookOwned), not the pool's, since a
// hook may keep its view past the Solve.
func (sv *solver) hookGroup() GroupView {
	*sv.hg = *sv.g
	return GroupView{Group: sv.hg, prep: sv.prep}
}

// hookOwned is what a Solve hands its hooks and they may keep: its
// compiled members, its copy of the group (hookGroup) with, for a group of
// one pod set, the copy of that set, and, without a Generator, the one
// placement of every node the placement hooks are handed.
type hookOwned struct {
	prep   prepared
	hg     Group
	oneSet [1]PodSet
	all    [1]Placement
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
	if withLabels {
		// No two rows are merged: comparing with every earlier class of
		// equal requests (all of them, in a gang of identical members)
		// would cost O(rows²) for nothing, and no lookup needs a hash.
		id := int32(len(c.reps))
		c.reps = append(c.reps, int(row)) // a class a row; no hash is read
		sv.reqs = append(sv.reqs, req...)
		return id
	}
	h := uint64(14695981039346656037)
	for _, q := range req {
		h = (h ^ uint64(q)) * 1099511628211
	}
	same := func(id int32) bool { return c.hashes[id] == h && sv.sameClass(int32(c.reps[id]), row, req, withLabels) }
	switch {
	case c.byHash == nil:
		for id := range int32(len(c.reps)) {
			if same(id) {
				return id
			}
		}
	default:
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
// of both, affinity terms aside (splitUnalike splits what they tell
// apart). Labels matter to sub-groups, and then no two members are merged.
func (sv *solver) sameClass(a, row int32, req []int64, withLabels bool) bool {
	if withLabels || !slices.Equal(sv.req(a), req) || (sv.missing != nil && sv.missing[sv.pod(a)] != sv.missing[sv.pod(row)]) {
		return false
	}
	if n := int32(len(sv.g.Members)); sv.noNodeFilters && a < n && row < n {
		return true // validate saw no member with a node filter
	}
	return alikeBesidesRequests(sv.pod(a), sv.pod(row))
}

// alikeBesidesRequests reports whether pa and pb pick the same nodes
// apart from their requests: the same node selector, tolerations and
// node affinity (what sameClass compares besides the requests).
func alikeBesidesRequests(pa, pb *Pod) bool {
	// Ranging over even an empty map costs an iterator: most pods have no
	// selector.
	if len(pa.NodeSelector)+len(pb.NodeSelector) > 0 && !maps.Equal(pa.NodeSelector, pb.NodeSelector) {
		return false
	}
	return slices.Equal(pa.Tolerations, pb.Tolerations) && equalNodeAffinity(pa.NodeAffinity, pb.NodeAffinity)
}

// memberOrder is the members' indexes in member order: the identity. It
// is never modified, so the pool keeps one, filled once for the largest
// group so far.
func (sv *solver) memberOrder() []int {
	return fixedTable(&sv.sc.identity, len(sv.members), func(i int) int { return i })
}

// fixedTable returns the first n entries of *table, entry i being at(i),
// extending the table when it is shorter. Entries once written never
// change and the view returned ends at n, so a view may outlive the solve
// (hooks read prepareMembers' tables afterwards) while the pool extends
// the table for a later one.
func fixedTable[T any](table *[]T, n int, at func(i int) T) []T {
	if t := *table; len(t) < n {
		t = slices.Grow(t, n-len(t))
		for i := len(t); i < n; i++ {
			t = append(t, at(i))
		}
		*table = t
	}
	return (*table)[:n:n]
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
