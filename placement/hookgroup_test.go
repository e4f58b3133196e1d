package placement_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// TestRegression_HooksReassigningTheirGroup: the Group a hook is handed is
// Solve's copy, not the caller's, so a hook may reassign its fields
// without writing the caller's group; the solver must not read them back.
// It read a row's pod through g.Members and g.PodSets (84da5c7), so a
// generator or scorer that emptied or replaced them made Solve panic or
// name pods the caller never listed; several fields were also read back
// before.
func TestRegression_HooksReassigningTheirGroup(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n0", 4000), cpuNode("n1", 4000)}, nil)
	require.NoError(t, err)
	group := func() *Group {
		g := &Group{Namespace: "default", Name: "pg1", MinCount: 5,
			PodSets: []PodSet{{Name: "set", Count: 2, Template: Pod{Requests: ResourceList{ResourceCPU: 1000}}}}}
		for i := range 3 {
			g.Members = append(g.Members, member(fmt.Sprintf("p%d", i), "pg1", 1000))
		}
		return g
	}
	want, err := Solve(s, group(), Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, want.Status)
	for _, tc := range []struct {
		name   string
		mangle func(g *Group)
	}{
		{"members emptied", func(g *Group) { g.Members = nil }},
		{"pod sets emptied", func(g *Group) { g.PodSets = nil }},
		{"members cut", func(g *Group) { g.Members = g.Members[:1] }},
		{"members replaced", func(g *Group) {
			g.Members = slices.Clone(g.Members)
			g.Members[0].Name = "renamed"
		}},
		{"pod sets replaced", func(g *Group) {
			g.PodSets = slices.Clone(g.PodSets)
			g.PodSets[0].Name, g.PodSets[0].Count = "other", 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen := PlacementGeneratorFunc(func(s *Snapshot, g *Group) ([]Placement, error) {
				tc.mangle(g)
				return []Placement{{Nodes: []NodeID{0, 1}}}, nil
			})
			scorer := PlacementScorerFunc(func(s *Snapshot, g *Group, p *Placement, a []Assignment) (int64, error) {
				tc.mangle(g)
				return 0, nil
			})
			for _, opts := range []Options{{Generator: gen}, {Scorer: scorer}} {
				g := group()
				d, err := Solve(s, g, opts)
				require.NoError(t, err)
				require.Equal(t, group(), g)
				require.Equal(t, want.Assignments, d.Assignments)
				require.Equal(t, want.PodSetAssignments, d.PodSetAssignments)
				require.Equal(t, want.Message, d.Message)
			}
		})
	}
}
