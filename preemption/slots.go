package preemption

import (
	"math"

	"github.com/gangsched/gangsched/placement"
)

// slots bounds from above how many pending members the nodes of a
// placement can take: a node holds at most min over resources of
// free/least, where least is the smallest request of any member for that
// resource (the pod count included). Fewer slots than members still needed
// proves that the group cannot fit, without a solve; keeping the count as
// candidates come and go costs O(resources) per pod. Only the nodes of
// the pods shifted keep a row of their own: counting reads the others once.
type slots struct {
	f     *finder
	s     *placement.Snapshot // the snapshot counted
	inP   []bool              // nil: every node
	least []int64             // per resource; 0 = not a limit
	at    []int32             // per node, 1 + the offset of its row in rows; 0: none
	ids   []placement.NodeID  // the nodes with a row, to reset at
	rows  []int64             // free row of the nodes in at, from their offset
	total int64
	need  int64
	// out lists the units shift removed since newSlots (stale entries
	// included: a unit's removed flag says); onS is set when newSlots read
	// the caller's snapshot, every node.
	out []*unit
	onS bool
}

// slotsWithout returns the slots of snap, which is the caller's snapshot
// without victims: from the scratch state of the last prefixBound when it
// counted every node of the caller's snapshot (the units it removed
// swapped for victims, O(pods of both)), else counted anew, O(nodes).
func (f *finder) slotsWithout(snap *placement.Snapshot, victims []*unit, inP []bool) *slots {
	sl := f.scratch
	if inP != nil || sl == nil || !sl.onS {
		return f.newSlots(snap, nil, inP)
	}
	for _, u := range victims {
		u.keep = true
	}
	for _, u := range sl.out {
		if u.removed && !u.keep {
			sl.shift(u, -1)
		}
	}
	for _, u := range victims {
		if !u.removed {
			sl.shift(u, 1)
		}
		u.keep = false
	}
	return sl
}

func (f *finder) newSlots(s *placement.Snapshot, nodes []placement.NodeID, inP []bool) *slots {
	R, N := len(f.res), s.NumNodes()
	if f.scratch == nil {
		f.scratch = f.nodeScratch(N).sl
		f.scratch.f, f.scratch.least = f, f.leastReq()
	}
	// One slots at a time: the scratch is reused.
	sl := f.scratch
	for _, u := range sl.out {
		u.removed = false
	}
	sl.out, sl.onS = sl.out[:0], s == f.s && nodes == nil && inP == nil
	sl.s, sl.inP, sl.total, sl.need = s, inP, 0, int64(f.need)
	for _, id := range sl.ids {
		sl.at[id] = 0
	}
	sl.ids = sl.ids[:0]
	sl.rows = sl.rows[:0]
	if f.missing {
		sl.need = math.MaxInt64 // a member requests what no node has
	}
	row := make([]int64, 0, R)
	init := func(id int) {
		row = s.AppendFree(row[:0], placement.NodeID(id))
		sl.total += sl.count(row)
	}
	switch {
	case nodes != nil:
		for _, id := range nodes {
			if id >= 0 && int(id) < N {
				init(int(id))
			}
		}
	case inP == nil:
		// Every node: one row per class of identical nodes. The product
		// wraps as the per-node sum would.
		for free, n := range s.FreeRows() {
			sl.total += sl.count(free) * int64(n)
		}
	default:
		for id := range N {
			if inP == nil || inP[id] {
				init(id)
			}
		}
	}
	return sl
}

// row returns node id's free row, made its own on first use.
func (sl *slots) row(id placement.NodeID) []int64 {
	R := len(sl.least)
	o := int(sl.at[id]) - 1
	if o < 0 {
		o = len(sl.rows)
		sl.rows = sl.s.AppendFree(sl.rows, id)
		sl.at[id] = int32(o + 1)
		sl.ids = append(sl.ids, id)
	}
	return sl.rows[o : o+R]
}

// count returns the slots of a node with the given free row.
func (sl *slots) count(row []int64) int64 {
	c := sl.need
	for r, q := range sl.least {
		if q > 0 {
			free := row[r]
			if free < q {
				return 0 // most nodes of a packed cluster: no division
			}
			c = min(c, free/q)
		}
	}
	return c
}

// shift frees u's room (sign 1, u removed) or takes it back (sign -1).
func (sl *slots) shift(u *unit, sign int64) {
	if u.removed = sign > 0; u.removed {
		sl.out = append(sl.out, u)
	}
	R := len(sl.least)
	req := u.rows(sl.f)
	for j, id := range u.nodeIDs(sl.f.s) {
		if sl.inP != nil && !sl.inP[id] {
			continue
		}
		free := sl.row(id)
		before := sl.count(free)
		for r, q := range req[j*R : (j+1)*R] {
			free[r] += sign * q
		}
		sl.total += sl.count(free) - before
	}
}

func (sl *slots) enough() bool { return sl.total >= sl.need }

// leastReq returns, per resource, the smallest request of any member for
// it (1 for the pod count): what a member slot needs at least.
func (f *finder) leastReq() []int64 {
	if f.least == nil {
		R := len(f.res)
		f.least = make([]int64, R)
		for r := range f.res {
			f.least[r] = math.MaxInt64
			for i := range f.pending {
				q := f.memberReq[i*R+r] // the member's request for f.res[r]
				if r == f.podsR {
					q = 1
				}
				f.least[r] = min(f.least[r], q)
			}
		}
	}
	return f.least
}
