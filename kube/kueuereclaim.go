package kube

import (
	"fmt"
	"slices"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// A pending Workload's reclaimable pods, as Kueue v0.17 counts them
// (pkg/workload totalRequestsFromPodSets, with its ReclaimablePods gate, on
// by default; read, not copied): a Workload that holds no quota asks, in
// each pod set, for its count less status.reclaimablePods' count for the
// set — pods of its Job that finished — in quota and, for a set with a
// topology request, in the pods its topology assignment places. Its
// admission then writes that count. Kueue's partial admission search
// (PodSetReducer) starts from spec.podSets' counts instead; under quota
// and topology that fit fewer pods whenever they fit more, it ends on the
// same count as a search from the reduced counts, which gangsim runs.

// afterReclaim returns w as Kueue plans it while it holds no quota: each
// pod set at its spec count less its reclaimable pods, a set left with
// none among Zero (placing nothing, as a set of count 0). A sliced set
// whose count so reduced is no whole number of slices keeps, as its Group
// count, the whole slices Kueue's TAS places (count/size slices), and the
// pods beyond them in unplaced: Kueue charges quota for, and writes as
// admitted, the reduced count itself ([KueueWorkload.quotaCount]). A
// sliced set left with pods but no whole slice keeps a Group count of 0
// (planning skips it) and all its pods in unplaced: Kueue charges their
// quota and cannot write the admission ([KueueWorkload.noSlice],
// [admitter.stick]). The view shares Obj, the templates and
// the requests; its Assigned, AdmittedCount, QuotaOnly and delayed are nil (it is
// pending). w itself when no pods are reclaimable.
func (w *KueueWorkload) afterReclaim() *KueueWorkload {
	o := w.orig()
	if len(o.Obj.Status.ReclaimablePods) == 0 {
		return o
	}
	v, g := *o, *o.Group
	v.base, v.Group = o, &g
	v.Assigned, v.AdmittedCount, v.QuotaOnly, v.delayed, v.noSlice, v.noSlicePreferred = nil, nil, nil, nil, "", false
	g.PodSets, g.MinCount, v.Requests, v.MinCounts, v.unplaced = nil, 0, nil, nil, nil
	v.Zero = slices.Clone(o.Zero)
	var unplaced []int32
	for k, set := range o.Group.PodSets {
		left := o.specCount(set.Name) - o.reclaimable(set.Name)
		if o.isPhantom(set.Name) {
			// Its one phantom pod, placed whatever its count 0
			// (kueuephantom.go); phantomSets kept its other set's pods.
			left = set.Count
		}
		n := wholeSlicesOf(o.Requests[k], left)
		if n <= 0 && left > 0 && v.noSlice == "" {
			v.noSlice = fmt.Sprintf("pod set %q: its %d pods not reclaimable make no whole slice of %d pods", set.Name, left, o.Requests[k].Slices[0].Size)
			v.noSlicePreferred = o.Requests[k].Preferred != ""
		}
		if n <= 0 && left <= 0 {
			i := slices.IndexFunc(o.Obj.Spec.PodSets, func(ps kueue.PodSet) bool { return string(ps.Name) == set.Name })
			v.Zero = append(v.Zero, KueueZeroPodSet{Name: set.Name, Index: i, Request: o.Requests[k]})
			continue
		}
		set.Count = n
		g.PodSets = append(g.PodSets, set)
		g.MinCount += n
		unplaced = append(unplaced, left-n)
		v.Requests = append(v.Requests, o.Requests[k])
		if o.MinCounts != nil {
			m := o.MinCounts[k]
			if n == 0 {
				m = 0 // nothing to reduce: no slice is placed
			}
			v.MinCounts = append(v.MinCounts, m)
		}
	}
	if slices.ContainsFunc(unplaced, func(n int32) bool { return n > 0 }) {
		v.unplaced = unplaced
	}
	if len(v.MinCounts) > 0 && !slices.ContainsFunc(v.MinCounts, func(m int32) bool { return m > 0 }) {
		v.MinCounts = nil
	}
	return &v
}

// orig is the Workload w is a view of, or w.
func (w *KueueWorkload) orig() *KueueWorkload {
	if w.base != nil {
		return w.base
	}
	return w
}

// podSetsByName gives each pod set of w (Group.PodSets' order) the pods
// that pods (one entry per planned set, by name) place for it; a set
// without an entry gets none.
func podSetsByName(w *KueueWorkload, pods map[string][]placement.PodSetAssignment) [][]placement.PodSetAssignment {
	out := make([][]placement.PodSetAssignment, len(w.Group.PodSets))
	for k, set := range w.Group.PodSets {
		out[k] = pods[set.Name]
	}
	return out
}
