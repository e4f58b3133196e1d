package topology_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// The generator reuses its per-rack arrays and the answer Solve hands
// back: solves sharing one tree, one after the other or at once (run with
// -race), decide as a fresh tree does, and a decision kept from earlier
// keeps its placement.
func TestGenerator_ReusedAnswersKeepDecisions(t *testing.T) {
	var nodes []placement.Node
	for r := range 6 {
		for h := range 4 {
			nodes = append(nodes, node(fmt.Sprintf("r%d-h%d", r, h), 4000, rackKey, fmt.Sprintf("rack-%d", r)))
		}
	}
	s := snapshot(t, nodes)
	shared := tree(t, s, rackKey)
	opts, err := shared.SolverOptions([]topology.Constraint{required(rackKey)}, topology.MostAllocated)
	require.NoError(t, err)
	groups := []*placement.Group{gang("small", 2, members("small", 2, 1000)), gang("rack", 4, members("rack", 4, 4000)), gang("wide", 5, members("wide", 5, 4000))}
	want := make([]placement.Decision, len(groups))
	for i, g := range groups {
		want[i] = solve(t, tree(t, s, rackKey), s, g, topology.MostAllocated, required(rackKey))
	}
	require.Equal(t, placement.Scheduled, want[1].Status)
	require.NotEqual(t, placement.Scheduled, want[2].Status, "no rack holds five hosts' worth")

	kept, err := placement.Solve(s, groups[1], opts)
	require.NoError(t, err)
	for range 3 {
		for i, g := range groups {
			d, err := placement.Solve(s, g, opts)
			require.NoError(t, err)
			require.Equal(t, want[i], d, g.Name)
		}
	}
	require.Equal(t, want[1], kept, "a decision kept while the answer is reused")

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 50 {
				i := (w + k) % len(groups)
				d, err := placement.Solve(s, groups[i], opts)
				if err != nil || d.Status != want[i].Status || d.Placement.Name != want[i].Placement.Name || len(d.Assignments) != len(want[i].Assignments) {
					errs <- fmt.Errorf("%s: %v, %s in %q", groups[i].Name, err, d.Status, d.Placement.Name)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
