package kube

import (
	"fmt"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	"github.com/gangsched/gangsched/placement"
)

// PodGroupInitiallyScheduled is the v1beta1 (Kubernetes v1.37) name of the
// condition that v1alpha2 calls PodGroupScheduled; [gang] models the
// latter, and the adapter maps between the two.
const PodGroupInitiallyScheduled = schedulingv1beta1.PodGroupInitiallyScheduled

func podGroupObj(namespace, name string) string {
	return fmt.Sprintf("PodGroup %q", placement.Key{Namespace: namespace, Name: name}.String())
}

func workloadObj(namespace, name string) string {
	return fmt.Sprintf("Workload %q", placement.Key{Namespace: namespace, Name: name}.String())
}

func gangMeta(m *metav1.ObjectMeta) gang.ObjectMeta {
	out := gang.ObjectMeta{Namespace: m.Namespace, Name: m.Name, CreationTimestamp: m.CreationTimestamp.Time}
	for _, o := range m.OwnerReferences {
		out.OwnerReferences = append(out.OwnerReferences, gang.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: string(o.UID), Controller: o.Controller != nil && *o.Controller,
		})
	}
	return out
}

// groupPriority resolves a template's priority: nil when it names no
// class and sets no value (the group's pods keep their own priorities),
// else as [PriorityClasses.Resolve].
func groupPriority(pcs *PriorityClasses, obj, path, class string, explicit *int32) (*int32, error) {
	if class == "" && explicit == nil {
		return nil, nil
	}
	v, _, err := pcs.Resolve(obj, path+"priorityClassName", class, explicit)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// objectPriority resolves a PodGroup's or CompositePodGroup's priority
// as the Priority admission plugin sets it on the object: as
// groupPriority, but one that names no class and sets no value gets the
// global default class's when there is one (the pods beside it got it
// too). Without a default it stays nil, which [gang] reads as 0 where
// v1.37 does (the rule that every pod carries its group's priority).
func objectPriority(pcs *PriorityClasses, obj, path, class string, explicit *int32) (*int32, error) {
	if class == "" && explicit == nil && pcs != nil && pcs.def != nil {
		v := pcs.def.Value
		return &v, nil
	}
	return groupPriority(pcs, obj, path, class, explicit)
}

// conditions converts status conditions; rename maps an API condition type
// to the [gang] one (PodGroupInitiallyScheduled → PodGroupScheduled).
func conditions(in []metav1.Condition, rename map[string]string) []gang.Condition {
	var out []gang.Condition
	for _, c := range in {
		t := c.Type
		if r, ok := rename[t]; ok {
			t = r
		}
		out = append(out, gang.Condition{
			Type: t, Status: gang.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
			LastTransitionTime: c.LastTransitionTime.Time,
		})
	}
	return out
}

// ConvertPodGroupV1alpha2 converts a scheduling.k8s.io/v1alpha2 PodGroup
// (Kubernetes v1.36) into the [gang] model, resolving
// spec.priorityClassName through pcs (nil: built-in classes only); with
// neither a class nor a priority it gets the global default class's, as
// the Priority admission plugin sets it, else none.
//
// Errors (a [*placement.FieldError]): what a v1.36 API server refuses
// beyond the model's rules (kube/testdata/v136/validation.yaml): a
// podGroupTemplateRef whose workloadName is not a DNS subdomain or whose
// podGroupTemplateName is not a DNS label, a topology key that is not a
// label key, more than one topology constraint or four resource claims;
// an unknown priority class or a priority that differs from its class's;
// and everything [gang.PodGroup.Validate] reports (a policy that sets
// neither or both of gang and basic, minCount below 1, an empty or
// duplicate topology key, a bad resource claim, an unknown disruptionMode,
// a bad condition).
func ConvertPodGroupV1alpha2(pg *v1alpha2.PodGroup, pcs *PriorityClasses) (*gang.PodGroup, error) {
	if pg == nil {
		return nil, errNil("PodGroup")
	}
	obj := podGroupObj(pg.Namespace, pg.Name)
	s := &pg.Spec
	if r := s.PodGroupTemplateRef; r != nil && r.Workload != nil {
		if err := checkName(obj, "spec.podGroupTemplateRef.workload.workloadName", r.Workload.WorkloadName, validation.IsDNS1123Subdomain); err != nil {
			return nil, err
		}
		if err := checkName(obj, "spec.podGroupTemplateRef.workload.podGroupTemplateName", r.Workload.PodGroupTemplateName, validation.IsDNS1123Label); err != nil {
			return nil, err
		}
	}
	if err := checkFormsV1alpha2(obj, "spec.", s.SchedulingConstraints, len(s.ResourceClaims)); err != nil {
		return nil, err
	}
	prio, err := objectPriority(pcs, obj, "spec.", s.PriorityClassName, s.Priority)
	if err != nil {
		return nil, err
	}
	out := &gang.PodGroup{
		ObjectMeta: gangMeta(&pg.ObjectMeta),
		Spec: gang.PodGroupSpec{
			SchedulingPolicy:      policyV1alpha2(s.SchedulingPolicy),
			SchedulingConstraints: constraintsV1alpha2(s.SchedulingConstraints),
			ResourceClaims:        claimsV1alpha2(s.ResourceClaims),
			PriorityClassName:     s.PriorityClassName,
			Priority:              prio,
		},
		Status: gang.PodGroupStatus{Conditions: conditions(pg.Status.Conditions, nil)},
	}
	if s.DisruptionMode != nil {
		out.Spec.DisruptionMode = gang.DisruptionMode(*s.DisruptionMode)
	}
	if out.Spec.DeviceConstraints, err = DeviceConstraints(obj, pg.Annotations); err != nil {
		return nil, err
	}
	if r := s.PodGroupTemplateRef; r != nil {
		out.Spec.PodGroupTemplateRef = &gang.PodGroupTemplateReference{}
		if r.Workload != nil {
			out.Spec.PodGroupTemplateRef.Workload = &gang.WorkloadPodGroupTemplateReference{
				WorkloadName: r.Workload.WorkloadName, PodGroupTemplateName: r.Workload.PodGroupTemplateName,
			}
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// ConvertWorkloadV1alpha2 converts a scheduling.k8s.io/v1alpha2 Workload
// into the [gang] model, resolving each template's priorityClassName
// through pcs. Errors: no templates (at spec.podGroupTemplates); a
// controllerRef without a kind or name; a template name that is not a DNS
// label; as [ConvertPodGroupV1alpha2], for each template; and what
// [gang.Workload.Validate] reports (a duplicate template name).
func ConvertWorkloadV1alpha2(w *v1alpha2.Workload, pcs *PriorityClasses) (*gang.Workload, error) {
	if w == nil {
		return nil, errNil("Workload")
	}
	obj := workloadObj(w.Namespace, w.Name)
	if r := w.Spec.ControllerRef; r != nil {
		if err := checkControllerRef(obj, r.APIGroup, r.Kind, r.Name); err != nil {
			return nil, err
		}
	}
	if len(w.Spec.PodGroupTemplates) == 0 {
		// v1alpha2 has one list: its own field, not v1beta1's "spec".
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.podGroupTemplates", "must list at least one template")
	}
	out := &gang.Workload{ObjectMeta: gangMeta(&w.ObjectMeta)}
	for i := range w.Spec.PodGroupTemplates {
		t := &w.Spec.PodGroupTemplates[i]
		p := fmt.Sprintf("spec.podGroupTemplates[%d].", i)
		if err := checkName(obj, p+"name", t.Name, validation.IsDNS1123Label); err != nil {
			return nil, err
		}
		if err := checkFormsV1alpha2(obj, p, t.SchedulingConstraints, len(t.ResourceClaims)); err != nil {
			return nil, err
		}
		prio, err := groupPriority(pcs, obj, p, t.PriorityClassName, t.Priority)
		if err != nil {
			return nil, err
		}
		gt := gang.PodGroupTemplate{
			Name:                  t.Name,
			SchedulingPolicy:      policyV1alpha2(t.SchedulingPolicy),
			SchedulingConstraints: constraintsV1alpha2(t.SchedulingConstraints),
			ResourceClaims:        claimsV1alpha2(t.ResourceClaims),
			PriorityClassName:     t.PriorityClassName,
			Priority:              prio,
		}
		if t.DisruptionMode != nil {
			gt.DisruptionMode = gang.DisruptionMode(*t.DisruptionMode)
		}
		out.Spec.PodGroupTemplates = append(out.Spec.PodGroupTemplates, gt)
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkFormsV1alpha2 refuses, under path (ending in "."), a topology key
// that is not a label key and lists longer than the API server takes.
func checkFormsV1alpha2(obj, path string, c *v1alpha2.PodGroupSchedulingConstraints, claims int) error {
	var keys []string
	if c != nil {
		keys = topologyKeys(c.Topology, func(t v1alpha2.TopologyConstraint) string { return t.Key })
	}
	if err := checkListSizes(obj, path, len(keys), claims); err != nil {
		return err
	}
	return checkTopologyKeys(obj, path+"schedulingConstraints.", keys)
}

func policyV1alpha2(p v1alpha2.PodGroupSchedulingPolicy) gang.SchedulingPolicy {
	var out gang.SchedulingPolicy
	if p.Gang != nil {
		out.Gang = &gang.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	if p.Basic != nil {
		out.Basic = &gang.BasicSchedulingPolicy{}
	}
	return out
}

func constraintsV1alpha2(c *v1alpha2.PodGroupSchedulingConstraints) gang.SchedulingConstraints {
	var out gang.SchedulingConstraints
	if c != nil {
		for _, t := range c.Topology {
			out.Topology = append(out.Topology, gang.TopologyConstraint{Key: t.Key})
		}
	}
	return out
}

func claimsV1alpha2(in []v1alpha2.PodGroupResourceClaim) []gang.PodGroupResourceClaim {
	var out []gang.PodGroupResourceClaim
	for _, c := range in {
		out = append(out, gang.PodGroupResourceClaim{Name: c.Name, ResourceClaimName: deref(c.ResourceClaimName), ResourceClaimTemplateName: deref(c.ResourceClaimTemplateName)})
	}
	return out
}

// policyIn reads a scheduling.k8s.io spec.preemptionPolicy; nil is "".
func policyIn[T ~string](p *T) placement.PreemptionPolicy {
	if p == nil {
		return ""
	}
	return placement.PreemptionPolicy(*p)
}

// policyOut writes a spec.preemptionPolicy; "" is nil.
func policyOut[T ~string](p placement.PreemptionPolicy) *T {
	if p == "" {
		return nil
	}
	v := T(p)
	return &v
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// ConvertPodGroupV1beta1 converts a scheduling.k8s.io/v1beta1 PodGroup
// (Kubernetes v1.37 and v1.38) into the [gang] model: spec.workloadRef
// becomes the template reference, disruptionMode {single: {}} / {all: {}}
// becomes Pod / PodGroup, and the PodGroupInitiallyScheduled condition
// becomes PodGroupScheduled. spec.preemptionPolicy is read as written:
// admission sets it from the class (v1.37: only under the
// PodGroupPreemptionPolicy gate), and the cycle holds the members to it
// (see [gang.Profile]).
//
// Errors: as [ConvertPodGroupV1alpha2]; a disruptionMode that sets both or
// neither of single and all; and [ErrUnsupported] for
// spec.parentCompositePodGroupName (CompositePodGroup hierarchies).
func ConvertPodGroupV1beta1(pg *schedulingv1beta1.PodGroup, pcs *PriorityClasses) (*gang.PodGroup, error) {
	if pg == nil {
		return nil, errNil("PodGroup")
	}
	obj := podGroupObj(pg.Namespace, pg.Name)
	s := &pg.Spec
	refs := groupRefs{parent: s.ParentCompositePodGroupName, needRef: s.ParentCompositePodGroupName != nil,
		why: " when spec.parentCompositePodGroupName is set", hasRef: s.WorkloadRef != nil}
	if r := s.WorkloadRef; r != nil {
		refs.workloadName, refs.templateName = r.WorkloadName, r.TemplateName
	}
	if c := s.SchedulingConstraints; c != nil {
		refs.keys = topologyKeys(c.Topology, func(t schedulingv1beta1.TopologyConstraint) string { return t.Key })
	}
	if err := refs.check(obj); err != nil {
		return nil, err
	}
	if err := checkListSizes(obj, "spec.", len(refs.keys), len(s.ResourceClaims)); err != nil {
		return nil, err
	}
	prio, err := objectPriority(pcs, obj, "spec.", s.PriorityClassName, s.Priority)
	if err != nil {
		return nil, err
	}
	dm, err := disruptionModeV1beta1(obj, "spec.disruptionMode", s.DisruptionMode)
	if err != nil {
		return nil, err
	}
	out := &gang.PodGroup{
		ObjectMeta: gangMeta(&pg.ObjectMeta),
		Spec: gang.PodGroupSpec{
			SchedulingPolicy:      policyV1beta1(s.SchedulingPolicy),
			SchedulingConstraints: constraintsV1beta1(s.SchedulingConstraints),
			ResourceClaims:        claimsV1beta1(s.ResourceClaims),
			PriorityClassName:     s.PriorityClassName,
			Priority:              prio,
			PreemptionPolicy:      policyIn(s.PreemptionPolicy),
			DisruptionMode:        dm,

			ParentCompositePodGroupName: deref(s.ParentCompositePodGroupName),
		},
		Status: gang.PodGroupStatus{Conditions: conditions(pg.Status.Conditions, map[string]string{PodGroupInitiallyScheduled: gang.PodGroupScheduled})},
	}
	if out.Spec.DeviceConstraints, err = DeviceConstraints(obj, pg.Annotations); err != nil {
		return nil, err
	}
	if r := s.WorkloadRef; r != nil {
		out.Spec.PodGroupTemplateRef = &gang.PodGroupTemplateReference{Workload: &gang.WorkloadPodGroupTemplateReference{
			WorkloadName: r.WorkloadName, PodGroupTemplateName: r.TemplateName,
		}}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// ConvertWorkloadV1beta1 converts a scheduling.k8s.io/v1beta1 Workload into
// the [gang] model, spec.compositePodGroupTemplates (KEP-6012) included.
// Errors: a controllerRef without a kind or name; as
// [ConvertPodGroupV1beta1] for each PodGroup template, as
// [ConvertCompositePodGroupV1alpha3] for each composite one, and what
// [gang.Workload.Validate] and [gang.Workload.ValidatePriorities] report
// on the templates as written (v1.37's API server refuses a v1beta1
// Workload whose templates differ in priorityClassName or priority before
// any class is resolved; v1.36's v1alpha2 let them differ).
func ConvertWorkloadV1beta1(w *schedulingv1beta1.Workload, pcs *PriorityClasses) (*gang.Workload, error) {
	if w == nil {
		return nil, errNil("Workload")
	}
	obj := workloadObj(w.Namespace, w.Name)
	if r := w.Spec.ControllerRef; r != nil {
		if err := checkControllerRef(obj, r.APIGroup, r.Kind, r.Name); err != nil {
			return nil, err
		}
	}
	out := &gang.Workload{ObjectMeta: gangMeta(&w.ObjectMeta)}
	var err error
	if out.Spec.PodGroupTemplates, err = podGroupTemplatesV1beta1(pcs, obj, "spec.", w.Spec.PodGroupTemplates); err != nil {
		return nil, err
	}
	if out.Spec.CompositePodGroupTemplates, err = compositeTemplatesV1beta1(pcs, obj, "spec.", w.Spec.CompositePodGroupTemplates); err != nil {
		return nil, err
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	// The API server compares the templates as written: "high" and
	// "high" with its value 1000 differ, though both resolve to 1000.
	if err := writtenPriorities(w).ValidatePriorities(); err != nil {
		return nil, err
	}
	return out, nil
}

// writtenPriorities is w's templates, names and nesting, with only the
// priorityClassName and priority each sets (unresolved), for
// [gang.Workload.ValidatePriorities] to compare as v1.37's API server does.
func writtenPriorities(w *schedulingv1beta1.Workload) *gang.Workload {
	pgs := func(in []schedulingv1beta1.PodGroupTemplate) []gang.PodGroupTemplate {
		out := make([]gang.PodGroupTemplate, len(in))
		for i := range in {
			out[i] = gang.PodGroupTemplate{Name: in[i].Name, PriorityClassName: in[i].PriorityClassName, Priority: in[i].Priority}
		}
		return out
	}
	var composites func(in []schedulingv1beta1.CompositePodGroupTemplate) []gang.CompositePodGroupTemplate
	composites = func(in []schedulingv1beta1.CompositePodGroupTemplate) []gang.CompositePodGroupTemplate {
		out := make([]gang.CompositePodGroupTemplate, len(in))
		for i := range in {
			t := &in[i]
			out[i] = gang.CompositePodGroupTemplate{Name: t.Name, PriorityClassName: t.PriorityClassName, Priority: t.Priority,
				CompositePodGroupTemplates: composites(t.CompositePodGroupTemplates), PodGroupTemplates: pgs(t.PodGroupTemplates)}
		}
		return out
	}
	out := &gang.Workload{ObjectMeta: gangMeta(&w.ObjectMeta)}
	out.Spec.PodGroupTemplates = pgs(w.Spec.PodGroupTemplates)
	out.Spec.CompositePodGroupTemplates = composites(w.Spec.CompositePodGroupTemplates)
	return out
}

// podGroupTemplatesV1beta1 converts a list of v1beta1 PodGroup templates
// under path.
func podGroupTemplatesV1beta1(pcs *PriorityClasses, obj, path string, in []schedulingv1beta1.PodGroupTemplate) ([]gang.PodGroupTemplate, error) {
	var out []gang.PodGroupTemplate
	for i := range in {
		t := &in[i]
		p := fmt.Sprintf("%spodGroupTemplates[%d].", path, i)
		if err := checkName(obj, p+"name", t.Name, validation.IsDNS1123Label); err != nil {
			return nil, err
		}
		var keys []string
		if c := t.SchedulingConstraints; c != nil {
			keys = topologyKeys(c.Topology, func(t schedulingv1beta1.TopologyConstraint) string { return t.Key })
		}
		if err := checkListSizes(obj, p, len(keys), len(t.ResourceClaims)); err != nil {
			return nil, err
		}
		if err := checkTopologyKeys(obj, p+"schedulingConstraints.", keys); err != nil {
			return nil, err
		}
		prio, err := groupPriority(pcs, obj, p, t.PriorityClassName, t.Priority)
		if err != nil {
			return nil, err
		}
		dm, err := disruptionModeV1beta1(obj, p+"disruptionMode", t.DisruptionMode)
		if err != nil {
			return nil, err
		}
		out = append(out, gang.PodGroupTemplate{
			Name:                  t.Name,
			SchedulingPolicy:      policyV1beta1(t.SchedulingPolicy),
			SchedulingConstraints: constraintsV1beta1(t.SchedulingConstraints),
			ResourceClaims:        claimsV1beta1(t.ResourceClaims),
			PriorityClassName:     t.PriorityClassName,
			Priority:              prio,
			PreemptionPolicy:      policyIn(t.PreemptionPolicy),
			DisruptionMode:        dm,
		})
	}
	return out, nil
}

func disruptionModeV1beta1(obj, field string, dm *schedulingv1beta1.DisruptionMode) (gang.DisruptionMode, error) {
	switch {
	case dm == nil:
		return "", nil
	case dm.Single != nil && dm.All != nil:
		return "", placement.Errorf(placement.ErrInvalid, obj, field, "must set exactly one of single and all; both are set")
	case dm.Single != nil:
		return gang.DisruptionModePod, nil
	case dm.All != nil:
		return gang.DisruptionModePodGroup, nil
	}
	return "", placement.Errorf(placement.ErrInvalid, obj, field, "must set exactly one of single and all; neither is set")
}

func policyV1beta1(p schedulingv1beta1.PodGroupSchedulingPolicy) gang.SchedulingPolicy {
	var out gang.SchedulingPolicy
	if p.Gang != nil {
		out.Gang = &gang.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	if p.Basic != nil {
		out.Basic = &gang.BasicSchedulingPolicy{}
	}
	return out
}

func constraintsV1beta1(c *schedulingv1beta1.PodGroupSchedulingConstraints) gang.SchedulingConstraints {
	var out gang.SchedulingConstraints
	if c != nil {
		for _, t := range c.Topology {
			out.Topology = append(out.Topology, gang.TopologyConstraint{Key: t.Key})
		}
	}
	return out
}

func claimsV1beta1(in []schedulingv1beta1.PodGroupResourceClaim) []gang.PodGroupResourceClaim {
	var out []gang.PodGroupResourceClaim
	for _, c := range in {
		out = append(out, gang.PodGroupResourceClaim{Name: c.Name, ResourceClaimName: deref(c.ResourceClaimName), ResourceClaimTemplateName: deref(c.ResourceClaimTemplateName)})
	}
	return out
}
