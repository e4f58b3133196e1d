package kube

import (
	"fmt"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// Preemption for a partial admission's smaller counts. Kueue v0.17's
// getInitialAssignments (pkg/scheduler) looks for preemption targets for
// the whole Workload first; when it finds none and the Workload may be
// admitted partially, its PodSetReducer search takes a count as found
// when the flavor assigner's representative mode there is Fit, or Preempt
// with targets the preemptor finds for that count: the count the search
// ends on may thus need preemption, the targets being those found for it.
// Read, not copied.

// preemptFor looks for the victims of pending Workload w, which does not
// fit whole, as Kueue's getInitialAssignments does: those of its whole
// count ([admitter.preempt]); with none, when w may be admitted partially,
// the search for smaller counts ([reducedCounts], each at whole slices)
// takes a count that fits without preemption (planned as its whole count
// is, [admitter.planQueued]) or for which preemption finds targets. It
// returns the targets and flavor choice of the count the search ends on
// and w at that count (w itself for the whole count); no targets when
// that count fits without preemption or no count does either.
func (a *admitter) preemptFor(w *KueueWorkload) ([]preemptTarget, flavorChoice, *KueueWorkload, error) {
	targets, ch, err := a.preempt(w)
	if err != nil || len(targets) > 0 || a.opts.Queues == nil || !w.canBePartial() {
		return targets, ch, w, err
	}
	if cq, why := a.route(w); why != "" || !cq.Preemption.any(cq.Cohort != "") {
		return nil, ch, w, nil // no count can preempt: the search would end on a fit or nothing
	}
	full := make([]int32, len(w.Group.PodSets))
	for k, set := range w.Group.PodSets {
		full[k] = set.Count
	}
	var at *KueueWorkload
	reducedCounts(full, w.MinCounts, func(counts []int32) bool {
		if err != nil {
			return false
		}
		v := w.atCounts(wholeSlices(w, counts))
		// v is planned as a whole Workload: the search's own count, not a
		// search of its own.
		v.MinCounts = nil
		var ps plannedSets
		if ps, err = a.planQueued(v); err != nil {
			return false
		}
		if ps.plan.Decision.Status == placement.Scheduled {
			at, targets = nil, nil // Kueue's Fit: admitted without preemption
			return true
		}
		ts, c, e := a.preempt(v)
		if err = e; err != nil || len(ts) == 0 {
			return false
		}
		at, targets, ch = v, ts, c
		return true
	})
	if err != nil || at == nil {
		return nil, flavorChoice{}, w, err
	}
	at.MinCounts = w.MinCounts
	return targets, ch, at, nil
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
