package kube

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// The kinds of preemption candidate, as Kueue's classical preemption
// sorts them: a Workload of the preemptor's own ClusterQueue; one of
// another ClusterQueue of the cohort tree over whose quota the preemptor
// has the nearer claim (it fits in the quota of a subtree holding both:
// hierarchical reclaim), which may be preempted even while the
// preemptor borrows; one that may be preempted only when the preemptor
// then borrows nothing; and one that borrowWithinCohort lets a borrowing
// preemptor take (a lower priority, within maxPriorityThreshold).
const (
	candWithinCQ = iota
	candHierarchical
	candReclaimNoBorrow
	candReclaimWhileBorrowing
)

// preemptCand is an admitted Workload a pending one may preempt.
type preemptCand struct {
	i     int // index in the admitter's queue
	w     *KueueWorkload
	cq    *KueueClusterQueue
	usage map[flavorResource]int64
	// amounts is usage as a list ([preemptCand.amountList]).
	amounts []frAmount
	// rank is its quota holder's ([quotaHolder]).
	rank [2]int32
	// reserved is when its quota was reserved (QuotaReserved's
	// lastTransitionTime): the newer are preempted first among equals.
	reserved time.Time
	// evicted says it carries Evicted True while it still holds quota
	// (its eviction under way): Kueue preempts such Workloads first.
	evicted bool
	kind    int
	// lca is the cohort whose subtree the candidate was found in (the
	// lowest common cohort of both ClusterQueues); "" within the
	// ClusterQueue.
	lca string
}

// preemptTarget is a victim and Kueue's Preempted condition reason.
type preemptTarget struct {
	cand   *preemptCand
	reason string
}

// maxPreemptions bounds the preemptions of one [AdmitKueueWorkloads]
// call per Workload queued: a safeguard so that the admission loop ends
// whatever the policies; Kueue itself has no such bound.
const maxPreemptions = 4

// cycleWords is what a preemptor's reason says when gangsim stops a
// preemption cycle ([admitter.repeats]).
const cycleWords = "a preemption cycle"

// repeats words why gangsim does not issue targets for w: w preempted
// the same Workloads before in this run while the same Workloads held
// quota, and they were admitted again (Kueue, which keeps no such
// memory, would preempt and readmit them in turn, cycle after cycle),
// or the run's preemptions reached
// [maxPreemptions] per Workload; "" when it issues them.
func (a *admitter) repeats(w *KueueWorkload, targets []preemptTarget) string {
	var names []string
	for _, t := range targets {
		names = append(names, t.cand.w.Key().String())
	}
	// The key holds who holds quota now: a preemption repeated over
	// another state (a victim's readmission itself preempted someone) is
	// Kueue's next step, not a cycle, and may settle.
	var holders []string
	for i, v := range a.queue {
		if apimeta.IsStatusConditionTrue(v.Obj.Status.Conditions, kueue.WorkloadQuotaReserved) {
			holders = append(holders, a.keyString(i))
		}
	}
	key := w.Key().String() + " " + strings.Join(names, ",") + " | " + strings.Join(holders, ",")
	switch {
	case a.issued[key]:
		return fmt.Sprintf("preempting %s again would repeat %s (in Kueue they are preempted and admitted again in turn)", strings.Join(names, ", "), cycleWords)
	case a.preemptions >= maxPreemptions*len(a.queue):
		return fmt.Sprintf("preemption stopped after %d preemptions in this run: %s", a.preemptions, cycleWords)
	}
	a.issued[key] = true
	return ""
}

// preempt looks for the Workloads that pending Workload w, which does not
// fit, may preempt (and the flavor choice they make room in) in its
// ClusterQueue (and cohort) under the
// ClusterQueue's spec.preemption, as Kueue v0.17's classical preemption
// chooses them; none when the policies allow none or no set of them
// makes room. Flavors are tried in each resource group's order from the
// first (every group moving on together); flavors whose quota holds w
// (topology alone needs room) are taken at once, as Kueue stops there;
// with no victims there, those tried before are dropped, as Kueue's next
// attempt starts after them (and, after the last flavor, comes back to
// the same stop); else, as Kueue's default whenCanPreempt TryNextFlavor
// goes on past a flavor that needs preemption, the best of the rest
// ([admitter.preemptRank]) is taken, the first among equals. A flavor needing more of a resource than the ClusterQueue's nominal
// quota, where it cannot reclaim from a cohort above it, is not tried, as
// Kueue preempts only to get quota the ClusterQueue may claim. Under a
// flavor fungibility other than Kueue's default, the victims are sought
// in the flavors it chooses at the usage now alone, whether they hold w
// only by preemption or hold its quota and need room for its topology;
// with none there in topology flavors, in those its next attempt chooses,
// from after the last flavor its search looked at.
func (a *admitter) preempt(w *KueueWorkload) ([]preemptTarget, flavorChoice, error) {
	return a.preemptFrom(w, map[[2]int]int{}, false)
}

// preemptFrom is [admitter.preempt] with each unit's flavors tried from
// start (by unit and group, as [KueueQueues.assignFlavors] reads it; not
// changed). With once, the victims are sought in one scheduling attempt
// of Kueue's alone, the one starting there: under a fungibility other
// than the default, the attempts after it (from after the last flavor its
// search looked at) are not tried.
func (a *admitter) preemptFrom(w *KueueWorkload, start map[[2]int]int, once bool) ([]preemptTarget, flavorChoice, error) {
	q := a.opts.Queues
	start = maps.Clone(start)
	if q == nil {
		return nil, flavorChoice{}, nil
	}
	cq, why := a.route(w)
	if why != "" || !cq.Preemption.any(cq.Cohort != "") {
		return nil, flavorChoice{}, nil
	}
	all := a.candidates(w, cq)
	if len(all) == 0 {
		return nil, flavorChoice{}, nil
	}
	if !cq.Fungibility.isDefault() {
		// Kueue's flavor assigner grades each flavor at the usage now and
		// seeks victims in the flavors it chose, those whose quota holds w
		// (topology alone needing room) too; when topology flavors chosen
		// so give none, its next attempt starts after the last flavor its
		// search looked at.
		for {
			ch, why := q.assignFlavorsSim(cq, w, a.quota(), start, a.simulator(cq, w))
			if why != "" || ch.masked { // a masked choice is Fit to Kueue: no victims sought
				return nil, flavorChoice{}, nil
			}
			var ts []preemptTarget
			var err error
			if ch.severalTopologyFlavors(q, w) == "" {
				ts, err = a.victimSearch()(w, cq, ch, all)
			}
			if err != nil || len(ts) > 0 || ch.topology == "" || once || !ch.next(cq, q, start) {
				return ts, ch, err
			}
		}
	}
	var best []preemptTarget
	var bestCh flavorChoice
	bestRank := -1
	// The flavors are chosen as if every candidate were gone; the
	// victims are then sought at the usage as it is. The tree without
	// them is asked for once per search: asked at each flavor tried, it
	// copied every ClusterQueue's usage at the second for candidates it
	// had not seen in an earlier search. The choices read only that tree
	// and start, not the victims found, so they are all made first, with
	// the candidates taken out once: taking them out and putting them
	// back at each flavor tried was an eighth of a run.
	type choice struct {
		ch  flavorChoice
		why string
	}
	var choices []choice
	t, kept := a.goneTree(all)
	undo := func() {}
	if !kept {
		undo, t = a.withoutHeldBy(a.candidatesHold(cq, all)), a.quota()
	}
	for {
		ch, why := q.assignFlavors(cq, w, t, start)
		choices = append(choices, choice{ch, why})
		if why != "" || !ch.nextAny(cq, start) {
			break
		}
	}
	undo()
	for _, c := range choices {
		ch := c.ch
		if c.why != "" {
			return best, bestCh, nil
		}
		if ch.severalTopologyFlavors(q, w) == "" {
			ts, err := a.victimSearch()(w, cq, ch, all)
			if err != nil {
				return nil, flavorChoice{}, err
			}
			switch {
			case a.quotaFits(cq, ch) && len(ts) > 0:
				return ts, ch, nil // Kueue stops at flavors that hold the quota: only topology needs room
			case a.quotaFits(cq, ch):
				// Kueue's attempt stopped here and found no victims; its
				// next attempt starts after these flavors, so those
				// before, which need preemption, are never its choice.
				best, bestCh, bestRank = nil, flavorChoice{}, -1
			case len(ts) > 0:
				if r := a.preemptRank(cq, ch, ts); r > bestRank {
					best, bestCh, bestRank = ts, ch, r
				}
			}
		}
	}
	return best, bestCh, nil
}

// quotaFits reports whether cq's unused quota (with what its cohort
// lends) holds flavor choice ch now.
func (a *admitter) quotaFits(cq *KueueClusterQueue, ch flavorChoice) bool {
	t := a.quota()
	for fr, v := range ch.usage {
		if _, free := t.room(cq, fr); v > free {
			return false
		}
	}
	return true
}

// preemptRank ranks flavor choices that need preemption as Kueue's
// default preference (BorrowingOverPreemption) does: one whose victims
// are all in other ClusterQueues (reclaim) before one that preempts in
// cq, then one where cq borrows nothing once the victims are gone.
func (a *admitter) preemptRank(cq *KueueClusterQueue, ch flavorChoice, ts []preemptTarget) int {
	rank := 2 // reclaim
	var removed []*preemptCand
	for _, t := range ts {
		removed = append(removed, t.cand)
		if t.cand.cq == cq {
			rank = 0
		}
	}
	used, undo := a.usedWithout(removed)
	defer undo()
	for fr, v := range ch.usage {
		if nominal, _, _ := groupLimits(cq.Groups, fr); sum(used[cq.Name][fr], v) > nominal {
			return rank
		}
	}
	return rank + 1
}

// nextAny sets start to the flavor after each one picked, and reports
// whether any unit has one.
func (ch *flavorChoice) nextAny(cq *KueueClusterQueue, start map[[2]int]int) bool {
	more := false
	for ug, i := range ch.picked {
		if i+1 < len(cq.Groups[ug[1]].Flavors) {
			start[ug], more = i+1, true
		}
	}
	return more
}

// candidates are the admitted Workloads that cq's policies let w preempt
// at all: those of cq under withinClusterQueue, and, in a cohort, those of
// the other ClusterQueues of its cohort tree under reclaimWithinCohort.
// Those of an inactive ClusterQueue are never candidates: Kueue leaves
// such a queue out of its snapshot, whose tree the candidates come from,
// while its cohort still counts its quota and usage. Which of them may be
// victims depends on the resources and borrowing ([admitter.victims]).
func (a *admitter) candidates(w *KueueWorkload, cq *KueueClusterQueue) []*preemptCand {
	q := a.opts.Queues
	root := q.cohortRoot(cq.Cohort)
	holders := a.holdersIn(root)
	// The candidates in one allocation: the slice never grows past it, so
	// the pointers hold.
	store := make([]preemptCand, 0, len(holders))
	out := make([]*preemptCand, 0, len(holders))
	for _, h := range holders {
		v, vcq := h.w, h.cq
		if v == w {
			continue
		}
		policy := cq.Preemption.WithinClusterQueue
		if vcq != cq {
			if cq.Cohort == "" || h.root != root {
				continue
			}
			policy = cq.Preemption.ReclaimWithinCohort
		}
		if !allows(policy, w.Priority, w.Created, v.Priority, v.Created) {
			continue
		}
		store = append(store, preemptCand{i: h.i, w: v, cq: vcq, usage: h.usage, amounts: h.amounts, rank: h.rank, reserved: h.reserved, evicted: h.evicted})
		out = append(out, &store[len(store)-1])
	}
	return out
}

// quotaHolder is an admitted Workload holding quota in an active
// ClusterQueue, as [admitter.candidates] reads it: its index in the
// queue, ClusterQueue and that queue's cohort root, the quota it holds
// (not to be changed), and its reservation time and Evicted condition.
type quotaHolder struct {
	i       int
	w       *KueueWorkload
	cq      *KueueClusterQueue
	root    string
	usage   map[flavorResource]int64
	amounts []frAmount
	// rank is its place among the kept list's holders in
	// [candidateOrder], without metadata.uid (rank[0]) and with
	// (rank[1]), from 1; 0 when the list is not kept. A search's
	// candidates are a part of the list, in the same order: a search
	// sorted them by comparing Workloads, each time.
	rank     [2]int32
	reserved time.Time
	evicted  bool
}

// quotaHolders are the Workloads holding quota in active ClusterQueues,
// in queue order (Kueue's ClusterQueues list the Workloads holding quota,
// and admittedUsage reads QuotaReserved). Those of an inactive
// ClusterQueue are left out: Kueue leaves such a queue out of its
// snapshot, whose tree the candidates come from, while its cohort still
// counts its quota and usage. While a.holders is on (the scheduling
// cycles) the list is kept until a Workload's status changes
// ([admitter.statusChanged]): reading every Workload's admission again
// for every head that does not fit made the cycles quadratic in them.
func (a *admitter) quotaHolders() []quotaHolder {
	if a.holders != nil && a.holders.ok {
		return a.holders.list
	}
	var list []quotaHolder
	inactive := map[*KueueClusterQueue]bool{}
	for i := range a.queue {
		if h, ok := a.holderAt(i, inactive); ok {
			list = append(list, h)
		}
	}
	if a.holders != nil {
		rankHolders(list)
		a.holders.list, a.holders.ok = list, true
		a.holders.byRoot = nil
		clear(a.holders.is)
		for _, h := range list {
			a.holders.is[h.i] = true
		}
	}
	return list
}

// rankHolders sets each holder's rank in list: its place in
// [candidateOrder], with metadata.uid and without.
func rankHolders(list []quotaHolder) {
	idx := make([]int, len(list))
	// A search orders by metadata.uid only when every candidate has one:
	// an order no search can ask for is not made.
	with := slices.ContainsFunc(list, func(h quotaHolder) bool { return h.w.Obj.UID != "" })
	without := slices.ContainsFunc(list, func(h quotaHolder) bool { return h.w.Obj.UID == "" })
	for u, byUID := range []bool{false, true} {
		if byUID && !with || !byUID && !with && !without {
			continue
		}
		for k := range idx {
			idx[k] = k
		}
		slices.SortFunc(idx, func(x, y int) int {
			return candidateOrder(byUID, list[x].w, list[y].w, list[x].reserved, list[y].reserved)
		})
		for k, i := range idx {
			list[i].rank[u] = int32(k + 1)
		}
	}
}

// candidateOrder orders preemption candidates x and y, whose quota was
// reserved at rx and ry, as Kueue's CandidatesOrdering does: the lower
// priority first, then the newer reservation, then, when byUID, the
// lesser metadata.uid, then namespace and name.
func candidateOrder(byUID bool, x, y *KueueWorkload, rx, ry time.Time) int {
	last := 0
	if byUID {
		last = cmp.Compare(x.Obj.UID, y.Obj.UID)
	}
	return cmp.Or(cmp.Compare(x.Priority, y.Priority), ry.Compare(rx), last, x.Key().Compare(y.Key()))
}

// keyString is a.queue[i]'s namespace/name, kept per index: the queue
// holds a Workload of the same key there for the whole call (one
// queued again, [KueueWorkload.afterReclaim], keeps it), and
// [admitter.repeats] words every quota holder's at each preemption.
func (a *admitter) keyString(i int) string {
	if len(a.keyStrings) < len(a.queue) {
		a.keyStrings = slices.Grow(a.keyStrings, len(a.queue)-len(a.keyStrings))[:len(a.queue)]
	}
	if a.keyStrings[i] == "" {
		a.keyStrings[i] = a.queue[i].Key().String()
	}
	return a.keyStrings[i]
}

// holdersIn are the quota holders ([admitter.quotaHolders]) whose
// ClusterQueue's cohort root is root ("" for those without a cohort), in
// queue order: a search's candidates are found among those alone. While
// the list is kept, so is its split by root: every search scanned the
// holders of every cohort tree.
func (a *admitter) holdersIn(root string) []quotaHolder {
	list := a.quotaHolders()
	c := a.holders
	if c == nil || !c.ok {
		var in []quotaHolder
		for _, h := range list {
			if h.root == root {
				in = append(in, h)
			}
		}
		return in
	}
	if c.byRoot == nil {
		c.byRoot = map[string][]quotaHolder{}
		for _, h := range list {
			c.byRoot[h.root] = append(c.byRoot[h.root], h)
		}
	}
	return c.byRoot[root]
}

// holderAt is a.queue[i] as a quota holder of an active ClusterQueue,
// false when it is none ([admitter.quotaHolders]). While a.holders is on
// it is kept per index until the Workload's status changes
// ([admitter.statusChanged], [admitter.issuePreemptions] mark it) or the
// queue holds another Workload there: reading every Workload's admission
// again at each change of one was a fifth of a crowded run.
func (a *admitter) holderAt(i int, inactive map[*KueueClusterQueue]bool) (quotaHolder, bool) {
	v := a.queue[i]
	c := a.holders
	if c != nil && i < len(c.at) && c.at[i].w == v && !c.dirty[i] {
		return c.at[i].h, c.at[i].ok
	}
	h, ok := a.readHolder(i, v, inactive)
	if c != nil {
		if len(c.at) < len(a.queue) {
			c.at = make([]keptHolder, len(a.queue))
		}
		c.at[i] = keptHolder{w: v, h: h, ok: ok}
		delete(c.dirty, i)
	}
	return h, ok
}

// keptHolder is what [admitter.holderAt] keeps for a queue index: the
// Workload read, and it as a quota holder (ok false: none).
type keptHolder struct {
	w  *KueueWorkload
	h  quotaHolder
	ok bool
}

// readHolder reads Workload v, at index i of the queue, as a quota
// holder of an active ClusterQueue; false when it holds none or its
// ClusterQueue is inactive (kept in inactive by ClusterQueue).
func (a *admitter) readHolder(i int, v *KueueWorkload, inactive map[*KueueClusterQueue]bool) (quotaHolder, bool) {
	q := a.opts.Queues
	name, u := q.admittedUsage(v)
	if name == "" {
		return quotaHolder{}, false
	}
	vcq := q.ClusterQueues[name]
	off, ok := inactive[vcq]
	if !ok {
		off = vcq == nil || q.inactive(vcq) != ""
		inactive[vcq] = off
	}
	if off {
		return quotaHolder{}, false
	}
	return quotaHolder{i: i, w: v, cq: vcq, root: q.cohortRoot(vcq.Cohort), usage: u, amounts: amountsOf(u), reserved: a.reservedAt(v),
		evicted: apimeta.IsStatusConditionTrue(v.Obj.Status.Conditions, kueue.WorkloadEvicted)}, true
}

// holderCache is the list [admitter.quotaHolders] keeps, and which queue
// indexes it holds.
//
// gen counts the times it was dropped: what was computed from the
// Workloads' statuses in one generation holds while gen is the same.
//
// at keeps each queue index's Workload as a holder ([admitter.holderAt]);
// dirty are the indexes whose status changed since.
type holderCache struct {
	list []quotaHolder
	// byRoot is list by the cohort root of each holder's ClusterQueue,
	// made when first asked for ([admitter.holdersIn]).
	byRoot map[string][]quotaHolder
	is     map[int]bool
	ok     bool
	gen    int
	at     []keptHolder
	dirty  map[int]bool
}

// statusChanged drops the kept [admitter.quotaHolders] list when the
// status of a.queue[i] changed and i was in it, or, for any i, when held
// says a Workload may have come to hold quota or lost it (an admission,
// a preemption); the nominations kept are told what it changed
// ([admitter.holderChanged]).
func (a *admitter) statusChanged(i int, held bool) {
	if a.holders != nil {
		a.holders.dirty[i] = true
	}
	if a.holders != nil && (held || a.holders.is[i]) {
		a.holderChanged(i, a.holders.is[i])
		a.holders.ok = false
		a.holders.gen++
	}
}

// reservedAt is when w's quota was reserved: its QuotaReserved True
// condition's lastTransitionTime, else now, as Kueue reads it.
func (a *admitter) reservedAt(w *KueueWorkload) time.Time {
	if c := apimeta.FindStatusCondition(w.Obj.Status.Conditions, kueue.WorkloadQuotaReserved); c != nil && c.Status == metav1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return a.opts.Now
}

// cohortRoot is the root of cohort's tree ("" for none); a cycle of
// spec.parentName ends the walk where it closes.
func (q *KueueQueues) cohortRoot(cohort string) string {
	seen := map[string]bool{}
	for c := cohort; c != "" && !seen[c]; c = q.parentOf(quotaNode{cohort: c}) {
		seen[c], cohort = true, c
	}
	return cohort
}

// victims is Kueue's classical search for w in flavor choice ch: the
// candidates using a flavor-resource that needs preemption, sorted
// (those already evicted but still holding quota, then the rest; each
// part cohort candidates with the nearer claim, then the other cohort
// ones, then cq's own; each by priority, lowest first, then the newest
// reservation first, then metadata.uid as Kueue when every candidate has
// one, else namespace and name),
// are removed one by one, each while it is still valid (one of cq's own,
// or of a ClusterQueue — and cohorts up to the common one — still over
// its nominal quota in those resources), until w fits; then, from the
// second last removed back to the first, each is put back when w still
// fits without it. The search is tried allowing w to borrow and not,
// in Kueue's order. nil when w fits with no set tried.
func (a *admitter) victims(w *KueueWorkload, cq *KueueClusterQueue, ch flavorChoice, all []*preemptCand) ([]preemptTarget, error) {
	if !a.mayPreemptFor(cq, ch) {
		return nil, nil // Kueue's NoFit: more than cq may claim, unless it may preempt while borrowing
	}
	t := a.quota()
	need := a.needPreemption(cq, ch)
	var same, hier, prio []*preemptCand
	// need is a few resources, a candidate's usage a few more: comparing
	// the two lists costs less than hashing each of need into the usage,
	// as every candidate is asked.
	needs := make([]flavorResource, 0, len(need))
	for fr := range need { // any order: any one used counts
		needs = append(needs, fr)
	}
	uses := func(c *preemptCand) bool {
		for _, x := range c.amountList() {
			if x.v > 0 && slices.Contains(needs, x.fr) {
				return true
			}
		}
		return false
	}
	for _, c := range all {
		if c.cq == cq && uses(c) {
			c.kind, c.lca = candWithinCQ, ""
			same = append(same, c)
		}
	}
	if cq.Cohort != "" && cq.Preemption.ReclaimWithinCohort != kueue.PreemptionPolicyNever {
		hier, prio = a.cohortCandidates(w, cq, ch.usage, need, all, uses)
	}
	// Kueue's CandidatesOrdering ends comparing metadata.uid; an input
	// without them (hand-written) is ordered by namespace and name instead,
	// as also when only some have one, which keeps the order total.
	byUID := !slices.ContainsFunc(all, func(c *preemptCand) bool { return c.w.Obj.UID == "" })
	u := 0
	if byUID {
		u = 1
	}
	order := func(x, y *preemptCand) int {
		if x.rank[u] > 0 && y.rank[u] > 0 {
			return cmp.Compare(x.rank[u], y.rank[u]) // the same order, found once per holders' list
		}
		return candidateOrder(byUID, x.w, y.w, x.reserved, y.reserved)
	}
	for _, l := range [][]*preemptCand{same, hier, prio} {
		slices.SortFunc(l, order)
	}
	// Kueue's candidate iterator takes those already evicted (still
	// holding quota) first, across the three kinds, then the others.
	var evicted, rest []*preemptCand
	for _, l := range [][]*preemptCand{hier, prio, same} {
		for _, c := range l {
			if c.evicted {
				evicted = append(evicted, c)
			} else {
				rest = append(rest, c)
			}
		}
	}
	list := slices.Concat(evicted, rest)
	// Kueue's tries, with borrowing and without: one when no cohort
	// candidate exists or, borrowWithinCohort Never, cq is not under its
	// nominal quota; without first when, Never, no candidate is over
	// cq's nearer claim.
	forbidden := cq.Preemption.BorrowWithinCohort != kueue.BorrowWithinCohortPolicyLowerPriority
	attempts := []bool{true, false}
	switch {
	case len(hier) == 0 && len(prio) == 0 || forbidden && !t.underNominal(cq, need):
		attempts = []bool{true}
	case forbidden && len(hier) == 0:
		attempts = []bool{false, true}
	}
	for _, borrow := range attempts {
		if may, err := a.attemptMayFind(w, cq, ch, list, borrow, need); err != nil {
			return nil, err
		} else if !may {
			continue
		}
		// The candidates removed so far are taken out of a.used as they
		// go, and put back before the minimal set is sought: testing each
		// candidate against the whole set removed again made a search
		// quadratic in the candidates.
		var removed []*preemptCand
		var undos []func()
		putBack := func() {
			for i := len(undos) - 1; i >= 0; i-- {
				undos[i]()
			}
			undos = nil
		}
		for _, c := range list {
			if !a.valid(c, cq, borrow, need) {
				continue
			}
			removed = append(removed, c)
			undos = append(undos, a.withoutCand(c))
			fits, err := a.fitsRemoved(w, cq, ch, removed, borrow)
			if err != nil {
				putBack()
				return nil, err
			}
			if !fits {
				continue
			}
			putBack()
			for i := len(removed) - 2; i >= 0; i-- {
				rest := slices.Delete(slices.Clone(removed), i, i+1)
				if fits, err = a.fitsWithout(w, cq, ch, rest, borrow); err != nil {
					return nil, err
				} else if fits {
					removed = rest
				}
			}
			out := make([]preemptTarget, len(removed))
			for i, c := range removed {
				out[i] = preemptTarget{cand: c, reason: candReasons[c.kind]}
			}
			slices.SortFunc(out, func(x, y preemptTarget) int { return x.cand.w.Key().Compare(y.cand.w.Key()) })
			return out, nil
		}
		putBack()
	}
	return nil, nil
}

// needPreemption are the flavor-resources of flavor choice ch that need
// preemption in cq (Kueue's frsNeedPreemption): those beyond what cq may
// take now, and every resource of a set in a topology flavor.
func (a *admitter) needPreemption(cq *KueueClusterQueue, ch flavorChoice) map[flavorResource]bool {
	t := a.quota()
	need := map[flavorResource]bool{}
	for fr, v := range ch.usage {
		if _, free := t.room(cq, fr); v > free {
			need[fr] = true
		}
	}
	for k, f := range ch.tas {
		if f == "" {
			continue
		}
		// Topology, not only quota, may need the room: every resource of
		// a set planned over one needs preemption, as Kueue marks them.
		for r, fl := range ch.flavors[k] {
			need[frOf(fl, r)] = true
		}
	}
	return need
}

// candReasons are the Preempted condition's reasons of each kind of
// candidate (Kueue's PreemptionReason).
var candReasons = map[int]string{
	candWithinCQ:              kueue.InClusterQueueReason,
	candHierarchical:          kueue.InCohortReclamationReason,
	candReclaimNoBorrow:       kueue.InCohortReclamationReason,
	candReclaimWhileBorrowing: kueue.InCohortReclaimWhileBorrowingReason,
}

// cohortCandidates sorts the candidates of cq's cohort tree as Kueue's
// hierarchical reclaim does: walking from cq's cohort to the root, the
// ClusterQueues over their nominal quota in a resource needing
// preemption (reached through cohorts also over theirs) are searched in
// each cohort's subtree not searched yet; their Workloads go to hier once
// w's requests fit in the quota of cq or of a cohort walked so far,
// else to prio, each there as one borrowWithinCohort lets w take while
// borrowing ([KueuePreemption.whileBorrowing]) or only without.
func (a *admitter) cohortCandidates(w *KueueWorkload, cq *KueueClusterQueue, requests map[flavorResource]int64, need map[flavorResource]bool, all []*preemptCand, uses func(*preemptCand) bool) (hier, prio []*preemptCand) {
	t := a.quota()
	adv, remaining := t.fitsInQuota(quotaNode{cq: cq}, requests)
	prev := ""
	seen := map[string]bool{}
	// Which level of the walk found each ClusterQueue; the candidates are
	// then read once. Scanning all of them for every ClusterQueue found
	// made each search quadratic in a wide cohort's ClusterQueues. The
	// order they are found in does not matter: hier and prio are sorted
	// by a total order ([admitter.victims]).
	type level struct {
		lca string
		adv bool
	}
	var levels []level
	at := map[*KueueClusterQueue]int{}
	for c := cq.Cohort; c != "" && !seen[c]; c = t.q.parentOf(quotaNode{cohort: c}) {
		seen[c] = true
		k := len(levels)
		levels = append(levels, level{c, adv})
		a.collectOver(t, c, prev, cq, need, func(vcq *KueueClusterQueue) { at[vcq] = k })
		var fits bool
		fits, remaining = t.fitsInQuota(quotaNode{cohort: c}, remaining)
		adv = adv || fits
		prev = c
	}
	for _, cand := range all {
		k, ok := at[cand.cq]
		if !ok || !uses(cand) {
			continue
		}
		cand.lca = levels[k].lca
		if levels[k].adv {
			cand.kind = candHierarchical
			hier = append(hier, cand)
		} else {
			cand.kind = candReclaimNoBorrow
			if cq.Preemption.whileBorrowing(w.Priority, cand.w.Priority) {
				cand.kind = candReclaimWhileBorrowing
			}
			prio = append(prio, cand)
		}
	}
	return hier, prio
}

// collect calls add for each ClusterQueue but self under cohort, not
// under skip, over its nominal quota in a resource of need and reached
// through cohorts that are too; nothing under a cycle of spec.parentName,
// whose walk down would not end (Kueue leaves its ClusterQueues out).
func (t quotaTree) collect(cohort, skip string, self *KueueClusterQueue, need map[flavorResource]bool, add func(*KueueClusterQueue)) {
	if t.inCycle(quotaNode{cohort: cohort}) {
		return
	}
	for _, n := range t.children(cohort) {
		switch {
		case n.cq == nil && n.cohort != skip && !t.withinNominal(n, need):
			t.collect(n.cohort, skip, self, need, add)
		case n.cq != nil && n.cq != self && !t.withinNominal(n, need):
			add(n.cq)
		}
	}
}

// withinNominal reports whether n uses no more than its subtree quota in
// every resource of need (Kueue's IsWithinNominalInResources).
func (t quotaTree) withinNominal(n quotaNode, need map[flavorResource]bool) bool {
	for fr := range need {
		if t.usage(n, fr) > t.subtree(n, fr) {
			return false
		}
	}
	return true
}

// underNominal reports whether cq uses strictly less than its nominal
// quota in every resource of need.
func (t quotaTree) underNominal(cq *KueueClusterQueue, need map[flavorResource]bool) bool {
	for fr := range need {
		if nominal, _, _ := groupLimits(cq.Groups, fr); t.used[cq.Name][fr] >= nominal {
			return false
		}
	}
	return true
}

// fitsInQuota reports whether requests fit in n's subtree quota beside
// its usage, and what of them its local quota (kept by a lendingLimit)
// leaves for the nodes above.
func (t quotaTree) fitsInQuota(n quotaNode, requests map[flavorResource]int64) (bool, map[flavorResource]int64) {
	fits := true
	rest := make(map[flavorResource]int64, len(requests))
	for fr, v := range requests {
		fits = fits && t.holds(n, fr, v)
		rest[fr] = max(0, v-t.localFree(n, fr))
	}
	return fits, rest
}

// holds reports whether v more of fr fits in n's subtree quota beside its
// usage.
func (t quotaTree) holds(n quotaNode, fr flavorResource, v int64) bool {
	return sum(t.usage(n, fr), v) <= t.subtree(n, fr)
}

// localFree is what of n's local quota of fr (kept by a lendingLimit) its
// usage leaves: what a request from below takes there before it reaches
// n's parent.
func (t quotaTree) localFree(n quotaNode, fr flavorResource) int64 {
	return max(0, t.local(n, fr)-t.usage(n, fr))
}

// lowestFit is the lowest cohort above ClusterQueue cq whose subtree
// quota holds what cq's own local quota does not of v of fr (fits true),
// or, when none does, the root of cq's tree (fits false), as Kueue's
// FindHeightOfLowestSubtreeThatFits walks; "" without a cohort or under a
// cycle of spec.parentName, where Kueue admits nothing.
func (t quotaTree) lowestFit(cq *KueueClusterQueue, fr flavorResource, v int64) (cohort string, fits bool) {
	self := quotaNode{cq: cq}
	if t.inCycle(self) {
		return "", false
	}
	rest := v - t.localFree(self, fr)
	for c := cq.Cohort; c != ""; c = t.q.parentOf(quotaNode{cohort: c}) {
		n := quotaNode{cohort: c}
		if t.holds(n, fr, rest) {
			return c, true
		}
		cohort, rest = c, rest-t.localFree(n, fr)
	}
	return cohort, false
}

// mayReclaimAbove reports whether cq, taking v of fr, finds a cohort
// above it whose subtree quota holds what cq's own does not and that has
// a parent to reclaim from ([quotaTree.lowestFit]): it may then preempt
// past its nominal quota.
func (t quotaTree) mayReclaimAbove(cq *KueueClusterQueue, fr flavorResource, v int64) bool {
	nominal, _, _ := groupLimits(cq.Groups, fr)
	if sum(t.used[cq.Name][fr], v) <= nominal {
		return cq.Cohort != ""
	}
	c, fits := t.lowestFit(cq, fr, v)
	return fits && t.q.parentOf(quotaNode{cohort: c}) != ""
}

// valid reports whether candidate c may still be removed, with the
// candidates removed so far already out of a.used: one of cq's own
// always; from the cohort, not when borrow and it may be preempted only
// without borrowing, nor when its ClusterQueue, or a cohort between it
// and the common one, is within its nominal quota in the resources
// needing preemption.
func (a *admitter) valid(c *preemptCand, cq *KueueClusterQueue, borrow bool, need map[flavorResource]bool) bool {
	if c.cq == cq {
		return true
	}
	if borrow && c.kind == candReclaimNoBorrow {
		return false
	}
	t := a.quota()
	if t.withinNominal(quotaNode{cq: c.cq}, need) {
		return false
	}
	seen := map[string]bool{}
	for p := c.cq.Cohort; p != "" && p != c.lca && !seen[p]; p = t.q.parentOf(quotaNode{cohort: p}) {
		seen[p] = true
		if t.withinNominal(quotaNode{cohort: p}, need) {
			return false
		}
	}
	return true
}

// usedWithout takes the quota the candidates removed hold out of a.used in
// place ([admitter.without]), and returns a.used and the function that
// puts back exactly the values it changed; the caller reads the usage
// only until it calls that, and nothing else changes the usage meanwhile.
// Copying every ClusterQueue's usage for each candidate tested made a
// search quadratic in them.
func (a *admitter) usedWithout(removed []*preemptCand) (quotaUsage, func()) {
	return a.used, a.withoutHeldBy(heldBy(removed))
}

// candidatesHold is heldBy(all) for the candidates of a Workload of cq.
// While the quota holders are kept ([admitter.quotaHolders]) it is kept
// per ClusterQueue until they or the candidates change: the scheduling
// cycle searches for every head that does not fit, each time summing
// every candidate's quota again.
func (a *admitter) candidatesHold(cq *KueueClusterQueue, all []*preemptCand) []heldSum {
	if a.holders == nil || !a.holders.ok {
		return heldBy(all)
	}
	same := func(e *heldCache) bool {
		return e.gen == a.holders.gen && slices.EqualFunc(e.of, all, func(i int, c *preemptCand) bool { return i == c.i })
	}
	if e := a.held[cq]; e != nil && same(e) {
		return e.sums
	}
	e := &heldCache{gen: a.holders.gen, sums: heldBy(all)}
	for _, c := range all {
		e.of = append(e.of, c.i)
	}
	if a.held == nil {
		a.held = map[*KueueClusterQueue]*heldCache{}
	}
	a.held[cq] = e
	return e.sums
}

// heldCache is what [admitter.candidatesHold] keeps for a ClusterQueue:
// the sums of the candidates of (their queue indexes), in the quota
// holders' generation gen.
type heldCache struct {
	gen  int
	of   []int
	sums []heldSum
}

// heldSum is the quota some candidates hold in usage k, summed exactly.
type heldSum struct {
	k cqFR
	g wideSum
}

// heldBy is the quota the candidates hold, summed exactly per ClusterQueue
// and flavor-resource, each once, in no particular order. The sums are
// found per ClusterQueue name among its few flavor-resources by
// comparing them: a map keyed by name and flavor-resource hashed three
// strings per candidate's resource, a tenth of a run with preemption.
func heldBy(cs []*preemptCand) []heldSum {
	at := make(map[string]int, 8)
	var byCQ [][]heldSum
	n := 0
	for _, c := range cs {
		i, ok := at[c.cq.Name]
		if !ok {
			i = len(byCQ)
			at[c.cq.Name] = i
			byCQ = append(byCQ, nil)
		}
		sums := byCQ[i]
	usage:
		for _, x := range c.amountList() {
			for j := range sums {
				if sums[j].k.fr == x.fr {
					sums[j].g = sums[j].g.plus(x.v)
					continue usage
				}
			}
			sums = append(sums, heldSum{cqFR{c.cq.Name, x.fr}, wide(x.v)})
			n++
		}
		byCQ[i] = sums
	}
	out := make([]heldSum, 0, n)
	for _, sums := range byCQ {
		out = append(out, sums...)
	}
	return out
}

// withoutHeldBy is [admitter.without] of held, each usage once.
func (a *admitter) withoutHeldBy(held []heldSum) func() {
	return a.withoutEach(func(yield func(cqFR, wideSum) bool) {
		for _, h := range held {
			if !yield(h.k, h.g) {
				return
			}
		}
	}, len(held))
}

// without takes gone out of a.used, and out of the cohort sums, in place,
// and returns the function that puts back the values it changed. A usage
// becomes what taking each term away in turn with [usageSum] makes of it:
// math.MaxInt64 stays so, anything else falls by the exact sum, down to
// math.MinInt64 at the least. Each usage changes once, whatever the order
// of gone.
func (a *admitter) without(gone map[cqFR]wideSum) func() {
	return a.withoutEach(maps.All(gone), len(gone))
}

// withoutCand is [admitter.without] of what candidate c alone holds.
// The victim search takes each candidate out as it goes: summing its
// usage into a map first (heldBy) cost a map per candidate tried, while
// one candidate's usage already holds each flavor-resource once.
func (a *admitter) withoutCand(c *preemptCand) func() {
	return a.withoutEach(func(yield func(cqFR, wideSum) bool) {
		for _, x := range c.amountList() {
			if !yield(cqFR{c.cq.Name, x.fr}, wide(x.v)) {
				return
			}
		}
	}, len(c.usage))
}

// withoutEach is [admitter.without] of gone, n entries, each key once.
// Each change keeps its ClusterQueue's usage map and its path up the
// cohort sums, so that putting it back looks up one key, not four: the
// victim search takes out and puts back every candidate it tries.
func (a *admitter) withoutEach(gone iter.Seq2[cqFR, wideSum], n int) func() {
	type saved struct {
		k    cqFR
		u    map[flavorResource]int64 // a.used[k.cq]
		path []sumStep                // a.sums.path(k.cq, k.fr), once found
		v    int64
		had  bool
	}
	undo := make([]saved, 0, n)
	var created []string
	a.withoutHeld++
	for k, g := range gone {
		u := a.used[k.cq]
		if u == nil {
			u = map[flavorResource]int64{}
			a.used[k.cq] = u
			created = append(created, k.cq)
		}
		old, had := u[k.fr]
		now := old
		if old != math.MaxInt64 {
			now = wide(old).minus(g).clamped()
		}
		u[k.fr] = now
		var path []sumStep
		if old != now {
			path = a.sums.path(k.cq, k.fr)
			a.sums.along(path, old, now)
		}
		undo = append(undo, saved{k, u, path, old, had})
	}
	return func() {
		a.withoutHeld--
		for _, s := range undo {
			// s.v is 0 where !s.had
			if cur := s.u[s.k.fr]; s.path != nil {
				a.sums.along(s.path, cur, s.v)
			} else {
				a.sums.moved(s.k.cq, s.k.fr, cur, s.v)
			}
			if s.had {
				s.u[s.k.fr] = s.v
			} else {
				delete(s.u, s.k.fr)
			}
		}
		for _, name := range created {
			delete(a.used, name)
		}
	}
}

// withAdded adds u to cq's usage, as if a Workload of cq holding it were
// admitted, and returns the function that puts the usage and the cohort
// sums back exactly as they were (a saturated usage, and the keys the
// addition made, included): [admitter.without] of its negation.
func (a *admitter) withAdded(cq string, u map[flavorResource]int64) func() {
	gone := make(map[cqFR]wideSum, len(u))
	for fr, v := range u {
		gone[cqFR{cq, fr}] = wide(0).minus(wide(v))
	}
	return a.without(gone)
}

// takeOut takes g out of used's usage k and moves sums with it, as
// [admitter.without] describes; it returns the usage before and whether
// there was one.
func takeOut(used quotaUsage, sums *cohortSums, k cqFR, g wideSum) (old int64, had bool) {
	u := used[k.cq]
	if u == nil {
		u = map[flavorResource]int64{}
		used[k.cq] = u
	}
	old, had = u[k.fr]
	now := old
	if old != math.MaxInt64 {
		now = wide(old).minus(g).clamped()
	}
	u[k.fr] = now
	sums.moved(k.cq, k.fr, old, now)
	return old, had
}

// fitsWithout reports whether w fits in flavor choice ch with removed
// gone: within what cq may take of each resource (its nominal quota alone
// unless borrow), and, for its sets in topology flavors, on the nodes
// their reservations free.
func (a *admitter) fitsWithout(w *KueueWorkload, cq *KueueClusterQueue, ch flavorChoice, removed []*preemptCand, borrow bool) (bool, error) {
	_, undo := a.usedWithout(removed)
	defer undo()
	return a.fitsRemoved(w, cq, ch, removed, borrow)
}

// fitsRemoved is [admitter.fitsWithout] with the quota of removed already
// out of a.used.
func (a *admitter) fitsRemoved(w *KueueWorkload, cq *KueueClusterQueue, ch flavorChoice, removed []*preemptCand, borrow bool) (bool, error) {
	t := a.quota()
	for fr, v := range ch.usage {
		nominal, _, _ := t.limits(quotaNode{cq: cq}, fr)
		if !borrow && sum(a.used[cq.Name][fr], v) > nominal {
			return false, nil
		}
		if _, free := t.room(cq, fr); v > free {
			return false, nil
		}
	}
	if !slices.ContainsFunc(ch.tas, func(f string) bool { return f != "" }) {
		return true, nil
	}
	ws := make([]*KueueWorkload, len(removed))
	for i, c := range removed {
		ws[i] = c.w
	}
	ps, err := a.planReleased(cq, w, ch, ws)
	return err == nil && ps.plan.Decision.Status == placement.Scheduled, err
}

// cqPath is the path Kueue's preemption message gives a ClusterQueue:
// its cohorts from the root down, then itself ("/root/team/cq").
func (q *KueueQueues) cqPath(cq string) string {
	parts := []string{cq}
	seen := map[string]bool{}
	for c := q.ClusterQueues[cq].Cohort; c != "" && !seen[c]; c = q.parentOf(quotaNode{cohort: c}) {
		seen[c] = true
		parts = append(parts, c)
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/")
}

// preemptionReasons are Kueue's words for each Preempted reason.
var preemptionReasons = map[string]string{
	kueue.InClusterQueueReason:                "prioritization in the ClusterQueue",
	kueue.InCohortReclamationReason:           "reclamation within the cohort",
	kueue.InCohortReclaimWhileBorrowingReason: "reclamation within the cohort while borrowing",
	kueue.InCohortFairSharingReason:           "Fair Sharing within the cohort",
}

// issuePreemptions evicts targets for preemptor w, as Kueue's preemptor
// does: each victim gets Evicted True (reason Preempted) and Preempted
// True (its reason) with Kueue's message naming the preemptor's UID and
// job UID ("UNKNOWN" when unset) and both ClusterQueues' paths, loses its
// admission, status.unhealthyNodes and quota, and is queued again. It returns the victims'
// indexes in the queue.
func (a *admitter) issuePreemptions(w *KueueWorkload, targets []preemptTarget, out []KueueOutcome) ([]int, error) {
	q := a.opts.Queues
	cq, _ := a.route(w)
	uid := cmp.Or(string(w.Obj.UID), "UNKNOWN")
	job := cmp.Or(w.Obj.Labels["kueue.x-k8s.io/job-uid"], "UNKNOWN")
	var idx []int
	var names []string
	for _, t := range targets {
		v := t.cand.w
		a.touchUsage(t.cand.cq.Name, t.cand.usage)
		a.noteHolder(v, t.cand.cq.Name)
		if a.holders != nil {
			a.holders.dirty[t.cand.i] = true
		}
		msg := fmt.Sprintf("Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s; preemptor path: %s; preemptee path: %s",
			uid, job, preemptionReasons[t.reason], q.cqPath(cq.Name), q.cqPath(t.cand.cq.Name))
		a.releaseQuota(v)
		for _, set := range v.Group.PodSets {
			if err := a.release(v, set.Name); err != nil {
				return nil, err
			}
		}
		o := &out[t.cand.i]
		words := fmt.Sprintf("preempted by %s (%s)", w.Key(), t.reason)
		a.evictedFor[v.Key()] = words
		o.Action, o.Message, o.PodSets, o.PreemptedBy = KueuePreempted, words, nil, w.Key()
		obj := v.Obj
		setCondition(obj, kueue.WorkloadEvicted, metav1.ConditionTrue, kueue.WorkloadEvictedByPreemption, msg, a.opts.Now)
		setCondition(obj, kueue.WorkloadPreempted, metav1.ConditionTrue, t.reason, msg, a.opts.Now)
		resetChecks(obj, a.opts.Now) // as every Kueue eviction
		unreserve(obj, msg, a.opts.Now)
		a.queue[t.cand.i] = v.afterReclaim() // queued again without its reclaimable pods
		idx = append(idx, t.cand.i)
		names = append(names, fmt.Sprintf("%s (%s)", v.Key(), t.reason))
	}
	a.preemptions += len(targets)
	a.preempted[w.Key()] = "preempted " + strings.Join(names, ", ")
	return idx, nil
}
