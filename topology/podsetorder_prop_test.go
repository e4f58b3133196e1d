package topology_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_InGroupOrder: the order PlanPodSets plans a group's sets in
// comes from the group alone. With PlanOptions.InGroupOrder the answer is
// the same whatever the order of the requests, and planning a group whose
// PodSets are sorted by name gives the answer of name order (InGroupOrder
// off); without it, the order of the group's PodSets does not matter
// either. Sets of up to four, one to six pods each, required, preferred
// or without a level, the two first in a PodSetGroup at times, over
// genPlanCase's clusters.
func TestProp_InGroupOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "world")
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		names := rapid.Permutation([]string{"a", "m", "x", "z"}).Draw(t, "names")[:rapid.IntRange(1, 4).Draw(t, "sets")]
		g := &placement.Group{Namespace: "default", Name: "pg"}
		var reqs []topology.PodSetRequest
		grouped := len(names) > 1 && rapid.Bool().Draw(t, "grouped")
		groupLevel := topology.PodSetRequest{Required: planKeys[rapid.IntRange(0, 2).Draw(t, "group level")]}
		for i, n := range names {
			count := int32(rapid.IntRange(1, 6).Draw(t, "count"))
			g.PodSets = append(g.PodSets, placement.PodSet{Name: n, Count: count,
				Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000 * rapid.Int64Range(1, 2).Draw(t, "cores")}}})
			g.MinCount += count
			r := topology.PodSetRequest{PodSet: n}
			switch {
			case grouped && i < 2:
				r.Required, r.Group = groupLevel.Required, "g"
			default:
				switch rapid.IntRange(0, 2).Draw(t, "kind") {
				case 0:
					r.Required = planKeys[rapid.IntRange(0, 2).Draw(t, "level")]
				case 1:
					r.Preferred = planKeys[rapid.IntRange(0, 2).Draw(t, "level")]
				}
			}
			reqs = append(reqs, r)
		}
		opts := topology.KueueProfile.Options()
		if rapid.Bool().Draw(t, "balanced") {
			opts = topology.KueueBalancedProfile.Options()
		}
		plan := func(g *placement.Group, reqs []topology.PodSetRequest, inOrder bool) topology.Plan {
			o := opts
			o.InGroupOrder = inOrder
			p, err := tr.PlanPodSets(s, g, reqs, o)
			if errors.Is(err, topology.ErrNoDomain) {
				t.Skip("a level no node carries") // an error naming the request's index, which moves
			}
			require.NoError(t, err)
			require.NoError(t, placement.Verify(s, g, p.Decision))
			return p
		}
		want := plan(g, reqs, true)
		shuffled := rapid.Permutation(reqs).Draw(t, "requests")
		require.Equal(t, want, plan(g, shuffled, true), "requests reordered")

		sorted := *g
		sorted.PodSets = slices.Clone(g.PodSets)
		slices.SortFunc(sorted.PodSets, func(a, b placement.PodSet) int { return strings.Compare(a.Name, b.Name) })
		byName := plan(g, reqs, false)
		require.Equal(t, byName, plan(&sorted, reqs, true), "group sorted by name")
		require.Equal(t, byName, plan(&sorted, shuffled, false), "name order, group reordered")
		if want.Decision.Status == placement.Scheduled {
			for i := 1; i < len(want.PodSets); i++ {
				require.Less(t, want.PodSets[i-1].Name, want.PodSets[i].Name, fmt.Sprint("answer in name order: ", want.PodSets))
			}
		}
	})
}
