package main

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/kube/manifest"
)

// leaveOffNodeless takes out of objs the running pods bound
// (spec.nodeName) to a node the input does not have, outside any
// PodGroup, and warns once per such node, naming its first pods. A dump
// of one node pool (`kubectl get nodes -l pool=gpu`) beside every pod
// (`kubectl get pods -A`) holds many; kube-scheduler's snapshot lists
// only the nodes it has, so a pod on another takes no room on those,
// and Kueue's TAS cache charges pods to its Topology's nodes alone. A
// PodGroup's member stays (kube.Load refuses it, naming the node): its
// group's quorum counts it, and leaving it off would change what the
// group still needs.
func leaveOffNodeless(objs []manifest.Object) ([]manifest.Object, []string) {
	nodes := map[string]bool{}
	for _, o := range objs {
		if n, ok := o.Obj.(*corev1.Node); ok && n != nil {
			nodes[n.Name] = true
		}
	}
	var order []string
	left := map[string][]string{}
	kept := objs[:0:0]
	for _, o := range objs {
		if p, ok := o.Obj.(*corev1.Pod); ok && nodeless(p, nodes) {
			if left[p.Spec.NodeName] == nil {
				order = append(order, p.Spec.NodeName)
			}
			left[p.Spec.NodeName] = append(left[p.Spec.NodeName], p.Namespace+"/"+p.Name)
			continue
		}
		kept = append(kept, o)
	}
	if len(order) == 0 {
		return objs, nil
	}
	warnings := make([]string, 0, len(order))
	for _, n := range order {
		pods := left[n]
		named := strings.Join(pods[:min(3, len(pods))], ", ")
		if len(pods) > 3 {
			named += fmt.Sprintf(" and %d more", len(pods)-3)
		}
		warnings = append(warnings, fmt.Sprintf("node %q is not in the input; the pods bound to it take no room on the input's nodes and are left out: %s", n, named))
	}
	return kept, warnings
}

// nodeless reports whether p runs on a node not in nodes, outside any
// PodGroup; a finished pod holds nothing and kube.Load skips it anyway.
func nodeless(p *corev1.Pod, nodes map[string]bool) bool {
	switch {
	case p == nil, p.Spec.NodeName == "", nodes[p.Spec.NodeName]:
		return false
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return false
	case p.Spec.SchedulingGroup != nil && p.Spec.SchedulingGroup.PodGroupName != nil:
		return false
	}
	return true
}
