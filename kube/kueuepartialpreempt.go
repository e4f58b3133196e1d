package kube

import (
	"fmt"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// Preemption for a partial admission's smaller counts. Kueue v0.17's
// getInitialAssignments (pkg/scheduler) runs one scheduling attempt of a
// Workload from where its last attempt left each flavor search
// (LastAssignment): the flavor assigner chooses flavors for its whole
// count; when they need preemption (for quota, or, in flavors whose quota
// holds it, for its topology) the preemptor seeks targets there alone;
// with none, when the Workload may be admitted partially, its
// PodSetReducer search runs the same assigner from the same start at
// smaller counts, taking a count as found when its mode is Fit, or
// Preempt with targets the preemptor finds for that count. Only when that
// search finds nothing does the next attempt start from the flavor after
// the last one the assigner looked at: a flavor where the Workload fits
// partially is taken before a later flavor where it would preempt for its
// whole count. Read, not copied.

// preemptFor looks for the victims of pending Workload w, which does not
// fit whole, as Kueue's getInitialAssignments does. Without queues, or
// when w may not be admitted partially, they are those of its whole count
// ([admitter.preempt]: one attempt after another, gangsim runs them at
// once). Else attempt by attempt, from the first flavors, as
// [admitter.planQueued] runs them: the victims of its whole count in the
// attempt's flavors ([admitter.attemptTargets]); with none, the search for
// smaller counts ([reducedCounts], each at whole slices) in the same
// flavors, taking a count that fits without preemption or for which
// preemption there finds targets; with none, the next attempt. It returns
// the targets and flavor choice of the count the search ends on and w at
// that count (w itself for the whole count); no targets when that count
// fits without preemption or no attempt finds a count either.
func (a *admitter) preemptFor(w *KueueWorkload) ([]preemptTarget, flavorChoice, *KueueWorkload, error) {
	if a.opts.Queues == nil || !w.canBePartial() {
		targets, ch, err := a.preempt(w)
		return targets, ch, w, err
	}
	cq, why := a.route(w)
	if why != "" || !cq.Preemption.any(cq.Cohort != "") {
		return nil, flavorChoice{}, w, nil // no count can preempt: the search would end on a fit or nothing
	}
	start := map[[2]int]int{}
	for {
		ps, err := a.planInFlavors(cq, w, start)
		if err != nil || ps.plan.Decision.Status == placement.Scheduled {
			return nil, flavorChoice{}, w, err
		}
		targets, ch, err := a.attemptTargets(cq, w, ps, start)
		if err != nil || len(targets) > 0 {
			return targets, ch, w, err
		}
		targets, ch, at, fits, err := a.partialAttempt(cq, w, start)
		if err != nil || fits || len(targets) > 0 {
			return targets, ch, at, err
		}
		if ps.adm.choice == nil || !ps.adm.choice.next(cq, a.opts.Queues, start) {
			return nil, flavorChoice{}, w, nil
		}
	}
}

// attemptTargets are the victims of pending Workload w in the scheduling
// attempt of ClusterQueue cq that chooses its flavors from start, whose
// plan there ps does not fit: in flavors whose quota holds w now (only
// its topology needs room), those flavors' victims, as Kueue's assigner
// stops at them; else those [admitter.preemptFrom] finds for that attempt
// alone.
func (a *admitter) attemptTargets(cq *KueueClusterQueue, w *KueueWorkload, ps plannedSets, start map[[2]int]int) ([]preemptTarget, flavorChoice, error) {
	if ch := ps.adm.choice; ch != nil && ch.preempt == "" && ch.topology != "" && a.quotaFits(cq, *ch) {
		if ch.severalTopologyFlavors(a.opts.Queues, w) != "" {
			return nil, flavorChoice{}, nil
		}
		all := a.candidates(w, cq)
		if len(all) == 0 {
			return nil, flavorChoice{}, nil
		}
		ts, err := a.victimSearch()(w, cq, *ch, all)
		return ts, *ch, err
	}
	return a.preemptFrom(w, start, true)
}

// partialAttempt runs Kueue's search for smaller counts of pending
// Workload w ([reducedCounts], each at whole slices) in the scheduling
// attempt of ClusterQueue cq from start: a count is found when its plan
// in the flavors chosen from start fits, or when preemption finds
// targets there ([admitter.attemptTargets]). It reports the targets and
// flavor choice of the count the search ends on with w at that count
// (MinCounts kept), or fits (with w) when that count fits without
// preemption; no targets and not fits when no count is found.
func (a *admitter) partialAttempt(cq *KueueClusterQueue, w *KueueWorkload, start map[[2]int]int) ([]preemptTarget, flavorChoice, *KueueWorkload, bool, error) {
	full := make([]int32, len(w.Group.PodSets))
	for k, set := range w.Group.PodSets {
		full[k] = set.Count
	}
	var (
		targets []preemptTarget
		ch      flavorChoice
		at      *KueueWorkload
		fits    bool
		err     error
	)
	reducedCounts(full, w.MinCounts, func(counts []int32) bool {
		if err != nil {
			return false
		}
		v := w.atCounts(wholeSlices(w, counts))
		// v is planned as a whole Workload: the search's own count, not a
		// search of its own.
		v.MinCounts = nil
		ps, e := a.planInFlavors(cq, v, start)
		if err = e; err != nil {
			return false
		}
		if ps.plan.Decision.Status == placement.Scheduled {
			at, targets, fits = v, nil, true // Kueue's Fit: admitted without preemption
			return true
		}
		ts, c, e := a.attemptTargets(cq, v, ps, start)
		if err = e; err != nil || len(ts) == 0 {
			return false
		}
		at, targets, ch, fits = v, ts, c, false
		return true
	})
	if err != nil || at == nil {
		return nil, flavorChoice{}, w, false, err
	}
	at.MinCounts = w.MinCounts
	if fits {
		return nil, flavorChoice{}, w, true, nil
	}
	return targets, ch, at, false, nil
}

// preemptWords says for which smaller counts of w (v's) its victims make
// room, e.g. `preempting for pod set "main" with 2 of 4 pods (minCount
// 1)`; "" when v is w's whole count.
func preemptWords(w, v *KueueWorkload) string {
	words := partialWords(w, v)
	if words == "" {
		return ""
	}
	return fmt.Sprintf("preempting for %s", strings.TrimPrefix(words, "partially admitted: "))
}
