package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// Profile is the Kubernetes version whose workload-aware scheduling the
// [Scheduler] follows where versions differ. The empty Profile is the
// newest, [ProfileV138]. The differences, each checked by a test in
// profile_test.go, priority_rule_test.go, preemption_rule_test.go,
// tree_group_rule_test.go, victim_priority_test.go,
// preemptor_pod_v136_test.go or profile_v136_test.go (the template rule,
// which goes with the API version, in workload_priority_test.go and
// package kube's). The v1.36 column was read in v1.36.3's source
// (pkg/scheduler/schedule_one_podgroup.go frameworkForPodGroup,
// framework/preemption/types.go, framework/plugins/defaultpreemption,
// pkg/features) and checked with
// kubeoracle retargeted to v1.36.3 on 2026-12-07 (kube/testdata/v136,
// the rows the scheduler decides); the v1.37 column was read in v1.37.2's
// source and checked with kubeoracle; the v1.38 column was read in v1.38.0-beta.0's
// (pkg/scheduler/schedule_one_podgroup.go validatePodGroupHierarchy and
// updatePodGroupConditionWithError, framework/preemption, framework/
// plugins/topologyaware, pkg/features, pkg/registry/scheduling, plugin/
// pkg/admission/priority) and checked with kubeoracle retargeted to
// v1.38.0-beta.0 on 2026-12-06 (kube/testdata/v138 and the gangsim
// profile manifests): every row the scheduler decides agrees, reasons
// included, but one v1.37 case of the depth row (below); the rows the
// API server decides (templates, objects) were run against a real
// v1.38.0-beta.0 kube-apiserver (kube/testdata/v138/validation.yaml,
// package kube's TestValidationMatchesV138APIServer):
//
//	| difference                                       | v1.36                                | v1.37                             | v1.38 (default)                        |
//	|--------------------------------------------------|--------------------------------------|-----------------------------------|----------------------------------------|
//	| a member's priority differs from its PodGroup's  | allowed; the group's priority counts | the cycle fails: SchedulerError   | the cycle fails: PodGroupError         |
//	| (pending or bound; an unset priority is 0)       |                                      |                                   |                                        |
//	| a tree member's priority differs from its root's | (no hierarchies); the root's counts  | the cycle fails: SchedulerError   | the cycle fails: PodGroupError         |
//	| (pending or bound, any leaf; unset is 0)         |                                      |                                   |                                        |
//	| pods of a group or tree (pending or bound) name  | only pending pods; the cycle fails   | the cycle fails: SchedulerError   | the cycle fails: PodGroupError         |
//	| different schedulers (spec.schedulerName)        | before it starts, writing no group   |                                   |                                        |
//	|                                                  | condition; the pods: SchedulerError  |                                   |                                        |
//	| a tree's inner CompositePodGroup or leaf         | (no hierarchies)                     | allowed (only pods are checked)   | the cycle fails: PodGroupError         |
//	| PodGroup has another priority than the root's,   |                                      |                                   | (CompositePodGroupError on the tree's  |
//	| another Workload, basic under gang, single under |                                      |                                   | CompositePodGroups)                    |
//	| all (unset reads single, as an API server stores |                                      |                                   |                                        |
//	| it), or sets another preemptionPolicy            |                                      |                                   |                                        |
//	| the pods' one preemptionPolicy (unset pod:       | not checked; a group one of whose    | gate off (default): the first     | the group's (root's) when set, else    |
//	| PreemptLowerPriority), pending then bound, any   | pending pods is Never does not       | pod's, the group's ignored; gate  | the first pod's (no gate: all-Never    |
//	| leaf; a pod that differs fails the cycle         | preempt (v1.36.3 newPodGroup-        | on: the group's (root's),         | pods of a group without one bind);     |
//	|                                                  | Preemptor)                           | PreemptLowerPriority when unset;  | PodGroupError                          |
//	|                                                  |                                      | SchedulerError                    |                                        |
//	| gate PodGroupPreemptionPolicy                    | (no such gate)                       | alpha, off                        | (no such gate: removed)                |
//	| admission sets a new PodGroup's preemptionPolicy | (no such field)                      | only with the gate on             | always                                 |
//	| from its class (gangsim's Job controller)        |                                      |                                   |                                        |
//	| stamping from a Workload template copies its     | (no such field)                      | no (left to admission)            | yes                                    |
//	| preemptionPolicy ([StampOptions].Profile)        |                                      |                                   |                                        |
//	| preemption ranks a bound member, as a victim or  | a victim, for a PodGroup preemptor:  | its PodGroup's (0 when unset), a  | its own priority (no override)         |
//	| a nominee                                        | its group's (0 if unset) under       | tree member its root's            |                                        |
//	|                                                  | disruptionMode PodGroup, else its    |                                   |                                        |
//	|                                                  | own; a preemptor: its group's (0 if  |                                   |                                        |
//	|                                                  | unset); for a pod with no group,     |                                   |                                        |
//	|                                                  | each victim at its own, one by one   |                                   |                                        |
//	|                                                  | (per-pod DefaultPreemption)          |                                   |                                        |
//	| a Workload's templates name different priorities | allowed (v1alpha2)                   | refused (v1beta1)                 | refused (v1beta1)                      |
//	| (flat ones; a hierarchy's never differ)          |                                      |                                   |                                        |
//	| a v1beta1 Workload's templates set different     | (no such field)                      | allowed                           | refused ([Workload.ValidateV138];      |
//	| preemptionPolicies, all on a non-gang, a non-gang|                                      |                                   | package kube under v1.38)              |
//	| under a gang or a non-all under an all           |                                      |                                   |                                        |
//	| a non-gang PodGroup or CompositePodGroup sets    | (no such field)                      | allowed                           | refused (package kube under v1.38)     |
//	| disruptionMode all                               |                                      |                                   |                                        |
//	| invalid configuration found at runtime           | reason SchedulerError                | reason SchedulerError             | PodGroupError; CompositePodGroupError  |
//	| condition on CompositePodGroups                  | (no hierarchies)                     | none written                      | CompositePodGroupInitiallyScheduled    |
//	| a node whose topology label value is ""          | a domain ""                          | a domain ""                       | no domain (as a missing label); a      |
//	|                                                  |                                      |                                   | bound member there: SchedulerError     |
//	| CompositePodGroup API versions ([Profile.Serves])| none                                 | v1alpha3                          | v1beta1 and v1alpha3                   |
//	| a tree deeper than 4 levels, leaves counted (the | (no hierarchies)                     | only a walk down from a topology- | the cycle fails: PodGroupError;        |
//	| API server accepts its objects one by one)       |                                      | constrained group fails it:       | CompositePodGroupError                 |
//	|                                                  |                                      | SchedulerError; else it binds.    |                                        |
//	|                                                  |                                      | Here: always SchedulerError       |                                        |
//
// The gate is [Options].PodGroupPreemptionPolicy, off by default and read
// only by the v1.37 profile (v1.37.2 pkg/features/kube_features.go: alpha;
// v1.38.0-beta.0 no longer lists it). minCount and minGroupCount are
// mutable in v1.37 and v1.38 alike (v0.37.2's v1alpha3 gang policy is
// NoSet/NoUnset, its minGroupCount not immutable; v0.38 says so in the
// doc): no difference.
//
// Found in v1.36.3 but not modelled (its pods may carry another priority
// than their group's): its nominator holds a nominated pod's room at the
// pod's own priority against the pod being placed, at its own too
// (pkg/scheduler/framework/runtime/framework.go addGENominatedPods); here
// a v1.36 nominee holds it at its group's priority when set, against the
// group's (memberPriority, groupPriority). Not run against v1.36.3.
//
// Found in v1.37.2 but not modelled (a bound pod may carry another
// priority than its group's; v1.37 refuses to schedule such a pod, not to
// evict it): the per-pod preemption of a pod with no scheduling group
// admits a victim at its PodGroup's priority (GetPodPriority) but picks
// the node by the victim pods' own priorities
// (pkg/scheduler/framework/preemption/preemption.go
// pickOneNodeForPreemption); here both use the group's. On
// kube/testdata/v136/pod-preemptor-own-priority.yaml in v1beta1 (mode
// all), kubeoracle v1.37.2 evicted plain in 3 of 3 runs, gangsim -profile
// v1.37 evicts held. Where the pods carry their group's priority
// (pod-preemptor-one-member.yaml in v1beta1) the two agree: bg is evicted
// whole. v1.38.0-beta.0 ranks such a victim at its own priority
// for both, as the v1.38 profile does: kubeoracle retargeted to it agrees
// with gangsim on both manifests (kube/testdata/v138/pod-preemptor-*.yaml,
// 2026-12-07; held stays, plain is evicted; bg is evicted whole).
//
// Found in v1.38.0-beta.0 but not modelled: its Workload update rules
// (templates may be updated but not added or removed; mixed stored values
// are tolerated).
//
// The one row that differs from upstream: v1.37.2 checks a tree's depth
// only in helper.GetPodGroupStates, which the topology-aware placement
// and scoring plugins and preemption call, so a too-deep tree none of them
// walks binds there; gangsched's solver takes 4 levels at most and fails
// it (kube/testdata/v138/too-deep.yaml, tree "deep").
type Profile string

// Profiles.
const (
	ProfileV136 Profile = "v1.36"
	ProfileV137 Profile = "v1.37"
	ProfileV138 Profile = "v1.38"
)

// ReasonPodGroupError is v1.38's reason of a False PodGroupScheduled
// condition for a group whose configuration the scheduler finds invalid
// at runtime (e.g. members whose priority conflicts with the group's);
// v1.36 and v1.37 say [ReasonSchedulerError].
const ReasonPodGroupError = "PodGroupError"

// ReasonCompositePodGroupError is v1.38's reason of a False
// CompositePodGroupInitiallyScheduled condition on every
// CompositePodGroup of a hierarchy whose configuration the scheduler
// finds invalid at runtime; the tree's PodGroups then read
// [ReasonPodGroupError] (v1.38.0-beta.0
// pkg/scheduler/schedule_one_podgroup.go updatePodGroupConditionWithError;
// k8s.io/api v0.38.0-beta.0 scheduling/v1beta1
// CompositePodGroupReasonCompositePodGroupError).
const ReasonCompositePodGroupError = "CompositePodGroupError"

// ParseProfile returns the profile named s ("v1.36", "v1.37", "v1.38",
// or "" for the newest). Errors: any other name (placement.ErrInvalid).
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(s); p {
	case "":
		return ProfileV138, nil
	case ProfileV136, ProfileV137, ProfileV138:
		return p, nil
	}
	return "", placement.Errorf(placement.ErrInvalid, fmt.Sprintf("profile %q", s), "profile", "must be one of v1.36, v1.37, v1.38")
}

func (p Profile) newest() Profile {
	if p == "" {
		return ProfileV138
	}
	return p
}

// emptyValueIsNoDomain: v1.38 puts a node whose topology label is "" in
// no domain.
func (p Profile) emptyValueIsNoDomain() bool { return p.newest() == ProfileV138 }

// WritesCompositeConditions reports whether the profile's scheduler writes
// the [CompositePodGroupScheduled] condition on CompositePodGroups: v1.38
// does; v1.37's writes conditions on a tree's PodGroups only (v1.37.2
// pkg/scheduler/schedule_one_podgroup.go). A host that writes conditions
// of its own, such as a True one confirming a tree found bound after a
// restart, follows it too.
func (p Profile) WritesCompositeConditions() bool { return p.newest() == ProfileV138 }

// HasPreemptionPolicyGate reports whether the profile's release has the
// PodGroupPreemptionPolicy feature gate ([Options].PodGroupPreemptionPolicy):
// only v1.37, where it is new and alpha. v1.38.0-beta.0's
// pkg/features/kube_features.go no longer lists it: spec.preemptionPolicy
// is always served, admission always sets it and the scheduler always
// honours it (see [policyMode]).
func (p Profile) HasPreemptionPolicyGate() bool { return p.newest() == ProfileV137 }

// AdmitsPreemptionPolicy reports whether the profile's Priority admission
// plugin sets a new PodGroup's and CompositePodGroup's
// spec.preemptionPolicy from its priority class, as a host stamping
// objects must then do too: v1.37 only with the gate on, v1.38 always
// (v1.38.0-beta.0 plugin/pkg/admission/priority/admission.go checks only
// GenericWorkload and CompositePodGroup), v1.36 never (no such field).
func (p Profile) AdmitsPreemptionPolicy(gate bool) bool {
	switch p.newest() {
	case ProfileV136:
		return false
	case ProfileV137:
		return gate
	}
	return true
}

// StampsPreemptionPolicy reports whether the profile's workload builder
// copies a template's preemptionPolicy onto the PodGroups and
// CompositePodGroups it stamps ([StampHierarchy],
// [NewPodGroupFromTemplate]): v1.38 does (k8s.io/component-helpers
// v0.38.0-beta.0 scheduling/schedulingv1/workloadbuilder podgroup.go,
// newPodGroup and newCompositePodGroup); v0.37.2's copies priority but
// not preemptionPolicy, leaving it to admission; v1.36's templates have
// no such field.
func (p Profile) StampsPreemptionPolicy() bool { return p.newest() == ProfileV138 }

// stampedPolicy is the spec.preemptionPolicy of an object stamped from a
// template that says t.
func (p Profile) stampedPolicy(t placement.PreemptionPolicy) placement.PreemptionPolicy {
	if p.StampsPreemptionPolicy() {
		return t
	}
	return ""
}

// Serves reports whether the profile's API server serves apiVersion
// (group/version) for kind (Workload, PodGroup or CompositePodGroup), as
// pkg/registry/scheduling/rest/storage_scheduling.go
// (RESTStorageProvider.v1beta1Storage, v1alpha3Storage) lists them: v1.36 serves v1alpha2 Workloads and PodGroups;
// v1.37.2 serves Workloads and PodGroups in v1beta1 and v1alpha3 and
// CompositePodGroups in v1alpha3; v1.38.0-beta.0 adds CompositePodGroups
// in v1beta1 (the v1alpha3 versions stay). Each still needs its feature
// gates and runtime-config, which this does not model.
func (p Profile) Serves(apiVersion, kind string) bool {
	const alpha3, beta1 = "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1"
	switch p.newest() {
	case ProfileV136:
		return apiVersion == APIVersion && kind != "CompositePodGroup"
	case ProfileV137:
		if kind == "CompositePodGroup" {
			return apiVersion == alpha3
		}
	}
	return apiVersion == alpha3 || apiVersion == beta1
}

// checkMembers enforces v1.37's rules on the members of pg, pending and
// bound, pod by pod in that order, as upstream's validatePodGroup does:
// each names the first pod's scheduler ([nameRule]), carries the
// PodGroup's priority, spec.priority, 0 when unset
// (validatePodGroup compares every queued and scheduled pod with
// PodGroupPriority, which reads an unset priority as 0), and then the
// group's preemption policy ([policyRule]; gate is the
// PodGroupPreemptionPolicy gate). v1.36 lets them differ, the
// group's priority ruling preemption, and holds only the pending pods to
// one scheduler name ([Profile.checkNamesV136]). The error names the
// first pod that breaks a rule and the field, spec.schedulerName,
// spec.priority or spec.preemptionPolicy.
func (p Profile) checkMembers(pg *PodGroup, gate bool, pending []placement.Pod, bound []*placement.Pod) error {
	if p.newest() == ProfileV136 {
		return checkNamesV136(pending)
	}
	want := podGroupPriorityOf(pg.Spec.Priority) // what validatePodGroup holds the pods to
	policy := newPolicyRule("group", p.policyMode(gate), pg.Spec.PreemptionPolicy, func(placement.Key) string {
		return fmt.Sprintf("PodGroup %s's spec.preemptionPolicy", pg.Key())
	})
	names := nameRule{kind: "group"}
	return eachPod(pending, bound, func(m *placement.Pod) error {
		if err := names.check(m); err != nil {
			return err
		}
		if m.Priority != want {
			return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", m.Key().String()), "spec.priority",
				"%d differs from its PodGroup %s's priority %s (since v1.37 every member carries its group's priority: give the PodGroup the pods' priorityClassName, or the pods the PodGroup's)",
				m.Priority, pg.Key(), effectivePriority(pg.Spec.Priority))
		}
		return policy.check(m, pg.Key())
	})
}

// checkTreeMembers is checkMembers for the members of the leaves of
// t's CompositePodGroup hierarchy: since v1.37 every pod of a
// hierarchy, pending or bound, names one scheduler ([nameRule]), carries
// its root's priority (0 when
// unset), and one preemption policy ([policyRule]: in v1.38 the root's
// when set, else the first pod's; in v1.37 the root's with the gate on,
// PreemptLowerPriority when unset, the first pod's with it off).
// Upstream's first pod of a tree is whichever its map yields first; here
// it is the first of the leaves in key order, each leaf's in member
// order. bound returns a leaf's bound members. v1.36 has no hierarchies
// and lets them differ; the root's priority rules.
//
// v1.37.2's validatePodGroup holds only the pods to the root (every
// leaf's pending pods, then every leaf's bound ones): a leaf's or an
// inner CompositePodGroup's own spec.priority and spec.preemptionPolicy
// do not count; its depth is checked apart ([checkDepth]). v1.38.0-beta.0's
// validatePodGroupHierarchy (pkg/scheduler/schedule_one_podgroup.go)
// holds every other group of the tree to the root too, in one walk with
// the depth and the pods ([walkTreeV138]), so the first fault it names
// is the first in that walk.
func (p Profile) checkTreeMembers(t *tree, gate bool, bound func(placement.Key) []*placement.Pod) error {
	if p.newest() == ProfileV136 {
		return nil
	}
	root := t.root
	want := podGroupPriorityOf(root.Spec.Priority)
	policy := newPolicyRule("hierarchy", p.policyMode(gate), root.Spec.PreemptionPolicy, func(leaf placement.Key) string {
		return fmt.Sprintf("the spec.preemptionPolicy of CompositePodGroup %s, the root of its PodGroup %s's hierarchy", root.Key(), leaf)
	})
	names := nameRule{kind: "hierarchy"}
	check := func(l *group) func(m *placement.Pod) error {
		return func(m *placement.Pod) error {
			if err := names.check(m); err != nil {
				return err
			}
			if m.Priority != want {
				return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", m.Key().String()), "spec.priority",
					"%d differs from the priority %s of CompositePodGroup %s, the root of its PodGroup %s's hierarchy (since v1.37 every pod of a hierarchy carries its root's priority: give the root the pods' priorityClassName, or the pods the root's)",
					m.Priority, effectivePriority(root.Spec.Priority), root.Key(), l.key)
			}
			return policy.check(m, l.key)
		}
	}
	if p.newest() == ProfileV138 {
		// Upstream seeds the scheduler name and the policy from one
		// first pod before its walk.
		for _, l := range t.leaves {
			if ms := l.sortedMembers(); len(ms) > 0 {
				policy.seed(&ms[0])
				_ = names.check(&ms[0]) // seeds: the first pod checked never fails
				break
			}
		}
		return walkTreeV138(t, policy, func(l *group) error { return eachPod(l.sortedMembers(), bound(l.key), check(l)) })
	}
	for _, l := range t.leaves {
		if err := eachPod(l.sortedMembers(), nil, check(l)); err != nil {
			return err
		}
	}
	for _, l := range t.leaves {
		if err := eachPod(nil, bound(l.key), check(l)); err != nil {
			return err
		}
	}
	return nil
}

// eachPod calls f on every pending pod, then every bound one, and returns
// its first error.
func eachPod(pending []placement.Pod, bound []*placement.Pod, f func(*placement.Pod) error) error {
	for i := range pending {
		if err := f(&pending[i]); err != nil {
			return err
		}
	}
	for _, m := range bound {
		if err := f(m); err != nil {
			return err
		}
	}
	return nil
}

// effectivePriority prints the priority a group's pods are held to: p,
// or "0 (spec.priority unset)".
func effectivePriority(p *int32) string {
	if p == nil {
		return "0 (spec.priority unset)"
	}
	return fmt.Sprint(*p)
}

// groupOverride is the priority that replaces the priority of pg's pods
// in preemption, as victims and preemptors, or nil when each pod keeps
// its own. In v1.37 it is the PodGroup's priority, 0 when unset, for
// every pod whose PodGroup exists (v1.37.2's GetPodPriority,
// pkg/scheduler/framework/preemption/util.go, reads PodGroupPriority);
// v1.36 overrides only a group of disruptionMode PodGroup, with its
// priority, 0 when unset (v1.36.3 pkg/scheduler/framework/preemption/
// types.go newDomainForWorkloadPreemption: a pod of any other group is a
// victim of its own priority); a v1.36 preemptor ranks at its group's
// priority whatever its mode ([Profile.preemptorGroup]). v1.38 never overrides:
// v1.38.0-beta.0 dropped GetPodPriority, and its victims
// (pkg/scheduler/framework/preemption/types.go NewPodVictim, victims.go
// searchCrossNodesVictimPods) rank at their pods' own priority, which
// its runtime rule keeps equal to the group's for every pod it schedules
// (so a preemptor's lowest member priority is its group's). A pod whose
// PodGroup does not exist (pg nil) keeps its own in every profile.
func (p Profile) groupOverride(pg *PodGroup) *int32 {
	if pg == nil || p.newest() == ProfileV138 {
		return nil
	}
	if p.newest() == ProfileV136 {
		if pg.Spec.DisruptionMode != DisruptionModePodGroup {
			return nil
		}
		prio := podGroupPriorityOf(pg.Spec.Priority)
		return &prio
	}
	if pg.Spec.Priority != nil {
		return pg.Spec.Priority
	}
	zero := int32(0)
	return &zero
}

// rankAsHierarchy reports whether preemption ranks the pods of a
// hierarchy's leaves at the priority of the CompositePodGroup their walk
// up ends at (hierarchyPriority), as v1.37.2's GetPodPriority does; v1.38
// ranks them at their own (groupOverride).
func (p Profile) rankAsHierarchy() bool { return p.newest() != ProfileV138 }

// invalidReason is the condition reason for a group whose configuration
// is found invalid at runtime.
func (p Profile) invalidReason() string {
	if p.newest() == ProfileV138 {
		return ReasonPodGroupError
	}
	return ReasonSchedulerError
}
