package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

func cpuNode(name string, milli int64) Node {
	return Node{Name: name, Allocatable: ResourceList{ResourceCPU: milli}}
}

func member(name, group string, milli int64) Pod {
	return Pod{Namespace: "default", Name: name, SchedulingGroup: group, Requests: ResourceList{ResourceCPU: milli}, Priority: 100}
}

func nodesOf(d Decision) map[string]string {
	out := map[string]string{}
	for _, a := range d.Assignments {
		out[a.Pod.Name] = a.Node
	}
	return out
}

func TestSolveSmoke(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 4000)}, []Pod{{Namespace: "default", Name: "blocker", NodeName: "n1", Requests: ResourceList{ResourceCPU: 2000}}})
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg1", MinCount: 3, Members: []Pod{member("p3", "pg1", 1000), member("p1", "pg1", 1000), member("p2", "pg1", 1000)}}
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status, d.Message)
	require.Equal(t, 2, d.MostFit)
	require.Empty(t, d.Assignments)
	require.Equal(t, "2 of min 3 members fit; default/p3 fits on none of 1 nodes: 1 Insufficient cpu", d.Message)
	require.NoError(t, Verify(s, g, d))

	s2, err := s.Apply(Change{Remove: []Key{{Namespace: "default", Name: "blocker"}}})
	require.NoError(t, err)
	d, err = Solve(s2, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"p1": "n1", "p2": "n1", "p3": "n1"}, nodesOf(d))
	require.NoError(t, Verify(s2, g, d))
	// the parent snapshot is untouched
	require.Equal(t, int64(2000), s.Free(0, ResourceCPU))
	require.Equal(t, int64(4000), s2.Free(0, ResourceCPU))
}

// A decision from a scheduler that has no placements (Placement.Nodes nil)
// verifies against every node, and still fails on capacity.
func TestVerify_NilPlacementMeansEveryNode(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 1000), cpuNode("n2", 1000)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{member("a", "pg", 1000), member("b", "pg", 1000)}}
	d := Decision{Group: g.Key(), Status: Scheduled, Assignments: []Assignment{
		{Pod: Key{"default", "a"}, Node: "n1", NodeID: 0},
		{Pod: Key{"default", "b"}, Node: "n2", NodeID: 1},
	}}
	require.NoError(t, Verify(s, g, d))
	d.Assignments[1] = Assignment{Pod: Key{"default", "b"}, Node: "n1", NodeID: 0}
	require.ErrorIs(t, Verify(s, g, d), ErrViolation)
}
