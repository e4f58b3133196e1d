package preemption_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/topology"
)

// P16 with the topology package's generator (the package itself does not
// import topology: any PlacementGenerator works). The generator tiers the
// racks by score so that the solver can stop early; preemption still
// compares every rack by disruption.
func TestScenario_P16_TopologyGenerator(t *testing.T) {
	s := snapshot([]placement.Node{
		node("r1a", cpu(5000), rackKey, "rack-1"), node("r1b", cpu(5000), rackKey, "rack-1"),
		node("r2a", cpu(4000), rackKey, "rack-2"), node("r2b", cpu(5000), rackKey, "rack-2"),
	}, []placement.Pod{
		bound("low-1a", "r1a", "", low, cpu(2000)), bound("low-1b", "r1b", "", low, cpu(2000)),
		bound("mid-2a", "r2a", "", mid, cpu(4000)), bound("high-2b", "r2b", "", high, cpu(1000)),
	})
	g := gang("hi", 4, 4, high, cpu(2000))
	tree, err := topology.NewTree(s, []string{rackKey})
	require.NoError(t, err)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: rackKey}}, topology.MostAllocated)
	require.NoError(t, err)

	// With every candidate gone, the generator offers rack-2 (fuller once
	// the gang is in) first, in a better tier: a rank-first search would
	// evict the mid pod.
	s0, err := s.Apply(placement.Change{Remove: []placement.Key{key("low-1a"), key("low-1b"), key("mid-2a")}})
	require.NoError(t, err)
	places, err := opts.Generator.Generate(s0, placement.GroupView{Group: g})
	require.NoError(t, err)
	require.Len(t, places, 2)
	require.Equal(t, "rack-2", places[0].Name)
	require.Less(t, places[0].Rank, places[1].Rank)

	p := find(t, s, g, preemption.Input{}, opts)
	require.Equal(t, preemption.Preempt, p.Outcome, p.Message)
	require.Equal(t, []string{"low-1a", "low-1b"}, evicted(p))
	require.Equal(t, "rack-1", p.Decision.Placement.Name)

	// The plan's snapshot derives from s, so the same tree solves on it.
	d, err := placement.Solve(p.After, g, opts)
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status)
	require.Equal(t, assigned(p.Decision), assigned(d))
}
