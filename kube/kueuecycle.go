package kube

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
)

// cycleEntry is the head of one ClusterQueue in a scheduling cycle: its
// index in the queue, its plan on the cycle's starting state, the height
// of the cohort it borrows from (0 when it does not borrow), and, when it
// does not fit, the victims it would preempt on that state and the
// flavor choice they make room in (with none, the one it would try
// preemption in).
//
// search is that head's preemption search on the cycle's starting state:
// when its turn comes the head issues those targets as they are, however
// the heads before it changed the state, as Kueue's schedule issues the
// targets its nominate found on the cycle's snapshot (GetTargets is not
// called again in the loop over the entries).
type cycleEntry struct {
	i       int
	ps      plannedSets
	borrow  int
	victims []*preemptCand
	vch     flavorChoice
	search  *preemptSearch
}

// admitInCycles admits pending Workloads (indexes in a.queue, sorted)
// with queues, in Kueue v0.17's scheduling cycles (pkg/scheduler
// schedule; pkg/cache/queue):
//
//   - each cycle takes one head per ClusterQueue: its first pending
//     Workload in queue order not set aside as inadmissible (a Workload
//     its LocalQueue does not route is a queue of its own);
//   - every head is planned (flavors, topology) on the cycle's starting
//     state, not seeing what this cycle admits;
//   - the heads are taken in Kueue's order ([admitter.cycleOrder]): not
//     borrowing before borrowing (by the height of the cohort borrowed
//     from), higher priority, earlier creation, then namespace/name, where
//     Kueue's sort leaves ties to the order it got the heads in; or, with
//     fair sharing, by the cohort trees' shares on the usage now;
//   - a head that fits is admitted if its quota still fits beside what
//     the cycle admitted (or kept room for) before it and the nodes its
//     plan names still hold its pods, and a head nominated to preempt
//     goes on only if it still fits with its nominated victims gone;
//     else it is skipped and stays its ClusterQueue's head for the next
//     cycle, as Kueue's "no longer fits after processing another
//     workload";
//   - a head that does not fit preempts for itself when it may
//     ([admitter.settle]), issuing the targets nominated for it on the
//     cycle's starting state, not searched again on the state its turn
//     finds (Kueue's nominate computes them, its loop issues them); the
//     preemptor waits for a later cycle and the
//     victims are pending again, and, as Kueue's loop goes on after
//     issuing preemptions, the cycle goes on with the victims gone and
//     the preemptor's room kept ([admitter.keepPreemptorRoom]); a later
//     head whose nominated victims one before it preempted is skipped
//     (Kueue's "overlapping preemption targets"); the heads set aside
//     come back one cycle after the preemptor's retry (Kueue requeues
//     them on the victims' release, which the real Kueue saw after the
//     preemptor's retry); else, when Kueue would have preempted for it but
//     found no victims, it keeps room for the rest of the cycle
//     ([admitter.keepRoom]), which the heads after it are re-checked
//     against; and it waits with its reason and, in a
//     BestEffortFIFO ClusterQueue, is set aside, so that its ClusterQueue's
//     next Workload is the next cycle's head; in a StrictFIFO one it stays
//     the head, cycle after cycle, and the Workloads queued after it wait
//     behind it untried (Kueue requeues it at once for any reason but a
//     namespace mismatch, which gangsim routes nowhere).
//
// A cycle that admits, preempts and sets aside nothing would repeat
// itself: the heads it skipped (for room the blocked heads kept) stay
// heads cycle after cycle in Kueue ("Workload no longer fits after
// processing another workload"), so they block their ClusterQueues too.
// Cycles repeat while some head has not failed since the round began.
// Then, if a cycle admitted or preempted in the round, the set-aside and
// blocked heads are all tried again in a new round; the loop ends when a
// round admits nothing, so each reason is that of the final state. Kueue
// retries a set-aside Workload only on events that may free room, and a
// blocked StrictFIFO head every cycle; with room only taken between such
// events, the retry changes a reason's wording at most.
func (a *admitter) admitInCycles(pending []int, out []KueueOutcome) error {
	aside := map[int]bool{}   // BestEffortFIFO heads found inadmissible this round
	blocked := map[int]bool{} // heads found inadmissible this round that stay heads
	progressed, requeue := false, false
	// Reset whenever pending changes, a Workload admitted is preempted, or
	// aside is cleared.
	hc := &headCursors{}
	// Only settle (and writePending) change a Workload's status here;
	// each change is reported to the holders' list.
	a.holders = &holderCache{is: map[int]bool{}, dirty: map[int]bool{}}
	frozen := map[int]asideReason{} // the reasons of Workloads retried unprompted (kueueasidereason.go)
	a.frozenInput(frozen, pending, out)
	roundPreempted := false // whether a head of this round issued victims
	if !a.opts.noMemo {
		a.newNominationMemo()
	}
	defer func() { a.holders, a.nominating, a.memo, a.cycleStart = nil, nil, nil, -1 }()
	for {
		heads := hc.heads(a, pending, out, aside)
		if !slices.ContainsFunc(heads, func(i int) bool { return !blocked[i] }) {
			if !progressed {
				a.thawAside(frozen, aside, out)
				a.waitBehind(pending, out, blocked)
				return nil
			}
			if roundPreempted {
				// The victims' evictions requeue the Workloads set
				// aside in Kueue, at times its controllers choose:
				// every retry may be a real one.
				clear(frozen)
			} else {
				a.freezeAside(frozen, aside, out)
			}
			roundPreempted = false
			clear(aside)
			clear(blocked)
			hc.reset()
			progressed = false
			continue
		}
		entries := make([]cycleEntry, 0, len(heads))
		a.cycleStart = a.changes
		a.nominating = &nominationCache{collected: map[string][]*KueueClusterQueue{}}
		for _, i := range heads {
			if a.retriable(a.queue[i]) {
				if err := a.unstick(a.queue[i], &out[i]); err != nil {
					return err
				}
			}
			e, err := a.nominateEntry(i)
			if err != nil {
				return err
			}
			entries = append(entries, e)
		}
		a.nominating = nil
		next := a.cycleOrder(entries)
		// The heads set aside come back once a preemption frees room, one
		// cycle after the preemptor's own retry.
		requeueNow := requeue
		requeue = false
		changed := false // whether this cycle admitted a head, or kept room for one, yet
		var kept []*keptRoom
		var skipped []int
		cycleProgressed, setAside := false, false
		preempted := map[placement.Key]bool{} // the victims nominated in this cycle
		for e, ok := next(); ok; e, ok = next() {
			w := a.queue[e.i]
			// A head whose victims another preempted in this cycle is
			// skipped, as Kueue's "overlapping preemption targets".
			if slices.ContainsFunc(e.victims, func(c *preemptCand) bool { return preempted[c.w.Key()] }) {
				skipped = append(skipped, e.i)
				continue
			}
			// With nothing admitted before it in the cycle, the state is
			// the one it was planned on: no re-check, so that a check
			// stricter than the plan's cannot skip it cycle after cycle,
			// but for a Workload charged other than its requests, whose
			// charge Kueue re-checks on the hosts the plan found by its
			// requests (kueuehostusage.go): the check it fails there it
			// fails every cycle.
			if (changed || e.ps.w != nil && e.ps.w.charges != nil) && e.ps.plan.Decision.Status == placement.Scheduled && len(e.victims) == 0 {
				still, err := a.stillFits(e.ps, kept)
				if err != nil {
					return err
				}
				if !still {
					skipped = append(skipped, e.i) // its ClusterQueue's head again next cycle
					continue
				}
			}
			// A head nominated to preempt is re-checked likewise, its
			// victims gone, as Kueue's fits does with its targets.
			if changed && len(e.victims) > 0 {
				cq, _ := a.route(w)
				still, err := a.fitsWithout(e.search.at, cq, e.vch, e.victims, true)
				if err != nil {
					return err
				}
				if !still {
					skipped = append(skipped, e.i)
					continue
				}
			}
			// A head that preempts issues the targets nominated at the
			// cycle's start, not those a search on the state now would
			// find: the victims of the heads before it are gone (one
			// overlapping them was skipped above) and what they admitted
			// or kept is counted (the check above), as Kueue's fits
			// checks them; the targets are not searched again, so a head
			// may preempt Workloads it no longer needs gone, as Kueue's
			// does.
			a.searched = e.search
			admitted, victims, err := a.settle(w, e.ps, &out[e.i], out)
			a.searched = nil
			if err != nil {
				return err
			}
			a.statusChanged(e.i, admitted || len(victims) > 0)
			if admitted {
				progressed, changed, cycleProgressed = true, true, true
				continue
			}
			if len(victims) > 0 {
				// Kueue goes on with the cycle's later heads, its
				// room taken and its victims gone.
				pending = mergePending(pending, victims)
				hc.reset()
				requeue, roundPreempted = true, true
				progressed, cycleProgressed = true, true
				for _, v := range victims {
					preempted[a.queue[v].Key()] = true
				}
				// The room kept is that of the count it preempted
				// for, as Kueue adds its entry's assignment usage: a
				// partial admission's smaller count, though its
				// whole count may fit with the victims gone.
				at := w
				if e.search != nil && e.search.at != nil {
					at = e.search.at
				}
				k, err := a.keepPreemptorRoom(at)
				if err != nil {
					return err
				}
				if k != nil {
					kept = append(kept, k)
				}
				changed = true
				continue
			}
			k, err := a.keepRoom(w, out[e.i].Message)
			if err != nil {
				return err
			}
			if k != nil {
				kept, changed = append(kept, k), true
			}
			if cq, why := a.route(w); why == "" && cq.StrictFIFO {
				blocked[e.i] = true
			} else {
				aside[e.i], setAside = true, true
			}
		}
		for _, k := range kept {
			if err := a.releaseKept(k); err != nil {
				return err
			}
		}
		if requeueNow {
			clear(frozen)
			clear(aside)
			clear(blocked)
			hc.reset()
		}
		// A cycle that changed nothing and set no head aside repeats
		// itself: its heads skipped for the room blocked heads kept
		// stay heads in Kueue, cycle after cycle, so they block too.
		if !cycleProgressed && !setAside {
			for _, i := range skipped {
				o := &out[i]
				if o.Action != KueueEvicted && o.Action != KueuePreempted {
					o.Action, o.Message = KueuePending, noLongerFits
				} else {
					o.Message = joinReasons([]string{a.evictedFor[a.queue[i].Key()], "queued again: " + noLongerFits})
				}
				writePending(a.queue[i], noLongerFits, a.opts.Now)
				a.statusChanged(i, false)
				blocked[i] = true
			}
		}
	}
}

// cycleOrder returns the cycle's entries one by one in the order Kueue
// takes its heads: with fair sharing, each chosen on the usage when it is
// asked for ([admitter.nextFair]); without, sorted once, as Kueue's
// classical order: not borrowing before borrowing (by the height of the
// cohort borrowed from), higher priority, earlier creation, then
// namespace/name.
func (a *admitter) cycleOrder(entries []cycleEntry) func() (cycleEntry, bool) {
	if a.opts.Queues.FairSharing != nil {
		done := make([]bool, len(entries))
		return func() (cycleEntry, bool) {
			k, ok := a.nextFair(entries, done)
			if !ok {
				return cycleEntry{}, false
			}
			done[k] = true
			return entries[k], true
		}
	}
	slices.SortFunc(entries, func(x, y cycleEntry) int {
		wx, wy := a.queue[x.i], a.queue[y.i]
		return cmp.Or(cmp.Compare(x.borrow, y.borrow), cmp.Compare(wy.Priority, wx.Priority),
			wx.Created.Compare(wy.Created), wx.Key().Compare(wy.Key()))
	})
	k := 0
	return func() (cycleEntry, bool) {
		if k == len(entries) {
			return cycleEntry{}, false
		}
		k++
		return entries[k-1], true
	}
}

// noLongerFits is Kueue's reason for a head skipped because what its
// cycle admitted or kept before it took its room.
const noLongerFits = "Workload no longer fits after processing another workload"

// queueKey names the queue pending Workload a.queue[i] heads: its
// ClusterQueue, or, routed nowhere, a queue of its own.
func (a *admitter) queueKey(i int) string {
	if len(a.queueKeys) < len(a.queue) {
		a.queueKeys = slices.Grow(a.queueKeys, len(a.queue)-len(a.queueKeys))[:len(a.queue)]
	}
	// Kept per index while the queue holds the same Workload there: the
	// head cursors ([headCursors]) read every pending Workload's on each
	// reset, and waitBehind reads them again.
	w := a.queue[i]
	if k := a.queueKeys[i]; k.w == w {
		return k.key
	}
	var key string
	if cq, why := a.route(w); why == "" {
		key = cq.Name
	} else {
		key = "/" + w.Key().String()
	}
	a.queueKeys[i] = keptQueueKey{w, key}
	return key
}

// keptQueueKey is [admitter.queueKey] of Workload w.
type keptQueueKey struct {
	w   *KueueWorkload
	key string
}

// waitBehind gives each Workload left pending behind the head blocked in
// its StrictFIFO ClusterQueue, never tried or tried before that head was
// queued again ahead of it (a victim's requeue), its final reason: it
// waits behind that head. Its status is left as it is, as Kueue, which
// does not try it, leaves it: no condition, or the one its last try
// wrote.
func (a *admitter) waitBehind(pending []int, out []KueueOutcome, blocked map[int]bool) {
	head := map[string]int{}
	for _, i := range slices.Sorted(maps.Keys(blocked)) {
		head[a.queueKey(i)] = i
	}
	for _, i := range pending {
		if out[i].Action != "" && out[i].Action != KueuePending || a.isStuck(a.queue[i]) {
			continue
		}
		key := a.queueKey(i)
		if h, ok := head[key]; ok && h != i {
			strict := ""
			if cq, why := a.route(a.queue[h]); why == "" && cq.StrictFIFO {
				strict = "StrictFIFO "
			}
			out[i].Action = KueuePending
			out[i].Message = fmt.Sprintf("waits behind %s, the head of %sClusterQueue %s", a.queue[h].Key(), strict, key)
		}
	}
}

// stillFits reports whether plan ps, made on the cycle's starting state,
// still fits now: its quota within what its ClusterQueue may take, and
// on each node it names room for its pods, as Kueue re-checks a
// nominated head's quota and topology usage before admitting it. A node
// already over its allocatable before the cycle's kept room is left to
// the plan.
func (a *admitter) stillFits(ps plannedSets, kept []*keptRoom) (bool, error) {
	if ch := ps.adm.choice; ch != nil && !a.quotaFits(ps.adm.cq, *ch) {
		return false, nil
	}
	if ps.group == nil || len(ps.group.PodSets) == 0 {
		return true, nil
	}
	us, err := placement.PodSetUsageOf(ps.group, ps.plan.Decision)
	if err != nil {
		return false, err
	}
	us = ps.w.phantomUsage(us)
	// What the plan adds on each node, per resource: its requests, or,
	// for a Workload charged other than them, its charge of the resources
	// in topology flavors, as Kueue re-checks it ([admitter.tasCharge]).
	need := map[placement.NodeID]map[placement.ResourceName]int64{}
	for _, u := range us {
		req := u.Requests
		if w := ps.w; w != nil && !w.isPhantom(u.PodSet) {
			if c := a.tasCharge(w, w.setIndex(u.PodSet), ps.adm.choice); c != nil {
				req = c
			}
		}
		for _, n := range u.Nodes {
			id, ok := a.s.NodeID(n.Node)
			if !ok {
				continue
			}
			if need[id] == nil {
				need[id] = map[placement.ResourceName]int64{}
			}
			for r, v := range req {
				need[id][r] = arith.SatAdd(need[id][r], arith.MulSat(v, int64(n.Count)))
			}
		}
	}
	base := a.s
	var rel []placement.PodSetRef
	for _, k := range kept {
		rel = append(rel, k.sets...)
	}
	if len(rel) > 0 {
		if base, err = a.s.Apply(placement.Change{Release: rel}); err != nil {
			return false, err
		}
	}
	for id, rs := range need { // any order: one short node is enough
		for r, v := range rs {
			if v > 0 && a.s.Free(id, r) < v && base.Free(id, r) >= 0 {
				return false, nil
			}
		}
	}
	return true, nil
}

// borrowHeight is how far up its cohort tree plan ps borrows, as Kueue's
// assignment.Borrowing (FindHeightOfLowestSubtreeThatFits): 0 when its
// ClusterQueue's nominal quota holds it (or it has no cohort), else the
// height of the lowest cohort above it whose subtree quota holds what the
// ClusterQueue's own quota does not, the largest over the flavors and
// resources it uses. A plan that does not fit counts 0.
func (a *admitter) borrowHeight(ps plannedSets) int {
	ch := ps.adm.choice
	if ch == nil || ps.plan.Decision.Status != placement.Scheduled {
		return 0
	}
	return a.heightWith(ps.adm.cq, *ch, a.quota())
}

// heightWith is how far up its cohort tree cq borrows to take flavor
// choice ch while used is in use ([admitter.borrowHeight]).
func (a *admitter) heightWith(cq *KueueClusterQueue, ch flavorChoice, t quotaTree) int {
	h := 0
	for fr, val := range ch.usage { // h is a max: any order
		nominal, _, _ := t.limits(quotaNode{cq: cq}, fr)
		if cq.Cohort == "" || sum(t.used[cq.Name][fr], val) <= nominal {
			continue
		}
		if c, _ := t.lowestFit(cq, fr, val); c != "" {
			h = max(h, t.height(c))
		}
	}
	return h
}

// height is cohort c's height in its tree: 1 with only ClusterQueues
// under it (0 with nothing, or under a cycle of spec.parentName, whose
// walk down would not end), one more than its highest child cohort's.
// It depends on the specs alone, so it is kept in the index once made:
// walking every child again for each head of a cycle made a cycle
// quadratic in a cohort's ClusterQueues (2,000 in one cohort: a sixth
// of the run).
func (t quotaTree) height(c string) int {
	m := t.q.idx
	if h, ok := m.heights[c]; ok {
		return h
	}
	h := 0
	if !t.inCycle(quotaNode{cohort: c}) {
		for _, n := range t.children(c) {
			if n.cq != nil {
				h = max(h, 1)
			} else {
				h = max(h, t.height(n.cohort)+1)
			}
		}
	}
	if m.heights == nil {
		m.heights = map[string]int{}
	}
	m.heights[c] = h
	return h
}
