package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GroupVersion is the API group and version of these types.
const GroupVersion = "scheduling.k8s.io/v1alpha2"

// Workload is a template of PodGroups (spec.podGroupTemplates); the
// scheduler does not read it, controllers stamp PodGroups from it.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WorkloadSpec `json:"spec"`
}

// WorkloadSpec is a Workload's spec.
type WorkloadSpec struct {
	// ControllerRef names the object (e.g. a Job) that owns the workload.
	ControllerRef *TypedLocalObjectReference `json:"controllerRef,omitempty"`
	// PodGroupTemplates are the templates PodGroups are stamped from (at
	// most 8 upstream).
	PodGroupTemplates []PodGroupTemplate `json:"podGroupTemplates"`
}

// TypedLocalObjectReference names an object in the same namespace.
type TypedLocalObjectReference struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// PodGroupTemplate is one template of a Workload.
type PodGroupTemplate struct {
	Name                  string                         `json:"name"`
	SchedulingPolicy      PodGroupSchedulingPolicy       `json:"schedulingPolicy"`
	SchedulingConstraints *PodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`
	ResourceClaims        []PodGroupResourceClaim        `json:"resourceClaims,omitempty"`
	DisruptionMode        *DisruptionMode                `json:"disruptionMode,omitempty"`
	PriorityClassName     string                         `json:"priorityClassName,omitempty"`
	Priority              *int32                         `json:"priority,omitempty"`
}

// PodGroupSchedulingPolicy sets exactly one of Basic and Gang.
type PodGroupSchedulingPolicy struct {
	Basic *BasicSchedulingPolicy `json:"basic,omitempty"`
	Gang  *GangSchedulingPolicy  `json:"gang,omitempty"`
}

// BasicSchedulingPolicy is pod-by-pod scheduling; it has no fields.
type BasicSchedulingPolicy struct{}

// GangSchedulingPolicy is all-or-nothing scheduling of at least MinCount
// pods.
type GangSchedulingPolicy struct {
	MinCount int32 `json:"minCount"`
}

// PodGroupResourceClaim is a claim shared by the group's pods: a
// ResourceClaim by name, or one claim generated per PodGroup from a
// ResourceClaimTemplate.
type PodGroupResourceClaim struct {
	Name                      string  `json:"name"`
	ResourceClaimName         *string `json:"resourceClaimName,omitempty"`
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// DisruptionMode says how the group's pods may be disrupted: Pod
// (individually) or PodGroup (all together).
type DisruptionMode string

// Disruption modes.
const (
	DisruptionModePod      DisruptionMode = "Pod"
	DisruptionModePodGroup DisruptionMode = "PodGroup"
)

// PodGroup is the runtime object the scheduler reads.
type PodGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PodGroupSpec   `json:"spec"`
	Status            PodGroupStatus `json:"status,omitempty"`
}

// PodGroupSpec is a PodGroup's spec.
type PodGroupSpec struct {
	PodGroupTemplateRef   *PodGroupTemplateReference     `json:"podGroupTemplateRef,omitempty"`
	SchedulingPolicy      PodGroupSchedulingPolicy       `json:"schedulingPolicy"`
	SchedulingConstraints *PodGroupSchedulingConstraints `json:"schedulingConstraints,omitempty"`
	ResourceClaims        []PodGroupResourceClaim        `json:"resourceClaims,omitempty"`
	DisruptionMode        *DisruptionMode                `json:"disruptionMode,omitempty"`
	PriorityClassName     string                         `json:"priorityClassName,omitempty"`
	Priority              *int32                         `json:"priority,omitempty"`
}

// PodGroupStatus is a PodGroup's status.
type PodGroupStatus struct {
	Conditions            []metav1.Condition            `json:"conditions,omitempty"`
	ResourceClaimStatuses []PodGroupResourceClaimStatus `json:"resourceClaimStatuses,omitempty"`
}

// Condition types and reasons of a v1alpha2 PodGroup.
const (
	// PodGroupScheduled is True once the group's minCount was met; in
	// v1beta1 it is named PodGroupInitiallyScheduled.
	PodGroupScheduled = "PodGroupScheduled"
	// DisruptionTarget marks a group about to be preempted.
	DisruptionTarget = "DisruptionTarget"

	PodGroupReasonUnschedulable         = "Unschedulable"
	PodGroupReasonSchedulerError        = "SchedulerError"
	PodGroupReasonPreemptionByScheduler = "PreemptionByScheduler"
)

// PodGroupResourceClaimStatus records the claim generated for a template
// entry of spec.resourceClaims.
type PodGroupResourceClaimStatus struct {
	Name              string  `json:"name"`
	ResourceClaimName *string `json:"resourceClaimName,omitempty"`
}

// PodGroupTemplateReference says which Workload template a PodGroup was
// stamped from.
type PodGroupTemplateReference struct {
	Workload *WorkloadPodGroupTemplateReference `json:"workload,omitempty"`
}

// WorkloadPodGroupTemplateReference names a Workload and one of its
// templates.
type WorkloadPodGroupTemplateReference struct {
	WorkloadName         string `json:"workloadName"`
	PodGroupTemplateName string `json:"podGroupTemplateName"`
}

// PodGroupSchedulingConstraints holds the topology constraints.
type PodGroupSchedulingConstraints struct {
	Topology []TopologyConstraint `json:"topology,omitempty"`
}

// TopologyConstraint requires every pod of the group to share one domain
// of the node label Key.
type TopologyConstraint struct {
	Key string `json:"key"`
}
