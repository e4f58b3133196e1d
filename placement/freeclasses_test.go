package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement/placementtest"

	. "github.com/gangsched/gangsched/placement"
)

// TestProp_FreeRowsCountEveryNode: FreeRows gives the same rows, as many
// times, as AppendFree node by node — on a snapshot and on one derived
// from it with Apply after a solve built its classes.
func TestProp_FreeRowsCountEveryNode(t *testing.T) {
	shared := 0
	rapid.Check(t, func(t *rapid.T) {
		c := placementtest.Clusters().Draw(t, "cluster")
		for i := range rapid.IntRange(0, 3).Draw(t, "copies") { // identical empty nodes
			n := c.Nodes[0]
			n.Name = fmt.Sprintf("copy%d", i)
			c.Nodes = append(c.Nodes, n)
		}
		s, err := c.Snapshot()
		require.NoError(t, err)
		if rapid.Bool().Draw(t, "solveFirst") {
			_, err := Solve(s, placementtest.Groups(s).Draw(t, "group"), Options{})
			require.NoError(t, err)
		}
		var remove []Key
		for p := range s.Pods() {
			if rapid.Bool().Draw(t, "remove "+p.Key().String()) {
				remove = append(remove, p.Key())
			}
		}
		if len(remove) > 0 {
			s, err = s.Apply(Change{Remove: remove})
			require.NoError(t, err)
		}
		want := map[string]int{}
		for id := range s.NumNodes() {
			want[fmt.Sprint(s.AppendFree(nil, NodeID(id)))]++
		}
		got := map[string]int{}
		rows := 0
		for row, n := range s.FreeRows() {
			require.Positive(t, n)
			got[fmt.Sprint(row)] += n
			rows++
		}
		require.Equal(t, want, got)
		if rows < s.NumNodes() {
			shared++
		}
	})
	require.Positive(t, shared, "no snapshot had two nodes in one class")
}
