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

// policyRule is the preemption-policy rule for the pods of one PodGroup
// or one hierarchy, as upstream's validatePodGroup (v1.37.2
// pkg/scheduler/schedule_one_podgroup.go) and validatePodGroupHierarchy
// (v1.38.0-beta.0, same file) apply it to every queued pod, then every
// scheduled one. Which policy the pods are held to depends on the release
// and, in v1.37, on the PodGroupPreemptionPolicy gate
// ([Options].PodGroupPreemptionPolicy) — see [policyMode]. An unset pod
// policy reads PreemptLowerPriority (podPreemptionPolicy, v1.38's
// util.PodPreemptionPolicy). v1.36 checks none (its frameworkForPodGroup
// compares scheduler names only).
type policyRule struct {
	want placement.PreemptionPolicy
	// first names the pod that set want ("" while none has, or when the
	// group sets it); owner names the group's field for a pod of a leaf;
	// hint says how to fix a difference.
	first string
	owner func(leaf placement.Key) string
	hint  string
}

// policyMode is where a release takes the one preemption policy of a
// group's (hierarchy's) pods from.
type policyMode int

const (
	// firstPodPolicy (v1.37, gate off): the first pod's; the group's
	// field is ignored (the API server drops it on create while the gate
	// is off).
	firstPodPolicy policyMode = iota
	// groupPolicyOrDefault (v1.37, gate on): the group's (the queued
	// root's) spec.preemptionPolicy, PreemptLowerPriority when it is unset
	// (an object created while the gate was off keeps no policy;
	// podGroupPreemptionPolicy then reads the default), so a group of
	// all-Never pods without one fails.
	groupPolicyOrDefault
	// groupPolicyOrFirstPod (v1.38, which has no such gate: the field is
	// always served): the group's (root's) spec.preemptionPolicy when set,
	// else the first pod's (validatePodGroupHierarchy's
	// expectedPreemptionPolicy), so all-Never pods of a group without one
	// bind.
	groupPolicyOrFirstPod
)

// policyMode is the mode of p's release; gate is v1.37's
// PodGroupPreemptionPolicy gate, which v1.38.0-beta.0 no longer has
// (pkg/features/kube_features.go).
func (p Profile) policyMode(gate bool) policyMode {
	switch {
	case p.newest() == ProfileV138:
		return groupPolicyOrFirstPod
	case gate:
		return groupPolicyOrDefault
	}
	return firstPodPolicy
}

// newPolicyRule starts the rule for a "group" or a "hierarchy" (kind) in
// mode. set is the group's (root's) spec.preemptionPolicy, and owner
// names where it is written for a pod of a leaf.
func newPolicyRule(kind string, mode policyMode, set placement.PreemptionPolicy, owner func(leaf placement.Key) string) *policyRule {
	holder := "group"
	if kind == "hierarchy" {
		holder = "root"
	}
	switch {
	case mode == firstPodPolicy || (mode == groupPolicyOrFirstPod && set == ""):
		return &policyRule{hint: fmt.Sprintf("since v1.37 every pod of a %s has one preemption policy: give them one priority class", kind)}
	case mode == groupPolicyOrFirstPod:
		return &policyRule{want: set, owner: owner,
			hint: fmt.Sprintf("since v1.38 every pod of a %s has its %s's preemption policy when the %s sets one: give the pods the %s's priority class", kind, holder, holder, holder)}
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

// seed makes m's policy the one the pods are held to when no group sets
// one and no pod has yet: v1.38 takes it from the first queued pod before
// it checks the hierarchy's groups (validatePodGroupHierarchy).
func (r *policyRule) seed(m *placement.Pod) {
	if r.want == "" {
		r.want, r.first = podPolicy(m), fmt.Sprintf("pod %q's", m.Key().String())
	}
}

// podPolicy is m's preemption policy, PreemptLowerPriority when unset.
func podPolicy(m *placement.Pod) placement.PreemptionPolicy {
	if m.PreemptionPolicy == "" {
		return placement.PreemptLowerPriority
	}
	return m.PreemptionPolicy
}

// check holds m, a pod of leaf, to the rule; with the gate off the first
// pod checked sets it. Errors name m and spec.preemptionPolicy
// (placement.ErrInvalid).
func (r *policyRule) check(m *placement.Pod, leaf placement.Key) error {
	r.seed(m)
	got := podPolicy(m)
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
