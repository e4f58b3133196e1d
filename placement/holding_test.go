package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
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
	n.asked = nodes
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
