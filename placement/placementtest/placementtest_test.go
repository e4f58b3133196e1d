package placementtest_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

func solve(s *placement.Snapshot, g *placement.Group) (placement.Decision, error) {
	return placement.Solve(s, g, placement.Options{})
}

func TestProp_SolveSatisfiesProperty(t *testing.T) {
	rapid.Check(t, placementtest.Property(solve))
}

// outcome is what one seed of the companion generator yields.
type outcome struct {
	status            placement.Status
	gang, withBound   bool
	filtered, quotaed placement.Status
}

var outcomes = rapid.Custom(func(t *rapid.T) outcome {
	s := placementtest.Snapshots().Draw(t, "snapshot")
	g := placementtest.Groups(s).Draw(t, "group")
	f := placementtest.Filters().Draw(t, "filter")
	q := placementtest.Quotas().Draw(t, "quota")
	run := func(opts placement.Options) placement.Status {
		d, err := placement.Solve(s, g, opts)
		if err != nil {
			t.Fatalf("generated group is invalid: %v", err)
		}
		return d.Status
	}
	return outcome{
		status:    run(placement.Options{}),
		gang:      g.IsGang(),
		withBound: len(s.GroupMembers(g.Key())) > 0,
		filtered:  run(placement.Options{Filters: []placement.Filter{f}}),
		quotaed:   run(placement.Options{PlacementFilters: []placement.PlacementFilter{q}}),
	}
})

// TestGenerators_FeasibleAndInfeasible is the generators' companion test:
// over fixed seeds they must yield groups that fit and groups that do not
// (with and without caller hooks), gangs and basic groups, and groups with
// bound members — otherwise the properties could never see a failure.
func TestGenerators_FeasibleAndInfeasible(t *testing.T) {
	count := map[string]int{}
	const seeds = 300
	for seed := range seeds {
		o := outcomes.Example(seed)
		count["status="+o.status.String()]++
		count["filtered="+o.filtered.String()]++
		count["quota="+o.quotaed.String()]++
		if o.gang {
			count["gang"]++
		}
		if o.withBound {
			count["withBound"]++
		}
	}
	t.Log(count)
	for _, k := range []string{"status=Scheduled", "status=Unschedulable", "status=Unresolvable",
		"filtered=Scheduled", "filtered=Unschedulable", "quota=Scheduled", "quota=Unschedulable"} {
		require.GreaterOrEqual(t, count[k], seeds/20, k)
	}
	require.Greater(t, count["gang"], seeds/4)
	require.Less(t, count["gang"], seeds*9/10)
	require.Greater(t, count["withBound"], seeds/10)
}

// ignoresCapacity puts every member on the first node, as a broken
// scheduler might.
func ignoresCapacity(s *placement.Snapshot, g *placement.Group) (placement.Decision, error) {
	d := placement.Decision{Group: g.Key(), Status: placement.Scheduled, Placement: placement.Placement{Nodes: []placement.NodeID{0}}}
	for i := range g.Members {
		d.Assignments = append(d.Assignments, placement.Assignment{Pod: g.Members[i].Key(), Node: s.Node(0).Name, NodeID: 0})
	}
	return d, nil
}

// dependsOnOrder answers like Solve but quotes the first member listed.
func dependsOnOrder(s *placement.Snapshot, g *placement.Group) (placement.Decision, error) {
	d, err := solve(s, g)
	d.Message += " first listed: " + g.Members[0].Name
	return d, err
}

// TestChecks_CatchBrokenSolvers shows that the helpers can fail: over fixed
// seeds, CheckDecision rejects a solver that ignores capacity and
// CheckDeterministic one that depends on the member order, while both
// accept placement.Solve on every seed.
func TestChecks_CatchBrokenSolvers(t *testing.T) {
	type verdicts struct{ capacity, order, good bool }
	gen := rapid.Custom(func(t *rapid.T) verdicts {
		c := placementtest.Clusters().Draw(t, "cluster")
		s, err := c.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		g := placementtest.Groups(s).Draw(t, "group")
		d, _ := ignoresCapacity(s, g)
		good, _ := solve(s, g)
		return verdicts{
			capacity: placementtest.CheckDecision(s, g, d) != nil,
			order:    placementtest.CheckDeterministic(t, dependsOnOrder, c, g) != nil,
			good:     placementtest.CheckDecision(s, g, good) == nil && placementtest.CheckDeterministic(t, solve, c, g) == nil,
		}
	})
	var capacity, order int
	for seed := range 100 {
		v := gen.Example(seed)
		require.True(t, v.good, "seed %d", seed)
		if v.capacity {
			capacity++
		}
		if v.order {
			order++
		}
	}
	require.Greater(t, capacity, 10)
	require.Greater(t, order, 10)
}
