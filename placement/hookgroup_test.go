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
			gen := PlacementGeneratorFunc(func(s *Snapshot, g GroupView) ([]Placement, error) {
				tc.mangle(g.Group)
				return []Placement{{Nodes: []NodeID{0, 1}}}, nil
			})
			scorer := PlacementScorerFunc(func(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error) {
				tc.mangle(g.Group)
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

// TestGroupView_AnswersAsTheGroup: the view a hook is handed answers from
// what Solve compiled, the caller's Group from its fields; both give the
// same answers, before, during and after the solve, whichever of them is
// asked.
func TestGroupView_AnswersAsTheGroup(t *testing.T) {
	bound := member("b0", "pg1", 500)
	bound.NodeName = "n0"
	s, err := NewSnapshot([]Node{cpuNode("n0", 4000), cpuNode("n1", 4000)}, []Pod{bound})
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg1", MinCount: 4,
		PodSets: []PodSet{{Name: "set", Count: 2, Template: Pod{Requests: ResourceList{ResourceCPU: 700, "example.com/untracked": 0}}}}}
	g.Members = append(g.Members, member("p1", "pg1", 1000), member("p0", "pg1", 300))
	type answers struct {
		Pending, Start, Bound int
		Untracked             bool
		Keys                  []Key
		Vectors               [][]int64
		Counts                map[string]int
	}
	ask := func(v GroupView) answers {
		a := answers{Pending: v.NumPending(), Start: v.PodSetStart(0), Bound: v.BoundCount(s), Untracked: v.RequestsUntracked(s), Counts: map[string]int{}}
		for i := range v.NumPending() {
			a.Keys = append(a.Keys, v.PendingKey(i))
			a.Vectors = append(a.Vectors, slices.Clone(v.RequestVector(s, i)))
		}
		for vec, n := range v.RequestCounts(s) {
			a.Counts[fmt.Sprint(vec)] += n
		}
		return a
	}
	want := ask(GroupView{Group: g})
	require.Equal(t, answers{Pending: 4, Start: 2, Bound: 1,
		Keys:    []Key{{"default", "p1"}, {"default", "p0"}, {"default", "set"}, {"default", "set"}},
		Vectors: [][]int64{{1000, 1}, {300, 1}, {700, 1}, {700, 1}},
		Counts:  map[string]int{"[1000 1]": 1, "[300 1]": 1, "[700 1]": 2}}, want)
	require.Equal(t, want.Vectors[0], g.RequestVector(s, 0))
	var views []GroupView
	gen := PlacementGeneratorFunc(func(s *Snapshot, v GroupView) ([]Placement, error) {
		views = append(views, v)
		require.Equal(t, want, ask(v), "the view, during the solve")
		require.Equal(t, want, ask(GroupView{Group: v.Group}), "the view's group, during the solve")
		return []Placement{{Nodes: []NodeID{0, 1}}}, nil
	})
	d, err := Solve(s, g, Options{Generator: gen})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Len(t, views, 1)
	require.Equal(t, want, ask(views[0]), "a view kept after the solve")
	require.Equal(t, want, ask(GroupView{Group: g}), "the caller's group after the solve")
}

// TestGroupView_KeptAcrossLargerSolves: a group's classes (one; several
// by request; split by affinity) come partly from tables the pool keeps
// and extends; a view kept from one solve answers the same after solves
// of larger groups.
func TestGroupView_KeptAcrossLargerSolves(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n0", 8000), cpuNode("n1", 8000)}, nil)
	require.NoError(t, err)
	anti := &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 10,
		Term: PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "w"}}, TopologyKey: "kubernetes.io/hostname"}}}}}
	group := func(milli ...int64) *Group {
		g := &Group{Namespace: "default", Name: "pg", MinCount: int32(len(milli))}
		for k, m := range milli {
			p := member(fmt.Sprintf("p%02d", k), "pg", m)
			p.Labels, p.Affinity = map[string]string{"app": "w"}, anti
			g.Members = append(g.Members, p)
		}
		return g
	}
	counts := func(v GroupView) map[string]int {
		out := map[string]int{}
		for vec, n := range v.RequestCounts(s) {
			out[fmt.Sprint(vec)] += n
		}
		for i := range v.NumPending() {
			out[fmt.Sprint(i, v.RequestVector(s, i))]++
		}
		return out
	}
	var views []GroupView
	gen := PlacementGeneratorFunc(func(s *Snapshot, v GroupView) ([]Placement, error) {
		views = append(views, v)
		return []Placement{{Nodes: []NodeID{0, 1}}}, nil
	})
	// One class (its tables the pool's zeros and identity, its count and
	// vector the Solve's own), then classes found by request (tables
	// copied out of the pool's), then larger groups of one class.
	_, err = Solve(s, group(700, 700, 700), Options{Generator: gen})
	require.NoError(t, err)
	_, err = Solve(s, group(100, 200, 100), Options{Generator: gen})
	require.NoError(t, err)
	require.Len(t, views, 2)
	wantOne := map[string]int{"[700 1]": 3, "0 [700 1]": 1, "1 [700 1]": 1, "2 [700 1]": 1}
	want := map[string]int{"[100 1]": 2, "[200 1]": 1, "0 [100 1]": 1, "1 [200 1]": 1, "2 [100 1]": 1}
	require.Equal(t, wantOne, counts(views[0]), "after the next solve")
	require.Equal(t, want, counts(views[1]), "during the solve")
	for n := 4; n <= 64; n *= 2 {
		_, err = Solve(s, group(slices.Repeat([]int64{300}, n)...), Options{Generator: gen})
		require.NoError(t, err)
		_, err = Solve(s, group(slices.Repeat([]int64{100, 200}, n)...), Options{Generator: gen})
		require.NoError(t, err)
	}
	require.Equal(t, wantOne, counts(views[0]), "after larger solves")
	require.Equal(t, want, counts(views[1]), "after larger solves")
}

// TestGroupView_KeptPastSolvesWithoutHooks: a Solve none of whose hooks is
// handed a GroupView works in the pool's memory for what it would hand
// one; a view that a hook of another Solve kept answers the same after
// such solves of other groups, whichever hook kept it, and so does the
// placement of every node a placement hook kept.
func TestGroupView_KeptPastSolvesWithoutHooks(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n0", 8000), cpuNode("n1", 8000)}, nil)
	require.NoError(t, err)
	group := func(name string, milli ...int64) *Group {
		g := &Group{Namespace: "default", Name: name, MinCount: int32(len(milli))}
		for k, m := range milli {
			g.Members = append(g.Members, member(fmt.Sprintf("%s-%02d", name, k), name, m))
		}
		return g
	}
	type answers struct {
		Pending int
		Keys    []Key
		Vectors [][]int64
	}
	ask := func(v GroupView) answers {
		a := answers{Pending: v.NumPending()}
		for i := range a.Pending {
			a.Keys, a.Vectors = append(a.Keys, v.PendingKey(i)), append(a.Vectors, v.RequestVector(s, i))
		}
		return a
	}
	want := answers{Pending: 3, Keys: []Key{{"default", "kept-00"}, {"default", "kept-01"}, {"default", "kept-02"}},
		Vectors: [][]int64{{700, 1}, {300, 1}, {700, 1}}}
	var kept []GroupView
	var places []*Placement
	keep := func(v GroupView) { kept = append(kept, v) }
	hooks := map[string]Options{
		"Generator": {Generator: PlacementGeneratorFunc(func(_ *Snapshot, v GroupView) ([]Placement, error) {
			keep(v)
			return []Placement{{Nodes: []NodeID{0, 1}}}, nil
		})},
		"Scorer": {Scorer: PlacementScorerFunc(func(_ *Snapshot, v GroupView, p *Placement, _ []Assignment) (int64, error) {
			keep(v)
			places = append(places, p)
			return 0, nil
		})},
		"PlacementFilters": {PlacementFilters: []PlacementFilter{PlacementFilterFunc(func(_ *Snapshot, v GroupView, p *Placement, _ []Assignment) Rejection {
			keep(v)
			places = append(places, p)
			return Rejection{}
		})}},
		"Reservers": {Reservers: []NewReserverFunc{func(_ *Snapshot, v GroupView) (Reserver, error) {
			keep(v)
			return noopReserver{}, nil
		}}},
	}
	for name, opts := range hooks {
		t.Run(name, func(t *testing.T) {
			kept, places = nil, nil
			d, err := Solve(s, group("kept", 700, 300, 700), opts)
			require.NoError(t, err)
			require.Equal(t, Scheduled, d.Status, d.Message)
			require.NotEmpty(t, kept)
			require.Equal(t, want, ask(kept[0]), "during the solve")
			for n := 1; n <= 16; n *= 2 {
				_, err := Solve(s, group("other", slices.Repeat([]int64{100, 200}, n)...), Options{})
				require.NoError(t, err)
			}
			for _, v := range kept {
				require.Equal(t, want, ask(v), "after solves without hooks")
			}
			for _, p := range places {
				require.Equal(t, []NodeID{0, 1}, p.Nodes, "a placement kept, after solves without hooks")
			}
		})
	}
}
