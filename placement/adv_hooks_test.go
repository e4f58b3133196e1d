package placement_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// TestSolve_PlacementHooksThatReorderTheirAssignments: a PlacementScorer
// or PlacementFilter that reorders or changes the assignment slice it is
// shown (nothing in their contract forbids it) must not cost the decision
// members or pod sets: the decision still places every member, in member
// order, and the pod sets, and Verify accepts it.
func TestSolve_PlacementHooksThatReorderTheirAssignments(t *testing.T) {
	a := ResourceList{ResourceCPU: 8000, ResourcePods: 110}
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: a}, {Name: "n1", Allocatable: a}}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 6,
		Members: []Pod{
			{Namespace: "default", Name: "m0", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}},
			{Namespace: "default", Name: "m1", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}},
		},
		PodSets: []PodSet{{Name: "a-workers", Count: 4, Template: Pod{Requests: ResourceList{ResourceCPU: 1000}}}}}
	reverse := func(as []Assignment) { slices.Reverse(as) }
	// Moving the last entry to the other node keeps the order.
	move := func(as []Assignment) {
		last := &as[len(as)-1]
		last.NodeID, last.Node = 1-last.NodeID, []string{"n1", "n0"}[last.NodeID]
		last.Count++
	}
	for name, opts := range map[string]Options{
		"scorer": {Scorer: PlacementScorerFunc(func(_ *Snapshot, _ *Group, _ *Placement, as []Assignment) int64 {
			reverse(as)
			return 0
		})},
		"filter": {PlacementFilters: []PlacementFilter{PlacementFilterFunc(func(_ *Snapshot, _ *Group, _ *Placement, as []Assignment) Rejection {
			reverse(as)
			return Rejection{}
		})}},
		"scorer-moves": {Scorer: PlacementScorerFunc(func(_ *Snapshot, _ *Group, _ *Placement, as []Assignment) int64 {
			move(as)
			return 0
		})},
	} {
		membersOnly := *g
		membersOnly.PodSets, membersOnly.MinCount = nil, 2
		for _, g := range []*Group{g, &membersOnly} {
			t.Run(name, func(t *testing.T) {
				want, err := Solve(s, g, Options{})
				require.NoError(t, err)
				require.Equal(t, Scheduled, want.Status)
				d, err := Solve(s, g, opts)
				require.NoError(t, err)
				require.Equal(t, Scheduled, d.Status)
				require.Equal(t, want.Assignments, d.Assignments)
				require.Equal(t, want.PodSetAssignments, d.PodSetAssignments)
				require.NoError(t, Verify(s, g, d))
			})
		}
	}
}

// TestSolve_PendingMemberAlreadyBound: a pending member whose key is a
// bound pod's — one of the group's own bound members, or another group's
// pod — is an input error naming it, with members listed in order or not.
func TestSolve_PendingMemberAlreadyBound(t *testing.T) {
	a := ResourceList{ResourceCPU: 8000, ResourcePods: 110}
	bound := []Pod{
		{Namespace: "default", Name: "m1", SchedulingGroup: "pg", NodeName: "n0", Requests: ResourceList{ResourceCPU: 1000}},
		{Namespace: "default", Name: "x", SchedulingGroup: "other", NodeName: "n0", Requests: ResourceList{ResourceCPU: 1000}},
	}
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: a}}, bound)
	require.NoError(t, err)
	member := func(name string) Pod {
		return Pod{Namespace: "default", Name: name, SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1000}}
	}
	for _, names := range [][]string{{"m0", "m1", "m2"}, {"m2", "m1", "m0"}, {"m0", "x"}, {"x", "m0"}} {
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 1}
		for _, n := range names {
			g.Members = append(g.Members, member(n))
		}
		_, err := Solve(s, g, Options{})
		require.ErrorIs(t, err, ErrDuplicate, "%v", names)
		require.ErrorContains(t, err, "already bound", "%v", names)
	}
}
