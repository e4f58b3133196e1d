package main

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// servedSchedulers returns the spec.schedulerName values the run serves,
// sorted, as kube-scheduler serves those of its profiles: the input's
// KubeSchedulerConfiguration's (default-scheduler for a profile that names
// none, and for a configuration without profiles), or, without one, the
// name the pending pods and Job templates use (default-scheduler when
// none or several do: see schedulerName).
func servedSchedulers(objs []manifest.Object) []string {
	for i := range objs {
		cfg, ok := objs[i].Obj.(*configv1.KubeSchedulerConfiguration)
		if !ok {
			continue
		}
		var names []string
		for _, p := range cfg.Profiles {
			n := corev1.DefaultSchedulerName
			if p.SchedulerName != nil && *p.SchedulerName != "" {
				n = *p.SchedulerName
			}
			names = append(names, n)
		}
		if len(names) == 0 {
			names = []string{corev1.DefaultSchedulerName}
		}
		slices.Sort(names)
		return slices.Compact(names)
	}
	return []string{schedulerName(objs)}
}

// leaveUnserved takes out of c's pending pods those whose
// spec.schedulerName the run does not serve, as kube-scheduler never
// queues a pod no profile of it serves: the pod stays pending, and counts
// neither toward its group's quorum nor in the group's checks of one
// scheduler name (gang.Profile). It returns the pods left ("ns/name", in
// c's order), which the run reports as never bound, and one warning per
// pod, naming the pod and the field.
func leaveUnserved(c *kube.Cluster, served []string) (left, warnings []string) {
	c.Pending = slices.DeleteFunc(c.Pending, func(p placement.Pod) bool {
		if slices.Contains(served, p.SchedulerName) {
			return false
		}
		left = append(left, p.Key().String())
		warnings = append(warnings, fmt.Sprintf("pod %q: spec.schedulerName %q is not served by this run (it serves %s): left pending, as kube-scheduler leaves it",
			p.Key().String(), p.SchedulerName, strings.Join(served, ", ")))
		return true
	})
	return left, warnings
}
