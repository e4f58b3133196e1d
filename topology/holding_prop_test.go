package topology_test

import (
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
// mostly inside one domain, as an elastic set's existing pods are.
func TestProp_GenerateHoldingAsFiltered(t *testing.T) {
	narrowed, later := 0, 0
	prop := func(t *rapid.T) {
		c := genCase(rapid.Bool().Draw(t, "homogeneous"), rapid.IntRange(0, 3).Draw(t, "requiredOnly") > 0).Draw(t, "case")
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
		if ok {
			narrowed++
			if len(got) == 1 && got[0].Rank == 1 {
				later++
			}
			want = holdingOf(want, hold, len(c.nodes))
		}
		require.Equal(t, want, got)
	}
	for round := 0; round < 20 && later == 0; round++ {
		rapid.Check(t, prop)
	}
	t.Logf("narrowed %d, in a later tier %d", narrowed, later)
	require.Positive(t, narrowed)
	require.Positive(t, later, "no narrowed answer in the second tier")
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
