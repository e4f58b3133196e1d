package gang

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// NewPodGroupFromTemplate stamps a PodGroup named podGroupName from the
// template templateName of Workload w, as a workload controller does
// (KEP-5832): the PodGroup lives in w's namespace, carries deep copies of
// the template's schedulingPolicy, schedulingConstraints, resourceClaims,
// priorityClassName, priority and disruptionMode (not preemptionPolicy,
// which upstream's builder leaves to admission: see [StampHierarchy]),
// refers back to the Workload and template through
// spec.podGroupTemplateRef.workload, and lists w as a (non-controlling)
// owner. Its status is empty. Changing the
// result never changes w.
//
// defaultPriority is the value of the cluster's globalDefault
// PriorityClass, if any: a template that names no class and sets no
// priority stamps a PodGroup of that priority, as the Priority admission
// plugin gives it one (nil: the PodGroup has none, which v1.37 reads as
// 0 when it holds the pods to it). The same rule as [StampHierarchy].
//
// Errors (a [*placement.FieldError]): w fails [Workload.Validate]; the
// template does not exist (wraps [placement.ErrNotFound]); podGroupName is
// empty.
func NewPodGroupFromTemplate(w *Workload, templateName, podGroupName string, defaultPriority *int32) (*PodGroup, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(w.Spec.PodGroupTemplates, func(t PodGroupTemplate) bool { return t.Name == templateName })
	obj := objRef("PodGroup", &ObjectMeta{Namespace: w.Namespace, Name: podGroupName})
	if i < 0 {
		return nil, placement.Errorf(placement.ErrNotFound, obj, "spec.podGroupTemplateRef.workload.podGroupTemplateName",
			"Workload %q has no template %q", w.Key().String(), templateName)
	}
	if podGroupName == "" {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	t := &w.Spec.PodGroupTemplates[i]
	pg := &PodGroup{
		ObjectMeta: ObjectMeta{
			Namespace:       w.Namespace,
			Name:            podGroupName,
			OwnerReferences: []OwnerReference{{APIVersion: APIVersion, Kind: "Workload", Name: w.Name}},
		},
		Spec: PodGroupSpec{
			PodGroupTemplateRef: &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{
				WorkloadName: w.Name, PodGroupTemplateName: t.Name,
			}},
			SchedulingPolicy:      copyPolicy(t.SchedulingPolicy),
			SchedulingConstraints: SchedulingConstraints{Topology: slices.Clone(t.SchedulingConstraints.Topology)},
			ResourceClaims:        slices.Clone(t.ResourceClaims),
			PriorityClassName:     t.PriorityClassName,
			Priority:              admittedPriority(t.PriorityClassName, t.Priority, defaultPriority),
			DisruptionMode:        t.DisruptionMode,
		},
	}
	return pg, nil
}

func copyPolicy(p SchedulingPolicy) SchedulingPolicy {
	return SchedulingPolicy{Gang: copyPtr(p.Gang), Basic: copyPtr(p.Basic)}
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
