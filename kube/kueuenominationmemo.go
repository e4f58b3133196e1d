package kube

import (
	"github.com/gangsched/gangsched/placement"
)

// nominationMemo keeps, during the scheduling cycles
// ([admitter.admitInCycles]), each head's nomination (its plan, and when
// it does not fit its preemption search: [admitter.nominateEntry]) with
// what it was computed on, so that a head tried again on the same state
// is not planned and searched again.
//
// Every BestEffortFIFO head that does not fit is set aside until a cycle
// of its round admits or preempts; then every pending Workload is tried
// again, cycle after cycle, in every cohort tree. A change in one cohort
// tree leaves the others' heads as they were: a head's flavors, plan and
// victims read only its ClusterQueue's cohort tree (its quota, usage and
// the Workloads holding quota there), the nodes (a.s) and the Workload
// itself. In worlds of several cohorts most heads tried again were thus
// tried on the same state, and with preemption each try is a search over
// the cohort's admitted Workloads per flavor.
//
// The state is read as: the version of the head's cohort tree (bumped by
// [admitter.touch] at every change of usage or of a quota holder's status
// in it), the snapshot a.s (immutable: every change makes a new one; the
// entry keeps it, so its address is not reused), and the head's
// *KueueWorkload (a preempted Workload is queued again as a new one).
// Under fair sharing nothing is kept: its order and searches read shares
// that this does not track.
type nominationMemo struct {
	// versions are the cohort trees' versions, by [admitter.treeKey].
	versions map[string]int
	// trees keeps each ClusterQueue's tree key, by name.
	trees map[string]string
	// entries are the last nomination of each head, by queue index.
	entries map[int]memoEntry
	// sims are the flavor-resources graded by a quota-only victim search
	// ([admitter.simKept]).
	sims map[simKey]simEntry
}

// memoEntry is a head's nomination and the state it was made on.
type memoEntry struct {
	w       *KueueWorkload
	s       *placement.Snapshot
	tree    string
	version int
	entry   cycleEntry
}

// treeKey names the cohort tree of ClusterQueue cq: the root of its
// cohort, "" for every ClusterQueue without one (they share a version,
// which only costs reuse). A tree whose walk up meets a cycle of
// spec.parentName shares one key with every other such tree: from
// different cohorts of one cycle the walk ends at different cohorts.
func (a *admitter) treeKey(cq string) string {
	m := a.memo
	if k, ok := m.trees[cq]; ok {
		return k
	}
	q := a.opts.Queues
	key := ""
	if c := q.ClusterQueues[cq]; c != nil {
		seen := map[string]bool{}
		p := c.Cohort
		for p != "" && !seen[p] {
			seen[p], key = true, p
			p = q.parentOf(quotaNode{cohort: p})
		}
		if p != "" {
			key = "\x00cycle"
		}
	}
	m.trees[cq] = key
	return key
}

// touch records a change in the cohort tree of ClusterQueue cq: every
// nomination kept for a head there is stale.
func (a *admitter) touch(cq string) {
	if a.memo == nil {
		return
	}
	a.memo.versions[a.treeKey(cq)]++
}

// nominateEntry is the cycle entry of head a.queue[i]: its plan on the
// state now, and, when it does not fit (or fits only at smaller counts),
// its preemption search ([admitter.failedHeight]); as kept when the head
// was nominated before on the same state.
func (a *admitter) nominateEntry(i int) (cycleEntry, error) {
	w := a.queue[i]
	m := a.memo
	key := ""
	cq, why := a.route(w)
	use := m != nil && a.withoutHeld == 0 && a.opts.Queues.FairSharing == nil
	if use && why == "" {
		key = a.treeKey(cq.Name)
	}
	if use {
		if e, ok := m.entries[i]; ok && e.w == w && e.s == a.s && e.tree == key && e.version == m.versions[key] {
			return e.entry, nil
		}
	}
	e, err := a.nominateFresh(i)
	if err != nil || !use || a.withoutHeld != 0 {
		return e, err
	}
	m.entries[i] = memoEntry{w: w, s: a.s, tree: key, version: m.versions[key], entry: e}
	return e, nil
}

// nominateFresh is [admitter.nominateEntry] computed on the state now.
func (a *admitter) nominateFresh(i int) (cycleEntry, error) {
	ps, err := a.nominate(a.queue[i])
	if err != nil {
		return cycleEntry{}, err
	}
	e := cycleEntry{i: i, ps: ps, borrow: a.borrowHeight(ps)}
	if ps.plan.Decision.Status != placement.Scheduled {
		if e.borrow, e.victims, e.vch, e.search, err = a.failedHeight(a.queue[i]); err != nil {
			return cycleEntry{}, err
		}
	} else if partialWords(a.queue[i], ps.w) != "" {
		// Kueue tries preemption for the whole Workload before
		// its smaller counts, at nomination too: with targets,
		// the entry is the whole one, to preempt, and takes its
		// place by them; without, it is the smaller counts'.
		h, victims, ch, search, err := a.failedHeight(a.queue[i])
		if err != nil {
			return cycleEntry{}, err
		}
		if len(victims) > 0 {
			e.borrow, e.victims, e.vch = h, victims, ch
		}
		e.search = search
	}
	return e, nil
}

// simKey is what a quota-only victim search of [admitter.simulator]
// reads besides its cohort tree: the pending Workload (its priority and
// creation choose the candidates) and the flavor-resource and quantity
// it grades. Its ClusterQueue is the Workload's.
type simKey struct {
	w   *KueueWorkload
	fr  flavorResource
	val int64
}

// simEntry is a graded flavor-resource and its tree's version then.
type simEntry struct {
	version int
	mode    flavorMode
}

// simKept is the grade kept for key in ClusterQueue cq's tree, when it
// was made on the state now. A head's flavors are graded on the same
// state up to three times a cycle: to plan it ([admitter.planInFlavors]),
// to seek its victims ([admitter.preempt]) and to find the flavors it
// would preempt in ([admitter.preemptFlavors]).
func (a *admitter) simKept(cq *KueueClusterQueue, key simKey) (flavorMode, bool) {
	m := a.memo
	if m == nil || a.withoutHeld != 0 || a.opts.Queues.FairSharing != nil {
		return flavorMode{}, false
	}
	e, ok := m.sims[key]
	if !ok || e.version != m.versions[a.treeKey(cq.Name)] {
		return flavorMode{}, false
	}
	return e.mode, true
}

// keepSim keeps grade mode of key in cq's tree ([admitter.simKept]).
func (a *admitter) keepSim(cq *KueueClusterQueue, key simKey, mode flavorMode) {
	m := a.memo
	if m == nil || a.withoutHeld != 0 || a.opts.Queues.FairSharing != nil {
		return
	}
	m.sims[key] = simEntry{version: m.versions[a.treeKey(cq.Name)], mode: mode}
}
