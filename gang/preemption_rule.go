package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// GatePodGroupPreemptionPolicy is the name of upstream's feature gate
// (k8s.io/kubernetes pkg/features, alpha in v1.37) that
// [Options].PodGroupPreemptionPolicy models, as kube-scheduler's
// --feature-gates spells it.
const GatePodGroupPreemptionPolicy = "PodGroupPreemptionPolicy"

// policyRule is v1.37's preemption-policy rule for the pods of one
// PodGroup or one hierarchy, as upstream's validatePodGroup
// (pkg/scheduler/schedule_one_podgroup.go, v1.37.2) applies it to every
// queued pod, then every scheduled one. Which policy the pods are held to
// depends on the PodGroupPreemptionPolicy gate ([Options].PodGroupPreemptionPolicy):
//
//   - gate on: the group's (the queued root's) spec.preemptionPolicy, and
//     PreemptLowerPriority when it is unset (an object created while the
//     gate was off keeps no policy; upstream's podGroupPreemptionPolicy
//     then reads the default), so a group of all-Never pods without one
//     fails;
//   - gate off: the first pod's; the group's field is ignored (the API
//     server drops it on create while the gate is off).
//
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

// newPolicyRule starts the rule for a "group" or a "hierarchy" (kind)
// with the gate on or off. set is the group's (root's)
// spec.preemptionPolicy, and owner names where it is written for a pod
// of a leaf.
func newPolicyRule(kind string, gate bool, set placement.PreemptionPolicy, owner func(leaf placement.Key) string) *policyRule {
	if !gate {
		return &policyRule{hint: fmt.Sprintf("since v1.37 every pod of a %s has one preemption policy: give them one priority class", kind)}
	}
	holder := "group"
	if kind == "hierarchy" {
		holder = "root"
	}
	hint := fmt.Sprintf("with the PodGroupPreemptionPolicy gate every pod of a %s has its %s's preemption policy: give the pods the %s's priority class", kind, holder, holder)
	if set == "" {
		set = placement.PreemptLowerPriority
		hint = fmt.Sprintf("with the PodGroupPreemptionPolicy gate every pod of a %s has its %s's preemption policy, PreemptLowerPriority when unset: recreate the %s with the pods' priority class", kind, holder, holder)
		inner := owner
		owner = func(leaf placement.Key) string { return inner(leaf) + " (unset)" }
	}
	return &policyRule{want: set, owner: owner, hint: hint}
}

// check holds m, a pod of leaf, to the rule; with the gate off the first
// pod checked sets it. Errors name m and spec.preemptionPolicy
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
