package dra

import (
	"sync"

	"github.com/gangsched/gangsched/placement"
)

// A solve's reserver is mostly memory the next solve can use again: the
// claims resolve generates (a gang with per-pod claims generates one a
// member, every solve), the assignment's per-claim arrays, the slab of
// device assignments, the per-device arrays of held devices, the maps of
// answers. Allocated afresh, they made garbage collection about half of
// a 64 × 8-GPU solve. The hook returns its reserver when the solve is
// done with it (placement.ReserverReleaser), and the next Reserver of a
// solve on the same inventory takes it from the inventory's pool: the
// per-device and per-counter arrays are sized by the inventory.
//
// Nothing of a reserver outlives its solve: the decision holds placement's
// memory and the reasons' strings only. Commit, whose claims keep their
// generated owners, builds a reserver of its own and never returns it.

// reserverPool holds the reservers released on one inventory.
type reserverPool struct{ p sync.Pool }

var _ placement.ReserverReleaser = hook{}

// Release implements [placement.ReserverReleaser]: the solve is done with
// the hook, whose memory goes to the next solve on the same inventory.
func (h hook) Release() { h.r.recycle() }

// takeReserver returns a reserver for l, made or released by an earlier
// solve on l's inventory; newReserver sets it up.
func (l *Ledger) takeReserver() *reserver {
	if l.inv.pool != nil {
		if r, ok := l.inv.pool.p.Get().(*reserver); ok {
			return r
		}
	}
	return &reserver{}
}

// reserverMem is what a released reserver keeps for the next solve, apart
// from the buffers that every use cuts to [:0] or sets afresh and the
// search's state (r.x), which every search resets. Each is handed back
// where the reserver makes it when it first needs it, so that "not made
// yet" still reads as it did in a fresh reserver.
type reserverMem struct {
	rs         resolved // what r.rs points to
	members    []*placement.Pod
	nodes      []placement.NodeID // newReserver's block, carved per claim
	held       lazy[int32]        // reset
	ctr        []int64            // zeroed
	sharedHeld []int64            // zeroed
	memo       map[planKey]planMemo
	nodeGen    []uint32
}

// recycle empties r, keeping its memory, and puts it in the pool. Every
// field is either zero afterwards, as in a new reserver, or memory whose
// contents the next solve overwrites before reading (see reserverMem).
func (r *reserver) recycle() {
	if r.rs != &r.mem.rs || r.inv.pool == nil {
		return // not set up by newReserver (Plan's), or released already
	}
	pool := r.inv.pool
	m := r.mem
	clear(m.rs.pods) // the members are the solve's, not the pool's
	m.members = m.rs.pods[:0]
	m.rs.pods, m.rs.pg, m.rs.byPtr, m.rs.byKey = nil, nil, nil, nil
	if r.held.pages != nil {
		r.held.reset()
		clear(r.ctr)
		clear(r.sharedHeld)
		m.held, m.ctr, m.sharedHeld = r.held, r.ctr, r.sharedHeld
	}
	if r.memo != nil {
		clear(r.memo)
		m.memo = r.memo
	}
	if r.nodeGen != nil {
		clear(r.nodeGen)
		m.nodeGen = r.nodeGen
	}
	if r.sc.taken.pages != nil {
		r.sc.taken.reset()
		clear(r.sc.ctr)
		clear(r.sc.shared)
	}
	r.slab.rewind()
	clear(r.why)
	clear(r.near)
	clear(r.nearIx)
	clear(r.frames[:cap(r.frames)]) // pods
	clear(r.changes[:cap(r.changes)])
	kept := reserver{
		mem: m, sc: r.sc, x: r.x, slab: r.slab,
		fresh: r.fresh[:0], alone: r.alone[:0], why: r.why,
		alloc: r.alloc[:0], nodes: r.nodes[:0], grpRefs: r.grpRefs[:0], podRefs: r.podRefs[:0],
		frames: r.frames[:0], changes: r.changes[:0],
		keyBuf: r.keyBuf[:0], users: r.users[:0],
		mark: r.mark, epoch: r.epoch, reach: r.reach[:0], matched: r.matched[:0],
		near: r.near, nearIx: r.nearIx, nearBuf: r.nearBuf[:0], nearTmp: r.nearTmp[:0],
		inSet: r.inSet, inEpoch: r.inEpoch, queue: r.queue[:0], cbuf: r.cbuf[:0],
	}
	if kept.epoch > 1<<31 { // far from wrapping, where old marks would read as this epoch's
		clear(kept.mark)
		kept.epoch = 0
	}
	*r = kept
	pool.p.Put(r)
}

// initHeld makes the assignment's per-device and per-counter arrays, or
// takes back those of an earlier solve.
func (r *reserver) initHeld() {
	if m := &r.mem; m.held.pages != nil {
		r.held, r.ctr, r.sharedHeld = m.held, m.ctr, m.sharedHeld
		m.held, m.ctr, m.sharedHeld = lazy[int32]{}, nil, nil
		return
	}
	r.held = newLazy[int32](len(r.inv.devs))
	r.ctr = make([]int64, len(r.inv.counters))
	r.sharedHeld = make([]int64, len(r.inv.shared))
}

// newMemo makes plan's memo, or takes back an earlier solve's.
func (r *reserver) newMemo() map[planKey]planMemo {
	if m := r.mem.memo; m != nil {
		r.mem.memo = nil
		return m
	}
	return map[planKey]planMemo{}
}

// newNodeGen makes the per-node generations, or takes back an earlier
// solve's.
func (r *reserver) newNodeGen() []uint32 {
	if g := r.mem.nodeGen; g != nil {
		r.mem.nodeGen = nil
		return g
	}
	return make([]uint32, len(r.inv.locals))
}
