package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_PreemptionPolicyRule: since v1.37 upstream holds every pod
// of a PodGroup, or of a hierarchy's leaves, pending and scheduled, to
// one preemption policy (an unset pod policy reads PreemptLowerPriority).
// v1.37.2's validatePodGroup (pkg/scheduler/schedule_one_podgroup.go):
// with the PodGroupPreemptionPolicy gate off (the default) it is the
// first pod's and the group's spec.preemptionPolicy is ignored; with it
// on it is the group's (the root's; a leaf's own does not count), and
// PreemptLowerPriority when that is unset, so all-Never pods of a group
// created before the gate was on fail. v1.38.0-beta.0 has no such gate;
// its validatePodGroupHierarchy takes the group's (root's) when set, else
// the first pod's, and fails a tree whose leaf sets another (column
// v138, the same whatever the gate). v1.36 lets them differ whatever the
// gate; v1.37 fails the cycle with SchedulerError, v1.38 with
// PodGroupError, naming the pod (or group) and spec.preemptionPolicy.
func TestProfile_PreemptionPolicyRule(t *testing.T) {
	lower, never := placement.PreemptLowerPriority, placement.PreemptNever
	const (
		offGroup    = `(since v1.37 every pod of a group has one preemption policy: give them one priority class)`
		offTree     = `(since v1.37 every pod of a hierarchy has one preemption policy: give them one priority class)`
		onGroup     = `(with the PodGroupPreemptionPolicy gate every pod of a group has its group's preemption policy: give the pods the group's priority class)`
		onGroupNone = `(with the PodGroupPreemptionPolicy gate every pod of a group has its group's preemption policy, PreemptLowerPriority when unset: recreate the group with the pods' priority class)`
		onTree      = `(with the PodGroupPreemptionPolicy gate every pod of a hierarchy has its root's preemption policy: give the pods the root's priority class)`
		onTreeNone  = `(with the PodGroupPreemptionPolicy gate every pod of a hierarchy has its root's preemption policy, PreemptLowerPriority when unset: recreate the root with the pods' priority class)`
		v138Group   = `(since v1.38 every pod of a group has its group's preemption policy when the group sets one: give the pods the group's priority class)`
		v138Tree    = `(since v1.38 every pod of a hierarchy has its root's preemption policy when the root sets one: give the pods the root's priority class)`
		pg          = `PodGroup default/g: `
		root        = `CompositePodGroup default/root: `
	)
	type setup struct {
		group   placement.PreemptionPolicy // the PodGroup's, or the root's for a tree
		leaf    placement.PreemptionPolicy // a tree's leaf g's own
		tree    bool
		pending [2]placement.PreemptionPolicy // g-0's and g-1's (leaf g)
		bound   placement.PreemptionPolicy    // a bound member's ("g-b"; in a tree, of leaf g2)
		prio    int32                         // g-1's priority (the groups' is 100)
	}
	cases := []struct {
		name string
		setup
		off, on string // the error under v1.37 with the gate off, on; "" binds
		v138    string // the error under v1.38 (no gate)
	}{
		{"podgroup unset, pending differ", setup{pending: [2]placement.PreemptionPolicy{lower, never}, bound: lower, prio: 100},
			pg + `pod "default/g-1": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/g-0"'s ` + offGroup,
			pg + `pod "default/g-1": spec.preemptionPolicy: Never differs from PreemptLowerPriority, PodGroup default/g's spec.preemptionPolicy (unset) ` + onGroupNone,
			pg + `pod "default/g-1": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/g-0"'s ` + offGroup},
		{"podgroup unset, a bound member differs", setup{pending: [2]placement.PreemptionPolicy{never, never}, bound: lower, prio: 100},
			pg + `pod "default/g-b": spec.preemptionPolicy: PreemptLowerPriority differs from Never, pod "default/g-0"'s ` + offGroup,
			pg + `pod "default/g-0": spec.preemptionPolicy: Never differs from PreemptLowerPriority, PodGroup default/g's spec.preemptionPolicy (unset) ` + onGroupNone,
			pg + `pod "default/g-b": spec.preemptionPolicy: PreemptLowerPriority differs from Never, pod "default/g-0"'s ` + offGroup},
		{"podgroup unset, unset reads PreemptLowerPriority", setup{pending: [2]placement.PreemptionPolicy{"", lower}, prio: 100}, "", "",
			""},
		{"podgroup unset, all Never", setup{pending: [2]placement.PreemptionPolicy{never, never}, bound: never, prio: 100},
			"",
			pg + `pod "default/g-0": spec.preemptionPolicy: Never differs from PreemptLowerPriority, PodGroup default/g's spec.preemptionPolicy (unset) ` + onGroupNone,
			""},
		{"podgroup Never, pods unset", setup{group: never, bound: never, prio: 100},
			pg + `pod "default/g-b": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/g-0"'s ` + offGroup,
			pg + `pod "default/g-0": spec.preemptionPolicy: PreemptLowerPriority differs from Never, PodGroup default/g's spec.preemptionPolicy ` + onGroup,
			pg + `pod "default/g-0": spec.preemptionPolicy: PreemptLowerPriority differs from Never, PodGroup default/g's spec.preemptionPolicy ` + v138Group},
		{"podgroup Never ignored with the gate off", setup{group: never, bound: lower, prio: 100},
			"",
			pg + `pod "default/g-0": spec.preemptionPolicy: PreemptLowerPriority differs from Never, PodGroup default/g's spec.preemptionPolicy ` + onGroup,
			pg + `pod "default/g-0": spec.preemptionPolicy: PreemptLowerPriority differs from Never, PodGroup default/g's spec.preemptionPolicy ` + v138Group},
		{"podgroup Never, all Never", setup{group: never, pending: [2]placement.PreemptionPolicy{never, never}, bound: never, prio: 100}, "", "",
			""},
		{"podgroup PreemptLowerPriority, pods unset", setup{group: lower, prio: 100}, "", "",
			""},
		{"podgroup PreemptLowerPriority, all Never", setup{group: lower, pending: [2]placement.PreemptionPolicy{never, never}, bound: never, prio: 100},
			"",
			pg + `pod "default/g-0": spec.preemptionPolicy: Never differs from PreemptLowerPriority, PodGroup default/g's spec.preemptionPolicy ` + onGroup,
			pg + `pod "default/g-0": spec.preemptionPolicy: Never differs from PreemptLowerPriority, PodGroup default/g's spec.preemptionPolicy ` + v138Group},
		{"priority is checked first", setup{pending: [2]placement.PreemptionPolicy{never, never}, prio: 7},
			pg + `pod "default/g-1": spec.priority: 7 differs from its PodGroup default/g's priority 100 (since v1.37 every member carries its group's priority: give the PodGroup the pods' priorityClassName, or the pods the PodGroup's)`,
			pg + `pod "default/g-0": spec.preemptionPolicy: Never differs from PreemptLowerPriority, PodGroup default/g's spec.preemptionPolicy (unset) ` + onGroupNone,
			pg + `pod "default/g-1": spec.priority: 7 differs from its PodGroup default/g's priority 100 (since v1.37 every member carries its group's priority: give the PodGroup the pods' priorityClassName, or the pods the PodGroup's)`},
		{"root unset, another leaf's bound member differs", setup{tree: true, pending: [2]placement.PreemptionPolicy{lower, lower}, bound: never, prio: 100},
			root + `pod "default/g2-b": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/g-0"'s ` + offTree,
			root + `pod "default/g2-b": spec.preemptionPolicy: Never differs from PreemptLowerPriority, the spec.preemptionPolicy of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g2's hierarchy (unset) ` + onTreeNone,
			root + `pod "default/g2-b": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/g-0"'s ` + offTree},
		{"root unset, all Never, the leaf's Never ignored", setup{tree: true, leaf: never, pending: [2]placement.PreemptionPolicy{never, never}, bound: never, prio: 100},
			"",
			root + `pod "default/g-0": spec.preemptionPolicy: Never differs from PreemptLowerPriority, the spec.preemptionPolicy of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g's hierarchy (unset) ` + onTreeNone,
			""},
		{"root Never, a pending pod unset", setup{tree: true, group: never, pending: [2]placement.PreemptionPolicy{never, ""}, bound: never, prio: 100},
			root + `pod "default/g-1": spec.preemptionPolicy: PreemptLowerPriority differs from Never, pod "default/g-0"'s ` + offTree,
			root + `pod "default/g-1": spec.preemptionPolicy: PreemptLowerPriority differs from Never, the spec.preemptionPolicy of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g's hierarchy ` + onTree,
			root + `pod "default/g-1": spec.preemptionPolicy: PreemptLowerPriority differs from Never, the spec.preemptionPolicy of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g's hierarchy ` + v138Tree},
		{"root Never, all Never, the leaf's own ignored", setup{tree: true, group: never, leaf: lower, pending: [2]placement.PreemptionPolicy{never, never}, bound: never, prio: 100}, "", "",
			root + `PodGroup "default/g": spec.preemptionPolicy: PreemptLowerPriority differs from Never, the spec.preemptionPolicy of CompositePodGroup default/root, its hierarchy's root ` +
				`(since v1.38 a group of a hierarchy that sets a preemption policy sets its pods': give it the root's priority class, or leave it unset)`},
		{"root Never ignored with the gate off", setup{tree: true, group: never, pending: [2]placement.PreemptionPolicy{lower, ""}, bound: lower, prio: 100},
			"",
			root + `pod "default/g-0": spec.preemptionPolicy: PreemptLowerPriority differs from Never, the spec.preemptionPolicy of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g's hierarchy ` + onTree,
			root + `pod "default/g-0": spec.preemptionPolicy: PreemptLowerPriority differs from Never, the spec.preemptionPolicy of CompositePodGroup default/root, ` +
				`the root of its PodGroup default/g's hierarchy ` + v138Tree},
	}
	for _, c := range cases {
		for _, gate := range []bool{false, true} {
			for _, profile := range []Profile{ProfileV136, ProfileV137, ProfileV138} {
				want := c.off
				switch {
				case profile == ProfileV138:
					want = c.v138
				case gate:
					want = c.on
				}
				t.Run(fmt.Sprintf("%s/gate=%t/%s", c.name, gate, profile), func(t *testing.T) {
					boundGroup := "g"
					if c.tree {
						boundGroup = "g2"
					}
					b := member(boundGroup+"-b", boundGroup, cpu(1000), 0)
					b.NodeName, b.PreemptionPolicy = "n1", c.bound
					s := NewScheduler(Options{Profile: profile, PodGroupPreemptionPolicy: gate})
					snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, []placement.Pod{b})
					require.NoError(t, err)
					g := gangPG("g", 2)
					if c.tree {
						root := cpg("root", "", "", 1)
						root.Spec.PreemptionPolicy = c.group
						root.Spec.SchedulingPolicy.Gang = nil
						root.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{}
						require.NoError(t, s.SetCompositePodGroup(root))
						g = leafPG("g", "root", "", 2)
						g.Spec.PreemptionPolicy = c.leaf
						require.NoError(t, s.SetPodGroup(leafPG("g2", "root", "", 1)))
					} else {
						g.Spec.PreemptionPolicy = c.group
					}
					require.NoError(t, s.SetPodGroup(g))
					for i, pp := range c.pending {
						p := member(fmt.Sprintf("g-%d", i), "g", cpu(1000), 0)
						p.PreemptionPolicy = pp
						if i == 1 {
							p.Priority = c.prio
						}
						require.NoError(t, s.AddPod(p))
					}
					r, ok := s.Cycle(snap, t0)
					require.True(t, ok)
					requireMemberRule(t, r, profile, c.tree, want, []string{"g-0@n1", "g-1@n1"})
				})
			}
		}
	}
}

// TestValidate_PreemptionPolicy: a PodGroup's or CompositePodGroup's
// spec.preemptionPolicy is unset, PreemptLowerPriority or Never.
func TestValidate_PreemptionPolicy(t *testing.T) {
	pg := gangPG("g", 1)
	pg.Spec.PreemptionPolicy = "Sometimes"
	require.EqualError(t, pg.Validate(), `PodGroup "default/g": spec.preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	c := cpg("root", "", "", 1)
	c.Spec.PreemptionPolicy = "Sometimes"
	require.EqualError(t, c.Validate(), `CompositePodGroup "default/root": spec.preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	for _, p := range []placement.PreemptionPolicy{"", placement.PreemptLowerPriority, placement.PreemptNever} {
		pg.Spec.PreemptionPolicy, c.Spec.PreemptionPolicy = p, p
		require.NoError(t, pg.Validate())
		require.NoError(t, c.Validate())
	}
}
