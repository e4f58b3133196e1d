package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// onePerNode is a placement filter that allows one member per node, and
// records the assignments it was handed.
type onePerNode struct{ seen [][]placement.Assignment }

func (f *onePerNode) FilterPlacement(_ *placement.Snapshot, _ placement.GroupView, _ *placement.Placement, a []placement.Assignment) placement.Rejection {
	f.seen = append(f.seen, append([]placement.Assignment(nil), a...))
	used := map[placement.NodeID]bool{}
	for _, x := range a {
		if used[x.NodeID] {
			return placement.Rejection{Reason: "two members on node " + x.Node}
		}
		used[x.NodeID] = true
	}
	return placement.Rejection{}
}

// TestCycleVerifies: under the Kueue profile a rack-constrained gang is
// planned outside Solve, so a placement filter of SolveOptions never saw
// the plan; the cycle runs it again on the decision before binding. The
// plan puts m0 and m1 on the rack's one 2-CPU node, which the filter (one
// member per node) refuses: nothing binds, the cycle fails with
// ErrViolation naming the filter and the condition reads SchedulerError.
// With two nodes in the rack the plan passes and binds, and the filter
// saw both members with their pending indexes.
func TestCycleVerifies(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes []placement.Node
		binds bool
	}{
		{"refused", []placement.Node{rackNode("a1", "b1", "r1", 2000)}, false},
		{"passes", []placement.Node{rackNode("a1", "b1", "r1", 1000), rackNode("a2", "b1", "r1", 1000)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &onePerNode{}
			opts := Options{TopologyProfile: topology.KueueProfile, SolveOptions: func(_ *PodGroup, _ *placement.Snapshot, o placement.Options) (placement.Options, error) {
				o.PlacementFilters = append(o.PlacementFilters, f)
				return o, nil
			}}
			snap, err := placement.NewSnapshot(c.nodes, nil)
			require.NoError(t, err)
			s := NewScheduler(opts)
			require.NoError(t, s.SetPodGroup(withTopology(gangPG("pg", 2), rackKey)))
			require.NoError(t, s.AddPod(member("m0", "pg", cpu(1000), 0)))
			require.NoError(t, s.AddPod(member("m1", "pg", cpu(1000), 1)))
			r, ok := s.Cycle(snap, t0)
			require.True(t, ok)
			require.Len(t, f.seen, 1, "the plan never ran the filter: the cycle's re-check is its only call")
			require.Len(t, f.seen[0], 2)
			for _, a := range f.seen[0] {
				require.Equal(t, map[string]int{"m0": 0, "m1": 1}[a.Pod.Name], a.Member)
			}
			if c.binds {
				require.NoError(t, r.Err)
				require.Len(t, r.Bind, 2)
				return
			}
			require.ErrorIs(t, r.Err, placement.ErrViolation)
			require.ErrorContains(t, r.Err, `Options.PlacementFilters[0] rejects placement "r1": two members on node a1`)
			require.Empty(t, r.Bind)
			require.Same(t, snap, r.Snapshot)
			require.Equal(t, ReasonSchedulerError, r.Condition.Reason)
		})
	}
}
