package placement

import "github.com/gangsched/gangsched/internal/arith"

// shortOfGroups answers the greedy's run of members idx over p, whose
// sources groupSources just grouped (h), without placing anything when
// the run is the whole of a one-class group that batches, its first
// run, the nodes' groups have less room than the group needs, and reasons
// depend on a node's type and usage alone (memoReasons): the run would
// fill every node with room to its group's capacity, the first members
// in member order, so the attempt is short by that room, as
// shortByClasses answers a placement that goes by the snapshot's
// classes. It spares a failing placement of a few dozen nodes (a rack
// that cannot hold a large set) filling each node, then replaying the
// fill for the diagnosis and comparing every node with the one before
// (groupReasons explains it a group at a time). The budget was spent as
// the run spends it.
func (sv *solver) shortOfGroups(a *attempt, idx []int, h []source) bool {
	if sv.classes != 1 || a.placed != 0 || len(idx) != len(sv.members) || len(sv.w.touched) > 0 || !sv.memoReasons(&sv.members[idx[0]]) {
		return false
	}
	var room int64
	for _, src := range h {
		// On a first run every source is a group: next, then ahead[1:].
		room = arith.SatAdd(room, arith.MulSat(src.cap, int64(len(src.ahead))))
		if room >= int64(sv.need) {
			return false
		}
	}
	a.placed, a.short = int(room), true
	sv.grouped = a.p // sv.gs holds its groups until the next grouping
	return true
}

// groupReasons counts, per group of p's nodes alike in static type and
// usage (groupSources' groups), the reasons member first fits on none of
// them once a short attempt (shortOfGroups) filled every node with room:
// a group's nodes end alike, so its first node, filled in the scratch
// state, speaks for all, as it would node by node after the fill. The
// attempt's groups are read again when no other grouping came since.
// Groups of one type short of the same resources after the fill give the
// same reasons (with memoReasons, a node's type and which requests its
// free row misses decide them), so those are listed once per run of such
// groups, as diagnose lists them once per run of alike nodes.
func (sv *solver) groupReasons(p *Placement, first *member, counts *tally) {
	if sv.grouped != p {
		sv.groupSources(p, first, int64(len(sv.members)))
	}
	b, req := sv.s.b, sv.req(first.row)
	memo := len(req) <= 64
	var last []Rejection
	lastTyp, lastMask, run := int32(-1), uint64(0), 0
	flush := func() {
		for _, r := range last {
			counts.add(r.Reason, run)
		}
	}
	for _, g := range sv.gs.groups {
		var mask uint64 // the requests g's nodes miss after the fill
		if memo {
			alloc := b.alloc[int(g.rep)*sv.R : int(g.rep+1)*sv.R]
			for r, q := range req {
				if q > 0 && alloc[r]-g.used[r]-g.cap*q < q {
					mask |= 1 << r
				}
			}
		}
		if !memo || lastTyp < 0 || g.typ != lastTyp || mask != lastMask {
			flush()
			if g.cap > 0 {
				sv.w.add(g.rep, req, g.cap)
			}
			last, run = sv.reasons(first, g.rep), 0
			sv.w.reset()
			lastTyp, lastMask = g.typ, mask
		}
		run += int(g.count)
	}
	flush()
}
