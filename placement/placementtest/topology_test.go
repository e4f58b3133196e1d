package placementtest_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
	"github.com/gangsched/gangsched/topology"
)

// topologyCase draws a cluster and a group with the generators, a
// required zone or rack key, and the tree over both labels; ok is false
// when no node carries the key's level or the group's bound members
// already sit in two of its domains (the tree rejects the input).
func topologyCase(t *rapid.T) (s *placement.Snapshot, g *placement.Group, tree *topology.Tree, cs []topology.Constraint, ok bool) {
	s, err := placementtest.Clusters().Draw(t, "cluster").Snapshot()
	require.NoError(t, err)
	g = placementtest.Groups(s).Draw(t, "group")
	tree, err = topology.NewTree(s, []string{placementtest.ZoneLabel, placementtest.RackLabel})
	require.NoError(t, err)
	cs = []topology.Constraint{{Key: rapid.SampledFrom([]string{placementtest.ZoneLabel, placementtest.RackLabel}).Draw(t, "key")}}
	opts, err := tree.SolverOptions(cs, topology.MostAllocated)
	if errors.Is(err, topology.ErrNoDomain) {
		return s, g, tree, cs, false
	}
	require.NoError(t, err)
	if _, err := placement.Solve(s, g, opts); errors.Is(err, placement.ErrInvalid) {
		return s, g, tree, cs, false
	}
	return s, g, tree, cs, true
}

// TestProp_TopologyAwareScheduler is the property test the package doc
// describes for a topology-aware scheduler, run on the solver with the
// tree's options: Tree.Verify checks its decisions against the drawn
// constraint.
func TestProp_TopologyAwareScheduler(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, g, tree, cs, ok := topologyCase(t)
		if !ok {
			return
		}
		opts, err := tree.SolverOptions(cs, topology.MostAllocated)
		require.NoError(t, err)
		d, err := placement.Solve(s, g, opts)
		require.NoError(t, err)
		require.NoError(t, tree.Verify(s, g, d, cs))
	})
}

// TestProp_TopologyBlindSchedulerCaught: the same property fails a
// scheduler that ignores the constraint — the solver without the tree's
// options — on some draw, while placementtest's own check, which knows no
// constraint, passes it every time.
func TestProp_TopologyBlindSchedulerCaught(t *testing.T) {
	caught := 0
	rapid.Check(t, func(t *rapid.T) {
		s, g, tree, cs, ok := topologyCase(t)
		if !ok {
			return
		}
		d, err := placement.Solve(s, g, placement.Options{})
		require.NoError(t, err)
		require.NoError(t, placementtest.CheckDecision(s, g, d))
		if err := tree.Verify(s, g, d, cs); err != nil {
			require.ErrorIs(t, err, placement.ErrViolation)
			caught++
		}
	})
	require.Positive(t, caught)
}
