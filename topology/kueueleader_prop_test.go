package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_KueueLeaderFilters: under the Kueue profiles a PodSetGroup of
// two sets, each with or without a node selector and a toleration, is
// planned by its workers' filters alone, as Kueue v0.17 plans it: the
// plan is the plan of the group whose leader (topology.KueueLeader)
// carries its workers' filters, and placement.Verify accepts it for that
// group. Swapping the two sets' places in g.PodSets swaps the leader
// when they have as many pods, and only then. Scheduled and
// Unschedulable both occur, and so does a leader on a host its own
// filters refuse.
func TestProp_KueueLeaderFilters(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "world")
		for i := range c.nodes {
			if rapid.Bool().Draw(t, "pool w") {
				c.nodes[i].Labels["pool"] = "w"
			}
		}
		set := func(name string) placement.PodSet {
			ps := placement.PodSet{Name: name, Count: int32(rapid.IntRange(1, 3).Draw(t, "count")),
				Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000 * rapid.Int64Range(1, 2).Draw(t, "cores")}}}
			if rapid.Bool().Draw(t, "selector") {
				ps.Template.NodeSelector = map[string]string{"pool": "w"}
			}
			if rapid.Bool().Draw(t, "toleration") {
				ps.Template.Tolerations = []placement.Toleration{{Key: "dedicated", Operator: placement.TolerationOpExists}}
			}
			return ps
		}
		g := &placement.Group{Namespace: "default", Name: "lws", PodSets: []placement.PodSet{set("a"), set("b")}}
		g.MinCount = g.PodSets[0].Count + g.PodSets[1].Count
		r := topology.PodSetRequest{Group: "lws"}
		if key := planKeys[rapid.IntRange(0, 2).Draw(t, "level")]; rapid.Bool().Draw(t, "required") {
			r.Required = key
		} else {
			r.Preferred = key
		}
		ra, rb := r, r
		ra.PodSet, rb.PodSet = "a", "b"
		reqs := []topology.PodSetRequest{ra, rb}
		opts := topology.KueueProfile.Options()
		if rapid.Bool().Draw(t, "balanced") {
			opts = topology.KueueBalancedProfile.Options()
		}
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		plan := func(g *placement.Group) topology.Plan {
			p, err := tr.PlanPodSets(s, g, reqs, opts)
			if errors.Is(err, topology.ErrNoDomain) {
				t.Skip("a level no node carries")
			}
			require.NoError(t, err)
			return p
		}
		p := plan(g)
		lead, work, ok := topology.KueueLeader(g, reqs, "lws")
		require.True(t, ok)
		sub := *g
		sub.PodSets = []placement.PodSet{g.PodSets[0], g.PodSets[1]}
		l, w := &sub.PodSets[0], &sub.PodSets[1]
		if l.Name != lead {
			l, w = w, l
		}
		require.Equal(t, work, w.Name)
		l.Template.NodeSelector, l.Template.Tolerations = w.Template.NodeSelector, w.Template.Tolerations
		require.Equal(t, p, plan(&sub), "the leader's own filters are never read")
		require.NoError(t, placement.Verify(s, &sub, p.Decision))
		seen[p.Decision.Status.String()]++
		if placement.Verify(s, g, p.Decision) != nil {
			seen["refused"]++
		}

		swapped := *g
		swapped.PodSets = []placement.PodSet{g.PodSets[1], g.PodSets[0]}
		sl, _, _ := topology.KueueLeader(&swapped, reqs, "lws")
		if g.PodSets[0].Count == g.PodSets[1].Count {
			require.NotEqual(t, lead, sl, "of equal counts the second leads")
		} else {
			require.Equal(t, lead, sl, "the set of fewer pods leads")
		}
	})
	require.Positive(t, seen[placement.Scheduled.String()])
	require.Positive(t, seen[placement.Unschedulable.String()])
	require.Positive(t, seen["refused"])
}
