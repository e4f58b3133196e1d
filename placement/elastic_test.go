package placement_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
	"github.com/gangsched/gangsched/topology"
)

// elasticSet is a gang of one pod set "w" of count 1-GPU pods.
func elasticSet(count int32) *Group {
	return &Group{Namespace: "default", Name: "pg", MinCount: count, PodSets: []PodSet{{Name: "w", Count: count, Template: Pod{Requests: ResourceList{ResourceGPU: 1}}}}}
}

// reserved returns s with the set's existing pods reserved.
func reserved(t *testing.T, s *Snapshot, existing []PodSetAssignment) *Snapshot {
	t.Helper()
	s, err := s.Apply(Change{Reserve: []PodSetUsage{{Group: Key{"default", "pg"}, PodSet: "w", Requests: ResourceList{ResourceGPU: 1}, Nodes: existing}}})
	require.NoError(t, err)
	return s
}

// A set of 6 pods running on y0 in rack r2 grows to 10 with a required
// rack: the 4 new pods join rack r2 (y0 fills up, y1 takes 2), although
// MostAllocated alone would pick the fuller rack r1; growing to 20, more
// than rack r2 holds, is refused whole and keeps the 6.
func TestScenario_ElasticGrowsInsideItsRack(t *testing.T) {
	s, tree := rackNodes(t)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	existing := []PodSetAssignment{{PodSet: "w", Node: "y0", Count: 6}}
	s = reserved(t, s, existing)

	r, err := SolveResize(s, elasticSet(10), Resize{PodSet: "w", Existing: existing}, opts)
	require.NoError(t, err)
	require.Equal(t, Scheduled, r.Decision.Status, r.Decision.Message)
	require.Equal(t, "r2", r.Decision.Placement.Name)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 2}, {"w", "y1", 3, 2}}, r.Decision.PodSetAssignments)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 8}, {"w", "y1", 3, 2}}, r.Assignments)
	require.Empty(t, r.Removed)

	r, err = SolveResize(s, elasticSet(20), Resize{PodSet: "w", Existing: existing}, opts)
	require.NoError(t, err)
	require.Equal(t, Unresolvable, r.Decision.Status, "rack r2 has 16 GPUs in all")
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 6}}, r.Assignments)
}

// A set of 11 pods — x0 2, x1 1 in rack r1, y0 4, y1 4 in rack r2 —
// shrinks to 6: the least filled rack r1 is emptied whole, then y1 (tied
// with y0, last by name) gives up 2; shrinking to 11 changes nothing.
func TestScenario_ElasticShrinksLeastFilledDomainsFirst(t *testing.T) {
	s, _ := rackNodes(t)
	existing := []PodSetAssignment{{Node: "y1", Count: 4}, {Node: "x0", Count: 2}, {Node: "y0", Count: 4}, {Node: "x1", Count: 1}}
	s = reserved(t, s, existing)
	r, err := SolveResize(s, elasticSet(6), Resize{PodSet: "w", Existing: existing, Levels: []string{"rack"}}, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, r.Decision.Status)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 4}, {"w", "y1", 3, 2}}, r.Assignments)
	require.Equal(t, []PodSetAssignment{{"w", "x0", 0, 2}, {"w", "x1", 1, 1}, {"w", "y1", 3, 2}}, r.Removed)

	// Without levels, the least filled nodes go first: x1, x0, then y1.
	r, err = SolveResize(s, elasticSet(6), Resize{PodSet: "w", Existing: existing}, Options{})
	require.NoError(t, err)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 4}, {"w", "y1", 3, 2}}, r.Assignments)

	r, err = SolveResize(s, elasticSet(11), Resize{PodSet: "w", Existing: existing, Levels: []string{"rack"}}, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, r.Decision.Status)
	require.Equal(t, []PodSetAssignment{{"w", "x0", 0, 2}, {"w", "x1", 1, 1}, {"w", "y0", 2, 4}, {"w", "y1", 3, 4}}, r.Assignments)
	require.Empty(t, r.Decision.PodSetAssignments)
	require.Empty(t, r.Removed)
}

func TestSolveResize_Errors(t *testing.T) {
	s, _ := rackNodes(t)
	existing := []PodSetAssignment{{Node: "y0", Count: 6}}
	rs := reserved(t, s, existing)
	for _, tc := range []struct {
		name string
		s    *Snapshot
		r    Resize
		want string
	}{
		{"unknown set", s, Resize{PodSet: "v"}, `PodGroup "default/pg": resize.podSet: the group has no pod set "v"`},
		{"unknown node", s, Resize{PodSet: "w", Existing: []PodSetAssignment{{Node: "z9", Count: 1}}}, `pod set "w" of PodGroup "default/pg": resize.existing[0].node: node "z9" is not in the snapshot`},
		{"node twice", s, Resize{PodSet: "w", Existing: []PodSetAssignment{{Node: "y0", Count: 1}, {Node: "y0", Count: 1}}}, `pod set "w" of PodGroup "default/pg": resize.existing: node "y0" is listed twice`},
		{"not held", s, Resize{PodSet: "w", Existing: []PodSetAssignment{{Node: "y0", Count: 6}}}, `pod set "w" of PodGroup "default/pg": resize.existing: lists 6 pods on node "y0", requesting 6 nvidia.com/gpu, but the pods bound there request 0: the snapshot must hold the existing pods (bound, or reserved with Change.Reserve)`},
		{"not the reservation", rs, Resize{PodSet: "w", Existing: []PodSetAssignment{{Node: "y0", Count: 5}}}, `pod set "w" of PodGroup "default/pg": resize.existing: differs from the snapshot's reservation of the set`},
		{"bad level", rs, Resize{PodSet: "w", Existing: existing, Levels: []string{"rack", "rack"}}, `pod set "w" of PodGroup "default/pg": resize.levels: levels[1] "rack" is empty or repeated`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SolveResize(tc.s, elasticSet(3), tc.r, Options{})
			require.EqualError(t, err, tc.want)
			requireInputError(t, err)
		})
	}
}

// A template whose requests times an existing count pass int64 is an
// error whether Existing is the reservation's own entries (compared with
// it, the overflow bound computed once) or the same pods listed otherwise
// (checked entry by entry): at the largest request that fits, both grow
// alike; one more, both name the count.
func TestSolveResize_ExistingCountsOverflowAtTheBound(t *testing.T) {
	s, _ := rackNodes(t)
	existing := []PodSetAssignment{{Node: "y0", Count: 6}}
	rs := reserved(t, s, existing)
	stored, ok := rs.PodSetUsage(Key{"default", "pg"}, "w")
	require.True(t, ok)
	listed := []PodSetAssignment{{Node: "y0", NodeID: -1, Count: 6}}
	for _, tc := range []struct {
		gpu  int64
		want string
	}{
		{math.MaxInt64 / 6, ""},
		{math.MaxInt64/6 + 1, `pod set "w" of PodGroup "default/pg": resize.existing[0].count: 6 pods' requests overflow int64`},
	} {
		g := elasticSet(7)
		g.PodSets[0].Template.Requests = ResourceList{ResourceGPU: tc.gpu}
		var got []Resized
		for _, ex := range [][]PodSetAssignment{stored.Nodes, listed} {
			r, err := SolveResize(rs, g, Resize{PodSet: "w", Existing: ex}, Options{})
			if tc.want != "" {
				require.EqualError(t, err, tc.want)
				continue
			}
			require.NoError(t, err)
			got = append(got, r)
		}
		if tc.want == "" {
			require.Equal(t, got[0], got[1])
			require.NotEqual(t, Scheduled, got[0].Decision.Status, "no node holds the request")
		}
	}
}

// A set that cannot grow, or keeps its count, answers the caller's own
// Existing when it lists the reservation field for field (no copy), and a
// copy when it lists the same pods without NodeIDs or set names; both
// equal the reservation's entries and share none of the snapshot's memory.
func TestSolveResize_KeptAnswersTheCallersExisting(t *testing.T) {
	s, _ := rackNodes(t)
	s = reserved(t, s, []PodSetAssignment{{Node: "y0", Count: 6}})
	stored, _ := s.PodSetUsage(Key{"default", "pg"}, "w")
	want := slices.Clone(stored.Nodes)
	for _, count := range []int32{6, 40} { // keeps its count; more than the 4 nodes of 8 GPUs hold
		same := slices.Clone(stored.Nodes)
		r, err := SolveResize(s, elasticSet(count), Resize{PodSet: "w", Existing: same}, Options{})
		require.NoError(t, err)
		require.Equal(t, want, r.Assignments)
		require.Same(t, &same[0], &r.Assignments[0], "count %d: the caller's Existing", count)
		listed := []PodSetAssignment{{Node: "y0", NodeID: -1, Count: 6}}
		r, err = SolveResize(s, elasticSet(count), Resize{PodSet: "w", Existing: listed}, Options{})
		require.NoError(t, err)
		require.Equal(t, want, r.Assignments)
		require.NotSame(t, &listed[0], &r.Assignments[0])
		require.NotSame(t, &stored.Nodes[0], &r.Assignments[0])
		if count == 40 {
			require.NotEqual(t, Scheduled, r.Decision.Status)
		}
	}
}

// Existing taken straight from the snapshot (PodSetUsage's own slice, as
// Resize.Existing's doc invites) is never answered back as it is: the
// answer is a copy, so a caller editing it leaves the reservation whole,
// and a later resize with the true pods is accepted (found by the tester
// brk5: the answer was the snapshot's slice).
func TestSolveResize_StoredExistingAnsweredAsACopy(t *testing.T) {
	s, _ := rackNodes(t)
	s = reserved(t, s, []PodSetAssignment{{Node: "y0", Count: 6}})
	key := Key{Namespace: "default", Name: "pg"}
	stored, _ := s.PodSetUsage(key, "w")
	want := slices.Clone(stored.Nodes)
	for _, count := range []int32{6, 40} { // keeps its count; cannot grow
		r, err := SolveResize(s, elasticSet(count), Resize{PodSet: "w", Existing: stored.Nodes}, Options{})
		require.NoError(t, err)
		require.Equal(t, want, r.Assignments)
		require.NotSame(t, &stored.Nodes[0], &r.Assignments[0], "count %d", count)
		r.Assignments[0].Count = 1
		again, _ := s.PodSetUsage(key, "w")
		require.Equal(t, want, again.Nodes, "count %d: the reservation after the answer was edited", count)
		_, err = SolveResize(s, elasticSet(8), Resize{PodSet: "w", Existing: want}, Options{})
		require.NoError(t, err)
	}
}

// An elastic resize never moves an existing pod: growing keeps every
// existing pod where it is and adds the delta inside the required domain
// (a rack) that holds them; shrinking only takes pods away; the count
// after is the new count; and the grown set's usage verifies.
func TestProp_ElasticResizeKeepsExistingPods(t *testing.T) {
	grew, shrank, waited := 0, 0, 0
	prop := func(t *rapid.T) {
		s0 := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s0).Draw(t, "group")
		tmpl := g.Members[0]
		tmpl.Name, tmpl.SchedulingGroup = "", ""
		opts := Options{Generator: rackPlacements(s0)}
		set := func(count int32) *Group {
			return &Group{Namespace: "elastic", Name: "wl", MinCount: count, PodSets: []PodSet{{Name: "w", Count: count, Template: tmpl}}}
		}
		n := int32(rapid.IntRange(1, 6).Draw(t, "n"))
		d, err := Solve(s0, set(n), opts)
		require.NoError(t, err)
		if d.Status != Scheduled {
			return
		}
		us, err := PodSetUsageOf(set(n), d)
		require.NoError(t, err)
		s, err := s0.Apply(Change{Reserve: us})
		require.NoError(t, err)
		existing := us[0].Nodes
		var have int32
		before := map[string]int32{}
		for _, a := range existing {
			before[a.Node], have = a.Count, have+a.Count
		}
		m := int32(rapid.IntRange(1, 10).Draw(t, "m"))
		levels := []string{placementtest.ZoneLabel, placementtest.RackLabel}
		r, err := SolveResize(s, set(m), Resize{PodSet: "w", Existing: existing, Levels: levels}, opts)
		require.NoError(t, err)
		// The reservation's own entries (checked once, shared) and the
		// same pods listed otherwise (checked and copied) resize alike,
		// and the answer is the caller's: writing it leaves the
		// snapshot's reservation as it was.
		listed := slices.Clone(existing)
		slices.Reverse(listed)
		for i := range listed {
			listed[i].NodeID, listed[i].PodSet = -1, ""
		}
		r2, err := SolveResize(s, set(m), Resize{PodSet: "w", Existing: listed, Levels: levels}, opts)
		require.NoError(t, err)
		require.Equal(t, r, r2)
		stored, _ := s.PodSetUsage(Key{"elastic", "wl"}, "w")
		stored.Nodes = slices.Clone(stored.Nodes)
		r3, err := SolveResize(s, set(m), Resize{PodSet: "w", Existing: slices.Clone(existing), Levels: levels}, opts)
		require.NoError(t, err)
		for i := range r3.Assignments {
			r3.Assignments[i].Count = -1
		}
		u, _ := s.PodSetUsage(Key{"elastic", "wl"}, "w")
		require.Equal(t, stored.Nodes, u.Nodes, "the answer shares the reservation")
		after := map[string]int32{}
		var total int32
		for _, a := range r.Assignments {
			after[a.Node], total = a.Count, total+a.Count
		}
		switch {
		case m >= have && r.Decision.Status == Scheduled:
			if m > have {
				grew++
			}
			require.Equal(t, m, total)
			for node, c := range before {
				require.GreaterOrEqual(t, after[node], c, "an existing pod on %s moved", node)
			}
			if m > have {
				require.Equal(t, d.Placement.Name, r.Decision.Placement.Name, "the delta left the required domain")
				in := map[NodeID]bool{}
				for _, id := range d.Placement.Nodes {
					in[id] = true
				}
				for _, a := range r.Decision.PodSetAssignments {
					require.True(t, in[a.NodeID], "node %s outside rack %s", a.Node, d.Placement.Name)
				}
				delta := set(m - have)
				require.NoError(t, Verify(s, delta, r.Decision))
			}
		case m >= have:
			waited++
			require.Equal(t, before, after, "a set that cannot grow keeps its pods")
		default:
			shrank++
			require.Equal(t, Scheduled, r.Decision.Status)
			require.Equal(t, m, total)
			for node, c := range after {
				require.LessOrEqual(t, c, before[node], "a shrink added pods on %s", node)
			}
		}
	}
	// One run of 100 cases misses a branch about one time in eight (on
	// GOARCH=386 draws differ); run again until every branch was checked.
	for round := 0; round < 20 && (grew == 0 || shrank == 0 || waited == 0); round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, grew)
	require.Positive(t, shrank)
	require.Positive(t, waited)
}

// A set whose 6 pods run as bound members of its PodGroup on y0 grows to
// 10: the delta is a gang with the bound members (minCount 10) and lands
// in their rack r2, as with a reservation.
func TestScenario_ElasticGrowsWithBoundMembers(t *testing.T) {
	var nodes []Node
	for _, n := range []string{"x0", "x1", "y0", "y1"} {
		nodes = append(nodes, Node{Name: n, Labels: map[string]string{"rack": "r" + map[byte]string{'x': "1", 'y': "2"}[n[0]]}, Allocatable: ResourceList{ResourceGPU: 8}})
	}
	var pods []Pod
	for i := range 6 {
		pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("w-%d", i), SchedulingGroup: "pg", NodeName: "y0", Requests: ResourceList{ResourceGPU: 1}})
	}
	pods = append(pods, Pod{Namespace: "default", Name: "busy", NodeName: "x0", Requests: ResourceList{ResourceGPU: 4}})
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	tree, err := topology.NewTree(s, []string{"rack"})
	require.NoError(t, err)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	r, err := SolveResize(s, elasticSet(10), Resize{PodSet: "w", Existing: []PodSetAssignment{{Node: "y0", Count: 6}}}, opts)
	require.NoError(t, err)
	require.Equal(t, Scheduled, r.Decision.Status, r.Decision.Message)
	require.Equal(t, 6, r.Decision.Bound)
	require.Equal(t, 10, r.Decision.Required)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 2}, {"w", "y1", 3, 2}}, r.Decision.PodSetAssignments)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 8}, {"w", "y1", 3, 2}}, r.Assignments)
}
