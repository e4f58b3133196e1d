package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// TestStatus_ZeroIsNoDecision: a zero Decision, and the one Solve returns
// beside an error, say that nothing was decided, never Scheduled.
func TestStatus_ZeroIsNoDecision(t *testing.T) {
	require.Equal(t, NoDecision, Decision{}.Status)
	require.Equal(t, "NoDecision", NoDecision.String())
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 1000}}}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{{Namespace: "default", Name: "p", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: -1}}}}
	d, err := Solve(s, g, Options{})
	require.Error(t, err)
	require.Equal(t, NoDecision, d.Status)
	g.Members[0].Requests = nil
	require.NoError(t, Verify(s, g, Decision{}), "a decision of nothing commits nothing")
}

// TestStatus_SummedRequestsBeyondEveryPlacementAreUnresolvable: members
// that each fit an empty node but whose summed requests exceed the
// cluster's summed allocatable are Unresolvable (removing pods cannot
// help); members that fit by their sums but not packed are Unschedulable.
func TestStatus_SummedRequestsBeyondEveryPlacementAreUnresolvable(t *testing.T) {
	s, err := NewSnapshot([]Node{
		{Name: "n0", Allocatable: ResourceList{ResourceCPU: 4000}},
		{Name: "n1", Allocatable: ResourceList{ResourceCPU: 4000}},
	}, nil)
	require.NoError(t, err)
	group := func(n int, cpu int64) *Group {
		g := &Group{Namespace: "default", Name: "pg", MinCount: int32(n)}
		for i := range n {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: string(rune('a' + i)), SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: cpu}})
		}
		return g
	}
	// 3 × cpu:3 = 9 > 8 in all: no removal of pods makes room.
	d, err := Solve(s, group(3, 3000), Options{})
	require.NoError(t, err)
	require.Equal(t, Unresolvable, d.Status, d.Message)
	// 3 × cpu:2.5 = 7.5 ≤ 8, yet at most one fits per node: Unschedulable.
	d, err = Solve(s, group(3, 2500), Options{})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status, d.Message)
}
