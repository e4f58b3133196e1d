package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// policyRule is v1.37's preemption-policy rule for the pods of one
// PodGroup or one hierarchy, as upstream's validatePodGroup
// (pkg/scheduler/schedule_one_podgroup.go, v1.37.2) applies it to every
// queued pod, then every scheduled one: with the PodGroupPreemptionPolicy
// gate on (the group, or the queued root, has spec.preemptionPolicy, which
// admission sets from its class) each pod's policy must be the group's;
// with it off (spec.preemptionPolicy unset) each must be the first pod's.
// An unset pod policy reads PreemptLowerPriority (podPreemptionPolicy).
// v1.36 checks neither (its frameworkForPodGroup compares scheduler names
// only).
type policyRule struct {
	want placement.PreemptionPolicy
	// first names the pod that set want ("" while none has, or when the
	// group sets it); owner names the group's field for a pod of a leaf;
	// hint says how to fix a difference.
	first string
	owner func(leaf placement.Key) string
	hint  string
}

// newPolicyRule starts the rule for a "group" or a "hierarchy" (kind).
// set is the group's (root's) spec.preemptionPolicy, and owner names
// where it is written for a pod of a leaf.
func newPolicyRule(kind string, set placement.PreemptionPolicy, owner func(leaf placement.Key) string) *policyRule {
	if set == "" {
		return &policyRule{hint: fmt.Sprintf("since v1.37 every pod of a %s has one preemption policy: give them one priority class", kind)}
	}
	holder := "group"
	if kind == "hierarchy" {
		holder = "root"
	}
	return &policyRule{want: set, owner: owner,
		hint: fmt.Sprintf("since v1.37 every pod of a %s has its %s's preemption policy when the %s sets one: give the pods the %s's priority class", kind, holder, holder, holder)}
}

// check holds m, a pod of leaf, to the rule; the first pod checked sets
// it when the group does not. Errors name m and spec.preemptionPolicy
// (placement.ErrInvalid).
func (r *policyRule) check(m *placement.Pod, leaf placement.Key) error {
	got := m.PreemptionPolicy
	if got == "" {
		got = placement.PreemptLowerPriority
	}
	if r.want == "" {
		r.want, r.first = got, fmt.Sprintf("pod %q's", m.Key().String())
		return nil
	}
	if got == r.want {
		return nil
	}
	from := r.first
	if from == "" {
		from = r.owner(leaf)
	}
	return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", m.Key().String()), "spec.preemptionPolicy",
		"%s differs from %s, %s (%s)", got, r.want, from, r.hint)
}
