package kube

import (
	"math"
	"slices"
)

// The victim search's bound. A head that does not fit is searched once
// per flavor choice each time it is nominated, and in crowded cohorts
// most searches find no victims: an attempt then takes every valid
// candidate out of the usage one by one, testing the fit after each, and
// puts them all back, for every pending Workload tried, cycle after
// cycle. The bound proves such an attempt empty with one removal of what
// it could take at most, summed per ClusterQueue and flavor-resource.
//
// What an attempt ([admitter.victims]) removes of ClusterQueue v's
// candidates: it walks the list in order and removes a candidate of v
// that is valid ([admitter.valid]) while w does not fit yet. Whether it
// is valid depends on its kind (fixed), on v's own usage, changed only by
// removing v's candidates, and on the cohorts between v and the common
// one, whose usage only falls, so once they are within their nominal
// quota v's later candidates are all invalid. So the candidates of v an
// attempt removes are among those the same walk removes over v's
// candidates alone, checking only kind and v's usage — the walk stops
// taking v's candidates once v is within its nominal quota in the
// resources needing preemption; cq's own are all taken. A fit on quota
// ([quotaTree.available] of what cq may take) only grows as usage falls,
// so when w does not fit with all of those gone at once, no set the
// attempt tries fits and it finds nothing.

// attemptMayFind reports whether the attempt (borrow) of the victim
// search of pending Workload w in flavor choice ch of cq, over the
// ordered candidates list, may find victims: false when the bound above
// proves it finds none, true when the attempt must tell. A choice with a
// topology flavor is left to the attempt (a plan over the nodes freed is
// not known to fit more as more is freed), and so is every attempt when
// [KueueOptions].noBound is set. need are ch's flavor-resources needing
// preemption ([admitter.needPreemption]).
func (a *admitter) attemptMayFind(w *KueueWorkload, cq *KueueClusterQueue, ch flavorChoice, list []*preemptCand, borrow bool, need map[flavorResource]bool) (bool, error) {
	if a.opts.noBound {
		return true, nil
	}
	for _, f := range ch.tas {
		if f != "" {
			return true, nil
		}
	}
	// The fit reads the usage of ch's flavor-resources alone (cq's room in
	// them and its cohorts'), so only those are taken out; validity reads
	// those needing preemption.
	frs := make([]flavorResource, 0, len(ch.usage))
	needs := make([]bool, 0, len(ch.usage))
	for fr := range ch.usage { // any order: each is taken out once, any one over counts
		frs, needs = append(frs, fr), append(needs, need[fr])
	}
	t := a.quota()
	walks := map[*KueueClusterQueue]*boundWalk{}
	var order []*boundWalk
	for _, c := range list {
		if c.cq != cq && borrow && c.kind == candReclaimNoBorrow {
			continue
		}
		v := walks[c.cq]
		if v == nil {
			v = &boundWalk{cq: c.cq, used: make([]int64, len(frs)), nominal: make([]int64, len(frs)), gone: make([]wideSum, len(frs))}
			n := quotaNode{cq: c.cq}
			for k, fr := range frs {
				v.used[k] = a.used[c.cq.Name][fr]
				if needs[k] {
					v.nominal[k] = t.subtree(n, fr)
				}
			}
			v.over = c.cq == cq || v.isOver(needs)
			walks[c.cq] = v
			order = append(order, v)
		}
		if !v.over {
			continue
		}
		for _, x := range c.amountList() {
			k := slices.Index(frs, x.fr)
			if k < 0 {
				continue
			}
			v.gone[k] = v.gone[k].plus(x.v)
			if old := v.used[k]; old != math.MaxInt64 {
				v.used[k] = wide(old).minus(wide(x.v)).clamped()
			}
		}
		v.over = c.cq == cq || v.isOver(needs)
	}
	undo := a.withoutEach(func(yield func(cqFR, wideSum) bool) {
		for _, v := range order {
			for k, fr := range frs {
				if v.gone[k] != (wideSum{}) && !yield(cqFR{v.cq.Name, fr}, v.gone[k]) {
					return
				}
			}
		}
	}, len(order)*len(frs))
	defer undo()
	fits, err := a.fitsRemoved(w, cq, ch, nil, borrow)
	if !fits && err == nil && a.opts.boundProofs != nil {
		*a.opts.boundProofs++
	}
	return fits || err != nil, err
}

// boundWalk is a ClusterQueue's usage of a flavor choice's
// flavor-resources as the bound's walk takes its candidates out, computed
// as [admitter.without] computes it, its nominal quota of those needing
// preemption, what the walk took out, and whether it is still over its
// nominal quota in one of those.
type boundWalk struct {
	cq            *KueueClusterQueue
	used, nominal []int64
	gone          []wideSum
	over          bool
}

// isOver reports whether the walk's usage is over its ClusterQueue's
// nominal quota in one of the flavor-resources needing preemption
// (needs, by index), as [quotaTree.withinNominal] tests it.
func (v *boundWalk) isOver(needs []bool) bool {
	for k, need := range needs {
		if need && v.used[k] > v.nominal[k] {
			return true
		}
	}
	return false
}
