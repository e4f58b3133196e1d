package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
	"github.com/gangsched/gangsched/topology"
)

// keepingGenerator and keepingScorer are topology's hooks with every
// ability of theirs but forgetting their views: Solve must then allocate
// what they might keep.
type keepingGenerator struct{ *topology.Generator }

func (keepingGenerator) ForgetsViews() bool { return false }

type keepingScorer struct{ *topology.Scorer }

func (keepingScorer) ForgetsViews() bool { return false }

// TestProp_ForgettingHooksDecideAsKeeping: a Solve whose generator and
// scorer forget their views (topology's) works in its pooled memory for
// what it hands them; it decides exactly as with the same hooks saying
// they may keep them, solve after solve of different groups on one tree
// (member groups and pod sets, any constraint and scoring), and so does
// a resize, whose holding generator answers for topology's.
func TestProp_ForgettingHooksDecideAsKeeping(t *testing.T) {
	scheduled, resized := 0, 0
	defer func() {
		if !t.Failed() && (scheduled == 0 || resized == 0) {
			t.Errorf("%d solves scheduled, %d resizes compared: want some of each", scheduled, resized)
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		s := placementtest.Snapshots().Draw(t, "snapshot")
		tree, err := topology.NewTree(s, []string{placementtest.ZoneLabel, placementtest.RackLabel})
		require.NoError(t, err)
		cs := rapid.SampledFrom([][]topology.Constraint{
			{{Key: placementtest.RackLabel}},
			{{Key: placementtest.ZoneLabel}, {Key: placementtest.RackLabel, Preferred: true}},
			{{Key: placementtest.RackLabel, Preferred: true}},
		}).Draw(t, "constraints")
		opts, err := tree.SolverOptions(cs, topology.Scoring(rapid.IntRange(0, 1).Draw(t, "scoring")))
		if err != nil {
			return // no node carries a key: no solve to compare
		}
		keeping := opts
		keeping.Generator = keepingGenerator{opts.Generator.(*topology.Generator)}
		keeping.Scorer = keepingScorer{opts.Scorer.(*topology.Scorer)}
		for i := range rapid.IntRange(1, 4).Draw(t, "solves") {
			g := placementtest.Groups(s).Draw(t, fmt.Sprint("group", i))
			if rapid.Bool().Draw(t, "podSet") {
				tmpl := g.Members[0]
				tmpl.Name, tmpl.SchedulingGroup = "", ""
				n := int32(len(g.Members))
				g = &Group{Namespace: g.Namespace, Name: g.Name, MinCount: n, PodSets: []PodSet{{Name: "w", Count: n, Template: tmpl}}}
			}
			want, werr := Solve(s, g, keeping)
			got, gerr := Solve(s, g, opts)
			require.Equal(t, werr, gerr)
			require.Equal(t, want, got)
			if werr != nil || want.Status != Scheduled || len(g.PodSets) == 0 {
				continue
			}
			scheduled++
			us, err := PodSetUsageOf(g, want)
			require.NoError(t, err)
			rs, err := s.Apply(Change{Reserve: us})
			require.NoError(t, err)
			grown := *g
			grown.PodSets = []PodSet{g.PodSets[0]}
			grown.PodSets[0].Count += int32(rapid.IntRange(1, 4).Draw(t, "more"))
			grown.MinCount = grown.PodSets[0].Count
			r := Resize{PodSet: "w", Existing: us[0].Nodes}
			wantR, werr := SolveResize(rs, &grown, r, keeping)
			gotR, gerr := SolveResize(rs, &grown, r, opts)
			require.Equal(t, werr, gerr)
			require.Equal(t, wantR, gotR)
			resized++
		}
	})
}

// A Solve whose hooks forget their views allocates less than one whose
// hooks may keep them (the compiled members and the group's copy are the
// pool's), and decides the same; so does a resize, whose holding
// generator forgets them when the generator it wraps does.
func TestViewForgetter_LendsThePool(t *testing.T) {
	if raceOn {
		t.Skip("the race detector drops pooled items at random")
	}
	s, tree := rackNodes(t)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	keeping := opts
	keeping.Generator = keepingGenerator{opts.Generator.(*topology.Generator)}
	keeping.Scorer = keepingScorer{opts.Scorer.(*topology.Scorer)}
	g := elasticSet(6)
	want, err := Solve(s, g, keeping)
	require.NoError(t, err)
	got, err := Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, Scheduled, got.Status, got.Message)
	kept := testing.AllocsPerRun(50, func() { _, _ = Solve(s, g, keeping) })
	lent := testing.AllocsPerRun(50, func() { _, _ = Solve(s, g, opts) })
	require.Less(t, lent, kept, "allocations a Solve: %v with forgetting hooks, %v with keeping ones", lent, kept)

	existing := []PodSetAssignment{{PodSet: "w", Node: "y0", NodeID: 2, Count: 6}}
	rs := reserved(t, s, existing)
	r := Resize{PodSet: "w", Existing: existing}
	wantR, err := SolveResize(rs, elasticSet(10), r, keeping)
	require.NoError(t, err)
	gotR, err := SolveResize(rs, elasticSet(10), r, opts)
	require.NoError(t, err)
	require.Equal(t, wantR, gotR)
	require.Equal(t, Scheduled, gotR.Decision.Status, gotR.Decision.Message)
	g10 := elasticSet(10)
	kept = testing.AllocsPerRun(50, func() { _, _ = SolveResize(rs, g10, r, keeping) })
	lent = testing.AllocsPerRun(50, func() { _, _ = SolveResize(rs, g10, r, opts) })
	require.Less(t, lent, kept, "allocations a resize: %v with forgetting hooks, %v with keeping ones", lent, kept)
}
