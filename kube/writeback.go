package kube

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
)

// Bind writes a binding decision back: it returns a copy of pod with
// spec.nodeName set to node, as the API server stores a pod after its
// Binding. The input is not modified.
func Bind(pod *corev1.Pod, node string) *corev1.Pod {
	if pod == nil {
		return nil
	}
	out := pod.DeepCopy()
	out.Spec.NodeName = node
	return out
}

// Binding returns the core/v1 Binding a scheduler posts to bind pod to
// node (the pods/binding subresource).
func Binding(pod *corev1.Pod, node string) *corev1.Binding {
	if pod == nil {
		return nil
	}
	return &corev1.Binding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Binding"},
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
}

// apiCondition converts a [gang.Condition] to metav1.Condition with type t,
// for generation gen.
func apiCondition(c gang.Condition, t string, gen int64) metav1.Condition {
	return metav1.Condition{
		Type: t, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
		LastTransitionTime: metav1.NewTime(c.LastTransitionTime), ObservedGeneration: gen,
	}
}

// SetConditionV1alpha2 writes a PodGroupScheduled condition from a
// scheduling cycle into a v1alpha2 PodGroup's status.conditions, replacing
// the one of the same type and keeping the others (meta.SetStatusCondition:
// the transition time changes only with the status).
func SetConditionV1alpha2(pg *v1alpha2.PodGroup, c gang.Condition) {
	if pg == nil {
		return
	}
	meta.SetStatusCondition(&pg.Status.Conditions, apiCondition(c, v1alpha2.PodGroupScheduled, pg.Generation))
}

// SetConditionV1beta1 is [SetConditionV1alpha2] for a v1beta1 PodGroup, where
// the condition is named PodGroupInitiallyScheduled.
func SetConditionV1beta1(pg *schedulingv1beta1.PodGroup, c gang.Condition) {
	if pg == nil {
		return
	}
	t := c.Type
	if t == gang.PodGroupScheduled {
		t = PodGroupInitiallyScheduled
	}
	meta.SetStatusCondition(&pg.Status.Conditions, apiCondition(c, t, pg.Generation))
}

func apiMeta(m gang.ObjectMeta) metav1.ObjectMeta {
	out := metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name, CreationTimestamp: metav1.NewTime(m.CreationTimestamp)}
	for _, o := range m.OwnerReferences {
		ref := metav1.OwnerReference{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: types.UID(o.UID)}
		if o.Controller {
			t := true
			ref.Controller = &t
		}
		out.OwnerReferences = append(out.OwnerReferences, ref)
	}
	return out
}

func ptrOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// PodGroupV1alpha2 writes a [gang.PodGroup] as a scheduling.k8s.io/v1alpha2
// PodGroup (e.g. one stamped for a Job), the inverse of
// [ConvertPodGroupV1alpha2] except for preferred topology constraints,
// which the API cannot express and are left out.
func PodGroupV1alpha2(pg *gang.PodGroup) *v1alpha2.PodGroup {
	if pg == nil {
		return nil
	}
	s := &pg.Spec
	out := &v1alpha2.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha2.GroupVersion, Kind: "PodGroup"},
		ObjectMeta: apiMeta(pg.ObjectMeta),
		Spec: v1alpha2.PodGroupSpec{
			PriorityClassName: s.PriorityClassName,
			Priority:          copyInt32(s.Priority),
		},
	}
	if r := s.PodGroupTemplateRef; r != nil {
		out.Spec.PodGroupTemplateRef = &v1alpha2.PodGroupTemplateReference{}
		if r.Workload != nil {
			out.Spec.PodGroupTemplateRef.Workload = &v1alpha2.WorkloadPodGroupTemplateReference{
				WorkloadName: r.Workload.WorkloadName, PodGroupTemplateName: r.Workload.PodGroupTemplateName,
			}
		}
	}
	out.Spec.SchedulingPolicy, out.Spec.SchedulingConstraints, out.Spec.ResourceClaims, out.Spec.DisruptionMode = groupSpecV1alpha2(s.SchedulingPolicy, s.SchedulingConstraints, s.ResourceClaims, s.DisruptionMode)
	for _, c := range pg.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, apiCondition(c, c.Type, 0))
	}
	return out
}

// required reports whether t is a required constraint. A preferred one (a
// gangsched extension, see [gang.TopologyConstraint]) has no counterpart in
// the API, which lists required keys only: the writers leave it out rather
// than turn it into a requirement, so a written object loses the
// preference. A slice layer (SliceSize) has none either: it stays in the
// Job's Kueue annotations, which the Job controller reads again.
func required(t gang.TopologyConstraint) bool { return !t.Preferred && t.SliceSize == 0 }

func groupSpecV1alpha2(p gang.SchedulingPolicy, c gang.SchedulingConstraints, claims []gang.PodGroupResourceClaim, dm gang.DisruptionMode) (v1alpha2.PodGroupSchedulingPolicy, *v1alpha2.PodGroupSchedulingConstraints, []v1alpha2.PodGroupResourceClaim, *v1alpha2.DisruptionMode) {
	var pol v1alpha2.PodGroupSchedulingPolicy
	if p.Gang != nil {
		pol.Gang = &v1alpha2.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	if p.Basic != nil {
		pol.Basic = &v1alpha2.BasicSchedulingPolicy{}
	}
	var cons *v1alpha2.PodGroupSchedulingConstraints
	if slices.ContainsFunc(c.Topology, required) {
		cons = &v1alpha2.PodGroupSchedulingConstraints{}
		for _, t := range c.Topology {
			if required(t) {
				cons.Topology = append(cons.Topology, v1alpha2.TopologyConstraint{Key: t.Key})
			}
		}
	}
	var rc []v1alpha2.PodGroupResourceClaim
	for _, cl := range claims {
		rc = append(rc, v1alpha2.PodGroupResourceClaim{Name: cl.Name, ResourceClaimName: ptrOrNil(cl.ResourceClaimName), ResourceClaimTemplateName: ptrOrNil(cl.ResourceClaimTemplateName)})
	}
	var mode *v1alpha2.DisruptionMode
	if dm != "" {
		m := v1alpha2.DisruptionMode(dm)
		mode = &m
	}
	return pol, cons, rc, mode
}

// WorkloadV1alpha2 writes a [gang.Workload] as a v1alpha2 Workload, the
// inverse of [ConvertWorkloadV1alpha2] except for preferred topology
// constraints, which are left out.
func WorkloadV1alpha2(w *gang.Workload) *v1alpha2.Workload {
	if w == nil {
		return nil
	}
	out := &v1alpha2.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha2.GroupVersion, Kind: "Workload"},
		ObjectMeta: apiMeta(w.ObjectMeta),
	}
	for _, t := range w.Spec.PodGroupTemplates {
		at := v1alpha2.PodGroupTemplate{Name: t.Name, PriorityClassName: t.PriorityClassName, Priority: copyInt32(t.Priority)}
		at.SchedulingPolicy, at.SchedulingConstraints, at.ResourceClaims, at.DisruptionMode = groupSpecV1alpha2(t.SchedulingPolicy, t.SchedulingConstraints, t.ResourceClaims, t.DisruptionMode)
		out.Spec.PodGroupTemplates = append(out.Spec.PodGroupTemplates, at)
	}
	return out
}

func groupSpecV1beta1(p gang.SchedulingPolicy, c gang.SchedulingConstraints, claims []gang.PodGroupResourceClaim, dm gang.DisruptionMode) (schedulingv1beta1.PodGroupSchedulingPolicy, *schedulingv1beta1.PodGroupSchedulingConstraints, []schedulingv1beta1.PodGroupResourceClaim, *schedulingv1beta1.DisruptionMode) {
	var pol schedulingv1beta1.PodGroupSchedulingPolicy
	if p.Gang != nil {
		pol.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	if p.Basic != nil {
		pol.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	var cons *schedulingv1beta1.PodGroupSchedulingConstraints
	if slices.ContainsFunc(c.Topology, required) {
		cons = &schedulingv1beta1.PodGroupSchedulingConstraints{}
		for _, t := range c.Topology {
			if required(t) {
				cons.Topology = append(cons.Topology, schedulingv1beta1.TopologyConstraint{Key: t.Key})
			}
		}
	}
	var rc []schedulingv1beta1.PodGroupResourceClaim
	for _, cl := range claims {
		rc = append(rc, schedulingv1beta1.PodGroupResourceClaim{Name: cl.Name, ResourceClaimName: ptrOrNil(cl.ResourceClaimName), ResourceClaimTemplateName: ptrOrNil(cl.ResourceClaimTemplateName)})
	}
	var mode *schedulingv1beta1.DisruptionMode
	switch dm {
	case gang.DisruptionModePod:
		mode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	case gang.DisruptionModePodGroup:
		mode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	}
	return pol, cons, rc, mode
}

// PodGroupV1beta1 writes a [gang.PodGroup] as a scheduling.k8s.io/v1beta1
// PodGroup, the inverse of [ConvertPodGroupV1beta1] except for preferred
// topology constraints, which are left out.
func PodGroupV1beta1(pg *gang.PodGroup) *schedulingv1beta1.PodGroup {
	if pg == nil {
		return nil
	}
	s := &pg.Spec
	out := &schedulingv1beta1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: apiMeta(pg.ObjectMeta),
		Spec: schedulingv1beta1.PodGroupSpec{
			PriorityClassName:           s.PriorityClassName,
			Priority:                    copyInt32(s.Priority),
			PreemptionPolicy:            policyOut[schedulingv1beta1.PreemptionPolicy](s.PreemptionPolicy),
			ParentCompositePodGroupName: ptrOrNil(s.ParentCompositePodGroupName),
		},
	}
	if r := s.PodGroupTemplateRef; r != nil && r.Workload != nil {
		out.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: r.Workload.WorkloadName, TemplateName: r.Workload.PodGroupTemplateName}
	}
	out.Spec.SchedulingPolicy, out.Spec.SchedulingConstraints, out.Spec.ResourceClaims, out.Spec.DisruptionMode = groupSpecV1beta1(s.SchedulingPolicy, s.SchedulingConstraints, s.ResourceClaims, s.DisruptionMode)
	for _, c := range pg.Status.Conditions {
		t := c.Type
		if t == gang.PodGroupScheduled {
			t = PodGroupInitiallyScheduled
		}
		out.Status.Conditions = append(out.Status.Conditions, apiCondition(c, t, 0))
	}
	return out
}

// WorkloadV1beta1 writes a [gang.Workload] as a v1beta1 Workload, the
// inverse of [ConvertWorkloadV1beta1] except for preferred topology
// constraints, which are left out.
func WorkloadV1beta1(w *gang.Workload) *schedulingv1beta1.Workload {
	if w == nil {
		return nil
	}
	out := &schedulingv1beta1.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "Workload"},
		ObjectMeta: apiMeta(w.ObjectMeta),
	}
	out.Spec.PodGroupTemplates = podGroupTemplatesToV1beta1(w.Spec.PodGroupTemplates)
	out.Spec.CompositePodGroupTemplates = compositeTemplatesToV1beta1(w.Spec.CompositePodGroupTemplates)
	return out
}

func podGroupTemplatesToV1beta1(in []gang.PodGroupTemplate) []schedulingv1beta1.PodGroupTemplate {
	var out []schedulingv1beta1.PodGroupTemplate
	for _, t := range in {
		at := schedulingv1beta1.PodGroupTemplate{Name: t.Name, PriorityClassName: t.PriorityClassName, Priority: copyInt32(t.Priority),
			PreemptionPolicy: policyOut[schedulingv1beta1.PreemptionPolicy](t.PreemptionPolicy)}
		at.SchedulingPolicy, at.SchedulingConstraints, at.ResourceClaims, at.DisruptionMode = groupSpecV1beta1(t.SchedulingPolicy, t.SchedulingConstraints, t.ResourceClaims, t.DisruptionMode)
		out = append(out, at)
	}
	return out
}
