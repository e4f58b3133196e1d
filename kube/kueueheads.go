package kube

import "slices"

// headCursors finds a scheduling cycle's heads — per ClusterQueue its
// first pending Workload in queue order that is neither admitted, set
// aside, nor stuck ([admitter.stick]) unless it may be tried again
// ([admitter.retriable]) — without walking, cycle after cycle, the pending Workloads that cannot
// be heads again before something resets it: with N pending Workloads
// in one ClusterQueue, each cycle admitting or setting aside one, that
// walk was ~N²/2 lookups (a fifth of a tester's N = 8,000 run).
//
// It keeps, per queue ([admitter.queueKey]), the positions in pending of
// the queue's Workloads in pending's order, and a cursor: the positions
// before it hold Workloads passed over for a reason that stands until
// the cursors are reset: admitted (undone only by a preemption, whose
// victims are merged into pending), set aside this round (undone by
// clearing the set), or held by [admitter.stick] and never retriable
// (not in a.assumed: nothing but [admitter.unstick] of an assumed one
// lets a held Workload go). A held assumed Workload that is not yet
// retriable is passed over without moving the cursor past it, since
// the next admission makes it retriable. The heads are each queue's
// first Workload at or after its cursor that is not passed over, in
// pending's order: those the walk over all of pending finds.
//
// Its owner resets it whenever pending changes or a reason for passing
// over may have ended: a preemption (victims queued again, no longer
// admitted) or the set-aside Workloads cleared.
type headCursors struct {
	built   bool
	pending []int
	// queues are the queues with Workloads not yet passed over for good.
	queues []*queueCursor
}

// queueCursor is one queue's positions in pending, in order, and its
// cursor: at[:next] are passed over until a reset.
type queueCursor struct {
	at   []int
	next int
}

// reset makes the next [headCursors.heads] build the cursors again
// from the pending list it is given.
func (h *headCursors) reset() { *h = headCursors{} }

// build groups pending's positions by queue, in pending's order.
func (h *headCursors) build(a *admitter, pending []int) {
	byKey := map[string]*queueCursor{}
	h.built, h.pending, h.queues = true, pending, nil
	for p, i := range pending {
		key := a.queueKey(i)
		q := byKey[key]
		if q == nil {
			q = &queueCursor{}
			byKey[key] = q
			h.queues = append(h.queues, q)
		}
		q.at = append(q.at, p)
	}
}

// passedOver reports whether pending Workload a.queue[i] is no head now:
// admitted, set aside, or held by [admitter.stick] and not
// [admitter.retriable]; and, if so, whether that stands until
// [headCursors.reset] (false for a held assumed Workload, which an
// admission makes retriable).
func (a *admitter) passedOver(i int, out []KueueOutcome, aside map[int]bool) (skip, stands bool) {
	if o := &out[i]; o.Action == KueueAdmitted || o.Action == KueueReadmitted || aside[i] {
		return true, true
	}
	w := a.queue[i]
	if a.isStuck(w) && !a.retriable(w) {
		_, assumed := a.assumed[w.Key()]
		return true, !assumed
	}
	return false, false
}

// heads returns the cycle's heads by queue index, in pending's order,
// moving each queue's cursor past the Workloads passed over for good and
// dropping the queues left with none.
func (h *headCursors) heads(a *admitter, pending []int, out []KueueOutcome, aside map[int]bool) []int {
	if !h.built || len(pending) != len(h.pending) || len(pending) > 0 && &pending[0] != &h.pending[0] {
		h.build(a, pending) // a pending list its owner did not reset for
	}
	var pos []int
	live := h.queues[:0]
	for _, q := range h.queues {
		moving := true
		for k := q.next; k < len(q.at); k++ {
			skip, stands := a.passedOver(pending[q.at[k]], out, aside)
			if !skip {
				pos = append(pos, q.at[k])
				break
			}
			if moving = moving && stands; moving {
				q.next = k + 1
			}
		}
		if q.next < len(q.at) {
			live = append(live, q)
		}
	}
	clear(h.queues[len(live):]) // let the dropped queues go
	h.queues = live
	slices.Sort(pos)
	heads := make([]int, len(pos))
	for k, p := range pos {
		heads[k] = pending[p]
	}
	return heads
}
