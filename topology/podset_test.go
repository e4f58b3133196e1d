package topology_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_PodSetsEqualExpandedMembers: with the tree's generator and
// scorer, a pod set is decided exactly as the same pods listed as members
// (status, domain, score, steps, pods per node), and the decision verifies.
func TestProp_PodSetsEqualExpandedMembers(t *testing.T) {
	outcomes := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(true, false).Draw(t, "case")
		count := len(c.group.Members) * rapid.IntRange(1, 6).Draw(t, "scale")
		tmpl := c.group.Members[0]
		expanded, sets := c.group, c.group
		expanded.Members = nil
		for i := range count {
			p := tmpl
			p.Name = fmt.Sprintf("w-%02d", i)
			expanded.Members = append(expanded.Members, p)
		}
		sets.Members = nil
		sets.PodSets = []placement.PodSet{{Name: "w", Count: int32(count), Template: tmpl}}
		bound := 0
		for _, p := range c.pods {
			if p.SchedulingGroup == c.group.Name {
				bound++
			}
		}
		expanded.MinCount = int32(rapid.IntRange(1, bound+count).Draw(t, "min"))
		sets.MinCount = expanded.MinCount

		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, propKeys)
		require.NoError(t, err)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		if err != nil {
			return // a key no node carries: rejected before any group is read
		}
		want, werr := placement.Solve(s, &expanded, opts)
		got, gerr := placement.Solve(s, &sets, opts)
		require.Equal(t, werr == nil, gerr == nil, "members: %v, pod set: %v", werr, gerr)
		if werr != nil {
			return
		}
		require.NoError(t, placement.Verify(s, &sets, got))
		require.Equal(t, want.Status, got.Status, "members: %s\npod set: %s", want.Message, got.Message)
		require.Equal(t, want.Placement.Name, got.Placement.Name)
		require.Equal(t, want.Score, got.Score)
		require.Equal(t, want.MostFit, got.MostFit)
		require.Equal(t, want.Steps, got.Steps)
		perNode := map[string]int32{}
		for _, a := range want.Assignments {
			perNode[a.Node]++
		}
		for _, a := range got.PodSetAssignments {
			perNode[a.Node] -= a.Count
		}
		for node, n := range perNode {
			require.Zero(t, n, "node %s: members minus pod set", node)
		}
		outcomes[got.Status == placement.Scheduled]++
	})
	// Both answers were compared.
	require.Positive(t, outcomes[true])
	require.Positive(t, outcomes[false])
}
