package placement

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestProp_CheckPlacementAsNodeByNode holds checkPlacement, which checks
// only the ends of an ascending placement, to the node-by-node check it
// replaced: the same verdict and the same error (the first bad node) for
// placements near ascending — sorted runs with a node repeated, moved,
// negative or past the snapshot — and empty ones.
func TestProp_CheckPlacementAsNodeByNode(t *testing.T) {
	bad := 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "nodes")
		var nodes []Node
		for i := range n {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Allocatable: ResourceList{ResourcePods: 110}})
		}
		s, err := NewSnapshot(nodes, nil)
		require.NoError(t, err)
		var ids []NodeID
		for id := range n {
			if rapid.Bool().Draw(t, "in") {
				ids = append(ids, NodeID(id))
			}
		}
		for range rapid.IntRange(0, 2).Draw(t, "faults") {
			at := rapid.IntRange(0, len(ids)).Draw(t, "at")
			id := NodeID(rapid.IntRange(-2, n+1).Draw(t, "id"))
			ids = append(ids[:at], append([]NodeID{id}, ids[at:]...)...)
		}
		p := &Placement{Name: "p", Nodes: ids}
		got, want := checkPlacement(s, p), nodeByNode(s, p)
		if want != nil {
			bad++
			require.EqualError(t, got, want.Error())
		} else {
			require.NoError(t, got)
		}
	})
	require.Positive(t, bad, "no bad placement was drawn")
}

// nodeByNode is checkPlacement as it was: every node's range and order.
func nodeByNode(s *Snapshot, p *Placement) error {
	for i, id := range p.Nodes {
		if id < 0 || int(id) >= s.NumNodes() {
			return Errorf(ErrInvalid, fmt.Sprintf("placement %q", p.Name), fmt.Sprintf("nodes[%d]", i), "node ID %d is not in 0..%d", id, s.NumNodes()-1)
		}
		if i > 0 && id <= p.Nodes[i-1] {
			return Errorf(ErrInvalid, fmt.Sprintf("placement %q", p.Name), fmt.Sprintf("nodes[%d]", i), "node ID %d does not follow %d: IDs must ascend without duplicates", id, p.Nodes[i-1])
		}
	}
	return nil
}
