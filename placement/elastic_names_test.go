package placement_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// A resize compares its Existing with the reservation by the names'
// contents, wherever they live: names in memory of their own still list
// the reservation (the answer is the caller's own Existing, as for names
// shared with it), and a name that starts at the same memory but is
// shorter ("y" of "y0", a set "w" of the caller's "wx") is another name.
func TestSolveResize_ExistingNamesByContent(t *testing.T) {
	s, _ := rackNodes(t)
	rs := reserved(t, s, []PodSetAssignment{{Node: "y0", Count: 6}})
	stored, ok := rs.PodSetUsage(Key{"default", "pg"}, "w")
	require.True(t, ok)
	own := []PodSetAssignment{{PodSet: strings.Clone("w"), Node: strings.Clone("y0"), NodeID: stored.Nodes[0].NodeID, Count: 6}}
	r, err := SolveResize(rs, elasticSet(6), Resize{PodSet: "w", Existing: own}, Options{})
	require.NoError(t, err)
	require.Equal(t, stored.Nodes, r.Assignments)
	require.Same(t, &own[0], &r.Assignments[0], "names in their own memory list the reservation")

	prefix := []PodSetAssignment{{PodSet: "w", Node: stored.Nodes[0].Node[:1], NodeID: stored.Nodes[0].NodeID, Count: 6}}
	_, err = SolveResize(rs, elasticSet(6), Resize{PodSet: "w", Existing: prefix}, Options{})
	require.EqualError(t, err, `pod set "w" of PodGroup "default/pg": resize.existing[0].node: node "y" is not in the snapshot`)

	wx := strings.Clone("wx")
	g := elasticSet(6)
	g.PodSets[0].Name = wx[:1] // "w", at the memory of the caller's "wx"
	longer := []PodSetAssignment{{PodSet: wx, Node: "y0", NodeID: stored.Nodes[0].NodeID, Count: 6}}
	_, err = SolveResize(rs, g, Resize{PodSet: "w", Existing: longer}, Options{})
	require.EqualError(t, err, `pod set "w" of PodGroup "default/pg": resize.existing[0].podSet: is "wx", another set`)
}
