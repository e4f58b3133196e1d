package placement

import "sync"

// scratch is the memory a Solve works in and drops when it returns: the
// member list, orders, per-row tables, usage scratch and grouping buffers.
// Kept in a pool between solves, it spares the collector what every
// decision would otherwise allocate afresh (for a 4,096-pod group, about
// 100 KB besides the answer). Nothing in it reaches a Decision or outlives
// its Solve but the fixed tables (identities, ones: see fixedTable), which
// hold no result; the pool only recycles memory, it never carries a result
// from one solve to the next.
type scratch struct {
	members          []member
	oneSet           []member // a lone pod set's members (see prepareMembers, fixedTable)
	identity, bySize []int    // identity: see memberOrder
	identity32       []int32  // with identity and ones, prepareMembers' tables (see fixedTable)
	ones             []int
	zeros32          []int32 // one class's rows' classes (see classTables)
	class            []int32 // prepareMembers' classes as they are found
	reps             []int   // with hashes, prepareMembers' classIndex
	hashes           []uint64
	req              []int64 // prepareMembers' member being compiled
	rows             []int32
	cols             []int
	size             []int64
	w                *work
	gs               groupScratch
	segs             []seg       // the attempts' segments (see segsOf), one after another
	rejections       []Rejection // the solver's reasons buffer
	keys, sortTmp    []uint64
	runs             []setRun
	nodeCount        []int32  // oneSetRuns' pods per node, zero between uses
	nodeMarks        []uint64 // oneSetRuns' nodes with pods, zero between uses
	sources          []source // a run's sources (see classSources), cleared on release
	ahead            []NodeID // a run's node lookups (see aheadRoom)
	alike            alikeRun // placeAlike's, reset for each run
	cons             cons     // the solver's, when the group has terms or sub-groups (see consreuse.go)
	pos              []NodeID // the solver's pos
	sums             []int64  // placedSums's
	attempts         attemptPool
	own              hookOwned // the Solve's own when no caller's hook can keep it (see solveRows)
	sv               solver    // Solve's; release leaves it zero
	g                Group     // Solve's private copy of a group with pod sets
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// grow returns buf resized to n entries, reusing its memory when it can;
// the entries are not cleared.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// work returns the scratch usage for a snapshot of nodes nodes and R
// resources (see newWork): the pooled one when its shape matches. reset
// leaves a work empty, so a reused one is as new.
func (sc *scratch) work(R, nodes, expect int) *work {
	if w := sc.w; w != nil && w.R == R && w.nodes == nodes && (w.dense != nil || len(w.slots) >= 2*max(min(expect, nodes), 4)) {
		return w
	}
	sc.w = newWork(R, nodes, expect)
	return sc.w
}

// release returns the solver's memory to the pool. It is called only when
// a solve returns normally: a hook that panicked may have left the usage
// scratch half written.
func (sv *solver) release() {
	sc := sv.sc
	if len(sv.members) == 0 || len(sc.oneSet) == 0 || &sv.members[0] != &sc.oneSet[0] { // the fixed table is never written
		sc.members = sv.members[:0]
	}
	if sv.bySize != nil {
		sc.bySize = sv.bySize[:0]
	}
	clear(sv.gs.groups) // the snapshot's usage rows the groups point to may be freed
	sc.size, sc.cols = sv.size[:0], sv.cols[:0]
	sc.gs = sv.gs
	// A filter's reasons may be the caller's strings: none stays pooled.
	clear(sv.rejections[:cap(sv.rejections)])
	sc.rejections = sv.rejections[:0]
	sc.segs = sc.segs[:0]
	clear(sc.sources[:cap(sc.sources)]) // they point to the snapshot's classes
	sc.alike.forget()
	sc.attempts.release()
	sc.own = hookOwned{}
	if sv.cons != nil {
		sv.cons.forget()
	}
	// Neither the caller's group nor anything the solve pointed to is
	// kept alive by the pool, and the next Solve starts from a zero
	// solver.
	if sv.g == &sc.g {
		sc.g = Group{}
	}
	sc.sv = solver{}
	scratchPool.Put(sc)
}
