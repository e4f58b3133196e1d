package kube

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue's partial admission (its PartialAdmission feature gate, on by
// default since v0.5): a pending Workload that does not fit whole, and
// one of whose pod sets has a minCount below its count, is tried at
// smaller counts, and admitted at the first that fits of a binary search
// Kueue v0.17 runs in pkg/scheduler (getInitialAssignments, with
// flavorassigner's PodSetReducer); with queues, the same search may end
// on a count to preempt for ([admitter.preemptFor]). Read, not copied.

// canBePartial reports whether some pod set of w may be admitted with
// fewer pods than its count (a minCount below it), as Kueue's
// CanBePartiallyAdmitted.
func (w *KueueWorkload) canBePartial() bool {
	for k, m := range w.MinCounts {
		if m > 0 && m < w.Group.PodSets[k].Count {
			return true
		}
	}
	return false
}

// atCounts returns w with its pod sets' counts set to counts
// (Group.PodSets' order): a copy sharing Obj, Requests and the templates,
// whose Group is new.
func (w *KueueWorkload) atCounts(counts []int32) *KueueWorkload {
	v, g := *w, *w.Group
	g.PodSets, g.MinCount = slices.Clone(g.PodSets), 0
	for k := range g.PodSets {
		g.PodSets[k].Count = counts[k]
		g.MinCount += counts[k]
		if k < len(v.unplaced) && counts[k] != w.Group.PodSets[k].Count {
			// A reduced count is whole slices: the pods beyond
			// them go with the rest.
			if v.unplaced[k] != 0 {
				v.unplaced = slices.Clone(v.unplaced)
				v.unplaced[k] = 0
			}
		}
	}
	v.Group = &g
	return &v
}

// asAdmitted returns admitted Workload w with every pod set Kueue admitted
// partially — one with a minCount whose admitted count lies from the
// minCount up to its count, or one with reclaimable pods admitted at its
// count less some of them (status.reclaimablePods only grows, so its count
// less those now reclaimable is at most the admitted count) — at its
// admitted count, which its repair and
// resize then keep: Kueue never grows such a set back (the Workload's
// count stays as it was, the Job runs the admitted count), so a second
// run over gangsim's own output finds nothing to resize. w itself when no
// set was.
func (w *KueueWorkload) asAdmitted() *KueueWorkload {
	counts, partial := make([]int32, len(w.Group.PodSets)), false
	for k, set := range w.Group.PodSets {
		counts[k] = set.Count
		if k < len(w.MinCounts) && w.MinCounts[k] > 0 && w.MinCounts[k] <= w.AdmittedCount[k] && w.AdmittedCount[k] < set.Count {
			counts[k], partial = w.AdmittedCount[k], true
		}
		if rc := w.reclaimable(set.Name); rc > 0 && wholeSlicesOf(w.Requests[k], set.Count-rc) <= w.AdmittedCount[k] && w.AdmittedCount[k] < set.Count {
			// Admitted without pods already reclaimable then
			// ([KueueWorkload.afterReclaim]): Kueue never grows it back.
			counts[k], partial = w.AdmittedCount[k], true
		}
	}
	if !partial {
		return w
	}
	return w.atCounts(counts)
}

// reducedCounts runs Kueue's search for smaller pod set counts: each set
// of full counts may give up its delta, full less its minimum (mins; 0
// stands for none: its delta is 0), and search index i of 0..total
// (total the deltas' sum) takes from each set delta·i/total pods (integer
// division), so that the sets shrink in proportion; a binary search
// ([sort.Search], as Kueue's) looks for the least index fits accepts,
// calling fits on the counts of each index it probes, the middle index
// first. It reports whether any probe fitted; the last probe that fitted
// is the answer (Kueue keeps its assignment), so the caller keeps what
// fits planned then. Kueue's validation lets one set have a minimum, so
// in practice one count falls by one pod per index.
func reducedCounts(full, mins []int32, fits func([]int32) bool) bool {
	deltas := make([]int64, len(full))
	var total int64
	for k, f := range full {
		if k < len(mins) && mins[k] > 0 {
			deltas[k] = int64(f - mins[k])
		}
		total += deltas[k]
	}
	if total == 0 {
		return false
	}
	counts := make([]int32, len(full))
	found := false
	sort.Search(int(total)+1, func(i int) bool {
		for k, f := range full {
			counts[k] = f - int32(deltas[k]*int64(i)/total)
		}
		ok := fits(counts)
		found = found || ok
		return ok
	})
	return found
}

// wholeSlices rounds each count of w's sliced pod sets down to whole
// slices of its outermost layer. Kueue's TAS places count/size slices of
// a sliced set, so a count its search reaches between two multiples of
// the size places the lower multiple — and Kueue writes the count itself
// as admitted, more pods than its topologyAssignment places; gangsim
// writes the pods it places. A minCount is a multiple of the size
// ([ConvertKueueWorkload]), so no rounded count falls below it.
func wholeSlices(w *KueueWorkload, counts []int32) []int32 {
	out := slices.Clone(counts)
	for k, r := range w.Requests {
		out[k] = wholeSlicesOf(r, out[k])
	}
	return out
}

// wholeSlicesOf is n rounded down to whole slices of r's outermost slice
// layer (n itself for a set without slices).
func wholeSlicesOf(r topology.PodSetRequest, n int32) int32 {
	if len(r.Slices) > 0 {
		return n - n%r.Slices[0].Size
	}
	return n
}

// reduce tries pending Workload w, which does not fit whole, at the
// counts of Kueue's partial admission search ([reducedCounts], each
// candidate at whole slices), planning each with try as its whole count
// was planned. It returns what try planned for the last candidate that
// fit, and whether one did. Errors are try's.
func (a *admitter) reduce(w *KueueWorkload, try func(*KueueWorkload) (plannedSets, error)) (plannedSets, bool, error) {
	full := make([]int32, len(w.Group.PodSets))
	for k, set := range w.Group.PodSets {
		full[k] = set.Count
	}
	var best plannedSets
	var err error
	a.reducing = true // no smaller count's failure is said (kueuetaswords.go)
	defer func() { a.reducing = false }()
	found := reducedCounts(full, w.MinCounts, func(counts []int32) bool {
		if err != nil {
			return false
		}
		ps, e := try(w.atCounts(wholeSlices(w, counts)))
		if e != nil {
			err = e
			return false
		}
		if ps.plan.Decision.Status != placement.Scheduled {
			return false
		}
		best = ps
		return true
	})
	if err != nil {
		return plannedSets{}, false, err
	}
	return best, found, nil
}

// partialWords says which pod sets of w the admission at v's counts
// reduces, e.g. `partially admitted: pod set "workers" with 6 of 8 pods
// (minCount 4)`; "" when none.
func partialWords(w, v *KueueWorkload) string {
	var sets []string
	for k, set := range w.Group.PodSets {
		if n := v.Group.PodSets[k].Count; n < set.Count {
			sets = append(sets, fmt.Sprintf("pod set %q with %d of %d pods (minCount %d)", set.Name, n, set.Count, w.MinCounts[k]))
		}
	}
	if len(sets) == 0 {
		return ""
	}
	return "partially admitted: " + strings.Join(sets, ", ")
}
