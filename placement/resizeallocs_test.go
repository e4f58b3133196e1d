package placement_test

import (
	"testing"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
	"github.com/stretchr/testify/require"
)

// TestSolveResize_AllocatesItsAnswerAlone holds a growth without r.Grow,
// under topology's hooks, to the memory of its answer: the delta's rows,
// the grown set's rows and the decision's message, one allocation each.
// The reservation's lookup borrows its probe from a pool, and the message
// is appended on the stack; either allocating again fails it.
func TestSolveResize_AllocatesItsAnswerAlone(t *testing.T) {
	if raceOn {
		t.Skip("the race detector drops pooled items at random")
	}
	rs, existing, opts := allocsWorld(t)
	r := Resize{PodSet: "w", Existing: existing}
	g := elasticSet(300)
	got, err := SolveResize(rs, g, r, opts)
	require.NoError(t, err)
	require.Equal(t, Scheduled, got.Decision.Status, got.Decision.Message)
	require.Equal(t, "150 of 150 members placed in y", got.Decision.Message)
	allocs := testing.AllocsPerRun(100, func() { _, _ = SolveResize(rs, g, r, opts) })
	require.LessOrEqual(t, allocs, 3.0, "allocations a resize")
}

// allocsWorld is the allocation tests' world: racks x and y of 200-GPU
// nodes x0, y0 and y1, with the 150 pods of set "w" reserved on y0 —
// counts of three digits, which strconv.Itoa allocates, and a rack named
// in the message — and the solver options of a required rack.
func allocsWorld(t *testing.T) (*Snapshot, []PodSetAssignment, Options) {
	t.Helper()
	var nodes []Node
	for _, n := range []string{"x0", "y0", "y1"} {
		nodes = append(nodes, Node{Name: n, Labels: map[string]string{"rack": n[:1]}, Allocatable: ResourceList{ResourceGPU: 200, ResourcePods: 300}})
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	tree, err := topology.NewTree(s, []string{"rack"})
	require.NoError(t, err)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	existing := []PodSetAssignment{{PodSet: "w", Node: "y0", NodeID: 1, Count: 150}}
	return reserved(t, s, existing), existing, opts
}
