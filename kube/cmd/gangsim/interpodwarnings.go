package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
)

// interPodWarnings name, in input order, the required inter-pod terms
// that gangsim reads without acting on them (kube.ConvertPod and the
// Workload reader accept them): those of a Kueue Workload's template,
// which Kueue never reads either (its TAS places by requests, selectors,
// node affinity and tolerations, so the kube-scheduler may then leave a
// pod pending), and those of a bound pod outside any PodGroup, whose
// place is given but whose terms are not checked against the pods placed
// in the run. A user who wrote them may expect them to hold.
func interPodWarnings(objs []manifest.Object) []string {
	var out []string
	for _, o := range objs {
		switch v := o.Obj.(type) {
		case *kueue.Workload:
			if v == nil {
				continue
			}
			for i := range v.Spec.PodSets {
				if f := requiredInterPod(v.Spec.PodSets[i].Template.Spec.Affinity); f != "" {
					out = append(out, fmt.Sprintf("Kueue Workload %q: spec.podSets[%d].template.spec.affinity.%s.requiredDuringSchedulingIgnoredDuringExecution: not read, as Kueue's admission reads no inter-pod terms; the kube-scheduler honours them once the pods exist", v.Namespace+"/"+v.Name, i, f))
				}
			}
		case *corev1.Pod:
			if sg := v.Spec.SchedulingGroup; v == nil || v.Spec.NodeName == "" || sg != nil && sg.PodGroupName != nil {
				continue
			}
			if f := requiredInterPod(v.Spec.Affinity); f != "" {
				out = append(out, fmt.Sprintf("pod %q: spec.affinity.%s.requiredDuringSchedulingIgnoredDuringExecution: not checked against the pods placed in this run (the pod is bound to %s; gangsim reads inter-pod terms among a PodGroup's members only)", v.Namespace+"/"+v.Name, f, v.Spec.NodeName))
			}
		}
	}
	return out
}

// requiredInterPod is the field of a's first required inter-pod kind,
// podAffinity or podAntiAffinity, or "" when it has none.
func requiredInterPod(a *corev1.Affinity) string {
	switch {
	case a == nil:
		return ""
	case a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0:
		return "podAffinity"
	case a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0:
		return "podAntiAffinity"
	}
	return ""
}
