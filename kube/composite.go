package kube

import (
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// CompositePodGroups live in scheduling.k8s.io/v1alpha3 in k8s.io/api
// v0.37 (Kubernetes v1.37, feature gate CompositePodGroup); that release
// has no v1beta1 CompositePodGroup type, though v1beta1 Workloads carry
// compositePodGroupTemplates and v1beta1 PodGroups name their parent;
// v1.38's v1beta1 CompositePodGroup is mirrored in
// kube/api/scheduling/v1beta1 (composite_v1beta1.go).

func compositeObj(namespace, name string) string {
	return fmt.Sprintf("CompositePodGroup %q", placement.Key{Namespace: namespace, Name: name}.String())
}

// ConvertCompositePodGroupV1alpha3 converts a scheduling.k8s.io/v1alpha3
// CompositePodGroup (KEP-6012) into the [gang] model, resolving
// spec.priorityClassName through pcs (nil: built-in classes only; with
// neither a class nor a priority, the global default class's, as the
// Priority admission plugin sets it); spec.preemptionPolicy is read as
// written (admission sets it from the class, in v1.37 only under the
// PodGroupPreemptionPolicy gate; a root's holds its hierarchy's pods).
//
// Errors (a [*placement.FieldError]): no spec.workloadRef (the API
// server requires one); an unknown priority class or a
// priority that differs from its class's; a disruptionMode setting both
// or neither of single and all; and what [gang.CompositePodGroup.Validate]
// reports.
func ConvertCompositePodGroupV1alpha3(c *schedulingv1alpha3.CompositePodGroup, pcs *PriorityClasses) (*gang.CompositePodGroup, error) {
	if c == nil {
		return nil, errNil("CompositePodGroup")
	}
	obj := compositeObj(c.Namespace, c.Name)
	s := &c.Spec
	// The v1alpha3 and v1beta1 APIs alike require workloadRef: a
	// hierarchy's groups name the Workload they were stamped from.
	refs := groupRefs{parent: s.ParentCompositePodGroupName, needRef: true, hasRef: s.WorkloadRef != nil}
	if r := s.WorkloadRef; r != nil {
		refs.workloadName, refs.templateName = r.WorkloadName, r.TemplateName
	}
	if sc := s.SchedulingConstraints; sc != nil {
		refs.keys = topologyKeys(sc.Topology, func(t schedulingv1alpha3.TopologyConstraint) string { return t.Key })
	}
	if err := refs.check(obj); err != nil {
		return nil, err
	}
	prio, err := objectPriority(pcs, obj, "spec.", s.PriorityClassName, s.Priority)
	if err != nil {
		return nil, err
	}
	var dm gang.CompositeDisruptionMode
	if d := s.DisruptionMode; d != nil {
		if dm, err = compositeMode(obj, "spec.disruptionMode", d.Single != nil, d.All != nil); err != nil {
			return nil, err
		}
	}
	out := &gang.CompositePodGroup{
		ObjectMeta: gangMeta(&c.ObjectMeta),
		Spec: gang.CompositePodGroupSpec{
			ParentCompositePodGroupName: deref(s.ParentCompositePodGroupName),
			SchedulingPolicy:            compositePolicy(s.SchedulingPolicy.Gang != nil, s.SchedulingPolicy.Basic != nil, minGroupCount(s.SchedulingPolicy.Gang)),
			PriorityClassName:           s.PriorityClassName,
			Priority:                    prio,
			PreemptionPolicy:            policyIn(s.PreemptionPolicy),
			DisruptionMode:              dm,
		},
		Status: gang.PodGroupStatus{Conditions: conditions(c.Status.Conditions, nil)},
	}
	if sc := s.SchedulingConstraints; sc != nil {
		for _, t := range sc.Topology {
			out.Spec.SchedulingConstraints.Topology = append(out.Spec.SchedulingConstraints.Topology, gang.TopologyConstraint{Key: t.Key})
		}
	}
	if r := s.WorkloadRef; r != nil {
		out.Spec.TemplateRef = &gang.WorkloadPodGroupTemplateReference{WorkloadName: r.WorkloadName, PodGroupTemplateName: r.TemplateName}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

func minGroupCount(g *schedulingv1alpha3.CompositeGangSchedulingPolicy) int32 {
	if g == nil {
		return 0
	}
	return g.MinGroupCount
}

func compositePolicy(isGang, isBasic bool, min int32) gang.CompositeSchedulingPolicy {
	var p gang.CompositeSchedulingPolicy
	if isGang {
		p.Gang = &gang.CompositeGangSchedulingPolicy{MinGroupCount: min}
	}
	if isBasic {
		p.Basic = &gang.BasicSchedulingPolicy{}
	}
	return p
}

func compositeMode(obj, field string, single, all bool) (gang.CompositeDisruptionMode, error) {
	switch {
	case single && all:
		return "", placement.Errorf(placement.ErrInvalid, obj, field, "must set exactly one of single and all; both are set")
	case single:
		return gang.CompositeDisruptionSingle, nil
	case all:
		return gang.CompositeDisruptionAll, nil
	}
	return "", placement.Errorf(placement.ErrInvalid, obj, field, "must set exactly one of single and all; neither is set")
}

// CompositePodGroupV1alpha3 writes a [gang.CompositePodGroup] as a
// scheduling.k8s.io/v1alpha3 CompositePodGroup, the inverse of
// [ConvertCompositePodGroupV1alpha3].
func CompositePodGroupV1alpha3(c *gang.CompositePodGroup) *schedulingv1alpha3.CompositePodGroup {
	if c == nil {
		return nil
	}
	s := &c.Spec
	out := &schedulingv1alpha3.CompositePodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: schedulingv1alpha3.SchemeGroupVersion.String(), Kind: "CompositePodGroup"},
		ObjectMeta: apiMeta(c.ObjectMeta),
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			ParentCompositePodGroupName: ptrOrNil(s.ParentCompositePodGroupName),
			PriorityClassName:           s.PriorityClassName,
			Priority:                    copyInt32(s.Priority),
			PreemptionPolicy:            policyOut[schedulingv1alpha3.PreemptionPolicy](s.PreemptionPolicy),
		},
	}
	if g := s.SchedulingPolicy.Gang; g != nil {
		out.Spec.SchedulingPolicy.Gang = &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: g.MinGroupCount}
	}
	if s.SchedulingPolicy.Basic != nil {
		out.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
	}
	if len(s.SchedulingConstraints.Topology) > 0 {
		out.Spec.SchedulingConstraints = &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{}
		for _, t := range s.SchedulingConstraints.Topology {
			out.Spec.SchedulingConstraints.Topology = append(out.Spec.SchedulingConstraints.Topology, schedulingv1alpha3.TopologyConstraint{Key: t.Key})
		}
	}
	switch s.DisruptionMode {
	case gang.CompositeDisruptionSingle:
		out.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{Single: &schedulingv1alpha3.SingleCompositeDisruptionMode{}}
	case gang.CompositeDisruptionAll:
		out.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}}
	}
	if r := s.TemplateRef; r != nil {
		out.Spec.WorkloadRef = &schedulingv1alpha3.WorkloadReference{WorkloadName: r.WorkloadName, TemplateName: r.PodGroupTemplateName}
	}
	for _, cond := range c.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, apiCondition(cond, cond.Type, 0))
	}
	return out
}

// SetConditionCompositePodGroupV1alpha3 writes a condition from a cycle
// ([gang.CompositePodGroupScheduled]) into a CompositePodGroup's
// status.conditions, replacing the one of the same type.
func SetConditionCompositePodGroupV1alpha3(c *schedulingv1alpha3.CompositePodGroup, cond gang.Condition) {
	if c == nil {
		return
	}
	meta.SetStatusCondition(&c.Status.Conditions, apiCondition(cond, cond.Type, c.Generation))
}

// compositeTemplatesV1beta1 converts a v1beta1 Workload's
// compositePodGroupTemplates under path.
func compositeTemplatesV1beta1(pcs *PriorityClasses, obj, path string, in []schedulingv1beta1.CompositePodGroupTemplate) ([]gang.CompositePodGroupTemplate, error) {
	var out []gang.CompositePodGroupTemplate
	for i := range in {
		t := &in[i]
		p := fmt.Sprintf("%scompositePodGroupTemplates[%d].", path, i)
		if err := checkName(obj, p+"name", t.Name, validation.IsDNS1123Label); err != nil {
			return nil, err
		}
		if sc := t.SchedulingConstraints; sc != nil {
			if err := checkTopologyKeys(obj, p+"schedulingConstraints.", topologyKeys(sc.Topology, func(t schedulingv1beta1.TopologyConstraint) string { return t.Key })); err != nil {
				return nil, err
			}
		}
		prio, err := groupPriority(pcs, obj, p, t.PriorityClassName, t.Priority)
		if err != nil {
			return nil, err
		}
		ct := gang.CompositePodGroupTemplate{
			Name:              t.Name,
			PriorityClassName: t.PriorityClassName,
			Priority:          prio,
			PreemptionPolicy:  policyIn(t.PreemptionPolicy),
		}
		var min int32
		if t.SchedulingPolicy.Gang != nil {
			min = t.SchedulingPolicy.Gang.MinGroupCount
		}
		ct.SchedulingPolicy = compositePolicy(t.SchedulingPolicy.Gang != nil, t.SchedulingPolicy.Basic != nil, min)
		if d := t.DisruptionMode; d != nil {
			if ct.DisruptionMode, err = compositeMode(obj, p+"disruptionMode", d.Single != nil, d.All != nil); err != nil {
				return nil, err
			}
		}
		if sc := t.SchedulingConstraints; sc != nil {
			for _, tc := range sc.Topology {
				ct.SchedulingConstraints.Topology = append(ct.SchedulingConstraints.Topology, gang.TopologyConstraint{Key: tc.Key})
			}
		}
		if ct.PodGroupTemplates, err = podGroupTemplatesV1beta1(pcs, obj, p, t.PodGroupTemplates); err != nil {
			return nil, err
		}
		if ct.CompositePodGroupTemplates, err = compositeTemplatesV1beta1(pcs, obj, p, t.CompositePodGroupTemplates); err != nil {
			return nil, err
		}
		out = append(out, ct)
	}
	return out, nil
}

// compositeTemplatesToV1beta1 is the inverse of compositeTemplatesV1beta1.
func compositeTemplatesToV1beta1(in []gang.CompositePodGroupTemplate) []schedulingv1beta1.CompositePodGroupTemplate {
	var out []schedulingv1beta1.CompositePodGroupTemplate
	for _, t := range in {
		at := schedulingv1beta1.CompositePodGroupTemplate{Name: t.Name, PriorityClassName: t.PriorityClassName, Priority: copyInt32(t.Priority),
			PreemptionPolicy: policyOut[schedulingv1beta1.PreemptionPolicy](t.PreemptionPolicy)}
		if g := t.SchedulingPolicy.Gang; g != nil {
			at.SchedulingPolicy.Gang = &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: g.MinGroupCount}
		}
		if t.SchedulingPolicy.Basic != nil {
			at.SchedulingPolicy.Basic = &schedulingv1beta1.CompositeBasicSchedulingPolicy{}
		}
		if len(t.SchedulingConstraints.Topology) > 0 {
			at.SchedulingConstraints = &schedulingv1beta1.CompositePodGroupSchedulingConstraints{}
			for _, tc := range t.SchedulingConstraints.Topology {
				at.SchedulingConstraints.Topology = append(at.SchedulingConstraints.Topology, schedulingv1beta1.TopologyConstraint{Key: tc.Key})
			}
		}
		switch t.DisruptionMode {
		case gang.CompositeDisruptionSingle:
			at.DisruptionMode = &schedulingv1beta1.CompositeDisruptionMode{Single: &schedulingv1beta1.SingleCompositeDisruptionMode{}}
		case gang.CompositeDisruptionAll:
			at.DisruptionMode = &schedulingv1beta1.CompositeDisruptionMode{All: &schedulingv1beta1.AllCompositeDisruptionMode{}}
		}
		at.PodGroupTemplates = podGroupTemplatesToV1beta1(t.PodGroupTemplates)
		at.CompositePodGroupTemplates = compositeTemplatesToV1beta1(t.CompositePodGroupTemplates)
		out = append(out, at)
	}
	return out
}
