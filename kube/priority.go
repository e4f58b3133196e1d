package kube

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/gangsched/gangsched/placement"
)

// Priority bounds of the PriorityClass API (scheduling/v1): user classes
// may use values up to HighestUserDefinablePriority; the two built-in
// system classes sit above it.
const (
	HighestUserDefinablePriority int32 = 1_000_000_000
	SystemClusterCritical        int32 = 2_000_000_000
	SystemNodeCritical           int32 = 2_000_001_000
)

// PriorityClasses resolves priorityClassName to a priority as the Priority
// admission plugin does. The zero value knows only the built-in classes
// system-cluster-critical and system-node-critical. Build one with
// [NewPriorityClasses].
type PriorityClasses struct {
	byName map[string]schedulingv1.PriorityClass
	def    *schedulingv1.PriorityClass
}

func priorityClassObj(name string) string { return fmt.Sprintf("PriorityClass %q", name) }

// NewPriorityClasses validates and indexes scheduling.k8s.io/v1
// PriorityClasses. Errors (a [*placement.FieldError]): an empty or
// duplicate name; a name that starts with "system-" (reserved for the
// built-in classes); a value above [HighestUserDefinablePriority]; more
// than one class with globalDefault; a preemptionPolicy other than
// PreemptLowerPriority or Never.
func NewPriorityClasses(classes []schedulingv1.PriorityClass) (*PriorityClasses, error) {
	pc := &PriorityClasses{byName: make(map[string]schedulingv1.PriorityClass, len(classes))}
	sorted := slices.Clone(classes)
	slices.SortFunc(sorted, func(a, b schedulingv1.PriorityClass) int { return strings.Compare(a.Name, b.Name) })
	for i := range sorted {
		c := &sorted[i]
		obj := priorityClassObj(c.Name)
		switch {
		case c.Name == "":
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		case strings.HasPrefix(c.Name, "system-"):
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "the system- prefix is reserved for the built-in classes")
		case c.Value > HighestUserDefinablePriority:
			return nil, placement.Errorf(placement.ErrInvalid, obj, "value", "%d is above %d", c.Value, HighestUserDefinablePriority)
		}
		if _, dup := pc.byName[c.Name]; dup {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		if p := c.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "preemptionPolicy", "%q is not PreemptLowerPriority or Never", *p)
		}
		if c.GlobalDefault {
			if pc.def != nil {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, "globalDefault", "PriorityClass %q is the global default already", pc.def.Name)
			}
			pc.def = c
		}
		pc.byName[c.Name] = *c
	}
	return pc, nil
}

// Resolve returns the priority and preemption policy for an object (a pod
// or a PodGroup) that names class and may carry an explicit priority, as
// the Priority admission plugin computes them: the class's value; the
// global default class's when class is empty; 0 when there is none. obj and
// field (e.g. "spec.priorityClassName") name the object in errors.
//
// An explicit priority without a class is kept (the object was admitted
// already). Errors: an unknown class ([placement.ErrNotFound]); an explicit
// priority that differs from the class's value ([placement.ErrInvalid]; the
// admission plugin rejects such an object too).
func (pc *PriorityClasses) Resolve(obj, field, class string, explicit *int32) (int32, placement.PreemptionPolicy, error) {
	var value int32
	policy := placement.PreemptLowerPriority
	switch {
	case class == "system-cluster-critical":
		value = SystemClusterCritical
	case class == "system-node-critical":
		value = SystemNodeCritical
	case class != "":
		c, ok := pc.lookup(class)
		if !ok {
			return 0, "", placement.Errorf(placement.ErrNotFound, obj, field, "no PriorityClass %q", class)
		}
		value = c.Value
		if c.PreemptionPolicy != nil {
			policy = placement.PreemptionPolicy(*c.PreemptionPolicy)
		}
	case explicit != nil:
		return *explicit, policy, nil
	case pc != nil && pc.def != nil:
		value = pc.def.Value
		if pc.def.PreemptionPolicy != nil {
			policy = placement.PreemptionPolicy(*pc.def.PreemptionPolicy)
		}
	}
	if explicit != nil && *explicit != value {
		return 0, "", placement.Errorf(placement.ErrInvalid, obj, strings.TrimSuffix(field, "ClassName"), "%d differs from %d, the value of PriorityClass %q", *explicit, value, class)
	}
	return value, policy, nil
}

// GlobalDefault returns the value of the class with globalDefault set, or
// nil when there is none (or pc is nil): the priority the Priority
// admission plugin gives a pod, PodGroup or CompositePodGroup that names
// no class, and what a host passes to [gang.StampHierarchy] as
// [gang.StampOptions].DefaultPriority.
func (pc *PriorityClasses) GlobalDefault() *int32 {
	if pc == nil || pc.def == nil {
		return nil
	}
	v := pc.def.Value
	return &v
}

func (pc *PriorityClasses) lookup(name string) (schedulingv1.PriorityClass, bool) {
	if pc == nil {
		return schedulingv1.PriorityClass{}, false
	}
	c, ok := pc.byName[name]
	return c, ok
}
