package kube

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
)

// KueueNodeFailureDelay is how long a node's Ready condition must have
// been other than True before Kueue's topology-aware scheduling takes the
// node as failed and replaces its pods (Kueue v0.17, NodeFailureDelay of
// its TAS node controller; KEP-2724 "Node failure handling").
const KueueNodeFailureDelay = 30 * time.Second

// NotReadyNode is a node whose Ready condition is not True, as Kueue's
// topology-aware scheduling reads it.
type NotReadyNode struct {
	// Status is the Ready condition's status, False or Unknown; empty when
	// the node lists conditions but no Ready one.
	Status corev1.ConditionStatus
	// Since is the Ready condition's lastTransitionTime: when it stopped
	// being True. Zero without a Ready condition.
	Since time.Time
}

// NodeNotReady reads node n's Ready condition as Kueue's topology-aware
// scheduling does, and reports whether the node is not ready: its Ready
// condition is False or Unknown, or it lists status.conditions without a
// Ready one. A node with no status.conditions at all is taken as ready:
// hand-written manifests omit them, and kube-scheduler does not read them
// (the node lifecycle controller's not-ready taints say it).
func NodeNotReady(n *corev1.Node) (NotReadyNode, bool) {
	if n == nil || len(n.Status.Conditions) == 0 {
		return NotReadyNode{}, false
	}
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		if c.Status == corev1.ConditionTrue {
			return NotReadyNode{}, false
		}
		return NotReadyNode{Status: c.Status, Since: c.LastTransitionTime.Time}, true
	}
	return NotReadyNode{}, true
}

// FailedAt reports whether Kueue takes the node as failed at now, and
// words why ("Ready False for 1m0s"): at once without a Ready condition
// or without its lastTransitionTime, else once now is at least [KueueNodeFailureDelay] after Since. Before
// that the node is not failed yet: its pods stay, and it takes no new
// ones. (Kueue's TASReplaceNodeOnPodTermination also takes it as failed
// earlier once the Workload's pods on it have terminated; admission reads
// no pods, so it waits for the delay.)
func (r NotReadyNode) FailedAt(now time.Time) (bool, string) {
	if r.Status == "" {
		return true, "no Ready condition"
	}
	if r.Since.IsZero() {
		// No lastTransitionTime (the API allows it): failed long since,
		// which a duration from year 1 would word as 2562047h.
		return true, fmt.Sprintf("Ready %s, no lastTransitionTime", r.Status)
	}
	d := now.Sub(r.Since)
	return d >= KueueNodeFailureDelay, fmt.Sprintf("Ready %s for %s", r.Status, d)
}

// outOfTASFilter refuses new pods on the nodes Kueue's topology snapshot
// leaves out (v0.17 TAS nodes cache: only a node that is Ready and not
// spec.unschedulable is in it): the nodes of notReady (by name), and
// cordoned nodes even for a template that tolerates the
// node.kubernetes.io/unschedulable taint, which kube-scheduler's
// NodeUnschedulable lets through. A refused node holds no capacity in any
// domain, so it weighs in no BestFit choice.
func outOfTASFilter(notReady map[string]NotReadyNode) placement.Filter {
	return placement.FilterFunc(func(_ *placement.Pod, n placement.NodeInfo) placement.Rejection {
		if _, ok := notReady[n.Node().Name]; ok {
			return placement.Rejection{Reason: "node(s) not ready", Unresolvable: true}
		}
		if n.Node().Unschedulable {
			return placement.Rejection{Reason: "node(s) were unschedulable", Unresolvable: true}
		}
		return placement.Rejection{}
	})
}
