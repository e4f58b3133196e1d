package kube

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

func nodeObj(name string) string { return fmt.Sprintf("node %q", name) }

// ConvertNode converts a core/v1 Node into a [placement.Node]: metadata.name
// and labels, spec.taints, spec.unschedulable and status.allocatable in
// canonical units (see [Quantity]). A node whose status.allocatable is empty
// uses status.capacity instead, as a hand-written manifest often gives only
// one of them (the kubelet always reports both; kube-scheduler reads
// allocatable).
//
// Errors (a [*placement.FieldError]): an empty name; a bad quantity; a taint
// with an empty key or an effect other than NoSchedule, PreferNoSchedule or
// NoExecute (core/v1 validation).
func ConvertNode(n *corev1.Node) (placement.Node, error) {
	if n == nil {
		return placement.Node{}, errNil("Node")
	}
	obj := nodeObj(n.Name)
	if n.Name == "" {
		return placement.Node{}, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	field, list := "status.allocatable", n.Status.Allocatable
	if len(list) == 0 {
		field, list = "status.capacity", n.Status.Capacity
	}
	alloc, err := ResourceList(obj, field, list)
	if err != nil {
		return placement.Node{}, err
	}
	out := placement.Node{
		Name:          n.Name,
		Labels:        maps.Clone(n.Labels),
		Allocatable:   alloc,
		Unschedulable: n.Spec.Unschedulable,
	}
	for i, t := range n.Spec.Taints {
		f := "spec.taints[" + itoa(i) + "]"
		if t.Key == "" {
			return placement.Node{}, placement.Errorf(placement.ErrInvalid, obj, f+".key", "must not be empty")
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return placement.Node{}, placement.Errorf(placement.ErrInvalid, obj, f+".effect", "%q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
		}
		out.Taints = append(out.Taints, placement.Taint{Key: t.Key, Value: t.Value, Effect: placement.TaintEffect(t.Effect)})
	}
	return out, nil
}

// kueueNodePods gives every node of nodes without "pods" in its
// allocatable a pod count of 0, as Kueue's topology-aware scheduling reads
// it ([LoadOptions].KueueNodePods).
func kueueNodePods(nodes []placement.Node) {
	for i := range nodes {
		n := &nodes[i]
		if _, ok := n.Allocatable[placement.ResourcePods]; ok {
			continue
		}
		if n.Allocatable == nil {
			n.Allocatable = placement.ResourceList{}
		}
		n.Allocatable[placement.ResourcePods] = 0
	}
}
