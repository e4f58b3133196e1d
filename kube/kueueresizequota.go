package kube

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// growthQuota is the quota pod set k of admitted Workload w takes to grow
// from its admitted count to its count, in the flavors its
// status.admission gives each resource, and why what its ClusterQueue may
// still take there ([quotaTree.room]: its unused nominal quota, and in a
// cohort what it may borrow) does not hold that (Kueue's words). Kueue admits an
// elastic Workload's scale-up as a new Workload slice that holds the old
// slice's quota and the growth, so the growth alone must fit what the
// queue leaves unused, and an inactive ClusterQueue holds the growth
// back (its reason). Nil and "" when the set does not grow, without
// queues, or when w's ClusterQueue is not in the input.
func (a *admitter) growthQuota(w *KueueWorkload, k int) (map[flavorResource]int64, string) {
	q, set := a.opts.Queues, &w.Group.PodSets[k]
	if q == nil || set.Count <= w.AdmittedCount[k] {
		return nil, ""
	}
	adm := w.Obj.Status.Admission
	i := slices.IndexFunc(adm.PodSetAssignments, func(p kueue.PodSetAssignment) bool { return string(p.Name) == set.Name })
	psa := adm.PodSetAssignments[i]
	if len(psa.Flavors) == 0 {
		// Admitted with no pods, as gangsim admits a set of count 0 (Kueue
		// would have given it flavors): its growth has no flavor to take
		// quota in, nor nodes of one.
		return nil, "admitted with 0 pods, it holds no flavor to grow in: gangsim gives a pod set of count 0 none"
	}
	cq := q.ClusterQueues[string(adm.ClusterQueue)]
	if cq == nil {
		return nil, ""
	}
	if why := q.inactive(cq); why != "" {
		// Kueue admits the scale-up as a new slice, and an inactive
		// ClusterQueue (stopped, a flavor missing, under a cycle of
		// cohorts, whose quota walk would not end) admits nothing.
		return nil, fmt.Sprintf("ClusterQueue %s is inactive: %s", cq.Name, why)
	}
	growth := w.quotaRequests(cq, k, set.Count-w.AdmittedCount[k])
	delta := map[flavorResource]int64{}
	for _, r := range slices.Sorted(maps.Keys(growth)) {
		f, ok := psa.Flavors[corev1.ResourceName(r)]
		g := cq.groupOf(r)
		switch {
		case g < 0 && growth[r] > 0:
			// Admitted at 0, a set needs no flavor for what its
			// ClusterQueue does not cover; its pods would.
			return nil, fmt.Sprintf("resource %s unavailable in ClusterQueue", r)
		case !ok && growth[r] > 0:
			return nil, fmt.Sprintf("its admission holds no flavor for %s to grow in", r)
		case !ok || g < 0:
			continue // nothing of it requested
		}
		fr, v := frOf(string(f), r), growth[r]
		fq := slices.IndexFunc(cq.Groups[g].Flavors, func(fq KueueFlavorQuota) bool { return fq.Flavor == fr.Flavor() })
		if fq < 0 {
			continue // a flavor the ClusterQueue no longer lists
		}
		if _, free := a.quota().room(cq, fr); v > free {
			return nil, fmt.Sprintf("insufficient unused quota for %s in flavor %s, %s", r, fr.Flavor(), moreNeeded(r, v, free))
		}
		delta[fr] = v
	}
	return delta, ""
}

// shrinkQuota is the quota pod set k of admitted Workload w gives back
// shrinking from its admitted count to its count, negative, in the flavors
// its status.admission gives each resource: Kueue releases a scale-down's
// usage at once, so a growth later in the run may take it. Nil when the
// set does not shrink, without queues, or when w's ClusterQueue is not in
// the input.
func (a *admitter) shrinkQuota(w *KueueWorkload, k int) map[flavorResource]int64 {
	q, set := a.opts.Queues, &w.Group.PodSets[k]
	if q == nil || set.Count >= w.AdmittedCount[k] {
		return nil
	}
	adm := w.Obj.Status.Admission
	i := slices.IndexFunc(adm.PodSetAssignments, func(p kueue.PodSetAssignment) bool { return string(p.Name) == set.Name })
	cq := q.ClusterQueues[string(adm.ClusterQueue)]
	if i < 0 || cq == nil {
		return nil
	}
	out := map[flavorResource]int64{}
	for r, v := range w.quotaRequests(cq, k, w.AdmittedCount[k]-set.Count) {
		if f, ok := adm.PodSetAssignments[i].Flavors[corev1.ResourceName(r)]; ok {
			out[frOf(string(f), r)] = -v
		}
	}
	return out
}

// releaseQuota takes the quota admitted Workload w holds out of the
// usage, before its eviction clears its admission.
func (a *admitter) releaseQuota(w *KueueWorkload) {
	if a.opts.Queues == nil {
		return
	}
	if cq, u := a.opts.Queues.admittedUsage(w); cq != "" {
		a.addUsage(cq, u, -1)
	}
}

// addUsage adds sign × u to the quota in use in ClusterQueue cq,
// saturating ([usageSum]): every change to the admitter's usage goes
// through it.
func (a *admitter) addUsage(cq string, u map[flavorResource]int64, sign int64) {
	if len(u) == 0 {
		return
	}
	a.usageEpoch++
	a.touchUsage(cq, u)
	if a.used[cq] == nil {
		a.used[cq] = map[flavorResource]int64{}
	}
	for fr, v := range u {
		old := a.used[cq][fr]
		a.used[cq][fr] = usageSum(old, sign*v)
		a.sums.moved(cq, fr, old, a.used[cq][fr])
	}
}

// quota is the quota tree over the admitter's usage.
func (a *admitter) quota() quotaTree {
	return quotaTree{q: a.opts.Queues, used: a.used, sums: a.sums}
}
