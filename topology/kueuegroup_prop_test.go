package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_KueueLeaderAware: a PodSetGroup of a one-pod leader and
// workers, required or preferred at a level, planned with the Kueue
// profile (KueueLeaderAware) verifies — no node past its room with the
// leader beside the workers; when Scheduled it places the leader's one
// pod and every worker, a required group inside one domain of its level;
// otherwise it says why. The answer does not depend on the order the
// nodes are listed in. Both outcomes occur.
func TestProp_KueueLeaderAware(t *testing.T) {
	seen := map[placement.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		workers := int32(rapid.IntRange(2, 12).Draw(t, "workers"))
		g := &placement.Group{Namespace: "default", Name: "lws", MinCount: workers + 1, PodSets: []placement.PodSet{
			{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000 * rapid.Int64Range(1, 3).Draw(t, "leader cores")}}},
			{Name: "workers", Count: workers, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
		}}
		level := rapid.IntRange(0, 2).Draw(t, "level")
		required := rapid.Bool().Draw(t, "required")
		r := topology.PodSetRequest{Preferred: planKeys[level], Group: "lws"}
		if required {
			r = topology.PodSetRequest{Required: planKeys[level], Group: "lws"}
		}
		lr, wr := r, r
		lr.PodSet, wr.PodSet = "leader", "workers"
		planOf := func(nodes []placement.Node) (*placement.Snapshot, *topology.Tree, topology.Plan, error) {
			s, err := placement.NewSnapshot(nodes, c.pods)
			require.NoError(t, err)
			tr, err := topology.NewTree(s, planKeys)
			require.NoError(t, err)
			p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{lr, wr}, topology.KueueProfile.Options())
			return s, tr, p, err
		}
		s, tr, p, err := planOf(c.nodes)
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		d := p.Decision
		seen[d.Status]++
		// Whole sets, a required group in one domain of its level.
		require.NoError(t, tr.VerifyPlan(s, g, p, []topology.PodSetRequest{lr, wr}))

		perm := rapid.Permutation(c.nodes).Draw(t, "order")
		_, _, q, err := planOf(perm)
		require.NoError(t, err)
		require.Equal(t, d.Status, q.Decision.Status)
		require.Equal(t, d.Message, q.Decision.Message)
		require.Equal(t, byNode(d), byNode(q.Decision))

		if d.Status != placement.Scheduled {
			require.NotEmpty(t, d.Message)
		}
	})
	require.Positive(t, seen[placement.Scheduled])
	require.Positive(t, seen[placement.Unschedulable])
}

// byNode maps each set's nodes to their pods, for comparing decisions
// made over nodes listed in another order.
func byNode(d placement.Decision) map[string]map[string]int32 {
	out := map[string]map[string]int32{}
	for _, a := range d.PodSetAssignments {
		if out[a.PodSet] == nil {
			out[a.PodSet] = map[string]int32{}
		}
		out[a.PodSet][a.Node] += a.Count
	}
	return out
}
