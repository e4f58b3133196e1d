package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// adjustKueueTemplate returns the pod spec of a pod set of a Kueue
// Workload in namespace ns as Kueue v0.17 adjusts it before queueing and
// charging it (pkg/workload/resources.go AdjustResources; read, not
// copied): spec itself when nothing changes, else a changed copy.
//
//   - handlePodOverhead: a template that names a RuntimeClass and has no
//     overhead gets the RuntimeClass's overhead.podFixed (none when a
//     lacks the class: Kueue logs the failed lookup and goes on);
//   - handlePodLimitRange: the namespace's LimitRanges' Container items
//     are summarized, the first default and defaultRequest of each
//     resource kept (LimitRanges in name order, items in order), and
//     every container and init container gets them for each resource its
//     limits, resp. requests, lack — unlike the API server's LimitRanger,
//     a container with a limit but no request gets the default request,
//     not its limit;
//   - handleLimitsToRequests, a limit without a request becoming the
//     request, is [PodRequests]' own rule and is not repeated here.
//
// Unlike the API server, Kueue applies neither the RuntimeClass's
// scheduling nor any check.
func (a *Admission) adjustKueueTemplate(ns string, spec *corev1.PodSpec) *corev1.PodSpec {
	if a == nil {
		return spec
	}
	out := spec
	mutable := func() *corev1.PodSpec {
		if out == spec {
			out = spec.DeepCopy()
		}
		return out
	}
	if rc := a.runtimeClass(spec); rc != nil && len(spec.Overhead) == 0 && rc.Overhead != nil && len(rc.Overhead.PodFixed) > 0 {
		mutable().Overhead = rc.Overhead.PodFixed.DeepCopy()
	}
	d, ok := a.kueueLimits[ns]
	if !ok {
		return out
	}
	lims, reqs := d.limits, d.requests
	for _, cs := range []func(*corev1.PodSpec) []corev1.Container{
		func(s *corev1.PodSpec) []corev1.Container { return s.InitContainers },
		func(s *corev1.PodSpec) []corev1.Container { return s.Containers },
	} {
		for i := range cs(out) {
			for _, l := range []struct {
				defaults corev1.ResourceList
				list     func(*corev1.ResourceRequirements) *corev1.ResourceList
			}{
				{lims, func(r *corev1.ResourceRequirements) *corev1.ResourceList { return &r.Limits }},
				{reqs, func(r *corev1.ResourceRequirements) *corev1.ResourceList { return &r.Requests }},
			} {
				for _, r := range sortedNames(l.defaults) {
					if _, ok := (*l.list(&cs(out)[i].Resources))[r]; ok {
						continue
					}
					rl := l.list(&cs(mutable())[i].Resources)
					if *rl == nil {
						*rl = corev1.ResourceList{}
					}
					(*rl)[r] = l.defaults[r].DeepCopy()
				}
			}
		}
	}
	return out
}

// excludeResources deletes from rl each resource whose name starts with
// one of prefixes, as Kueue v0.17 drops them from a pod set's requests
// before quota reads them (Configuration
// resources.excludeResourcePrefixes; pkg/workload/workload.go
// dropExcludedResources); its topology-aware scheduling reads the
// template's own requests (pkg/scheduler/flavorassigner
// podSetTopologyRequest).
func excludeResources(rl placement.ResourceList, prefixes []string) {
	for r := range rl {
		if excluded(r, prefixes) {
			delete(rl, r)
		}
	}
}

// excluded reports whether resource r starts with one of prefixes.
func excluded(r placement.ResourceName, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(string(r), p) {
			return true
		}
	}
	return false
}
