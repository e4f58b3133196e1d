package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// TestSolve_FailureMessages pins, byte for byte, the failure messages the
// solver writes piece by piece: no candidate placement, a gang short of its
// minimum with bound members, and a pod set's first waiting pod; and the
// pod count's reason, named apart from the resources'.
func TestSolve_FailureMessages(t *testing.T) {
	nodes := []Node{{Name: "n1", Allocatable: ResourceList{ResourceCPU: 4}}, {Name: "n2", Allocatable: ResourceList{ResourceCPU: 4}}}
	bound := Pod{Namespace: "ns", Name: "b0", SchedulingGroup: "g", NodeName: "n1", Requests: ResourceList{ResourceCPU: 1}}
	s, err := NewSnapshot(nodes, []Pod{bound})
	require.NoError(t, err)
	pod := func(name string, cpu int64) Pod {
		return Pod{Namespace: "ns", Name: name, SchedulingGroup: "g", Requests: ResourceList{ResourceCPU: cpu}}
	}
	none := PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return nil, nil })
	for _, c := range []struct {
		name string
		g    *Group
		opts Options
		want string
	}{
		{"no candidate placement", &Group{Namespace: "ns", Name: "g", MinCount: 3, Members: []Pod{pod("m1", 1), pod("m2", 1)}}, Options{Generator: none},
			"0 of min 3 members fit: no candidate placement"},
		{"bound members short of the minimum", &Group{Namespace: "ns", Name: "g", MinCount: 3, Members: []Pod{pod("m1", 4), pod("m2", 4)}}, Options{},
			"2 of min 3 members fit (1 bound); ns/m2 fits on none of 2 nodes: 2 Insufficient cpu"},
		{"a pod set's pod", &Group{Namespace: "ns", Name: "g", MinCount: 4, PodSets: []PodSet{{Name: "w", Count: 3, Template: Pod{Requests: ResourceList{ResourceCPU: 4}}}}}, Options{},
			"2 of min 4 members fit (1 bound); a pod of pod set ns/w fits on none of 2 nodes: 2 Insufficient cpu"},
	} {
		d, err := Solve(s, c.g, c.opts)
		require.NoError(t, err, c.name)
		require.NotEqual(t, Scheduled, d.Status, c.name)
		require.Equal(t, c.want, d.Message, c.name)
	}
	// The pod count's reason has its own name.
	full, err := NewSnapshot([]Node{{Name: "n1", Allocatable: ResourceList{ResourceCPU: 8, ResourcePods: 1}}}, nil)
	require.NoError(t, err)
	d, err := Solve(full, &Group{Namespace: "ns", Name: "g", MinCount: 2, Members: []Pod{pod("m1", 1), pod("m2", 1)}}, Options{})
	require.NoError(t, err)
	require.Equal(t, "1 of min 2 members fit; ns/m2 fits on none of 1 nodes: 1 Too many pods", d.Message)
	require.Equal(t, []ReasonCount{{Reason: "Too many pods", Nodes: 1}}, d.Reasons)
}
