package v1beta1

import (
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GroupVersion is the API group and version of CompositePodGroup.
const GroupVersion = "scheduling.k8s.io/v1beta1"

// CompositePodGroup is an inner node of a KEP-6012 hierarchy: a group of
// PodGroups and CompositePodGroups (its children name it as their
// parentCompositePodGroupName) scheduled together.
type CompositePodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CompositePodGroupSpec   `json:"spec"`
	Status            CompositePodGroupStatus `json:"status,omitempty"`
}

// CompositePodGroupSpec is a CompositePodGroup's spec.
type CompositePodGroupSpec struct {
	// ParentCompositePodGroupName names the parent in the same namespace;
	// nil for a hierarchy's root.
	ParentCompositePodGroupName *string `json:"parentCompositePodGroupName,omitempty"`
	// WorkloadRef names the Workload and its compositePodGroupTemplate the
	// object was stamped from (required upstream).
	WorkloadRef *schedulingv1beta1.WorkloadReference `json:"workloadRef"`
	// SchedulingPolicy sets exactly one of basic and gang{minGroupCount};
	// minGroupCount is mutable, the choice is not.
	SchedulingPolicy schedulingv1beta1.CompositePodGroupSchedulingPolicy `json:"schedulingPolicy"`
	// SchedulingConstraints holds the topology key that confines the
	// subtree to one domain.
	SchedulingConstraints *schedulingv1beta1.CompositePodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`
	// DisruptionMode sets exactly one of single and all (the API server
	// defaults it to single).
	DisruptionMode *schedulingv1beta1.CompositeDisruptionMode `json:"disruptionMode,omitempty"`
	// PriorityClassName and Priority are resolved by admission as a pod's.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	Priority          *int32 `json:"priority,omitempty"`
	// PreemptionPolicy is Never or PreemptLowerPriority (admission sets it
	// from the class).
	PreemptionPolicy *schedulingv1beta1.PreemptionPolicy `json:"preemptionPolicy,omitempty"`
}

// CompositePodGroupStatus carries the CompositePodGroupInitiallyScheduled
// and DisruptionTarget conditions.
type CompositePodGroupStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
