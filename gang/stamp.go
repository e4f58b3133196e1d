package gang

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// StampOptions are how [NewPodGroupFromTemplate] and [StampHierarchy]
// stamp objects from a Workload's templates.
type StampOptions struct {
	// DefaultPriority is the value of the cluster's globalDefault
	// PriorityClass, if any (the kube adapter's
	// PriorityClasses.GlobalDefault): an object whose template names no
	// class and sets no priority gets it as spec.priority, as the Priority
	// admission plugin gives it on creation and as the kube adapter reads
	// a PodGroup or CompositePodGroup without one. Nil: such an object has
	// none, which v1.37 reads as 0 when it holds the pods to it; without
	// the default a tree would queue and be held to 0 while its pods,
	// admitted with the default, carry the default's value. A template
	// that names a class keeps it for the host to resolve.
	DefaultPriority *int32
	// Profile is the release whose workload builder stamps; "" is the
	// newest. They differ in one field only: v1.38 copies a template's
	// preemptionPolicy, v1.37 does not ([Profile.StampsPreemptionPolicy]).
	Profile Profile
}

// NewPodGroupFromTemplate stamps a PodGroup named podGroupName from the
// template templateName of Workload w, as a workload controller does
// (KEP-5832) through upstream's builder (k8s.io/component-helpers
// workloadbuilder, newPodGroup): the PodGroup lives in w's namespace,
// carries deep copies of the template's schedulingPolicy,
// schedulingConstraints, resourceClaims, priorityClassName, priority and
// disruptionMode, and, under a profile whose builder copies it
// ([Profile.StampsPreemptionPolicy]: v1.38), its preemptionPolicy; it
// refers back to the Workload and template through
// spec.podGroupTemplateRef.workload, and lists w as a (non-controlling)
// owner. Its status is empty. Changing the result never changes w.
// opts.DefaultPriority fills a priority no template sets (see
// [StampOptions]).
//
// Errors (a [*placement.FieldError]): w fails [Workload.Validate]; the
// template does not exist (wraps [placement.ErrNotFound]); podGroupName is
// empty.
func NewPodGroupFromTemplate(w *Workload, templateName, podGroupName string, opts StampOptions) (*PodGroup, error) {
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
			Priority:              admittedPriority(t.PriorityClassName, t.Priority, opts.DefaultPriority),
			PreemptionPolicy:      opts.Profile.stampedPolicy(t.PreemptionPolicy),
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
