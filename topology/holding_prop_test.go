package topology_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// holdingOf is the reference for GenerateHolding: Generate's answer less
// the placements that miss a node of nodes and do not hold every node.
func holdingOf(ps []placement.Placement, nodes []placement.NodeID, all int) []placement.Placement {
	out := []placement.Placement{}
	for _, p := range ps {
		if len(p.Nodes) == all || !slices.ContainsFunc(nodes, func(id placement.NodeID) bool { return !slices.Contains(p.Nodes, id) }) {
			out = append(out, p)
		}
	}
	return out
}

// GenerateHolding answers what filtering Generate's answer does: when it
// narrows, the same placements (names, nodes, ranks) in the same order;
// when it does not, Generate's whole answer. The nodes to hold are drawn
// mostly inside one domain, as an elastic set's existing pods are. Small
// clusters (genCase) and wide ones (10–60 nodes in 3 zones and 8 racks,
// where many racks tie on their bound) are drawn; every way of answering
// must be seen: a domain of the first tier, of the second, after both,
// and none; and a first-tier domain decided by builder.leads alone
// (led: the share index's bound, or a constrained group), without
// reading the other domains' bounds.
func TestProp_GenerateHoldingAsFiltered(t *testing.T) {
	seen := map[string]int{}
	prop := func(t *rapid.T) {
		var c tcase
		if rapid.Bool().Draw(t, "wide") {
			c = wideCase(t)
		} else {
			c = genCase(rapid.Bool().Draw(t, "homogeneous"), rapid.IntRange(0, 3).Draw(t, "requiredOnly") > 0).Draw(t, "case")
		}
		s, tr := c.tree(t)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		if err != nil || opts.Generator == nil {
			return
		}
		gen := opts.Generator.(*topology.Generator)
		var hold []placement.NodeID
		anchor := c.nodes[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "anchor")]
		key := propKeys[rapid.IntRange(0, len(propKeys)-1).Draw(t, "level")]
		for i, n := range c.nodes {
			same := n.Labels[key] == anchor.Labels[key]
			if n.Name == anchor.Name || rapid.IntRange(0, 3).Draw(t, "hold") == 0 && (same || rapid.IntRange(0, 3).Draw(t, "stray") == 0) {
				hold = append(hold, placement.NodeID(i))
			}
		}
		gv := placement.GroupView{Group: &c.group}
		want, werr := gen.Generate(s, gv)
		want = slices.Clone(want) // the tree reuses the answer's memory once released
		got, ok, gerr := gen.GenerateHolding(s, gv, hold)
		require.Equal(t, werr, gerr)
		if werr != nil {
			return
		}
		if gen.HoldingLeads(s, gv, hold) {
			seen["led"]++
			require.True(t, ok, "led, not narrowed")
		}
		if ok {
			want = holdingOf(want, hold, len(c.nodes))
			if len(got) == 0 {
				seen["none"]++
			} else {
				seen[fmt.Sprint("rank ", got[0].Rank)]++
			}
		}
		require.Equal(t, want, got)
	}
	kinds := []string{"none", "rank 0", "rank 1", "rank 2", "led"}
	for round := 0; round < 20 && slices.ContainsFunc(kinds, func(k string) bool { return seen[k] == 0 }); round++ {
		rapid.Check(t, prop)
	}
	t.Log(seen)
	for _, k := range kinds {
		require.Positive(t, seen[k], "no narrowed answer %q", k)
	}
}

// wideCase draws a cluster of 10–60 nodes in 3 zones and 8 racks and a
// gang of 1–8 pending members, as TestProp_WideTiersAsBySorting does, with
// a required zone or rack.
func wideCase(t *rapid.T) tcase {
	n := rapid.IntRange(10, 60).Draw(t, "nodes")
	var c tcase
	for i := range n {
		c.nodes = append(c.nodes, placement.Node{Name: fmt.Sprintf("n%02d", i), Allocatable: placement.ResourceList{cpu: rapid.Int64Range(0, 8).Draw(t, "cpu")},
			Labels: map[string]string{zoneKey: fmt.Sprint(rapid.IntRange(0, 2).Draw(t, "zone")), rackKey: fmt.Sprint(rapid.IntRange(0, 7).Draw(t, "rack")), hostKey: fmt.Sprint(i)}})
	}
	c.group = placement.Group{Namespace: "default", Name: "pg", Policy: placement.PolicyGang}
	same := rapid.Bool().Draw(t, "homogeneous")
	q := rapid.Int64Range(1, 3).Draw(t, "mcpu")
	for i := range rapid.IntRange(1, 8).Draw(t, "pending") {
		if !same {
			q = rapid.Int64Range(1, 3).Draw(t, "mcpu")
		}
		c.group.Members = append(c.group.Members, member(fmt.Sprintf("m%d", i), "pg", q))
	}
	c.group.MinCount = int32(rapid.IntRange(1, len(c.group.Members)).Draw(t, "min"))
	c.cs = []topology.Constraint{required(propKeys[rapid.IntRange(0, 1).Draw(t, "required")])}
	c.scoring = rapid.SampledFrom([]topology.Scoring{topology.MostAllocated, topology.BestFit}).Draw(t, "scoring")
	return c
}

// An elastic set decides alike whether its delta's placements come from
// GenerateHolding or from filtering every placement Generate proposes
// (the generator hidden behind a PlacementGeneratorFunc): the whole
// Resized, decision, placement and rank included.
func TestProp_ResizeNarrowedAsFull(t *testing.T) {
	grew := 0
	prop := func(t *rapid.T) {
		c := genCase(true, rapid.Bool().Draw(t, "requiredOnly")).Draw(t, "case")
		c.pods = slices.DeleteFunc(c.pods, func(p placement.Pod) bool { return p.SchedulingGroup != "" })
		s0, tr := c.tree(t)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		if err != nil || opts.Generator == nil {
			return
		}
		full := opts
		full.Generator = placement.PlacementGeneratorFunc(opts.Generator.Generate)
		tmpl := c.group.Members[0]
		tmpl.Name, tmpl.SchedulingGroup = "", ""
		set := func(count int32) *placement.Group {
			return &placement.Group{Namespace: "default", Name: "pg", MinCount: count, PodSets: []placement.PodSet{{Name: "w", Count: count, Template: tmpl}}}
		}
		n := int32(rapid.IntRange(1, 4).Draw(t, "n"))
		d, err := placement.Solve(s0, set(n), opts)
		if err != nil || d.Status != placement.Scheduled {
			return
		}
		us, err := placement.PodSetUsageOf(set(n), d)
		require.NoError(t, err)
		s, err := s0.Apply(placement.Change{Reserve: us})
		require.NoError(t, err)
		m := n + int32(rapid.IntRange(1, 6).Draw(t, "delta"))
		r := placement.Resize{PodSet: "w", Existing: us[0].Nodes}
		got, gerr := placement.SolveResize(s, set(m), r, opts)
		want, werr := placement.SolveResize(s, set(m), r, full)
		require.Equal(t, werr, gerr)
		require.Equal(t, want, got)
		if got.Decision.Status == placement.Scheduled {
			grew++
		}
	}
	for round := 0; round < 20 && grew == 0; round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, grew)
}
