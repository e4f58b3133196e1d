package placement

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/internal/buffers"
)

// assignments lists an attempt's assignments as hooks see them: the
// members' in member order, then one entry per pod set and node (sorted
// by set name, then node name) with its pod count.
func (sv *solver) assignments(a *attempt) []Assignment {
	runs := sv.setRuns(a)
	out := sv.memberAssignments(a, len(runs), true)
	n := len(sv.g.Members)
	for _, r := range runs {
		out = append(out, Assignment{Pod: sv.pod(int32(r.row)).Key(), Node: sv.s.b.nodes[r.id].Name, NodeID: r.id,
			Member: sv.prep.starts[r.row-n], Count: r.count})
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
		sets = sv.setAnswer(len(runs))
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

// setAnswer returns n PodSetAssignments for a Decision, each field of
// which the caller writes: the resize's buffers when it lent them
// (compiledRows.resize), else new memory.
func (sv *solver) setAnswer(n int) []PodSetAssignment {
	if sv.pre != nil && sv.pre.resize != nil {
		return buffers.Overwrite(&sv.pre.resize.delta, n)[:n]
	}
	return make([]PodSetAssignment, n)
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
			Member: sv.prep.starts[r.row-n], Count: r.count}) {
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
	if a.node != nil && len(sv.g.PodSets) == 0 {
		// Members one by one, each a row: their nodes in member order
		// are the answer, without cutting them into segments first.
		out, k := sv.answerSlice(a.placed, extra, indexes), 0
		for i, id := range a.node {
			if id < 0 {
				continue
			}
			m := &sv.members[i]
			e, p := &out[k], sv.pod(m.row)
			e.Pod.Namespace, e.Pod.Name, e.Node, e.NodeID = p.Namespace, p.Name, sv.s.b.nodes[id].Name, id
			if indexes {
				e.Member = int(m.index)
			}
			k++
		}
		return out
	}
	segs, members := sv.segsOf(a), 0
	for _, s := range segs {
		if int(sv.members[s.start].index) < n {
			members += int(s.n)
		}
	}
	// Entries are written field by field into the zeroed slice: a struct
	// copy costs a bulk write barrier while the GC runs.
	out := sv.answerSlice(members, extra, indexes)
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

// answerSlice returns a zeroed slice of n Assignments with capacity for
// extra more: for a Decision's (not indexes, which hooks read), carved
// from the caller's answer arena when it lent one with room (see
// compiledRows.answer), so that the leaves of a hierarchy share one
// allocation; otherwise its own.
func (sv *solver) answerSlice(n, extra int, indexes bool) []Assignment {
	if ar := sv.pre; !indexes && ar != nil && ar.answer != nil && cap(*ar.answer)-len(*ar.answer) >= n+extra {
		a := *ar.answer
		k := len(a)
		*ar.answer = a[:k+n+extra]
		return a[k : k+n : k+n+extra]
	}
	return make([]Assignment, n, n+extra)
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
	segs := sv.segsOf(a)
	if len(sv.g.PodSets) == 1 {
		if runs, ok := sv.oneSetRuns(segs); ok {
			return runs
		}
	}
	nodeBits := bits.Len(uint(len(sv.s.b.nodes)))
	rank, byRank := sv.podSetRanks()
	keys := sv.sc.keys[:0]
	for _, s := range segs {
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

// oneSetRuns is setRuns for a group of one pod set, whose runs sort by
// node alone, with ok, when its segments' nodes lie close enough: each
// segment's pods are added to its node's count in a table as long as the
// snapshot's nodes and its node marked in a bitmap, and the runs are read
// off the bitmap's words from the lowest node to the highest, both left
// zero again: O(segments + words spanned), no comparison. Sorting the
// segments was a tenth of a resize that grows a set onto 70 nodes of a
// fragmented block, most of it mispredicted comparisons. Segments spread
// over more than about 256 node IDs each (more words than a sort's work)
// go to the sort.
func (sv *solver) oneSetRuns(segs []seg) ([]setRun, bool) {
	n, nodes := len(sv.g.Members), len(sv.s.b.nodes)
	count := grow(sv.sc.nodeCount, nodes) // zero: left so after each use
	sv.sc.nodeCount = count
	marks := grow(sv.sc.nodeMarks, (nodes+63)/64)
	sv.sc.nodeMarks = marks
	lo, hi, k := nodes, -1, 0
	for _, s := range segs {
		// Without members (a resize's delta) every segment is the set's.
		if n > 0 && int(sv.members[s.start].index) < n {
			continue
		}
		count[s.node] += s.n
		marks[s.node>>6] |= 1 << (s.node & 63)
		lo, hi, k = min(lo, int(s.node)), max(hi, int(s.node)), k+1
	}
	if k == 0 || hi>>6-lo>>6 > 4*k+8 {
		for _, s := range segs {
			count[s.node], marks[s.node>>6] = 0, 0
		}
		return nil, false
	}
	runs := sv.sc.runs[:0]
	for w := lo >> 6; w <= hi>>6; w++ {
		for word := marks[w]; word != 0; word &= word - 1 {
			id := NodeID(w<<6 | bits.TrailingZeros64(word))
			runs = append(runs, setRun{row: n, id: id, count: count[id]})
			count[id] = 0
		}
		marks[w] = 0
	}
	sv.sc.runs = runs
	return runs, true
}

// podSetRanks returns each pod set's rank among the group's sets by name,
// and the set of each rank.
func (sv *solver) podSetRanks() (rank, byRank []int) {
	if len(sv.g.PodSets) == 1 {
		return oneSet[:], oneSet[:] // the usual group of one set: read-only, no allocation
	}
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

// oneSet is podSetRanks' answer for a group of one pod set; never written.
var oneSet = [1]int{0}

// waiting lists the members attempt a leaves waiting, in member order.
func (sv *solver) waiting(a *attempt) []Key {
	var out []Key
	if len(sv.g.Members) == 0 || a.placed == len(sv.members) {
		return out // a pod set's waiting pods are not listed; none waits
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
