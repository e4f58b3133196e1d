package kube

import (
	"cmp"
	"slices"

	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// This file is Kueue v0.17's fair-sharing preemption (pkg/scheduler/
// preemption fairPreemptions, fairsharing/ordering.go and target.go):
// victims are taken from the ClusterQueue whose dominant resource share is
// the highest, walking the cohort tree from the root, as long as the
// configured strategy says that taking them leaves the preemptor no better
// off than the victim's side.

// fairVictims is Kueue's fair-sharing preemption for w in flavor choice ch
// of cq, candidates all ([admitter.candidates]); nil when no set of them
// makes room. The shares are measured with w's usage added to cq.
//
//   - Candidates: those of all using a flavor-resource that needs
//     preemption, from cq itself or from a ClusterQueue borrowing in one,
//     sorted as Kueue's CandidatesOrdering: already evicted first, other
//     ClusterQueues' before cq's own, lower priority, newer reservation,
//     then metadata.uid (namespace/name without).
//   - First strategy: ClusterQueues are visited in [fairTargets] order. A
//     victim from cq itself is taken at once (InClusterQueue), as is one
//     from another ClusterQueue while cq, with w, stays within its nominal
//     quota in every resource needing preemption (InCohortReclamation: the
//     FairSharingPreemptWithinNominal gate, on in v0.17). Otherwise the
//     ClusterQueue's candidates are tried in order: the first the strategy
//     accepts (comparing the shares of the two nodes just below the
//     lowest cohort holding both ClusterQueues) is taken
//     (InCohortFairSharing) and the ClusterQueues are ranked again; those
//     refused are kept for the second strategy.
//   - Second strategy (LessThanInitialShare after LessThanOrEqualToFinalShare):
//     over the refused candidates, each ClusterQueue in turn gives its
//     first one if the preemptor's side's share is below the target's,
//     then is dropped.
//   - Each victim taken is checked: once w fits (its quota, borrowing
//     allowed, and its topology), the victims are pared down from the
//     second last back to the first, each put back if w still fits.
func (a *admitter) fairVictims(w *KueueWorkload, cq *KueueClusterQueue, ch flavorChoice, all []*preemptCand) ([]preemptTarget, error) {
	q := a.opts.Queues
	t := a.quota()
	if !a.mayPreemptFor(cq, ch) || (cq.Cohort != "" && t.inCycle(quotaNode{cq: cq})) {
		return nil, nil
	}
	need := a.needPreemption(cq, ch)
	var cands []*preemptCand
	for _, c := range all {
		if !usesAny(c, need) {
			continue
		}
		if c.cq != cq && !borrowsIn(t, c.cq, need) {
			continue
		}
		cands = append(cands, c)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// Room only grows as victims go: when every candidate gone leaves w
	// short, no search can succeed, and Kueue's, which finds that out
	// victim by victim, cost a hundred times a classical cycle's work.
	if fits, err := a.fitsWithout(w, cq, ch, cands, true); err != nil || !fits {
		return nil, err
	}
	byUID := !slices.ContainsFunc(cands, func(c *preemptCand) bool { return c.w.Obj.UID == "" })
	order := func(x, y *preemptCand) int {
		last := 0
		if byUID {
			last = cmp.Compare(x.w.Obj.UID, y.w.Obj.UID)
		}
		return cmp.Or(compareBools(y.evicted, x.evicted), compareBools(x.cq == cq, y.cq == cq), cmp.Compare(x.w.Priority, y.w.Priority),
			y.reserved.Compare(x.reserved), last, x.w.Key().Compare(y.w.Key()))
	}
	slices.SortFunc(cands, order)

	s := &fairSearch{a: a, w: w, cq: cq, ch: ch}
	undo := a.withAdded(cq.Name, ch.usage) // the shares count w admitted
	strategies := q.FairSharing.Strategies
	fits, retry, err := s.first(cands, order, need, strategies[0])
	if err == nil && !fits && len(strategies) > 1 {
		fits, err = s.second(retry, order)
	}
	// Victims and w's usage are taken back before paring down, as Kueue
	// fills back without w counted.
	s.putBack()
	undo()
	if err != nil || !fits {
		return nil, err
	}
	return s.pareDown()
}

// usesAny reports whether candidate c holds some of a flavor-resource of
// need (Kueue's WorkloadUsesResources).
func usesAny(c *preemptCand, need map[flavorResource]bool) bool {
	for fr, v := range c.usage {
		if need[fr] && v > 0 {
			return true
		}
	}
	return false
}

// compareBools orders false before true.
func compareBools(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// borrowsIn reports whether ClusterQueue cq uses more than its nominal
// quota of a flavor-resource of need (Kueue's cqIsBorrowing).
func borrowsIn(t quotaTree, cq *KueueClusterQueue, need map[flavorResource]bool) bool {
	if cq.Cohort == "" {
		return false
	}
	for fr := range need {
		if nominal, _, _ := groupLimits(cq.Groups, fr); t.used[cq.Name][fr] > nominal {
			return true
		}
	}
	return false
}

// fairSearch is one fair-sharing preemption search: the preemptor w of
// ClusterQueue cq in flavor choice ch, and the victims taken so far, their
// quota out of a.used (undone by putBack).
type fairSearch struct {
	a       *admitter
	w       *KueueWorkload
	cq      *KueueClusterQueue
	ch      flavorChoice
	removed []*preemptCand
	reasons []string
	undos   []func()
}

// take removes victim c for reason and reports whether w now fits.
func (s *fairSearch) take(c *preemptCand, reason string) (bool, error) {
	_, undo := s.a.usedWithout([]*preemptCand{c})
	s.removed, s.reasons, s.undos = append(s.removed, c), append(s.reasons, reason), append(s.undos, undo)
	// w fits or not on its own usage, not counted twice.
	s.a.addUsage(s.cq.Name, s.ch.usage, -1)
	defer s.a.addUsage(s.cq.Name, s.ch.usage, 1)
	return s.a.fitsRemoved(s.w, s.cq, s.ch, s.removed, true)
}

// putBack gives the victims' quota back to a.used.
func (s *fairSearch) putBack() {
	for i := len(s.undos) - 1; i >= 0; i-- {
		s.undos[i]()
	}
	s.undos = nil
}

// first runs the first strategy over cands (sorted by order); it returns
// whether w fits with the victims taken, and the candidates the strategy
// refused.
func (s *fairSearch) first(cands []*preemptCand, order func(x, y *preemptCand) int, need map[flavorResource]bool, strategy configv1beta2.PreemptionStrategy) (bool, []*preemptCand, error) {
	t := s.a.quota()
	withinNominal := true
	for fr := range need {
		if nominal, _, _ := groupLimits(s.cq.Groups, fr); t.used[s.cq.Name][fr] > nominal {
			withinNominal = false
		}
	}
	ft := newFairTargets(t, s.cq, cands, order)
	var retry []*preemptCand
	for {
		tcq, ok := ft.next()
		if !ok {
			return false, retry, nil
		}
		if tcq == s.cq || withinNominal {
			reason := kueue.InCohortReclamationReason
			if tcq == s.cq {
				reason = kueue.InClusterQueueReason
			}
			if fits, err := s.take(ft.pop(tcq), reason); fits || err != nil {
				return fits, nil, err
			}
			continue
		}
		pre, old := ft.shares(tcq)
		for ft.has(tcq) {
			c := ft.pop(tcq)
			_, undo := s.a.usedWithout([]*preemptCand{c})
			_, after := ft.shares(tcq)
			undo()
			accept := compareShares(pre, old) < 0
			if strategy == configv1beta2.LessThanOrEqualToFinalShare {
				accept = compareShares(pre, after) <= 0
			}
			if !accept {
				retry = append(retry, c)
				continue
			}
			if fits, err := s.take(c, kueue.InCohortFairSharingReason); fits || err != nil {
				return fits, nil, err
			}
			break // the shares changed: rank the ClusterQueues again
		}
	}
}

// second runs LessThanInitialShare over the candidates the first strategy
// refused: each ClusterQueue, in [fairTargets] order, gives its first if
// the preemptor's side's share is below its side's, and is then dropped.
func (s *fairSearch) second(retry []*preemptCand, order func(x, y *preemptCand) int) (bool, error) {
	ft := newFairTargets(s.a.quota(), s.cq, retry, order)
	for {
		tcq, ok := ft.next()
		if !ok {
			return false, nil
		}
		if pre, old := ft.shares(tcq); compareShares(pre, old) < 0 {
			if fits, err := s.take(ft.pop(tcq), kueue.InCohortFairSharingReason); fits || err != nil {
				return fits, err
			}
		}
		ft.pruned[quotaNode{cq: tcq}] = true
	}
}

// pareDown puts the victims back, from the second last to the first, each
// that w fits without (Kueue's fillBackWorkloads), and returns the rest
// as targets, by namespace/name. The victims' and w's quota must be back
// in a.used.
func (s *fairSearch) pareDown() ([]preemptTarget, error) {
	removed, reasons := slices.Clone(s.removed), slices.Clone(s.reasons)
	for i := len(removed) - 2; i >= 0; i-- {
		rest := slices.Delete(slices.Clone(removed), i, i+1)
		fits, err := s.a.fitsWithout(s.w, s.cq, s.ch, rest, true)
		if err != nil {
			return nil, err
		}
		if fits {
			removed, reasons = rest, slices.Delete(reasons, i, i+1)
		}
	}
	out := make([]preemptTarget, len(removed))
	for i, c := range removed {
		out[i] = preemptTarget{cand: c, reason: reasons[i]}
	}
	slices.SortFunc(out, func(x, y preemptTarget) int { return x.cand.w.Key().Compare(y.cand.w.Key()) })
	return out, nil
}
