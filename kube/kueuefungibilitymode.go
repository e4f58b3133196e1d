package kube

import (
	"math"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The ways a flavor may hold a pod set's requests, worst first, as Kueue
// v0.17's flavor assigner grades them (its preemptionMode): not at all;
// only by preemption, which finds no victims; by preempting in the
// ClusterQueue; by reclaiming from other ClusterQueues of the cohort only;
// in unused quota.
const (
	modeNoFit = iota
	modeNoCandidates
	modePreempt
	modeReclaim
	modeFit
)

// flavorMode is how a flavor holds a pod set's requests: one of the mode
// constants and how far up its cohort tree the ClusterQueue borrows to
// take them (0 within its nominal quota; else the height of the lowest
// cohort whose subtree quota holds them, after the victims are gone for
// a preempting mode), as Kueue's granularMode.
type flavorMode struct {
	mode   int
	borrow int
}

// noFitMode is the worst mode, which any other is preferred to.
var noFitMode = flavorMode{mode: modeNoFit, borrow: math.MaxInt}

// preferred reports whether mode x is better than mode y under f's
// preference, as Kueue's isPreferred: a mode that fits nowhere never is,
// and any other is better than that; BorrowingOverPreemption compares
// the mode, then the borrowing height (lower better);
// PreemptionOverBorrowing the height, then the mode.
func (f KueueFungibility) preferred(x, y flavorMode) bool {
	switch {
	case x.mode == modeNoFit:
		return false
	case y.mode == modeNoFit:
		return true
	case f.PreemptionOverBorrowing && x.borrow != y.borrow:
		return x.borrow < y.borrow
	case f.PreemptionOverBorrowing:
		return x.mode > y.mode
	case x.mode != y.mode:
		return x.mode > y.mode
	}
	return x.borrow < y.borrow
}

// tryNext reports whether, having found mode m in a flavor, the search
// goes on to the next flavor, as Kueue's shouldTryNextFlavor: always when
// m fits nowhere or its preemption finds no victims; when it preempts or
// reclaims under whenCanPreempt TryNextFlavor; when it borrows under
// whenCanBorrow TryNextFlavor.
func (f KueueFungibility) tryNext(m flavorMode) bool {
	switch {
	case m.mode == modeNoFit, m.mode == modeNoCandidates:
		return true
	case (m.mode == modePreempt || m.mode == modeReclaim) && !f.PreemptStop:
		return true
	}
	return m.borrow > 0 && f.BorrowTryNext
}

// simulates reports whether choosing among cq's flavors needs to know
// whether preemption would find victims in a flavor: only when a flavor
// that needs preemption may win over a later one that fits (whenCanPreempt
// MayStopSearch, or preference PreemptionOverBorrowing). Under the other
// policies a fitting flavor always wins, and one that needs preemption is
// left to the preemption search.
func (f KueueFungibility) simulates() bool {
	return f.PreemptStop || f.PreemptionOverBorrowing
}

// preemptSim grades preemption for a flavor-resource of which the
// Workload takes val in all (Kueue's SimulatePreemption): modeNoCandidates,
// modePreempt or modeReclaim with the borrowing height after its victims
// are gone (at the usage now when it finds none).
type preemptSim func(fr flavorResource, val int64) flavorMode

// borrowLevel is how far up its cohort tree cq borrows to take val of fr
// in all with the usage of t (Kueue's FindHeightOfLowestSubtreeThatFits):
// 0 within its nominal quota or without a cohort, else the height of the
// lowest cohort above it whose subtree quota holds what its own does not
// (the root's when none does).
func (t quotaTree) borrowLevel(cq *KueueClusterQueue, fr flavorResource, val int64) int {
	nominal, _, _ := t.limits(quotaNode{cq: cq}, fr)
	if cq.Cohort == "" || sum(t.used[cq.Name][fr], val) <= nominal {
		return 0
	}
	if c, _ := t.lowestFit(cq, fr, val); c != "" {
		return t.height(c)
	}
	return 0
}

// needMode grades a flavor-resource of which cq may take less than val
// now: Kueue's NoFit when val is beyond cq's nominal quota and cq can
// neither reclaim from a cohort above it nor preempt while borrowing;
// else what sim finds (modeNoCandidates at the usage now without sim).
func (q *KueueQueues) needMode(cq *KueueClusterQueue, fr flavorResource, val int64, t quotaTree, sim preemptSim) flavorMode {
	if q.noFit(cq, fr, val, t) {
		return noFitMode
	}
	if sim == nil {
		return flavorMode{mode: modeNoCandidates, borrow: t.borrowLevel(cq, fr, val)}
	}
	return sim(fr, val)
}

// noFit reports whether Kueue's flavor assigner calls cq's taking val of
// fr in all NoFit rather than a case for preemption: val is beyond cq's
// nominal quota, and cq can neither reclaim it from a cohort above it
// nor preempt while borrowing.
func (q *KueueQueues) noFit(cq *KueueClusterQueue, fr flavorResource, val int64, t quotaTree) bool {
	nominal, _, _ := groupLimits(cq.Groups, fr)
	return val > nominal && !t.mayReclaimAbove(cq, fr, val) && !q.mayPreemptWhileBorrowing(cq)
}

// mayPreemptWhileBorrowing reports whether cq may preempt for a Workload
// that borrows (Kueue's canPreemptWhileBorrowing): borrowWithinCohort
// LowerPriority, or, with fair sharing on, a reclaimWithinCohort other
// than Never.
func (q *KueueQueues) mayPreemptWhileBorrowing(cq *KueueClusterQueue) bool {
	return cq.Preemption.BorrowWithinCohort == kueue.BorrowWithinCohortPolicyLowerPriority ||
		(q.FairSharing != nil && cq.Preemption.ReclaimWithinCohort != kueue.PreemptionPolicyNever)
}

// simulator is the [preemptSim] of pending Workload w in cq: Kueue's
// classical (or fair-sharing) victim search for the flavor-resource alone,
// on quota only, among the candidates cq's policies allow; modePreempt when
// a victim is in cq, else modeReclaim. nil when cq's fungibility does not
// need it ([KueueFungibility.simulates]).
func (a *admitter) simulator(cq *KueueClusterQueue, w *KueueWorkload) preemptSim {
	if !cq.Fungibility.simulates() {
		return nil
	}
	var all []*preemptCand
	loaded := false
	sim := func(fr flavorResource, val int64) flavorMode {
		none := flavorMode{mode: modeNoCandidates, borrow: a.quota().borrowLevel(cq, fr, val)}
		if !cq.Preemption.any(cq.Cohort != "") {
			return none
		}
		if !loaded {
			all, loaded = a.candidates(w, cq), true
		}
		// No topology flavor: the search is on quota alone, as Kueue's
		// simulation is.
		ch := flavorChoice{usage: map[flavorResource]int64{fr: val}, tas: make([]string, len(w.Group.PodSets))}
		ts, err := a.victimSearch()(w, cq, ch, all)
		if err != nil || len(ts) == 0 {
			return none
		}
		removed := make([]*preemptCand, len(ts))
		m := flavorMode{mode: modeReclaim}
		for i, t := range ts {
			removed[i] = t.cand
			if t.cand.cq == cq {
				m.mode = modePreempt
			}
		}
		_, undo := a.usedWithout(removed)
		m.borrow = a.quota().borrowLevel(cq, fr, val)
		undo()
		return m
	}
	// A grade made on the same state is kept ([admitter.simKept]).
	return func(fr flavorResource, val int64) flavorMode {
		key := a.simKeyOf(cq, w, fr, val)
		if m, ok := a.simKept(cq, key); ok {
			return m
		}
		at := a.memoClock()
		m := sim(fr, val)
		a.keepSim(key, at, m)
		return m
	}
}

// victimsIn reports whether the victim search of pending Workload w in cq
// (classical or fair sharing, topology included) finds victims in flavor
// choice ch.
func (a *admitter) victimsIn(cq *KueueClusterQueue, w *KueueWorkload, ch flavorChoice) (bool, error) {
	if !cq.Preemption.any(cq.Cohort != "") || ch.severalTopologyFlavors(a.opts.Queues, w) != "" {
		return false, nil
	}
	all := a.candidates(w, cq)
	if len(all) == 0 {
		return false, nil
	}
	ts, err := a.victimSearch()(w, cq, ch, all)
	return len(ts) > 0, err
}

// victimSearch is the admitter's victim search: Kueue's fair-sharing one
// when fair sharing is on, else its classical one.
func (a *admitter) victimSearch() func(*KueueWorkload, *KueueClusterQueue, flavorChoice, []*preemptCand) ([]preemptTarget, error) {
	if a.opts.Queues.FairSharing != nil {
		return a.fairVictims
	}
	return a.victims
}
