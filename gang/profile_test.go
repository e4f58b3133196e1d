package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Profile difference: a member whose priority is not its PodGroup's. v1.36
// binds the gang (the group's priority rules); v1.37 fails the cycle with
// SchedulerError; v1.38 with PodGroupError.
func TestProfile_MemberPriorityRule(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		bound   bool
		reason  string
	}{
		{ProfileV136, true, ReasonScheduled},
		{ProfileV137, false, ReasonSchedulerError},
		{ProfileV138, false, ReasonPodGroupError},
		{"", false, ReasonPodGroupError},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			s := NewScheduler(Options{Profile: tc.profile})
			snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, nil)
			require.NoError(t, err)
			require.NoError(t, s.SetPodGroup(gangPG("g", 2)))
			odd := member("g-1", "g", cpu(1000), 1)
			odd.Priority = 7
			require.NoError(t, s.AddPod(member("g-0", "g", cpu(1000), 0)))
			require.NoError(t, s.AddPod(odd))
			r, ok := s.Cycle(snap, t0)
			require.True(t, ok)
			require.Equal(t, tc.bound, len(r.Bind) == 2)
			require.Equal(t, tc.reason, r.Condition.Reason)
			if !tc.bound {
				require.ErrorContains(t, r.Err, `pod "default/g-1": spec.priority: 7 differs from its PodGroup default/g's priority 100`)
			}
		})
	}
}

// Profile difference: a hierarchy member whose priority is not its root
// CompositePodGroup's (here its leaf's, 7, under a root of 100). v1.36
// binds the tree, the root's priority ruling; v1.37 fails the cycle with
// SchedulerError, as v1.37.2's validatePodGroup checks every pod of a
// hierarchy against its root; there the leaf's own spec.priority does not
// count, so a pod at the root's priority below a leaf of 7 binds. v1.38
// fails both with PodGroupError, naming the leaf: v1.38.0-beta.0's
// validatePodGroupHierarchy holds every group of the tree to the root's
// priority before its pods.
func TestProfile_TreeMemberPriorityRule(t *testing.T) {
	const (
		podErr = `CompositePodGroup default/root: pod "default/a-0": spec.priority: 7 differs from the priority 100 of CompositePodGroup default/root, ` +
			`the root of its PodGroup default/a's hierarchy (since v1.37 every pod of a hierarchy carries its root's priority: give the root the pods' priorityClassName, or the pods the root's)`
		leafErr = `CompositePodGroup default/root: PodGroup "default/a": spec.priority: 7 differs from the priority 100 of CompositePodGroup default/root, ` +
			`its hierarchy's root (since v1.38 every group of a hierarchy carries its root's priority: give it the root's priorityClassName)`
	)
	for _, tc := range []struct {
		profile Profile
		podPrio int32
		bound   bool
		reason  string
		err     string
	}{
		{ProfileV136, 7, true, ReasonScheduled, ""},
		{ProfileV137, 7, false, ReasonSchedulerError, podErr},
		{ProfileV138, 7, false, ReasonPodGroupError, leafErr},
		{ProfileV137, 100, true, ReasonScheduled, ""},
		{ProfileV138, 100, false, ReasonPodGroupError, leafErr},
	} {
		t.Run(fmt.Sprintf("%s/pod=%d", tc.profile, tc.podPrio), func(t *testing.T) {
			s := NewScheduler(Options{Profile: tc.profile})
			snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, nil)
			require.NoError(t, err)
			root := cpg("root", "", "", 1)
			rootPrio, leafPrio := int32(100), int32(7)
			root.Spec.Priority = &rootPrio
			require.NoError(t, s.SetCompositePodGroup(root))
			leaf := leafPG("a", "root", "", 1)
			leaf.Spec.Priority = &leafPrio
			require.NoError(t, s.SetPodGroup(leaf))
			p := member("a-0", "a", cpu(1000), 0)
			p.Priority = tc.podPrio
			require.NoError(t, s.AddPod(p))
			r, ok := s.Cycle(snap, t0)
			require.True(t, ok)
			require.Equal(t, tc.bound, len(r.Bind) == 1)
			var reasons []string
			for _, c := range r.Hierarchy.Conditions {
				if c.Kind == "PodGroup" {
					reasons = append(reasons, c.Condition.Reason)
				}
			}
			require.Equal(t, []string{tc.reason}, reasons)
			if !tc.bound {
				require.EqualError(t, r.Err, tc.err)
			}
		})
	}
}

// Profile difference: the condition on CompositePodGroups. v1.38 writes
// CompositePodGroupInitiallyScheduled on each; v1.37 writes none (only the
// leaves' PodGroupScheduled).
func TestProfile_CompositePodGroupCondition(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		want    []string
	}{
		{ProfileV137, []string{"PodGroup a PodGroupScheduled=True Scheduled"}},
		{ProfileV138, []string{"CompositePodGroup root CompositePodGroupInitiallyScheduled=True Scheduled", "PodGroup a PodGroupScheduled=True Scheduled"}},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			h := newHarness(t, Options{Profile: tc.profile}, []placement.Node{cpuNode("n1", 2000)})
			h.setCPG(cpg("root", "", "", 1))
			h.setPG(leafPG("a", "root", "", 2))
			h.addMembers("a", 2, 1000, 0)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Equal(t, tc.want, treeConds(r))
		})
	}
}

// Profile difference: a node whose topology label value is "". v1.37 (and
// v1.36) take "" as a rack like any other, so the gang of 2 binds on the
// two nodes labelled rack=""; v1.38 puts them in no rack, and rack r2 alone
// holds one member: the gang cannot fit (Unresolvable).
func TestProfile_EmptyTopologyValue(t *testing.T) {
	nodes := []placement.Node{rackNode("e1", "b", "", 1000), rackNode("e2", "b", "", 1000), rackNode("n2", "b", "r2", 1000)}
	for _, tc := range []struct {
		profile Profile
		status  placement.Status
	}{
		{ProfileV136, placement.Scheduled},
		{ProfileV137, placement.Scheduled},
		{ProfileV138, placement.Unresolvable},
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			h := newHarness(t, Options{Profile: tc.profile}, nodes)
			h.setPG(withTopology(gangPG("g", 2), rackKey))
			h.addMembers("g", 2, 1000, 0)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Equal(t, tc.status, r.Decision.Status, r.Message())
			if tc.status == placement.Scheduled {
				require.Equal(t, []string{"g-0@e1", "g-1@e2"}, bindNames(r))
			}
		})
	}
	// The same in a hierarchy: a root by rack over the gang.
	for _, tc := range []struct {
		profile Profile
		status  placement.Status
	}{{ProfileV137, placement.Scheduled}, {ProfileV138, placement.Unresolvable}} {
		h := newHarness(t, Options{Profile: tc.profile}, nodes)
		h.setCPG(cpg("root", "", rackKey, 1))
		h.setPG(leafPG("g", "root", "", 2))
		h.addMembers("g", 2, 1000, 0)
		r, ok := h.cycle()
		require.True(t, ok)
		require.Equal(t, tc.status, r.Decision.Status, "%s: %s", tc.profile, r.Message())
	}
}

// Profile difference: the API versions each serves.
func TestProfile_Serves(t *testing.T) {
	const a2, a3, b1 = "scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1"
	for _, tc := range []struct {
		profile    Profile
		apiVersion string
		kind       string
		want       bool
	}{
		{ProfileV136, a2, "PodGroup", true},
		{ProfileV136, b1, "PodGroup", false},
		{ProfileV136, a3, "CompositePodGroup", false},
		{ProfileV137, a2, "Workload", false},
		{ProfileV137, b1, "Workload", true},
		{ProfileV137, a3, "CompositePodGroup", true},
		{ProfileV137, b1, "CompositePodGroup", false},
		{ProfileV137, a3, "PodGroup", true},
		{ProfileV138, b1, "CompositePodGroup", true},
		{ProfileV138, a3, "CompositePodGroup", true},
		{ProfileV138, a3, "Workload", true},
		{ProfileV138, a2, "PodGroup", false},
		{"", b1, "PodGroup", true},
	} {
		require.Equal(t, tc.want, tc.profile.Serves(tc.apiVersion, tc.kind), "%s %s %s", tc.profile, tc.apiVersion, tc.kind)
	}
}

func TestProfile_Parse(t *testing.T) {
	p, err := ParseProfile("")
	require.NoError(t, err)
	require.Equal(t, ProfileV138, p)
	p, err = ParseProfile("v1.37")
	require.NoError(t, err)
	require.Equal(t, ProfileV137, p)
	_, err = ParseProfile("v1.35")
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, `profile "v1.35"`)
}
