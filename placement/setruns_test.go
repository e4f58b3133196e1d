package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// gpuAt is a snapshot of n CPU-only nodes (n0000, n0001, …) but for the
// nodes of gpus, which have that many GPUs each.
func gpuAt(t *testing.T, n int, gpus map[int]int64) *Snapshot {
	t.Helper()
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%04d", i), Allocatable: ResourceList{ResourceCPU: 8000}}
		if g, ok := gpus[i]; ok {
			nodes[i].Allocatable[ResourceGPU] = g
		}
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	return s
}

// A pod set of five 1-GPU pods fills the only nodes with GPUs, listed per
// node in node order however far apart they lie: n0000, n1000 and n1999
// of 2,000 nodes (the set's three nodes span 32 words of a node bitmap,
// so they are sorted), then n0010..n0012 and n0009, n0013, n0014 (read
// off the bitmap's first word), and again in turn, each Solve with the
// memory the last one left; a member of the same group beside the set is
// no entry of the set's.
func TestScenario_PodSetRunsInNodeOrderNearAndFar(t *testing.T) {
	far := gpuAt(t, 2000, map[int]int64{1999: 2, 0: 2, 1000: 1})
	near := gpuAt(t, 2000, map[int]int64{12: 2, 10: 2, 11: 1})
	beside := gpuAt(t, 2000, map[int]int64{9: 2, 13: 1, 14: 2})
	set := func(members ...Pod) *Group {
		return &Group{Namespace: "default", Name: "pg", MinCount: 5 + int32(len(members)), Members: members,
			PodSets: []PodSet{{Name: "w", Count: 5, Template: Pod{Requests: ResourceList{ResourceGPU: 1}}}}}
	}
	want := map[*Snapshot][]PodSetAssignment{
		far:    {{"w", "n0000", 0, 2}, {"w", "n1000", 1000, 1}, {"w", "n1999", 1999, 2}},
		near:   {{"w", "n0010", 10, 2}, {"w", "n0011", 11, 1}, {"w", "n0012", 12, 2}},
		beside: {{"w", "n0009", 9, 2}, {"w", "n0013", 13, 1}, {"w", "n0014", 14, 2}},
	}
	for _, s := range []*Snapshot{far, near, beside, far, near, far} {
		d, err := Solve(s, set(), Options{})
		require.NoError(t, err)
		require.Equal(t, Scheduled, d.Status, d.Message)
		require.Equal(t, want[s], d.PodSetAssignments)
	}
	// A CPU-only member goes to a node of its own; the set's entries stay.
	for _, s := range []*Snapshot{far, near} {
		d, err := Solve(s, set(Pod{Namespace: "default", Name: "m", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 8000}}), Options{})
		require.NoError(t, err)
		require.Equal(t, Scheduled, d.Status, d.Message)
		require.Equal(t, want[s], d.PodSetAssignments)
		require.Len(t, d.Assignments, 1)
	}
}
