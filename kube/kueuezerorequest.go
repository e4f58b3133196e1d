package kube

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// zeroRequested are the resources a pod template's spec names as
// requested but whose effective request ([PodRequests]) is 0 — a
// container writing `cpu: "0"`, or a limit of 0 that defaults a missing
// request — in order. [PodRequests] drops them, as kube-scheduler may: a
// request of nothing takes nothing on a node. Kueue v0.17 does not drop
// them: its pod set requests (pkg/workload totalRequestsFromPodSets, by
// component-helpers' PodRequests after its AdjustResources copied limits
// to missing requests) keep every resource named, at quantity 0, so its
// flavor assigner gives such a resource a flavor (and, a flavor with a
// Topology, the set a topologyAssignment), writes it in flavors and
// resourceUsage, and its TAS check of a plain flavor counts it among the
// set's requested resources; its TAS fit skips a zero quantity
// (Requests.CountIn), so on a node such a pod takes only its pod slot.
// The names read: every container's and init container's requests and
// limits, the pod-level requests of the resources they may set, and
// spec.overhead.
func zeroRequested(spec *corev1.PodSpec, effective placement.ResourceList) []placement.ResourceName {
	named := map[placement.ResourceName]bool{}
	add := func(rl corev1.ResourceList) {
		for r := range rl {
			named[placement.ResourceName(r)] = true
		}
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			add(cs[i].Resources.Requests)
			add(cs[i].Resources.Limits)
		}
	}
	if spec.Resources != nil {
		for r := range spec.Resources.Requests {
			if podLevelResource(placement.ResourceName(r)) {
				named[placement.ResourceName(r)] = true
			}
		}
	}
	add(spec.Overhead)
	var out []placement.ResourceName
	for _, r := range slices.Sorted(maps.Keys(named)) {
		if _, ok := effective[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}

// requestsResource reports whether pod set k of w (Group.PodSets' order)
// names resource r among its requests as Kueue reads them: a request
// above 0, or one of 0 written out ([zeroRequested]).
func (w *KueueWorkload) requestsResource(k int, r placement.ResourceName) bool {
	if w.Group.PodSets[k].Template.Requests[r] > 0 {
		return true
	}
	return slices.Contains(w.zeroRequests[w.Group.PodSets[k].Name], r)
}
