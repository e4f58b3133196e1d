package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// CompositePodGroupAPIVersion is the API group and version of
// CompositePodGroup in Kubernetes v1.37 (KEP-6012, alpha); v1.38 serves it
// in scheduling.k8s.io/v1beta1 too.
const CompositePodGroupAPIVersion = "scheduling.k8s.io/v1alpha3"

// CompositePodGroup is an inner node of a KEP-6012 hierarchy of groups: it
// has no pods of its own; its children are the PodGroups and
// CompositePodGroups of its namespace that name it as their parent
// (spec.parentCompositePodGroupName). A CompositePodGroup without a parent
// is the root of a hierarchy, which the scheduling cycle decides whole.
type CompositePodGroup struct {
	ObjectMeta
	Spec CompositePodGroupSpec
	// Status holds the [CompositePodGroupScheduled] condition.
	Status PodGroupStatus
}

// CompositePodGroupSpec is a CompositePodGroup's spec
// (scheduling.k8s.io/v1alpha3 CompositePodGroupSpec).
type CompositePodGroupSpec struct {
	// ParentCompositePodGroupName names the parent CompositePodGroup in
	// the same namespace; empty for a root.
	ParentCompositePodGroupName string
	// TemplateRef points back at the Workload's compositePodGroupTemplate
	// the group was stamped from (spec.workloadRef); nil for one created
	// on its own.
	TemplateRef *WorkloadPodGroupTemplateReference
	// SchedulingPolicy is gang (minGroupCount children together) or
	// basic (as many children as fit).
	SchedulingPolicy CompositeSchedulingPolicy
	// SchedulingConstraints.Topology holds at most one key: the whole
	// subtree lies in one domain of it.
	SchedulingConstraints SchedulingConstraints
	// PriorityClassName and Priority are the group's priority, as a
	// PodGroup's (nil: unset).
	PriorityClassName string
	Priority          *int32
	// PreemptionPolicy is spec.preemptionPolicy, as a PodGroup's: a
	// root's holds every pod of its hierarchy (v1.37: with the
	// PodGroupPreemptionPolicy gate on; v1.38: when set). v1.37 reads no
	// other's; v1.38 fails a tree whose inner node or leaf sets another
	// (see [Profile]).
	PreemptionPolicy placement.PreemptionPolicy
	// DisruptionMode says whether preemption may evict the children one by
	// one (Single, the default when empty) or only all together (All).
	DisruptionMode CompositeDisruptionMode
}

// CompositeSchedulingPolicy is a CompositePodGroup's schedulingPolicy:
// exactly one of Gang and Basic is set.
type CompositeSchedulingPolicy struct {
	Gang  *CompositeGangSchedulingPolicy
	Basic *BasicSchedulingPolicy
}

// CompositeGangSchedulingPolicy is schedulingPolicy.gang of a
// CompositePodGroup.
type CompositeGangSchedulingPolicy struct {
	// MinGroupCount is how many children must be schedulable together for
	// any of them to be bound; at least 1 (mutable in v1.38).
	MinGroupCount int32
}

// CompositeDisruptionMode is a CompositePodGroup's disruptionMode
// ({single: {}} or {all: {}} in the API).
type CompositeDisruptionMode string

// Composite disruption modes; empty means Single.
const (
	// CompositeDisruptionSingle lets preemption evict children independently.
	CompositeDisruptionSingle CompositeDisruptionMode = "Single"
	// CompositeDisruptionAll lets preemption evict the children only all
	// together: the subtree is one victim.
	CompositeDisruptionAll CompositeDisruptionMode = "All"
)

// CompositePodGroupScheduled is the condition type the scheduler writes on
// a CompositePodGroup (upstream v1.38's CompositePodGroupInitiallyScheduled;
// v1.37 writes none): True once its subtree's requirement was met, never
// True → False again.
const CompositePodGroupScheduled = "CompositePodGroupInitiallyScheduled"

// minChildren is how many children must be satisfied: minGroupCount of a
// gang, 1 of a basic group.
func (c *CompositePodGroup) minChildren() int {
	if g := c.Spec.SchedulingPolicy.Gang; g != nil {
		return int(g.MinGroupCount)
	}
	return 1
}

// Validate checks a CompositePodGroup as the API server would. It returns
// nil or a [*placement.FieldError] naming the CompositePodGroup and the
// field: an empty metadata.name; a parent naming the group itself; a
// schedulingPolicy setting neither or both of gang and basic; a
// minGroupCount below 1; more than one topology constraint, or an empty
// key; a disruptionMode other than Single or All; a bad condition.
// Whether minGroupCount exceeds the children is not checked: children
// arrive over time, and the cycle waits for them.
func (c *CompositePodGroup) Validate() error {
	if c == nil {
		return placement.Errorf(placement.ErrInvalid, "CompositePodGroup", "metadata", "is nil")
	}
	obj := objRef("CompositePodGroup", &c.ObjectMeta)
	s := &c.Spec
	switch {
	case c.Name == "":
		return placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	case s.ParentCompositePodGroupName == c.Name:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.parentCompositePodGroupName", "names the group itself")
	case s.SchedulingPolicy.Gang == nil && s.SchedulingPolicy.Basic == nil:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingPolicy", "must set exactly one of gang and basic; neither is set")
	case s.SchedulingPolicy.Gang != nil && s.SchedulingPolicy.Basic != nil:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingPolicy", "must set exactly one of gang and basic; both are set")
	case s.SchedulingPolicy.Gang != nil && s.SchedulingPolicy.Gang.MinGroupCount < 1:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingPolicy.gang.minGroupCount", "%d is below 1", s.SchedulingPolicy.Gang.MinGroupCount)
	case len(s.SchedulingConstraints.Topology) > 1:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingConstraints.topology", "lists %d constraints; at most one is allowed", len(s.SchedulingConstraints.Topology))
	case len(s.SchedulingConstraints.Topology) == 1 && s.SchedulingConstraints.Topology[0].Key == "":
		return placement.Errorf(placement.ErrInvalid, obj, "spec.schedulingConstraints.topology[0].key", "must not be empty")
	}
	switch s.DisruptionMode {
	case "", CompositeDisruptionSingle, CompositeDisruptionAll:
	default:
		return placement.Errorf(placement.ErrInvalid, obj, "spec.disruptionMode", "%q is not Single or All", s.DisruptionMode)
	}
	if err := validatePreemptionPolicy(obj, "spec.preemptionPolicy", s.PreemptionPolicy); err != nil {
		return err
	}
	return validateConditions(obj, c.Status.Conditions)
}

// Condition returns the CompositePodGroup's condition of type t and
// whether it has one.
func (c *CompositePodGroup) Condition(t string) (Condition, bool) {
	for _, x := range c.Status.Conditions {
		if x.Type == t {
			return x, true
		}
	}
	return Condition{}, false
}

func validateConditions(obj string, cs []Condition) error {
	types := map[string]bool{}
	for i, c := range cs {
		path := fmt.Sprintf("status.conditions[%d]", i)
		if c.Type == "" {
			return placement.Errorf(placement.ErrInvalid, obj, path+".type", "must not be empty")
		}
		if types[c.Type] {
			return placement.Errorf(placement.ErrDuplicate, obj, path+".type", "condition %q appears twice", c.Type)
		}
		types[c.Type] = true
		switch c.Status {
		case ConditionTrue, ConditionFalse, ConditionUnknown:
		default:
			return placement.Errorf(placement.ErrInvalid, obj, path+".status", "%q is not True, False or Unknown", c.Status)
		}
	}
	return nil
}
