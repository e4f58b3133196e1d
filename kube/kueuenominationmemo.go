package kube

import (
	"time"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// nominationMemo keeps, during the scheduling cycles
// ([admitter.admitInCycles]), each head's nomination (its plan, and when
// it does not fit its preemption search: [admitter.nominateEntry]) with
// when it was computed, so that a head tried again on a state that is the
// same for it is not planned and searched again.
//
// Every BestEffortFIFO head that does not fit is set aside until a cycle
// of its round admits or preempts; then every pending Workload is tried
// again, cycle after cycle. What a head's flavors, plan and victims read
// is its ClusterQueue's cohort tree in the flavor-resources of that
// ClusterQueue's resource groups (their quota and usage, and the
// Workloads holding quota there), the nodes (a.s) and the Workload
// itself: a change in another tree, or in flavors its ClusterQueue does
// not list, leaves it as it was. In worlds of several cohorts and many
// flavors most heads tried again were thus tried on the same state, and
// with preemption each try is a search over the cohort's admitted
// Workloads per flavor.
//
// The changes are recorded by a clock: every change of usage marks its
// tree and flavor-resources ([admitter.touchUsage]), every change of a
// quota holder marks the flavor-resources of its usage, and the whole
// tree when the holders' metadata.uid are mixed (the victims' order reads
// whether every candidate has one) or the change is of another kind
// ([admitter.touch]). An entry holds while nothing it reads was marked
// after it was made, the snapshot a.s is the one it was made on
// (immutable: every change makes a new one; the entry keeps it, so its
// address is not reused), and the head is the same *KueueWorkload (a
// preempted Workload is queued again as a new one). Under fair sharing
// nothing is kept: its order and searches read shares that this does not
// track.
type nominationMemo struct {
	// clock counts the changes marked.
	clock int
	// trees keeps each ClusterQueue's tree key, by name
	// ([admitter.treeKey]), and reads the flavor-resources of each
	// ClusterQueue's resource groups.
	trees map[string]string
	reads map[*KueueClusterQueue][]flavorResource
	// treeChanged is the clock of each tree's last change of any kind,
	// frChanged of the last change in a flavor-resource of a tree.
	treeChanged map[string]int
	frChanged   map[treeFR]int
	// uids says, per tree, whether a quota holder without metadata.uid
	// (bit 1) and one with (bit 2) were seen there.
	uids map[string]uint8
	// entries are the last nomination of each head, by queue index.
	entries map[int]memoEntry
	// sims are the flavor-resources graded by a quota-only victim search
	// ([admitter.simKept]).
	sims map[simKey]simEntry
}

// treeFR is a flavor-resource of a cohort tree.
type treeFR struct {
	tree string
	fr   flavorResource
}

// memoEntry is a head's nomination, the Workload and snapshot it was made
// on, and the clock then.
type memoEntry struct {
	w     *KueueWorkload
	s     *placement.Snapshot
	at    int
	entry cycleEntry
}

// newNominationMemo is an empty memo for the Workloads of a.queue, the
// metadata.uid of those holding quota now marked.
func (a *admitter) newNominationMemo() *nominationMemo {
	a.memo = &nominationMemo{trees: map[string]string{}, reads: map[*KueueClusterQueue][]flavorResource{},
		treeChanged: map[string]int{}, frChanged: map[treeFR]int{}, uids: map[string]uint8{},
		entries: map[int]memoEntry{}, sims: map[simKey]simEntry{}}
	for _, h := range a.quotaHolders() {
		a.noteHolder(h.w, h.cq.Name)
	}
	return a.memo
}

// treeKey names the cohort tree of ClusterQueue cq: the root of its
// cohort, "" for every ClusterQueue without one (they share their marks,
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

// readsOf are the flavor-resources of cq's resource groups: all that its
// Workloads' flavor choices and victim searches read of usage.
func (a *admitter) readsOf(cq *KueueClusterQueue) []flavorResource {
	m := a.memo
	if frs, ok := m.reads[cq]; ok {
		return frs
	}
	var frs []flavorResource
	for _, g := range cq.Groups {
		for _, fq := range g.Flavors {
			for _, r := range g.Covered {
				frs = append(frs, frOf(fq.Flavor, r))
			}
		}
	}
	m.reads[cq] = frs
	return frs
}

// touch marks a change of any kind in the cohort tree of ClusterQueue
// cq: every nomination kept for a head there is stale.
func (a *admitter) touch(cq string) {
	if a.memo == nil {
		return
	}
	a.memo.clock++
	a.memo.treeChanged[a.treeKey(cq)] = a.memo.clock
}

// touchUsage marks a change of ClusterQueue cq's usage, or of a quota
// holder of cq, in the flavor-resources of u.
func (a *admitter) touchUsage(cq string, u map[flavorResource]int64) {
	m := a.memo
	if m == nil || len(u) == 0 {
		return
	}
	m.clock++
	tree := a.treeKey(cq)
	for fr := range u {
		m.frChanged[treeFR{tree, fr}] = m.clock
	}
}

// noteHolder records that w came to hold quota in ClusterQueue cq, or
// stopped: once the tree has held Workloads both with and without
// metadata.uid, any such change may reorder a search's victims, and marks
// the whole tree.
func (a *admitter) noteHolder(w *KueueWorkload, cq string) {
	m := a.memo
	if m == nil {
		return
	}
	bit := uint8(2)
	if w.Obj.UID == "" {
		bit = 1
	}
	tree := a.treeKey(cq)
	m.uids[tree] |= bit
	if m.uids[tree] == 3 {
		a.touch(cq)
	}
}

// holderChanged marks the change of status of a.queue[i], which holds
// quota now or did before (wasHolder): the flavor-resources of the usage
// it holds now, and, if it held quota before, its whole tree (a holder
// losing quota in a preemption is marked by [admitter.issuePreemptions]
// instead, which knows what it held).
func (a *admitter) holderChanged(i int, wasHolder bool) {
	if a.memo == nil {
		return
	}
	w := a.queue[i]
	if name, u := a.opts.Queues.admittedUsage(w); name != "" {
		a.touchUsage(name, u)
		a.noteHolder(w, name)
	}
	if wasHolder {
		if cq, why := a.route(w); why == "" {
			a.touch(cq.Name)
		}
	}
}

// fresh reports whether nothing that a Workload of cq reads was marked
// changed after clock at.
func (a *admitter) fresh(cq *KueueClusterQueue, at int) bool {
	m := a.memo
	tree := a.treeKey(cq.Name)
	if m.treeChanged[tree] > at {
		return false
	}
	for _, fr := range a.readsOf(cq) {
		if m.frChanged[treeFR{tree, fr}] > at {
			return false
		}
	}
	return true
}

// memoOn reports whether the memo is kept and read now: in the
// scheduling cycles, without fair sharing, with no candidates' quota
// taken out of the usage for a while ([admitter.without]).
func (a *admitter) memoOn() bool {
	return a.memo != nil && a.withoutHeld == 0 && a.opts.Queues.FairSharing == nil
}

// nominateEntry is the cycle entry of head a.queue[i]: its plan on the
// state now, and, when it does not fit (or fits only at smaller counts),
// its preemption search ([admitter.failedHeight]); as kept when the head
// was nominated before on a state the same for it.
func (a *admitter) nominateEntry(i int) (cycleEntry, error) {
	w := a.queue[i]
	cq, why := a.route(w)
	if why != "" || !a.memoOn() {
		return a.nominateFresh(i)
	}
	m := a.memo
	if e, ok := m.entries[i]; ok && e.w == w && e.s == a.s && a.fresh(cq, e.at) {
		return e.entry, nil
	}
	at := m.clock
	e, err := a.nominateFresh(i)
	if err == nil && a.memoOn() && m.clock == at {
		m.entries[i] = memoEntry{w: w, s: a.s, at: at, entry: e}
	}
	return e, err
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
// reads besides its cohort tree: the pending Workload's ClusterQueue, its
// priority and, when a policy of the ClusterQueue reads it, its creation
// (they choose the candidates and their kinds), and the flavor-resource
// and quantity it grades. A Workload holding quota is a key of its own
// (w), as it is left out of its candidates. The search reads nothing else
// of the Workload: its flavor choice is the quantity alone, on quota
// alone. So the heads a ClusterQueue takes in turn, while the flavors it
// reads are unchanged, share their grades.
type simKey struct {
	cq      *KueueClusterQueue
	w       *KueueWorkload
	pri     int32
	created time.Time
	fr      flavorResource
	val     int64
}

// simKeyOf is the [simKey] of pending Workload w of cq grading val of fr.
func (a *admitter) simKeyOf(cq *KueueClusterQueue, w *KueueWorkload, fr flavorResource, val int64) simKey {
	k := simKey{cq: cq, pri: w.Priority, fr: fr, val: val}
	if p := cq.Preemption; p.WithinClusterQueue == kueue.PreemptionPolicyLowerOrNewerEqualPriority || p.ReclaimWithinCohort == kueue.PreemptionPolicyLowerOrNewerEqualPriority {
		k.created = w.Created
	}
	if name, _ := a.opts.Queues.admittedUsage(w); name != "" {
		k.w = w
	}
	return k
}

// simEntry is a graded flavor-resource and the clock when it was graded.
type simEntry struct {
	at   int
	mode flavorMode
}

// simKept is the grade kept for key in ClusterQueue cq, when it was made
// on a state the same for it: nothing marked since in its
// flavor-resource, nor in its tree as a whole. A head's flavors are graded on the same
// state up to three times a cycle: to plan it ([admitter.planInFlavors]),
// to seek its victims ([admitter.preempt]) and to find the flavors it
// would preempt in ([admitter.preemptFlavors]).
func (a *admitter) simKept(cq *KueueClusterQueue, key simKey) (flavorMode, bool) {
	if !a.memoOn() {
		return flavorMode{}, false
	}
	e, ok := a.memo.sims[key]
	if !ok {
		return flavorMode{}, false
	}
	// The search reads the usage of key.fr alone: the candidates using
	// it, the ClusterQueues and cohorts over their quota of it, cq's room
	// in it and its borrowing height there.
	m, tree := a.memo, a.treeKey(cq.Name)
	if m.treeChanged[tree] > e.at || m.frChanged[treeFR{tree, key.fr}] > e.at {
		return flavorMode{}, false
	}
	return e.mode, true
}

// keepSim keeps grade mode of key in cq, graded since clock at
// ([admitter.simKept]).
func (a *admitter) keepSim(key simKey, at int, mode flavorMode) {
	if a.memoOn() && a.memo.clock == at {
		a.memo.sims[key] = simEntry{at: at, mode: mode}
	}
}

// memoClock is the memo's clock now (0 without one).
func (a *admitter) memoClock() int {
	if a.memo == nil {
		return 0
	}
	return a.memo.clock
}
