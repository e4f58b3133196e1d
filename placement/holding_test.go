package placement_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// narrower answers GenerateHolding with its own placements (ok set by
// narrowed) and records the nodes it was asked to hold.
type narrower struct {
	racks    []Placement // r1 = x0, x1 (IDs 0, 1); r2 = y0, y1 (2, 3)
	narrowed bool
	asked    []NodeID
}

func (n *narrower) Generate(*Snapshot, GroupView) ([]Placement, error) { return n.racks, nil }

func (n *narrower) GenerateHolding(_ *Snapshot, _ GroupView, nodes []NodeID) ([]Placement, bool, error) {
	n.asked = slices.Clone(nodes) // lent for the call only
	if n.narrowed {
		return n.racks[:1], true, nil // r1 alone, though it misses y0: taken as is
	}
	return n.racks, false, nil
}

// SolveResize asks a PlacementNarrower for the placements holding the
// existing pods' nodes and uses a narrowed answer as it is; an answer
// that is not narrowed is filtered to the racks holding them.
func TestSolveResize_AsksANarrower(t *testing.T) {
	s, _ := rackNodes(t)
	existing := []PodSetAssignment{{PodSet: "w", Node: "y0", Count: 6}}
	s = reserved(t, s, existing)
	for _, tc := range []struct {
		narrowed bool
		rack     string
		delta    []PodSetAssignment
	}{
		{true, "r1", []PodSetAssignment{{"w", "x0", 0, 4}}},
		{false, "r2", []PodSetAssignment{{"w", "y0", 2, 2}, {"w", "y1", 3, 2}}},
	} {
		gen := &narrower{racks: []Placement{{Name: "r1", Nodes: []NodeID{0, 1}}, {Name: "r2", Nodes: []NodeID{2, 3}}}, narrowed: tc.narrowed}
		r, err := SolveResize(s, elasticSet(10), Resize{PodSet: "w", Existing: existing}, Options{Generator: gen})
		require.NoError(t, err)
		require.Equal(t, []NodeID{2}, gen.asked)
		require.Equal(t, Scheduled, r.Decision.Status, r.Decision.Message)
		require.Equal(t, tc.rack, r.Decision.Placement.Name)
		require.Equal(t, tc.delta, r.Decision.PodSetAssignments)
	}
}

// The nodes SolveResize lends a narrower are each resize's own existing
// nodes, whatever the resizes before it lent (a longer list, then a
// shorter one, then the longer again), and are the caller's again once
// the call returns: what the narrower saw stays as it saw it only in its
// copy.
func TestSolveResize_LendsEachResizeItsNodes(t *testing.T) {
	s, _ := rackNodes(t)
	s, err := s.Apply(Change{Reserve: []PodSetUsage{
		{Group: Key{"default", "pg"}, PodSet: "w", Requests: ResourceList{ResourceGPU: 1}, Nodes: []PodSetAssignment{{Node: "y0", Count: 2}, {Node: "y1", Count: 2}}},
		{Group: Key{"default", "small"}, PodSet: "w", Requests: ResourceList{ResourceGPU: 1}, Nodes: []PodSetAssignment{{Node: "x1", Count: 1}}},
	}})
	require.NoError(t, err)
	small := elasticSet(2)
	small.Name = "small"
	for _, tc := range []struct {
		g     *Group
		nodes []NodeID
	}{{elasticSet(6), []NodeID{2, 3}}, {small, []NodeID{1}}, {elasticSet(6), []NodeID{2, 3}}, {small, []NodeID{1}}} {
		u, ok := s.PodSetUsage(tc.g.Key(), "w")
		require.True(t, ok)
		gen := &narrower{racks: []Placement{{Name: "r1", Nodes: []NodeID{0, 1}}, {Name: "r2", Nodes: []NodeID{2, 3}}}, narrowed: true}
		_, err := SolveResize(s, tc.g, Resize{PodSet: "w", Existing: slices.Clone(u.Nodes)}, Options{Generator: gen})
		require.NoError(t, err)
		require.Equal(t, tc.nodes, gen.asked, "group %s", tc.g.Name)
	}
}

// everyNode proposes one placement of every node, as Solve does without a
// generator, and is not a PlacementNarrower: SolveResize filters its answer.
type everyNode struct{}

func (everyNode) Generate(s *Snapshot, _ GroupView) ([]Placement, error) {
	nodes := make([]NodeID, s.NumNodes())
	for i := range nodes {
		nodes[i] = NodeID(i)
	}
	return []Placement{{Nodes: nodes}}, nil
}

// Without a generator SolveResize hands the delta to Solve as it is (the
// one placement of every node holds the existing pods) rather than
// through its holding generator: it resizes exactly as with a generator
// proposing every node, which goes the general way (filtered, Solve's
// memory its own because a hook saw the group).
func TestProp_ResizeWithoutGeneratorAsEveryNode(t *testing.T) {
	grew := 0
	rapid.Check(t, func(t *rapid.T) {
		s0 := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s0).Draw(t, "group")
		tmpl := g.Members[0]
		tmpl.Name, tmpl.SchedulingGroup = "", ""
		set := func(count int32) *Group {
			return &Group{Namespace: "elastic", Name: "wl", MinCount: count, PodSets: []PodSet{{Name: "w", Count: count, Template: tmpl}}}
		}
		n := int32(rapid.IntRange(1, 6).Draw(t, "n"))
		d, err := Solve(s0, set(n), Options{})
		require.NoError(t, err)
		if d.Status != Scheduled {
			return
		}
		us, err := PodSetUsageOf(set(n), d)
		require.NoError(t, err)
		s, err := s0.Apply(Change{Reserve: us})
		require.NoError(t, err)
		m := n + int32(rapid.IntRange(1, 10).Draw(t, "more"))
		r := Resize{PodSet: "w", Existing: us[0].Nodes}
		got, err := SolveResize(s, set(m), r, Options{})
		require.NoError(t, err)
		want, err := SolveResize(s, set(m), r, Options{Generator: everyNode{}})
		require.NoError(t, err)
		require.Equal(t, want, got)
		if got.Decision.Status == Scheduled {
			grew++
		}
	})
	require.Positive(t, grew)
}
