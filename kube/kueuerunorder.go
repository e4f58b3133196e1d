package kube

import (
	"cmp"
	"slices"
)

// runningOrder is the order in which the admitted Workloads (views[i],
// their pods held by hs[i]; nil for the others) are repaired and resized:
// first those that only keep or shrink their sets, then those with pods on
// failed nodes (replaced, or evicted whole) and those Kueue plans in a
// second pass for their delayed topology (kueuesecondpass.go), then those
// that grow; each part in queue order (priority, then creation). Kueue
// takes both kinds of second pass into a scheduling cycle's heads and
// tries the heads holding quota before the others. In Kueue a shrink, and an eviction, release their
// room at once, while a scale-up is a new Workload slice the scheduler
// admits later against what is then free: so a growth, tried last, sees
// every room the others free in the run, and a second run over the output
// finds nothing more to grow into. (A Workload that grows one set and
// shrinks another releases only at its turn.)
func runningOrder(views []*KueueWorkload, hs []*held) []int {
	var idx []int
	tier := make([]int, len(views))
	for i, v := range views {
		if hs[i] == nil {
			continue
		}
		idx = append(idx, i)
		if v.needsSecondPass() {
			tier[i] = 1
		}
		for k, set := range v.Group.PodSets {
			switch {
			case len(hs[i].failed[k]) > 0:
				tier[i] = max(tier[i], 1)
			case set.Count > v.AdmittedCount[k]:
				tier[i] = 2
			}
		}
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(tier[x], tier[y]) })
	return idx
}
