package topology_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_PlanCountsMoveWithTheSnapshot: a tree that planned a set on one
// snapshot plans it on a snapshot derived from that one (pods bound and
// removed, or nothing changed) exactly as a tree built for the new
// snapshot does: the counts it kept are moved, not reused stale, also
// when the tree's capacity was moved to a snapshot between the two.
func TestProp_PlanCountsMoveWithTheSnapshot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		c.prefer = false // preferred affinity scores are never kept
		s, tr, g, _, err := c.plan(t, false, c.nodes)
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		req := c.req
		req.PodSet = "w"
		opts := topology.PlanOptions{Balanced: c.balanced, KueueBalanced: c.kueueBalanced}
		pods := c.pods
		next := 0
		// change removes some of the pods and binds a few.
		change := func() placement.Change {
			var ch placement.Change
			var kept []placement.Pod
			for _, p := range pods {
				if rapid.IntRange(0, 2).Draw(t, "remove") == 0 {
					ch.Remove = append(ch.Remove, p.Key())
				} else {
					kept = append(kept, p)
				}
			}
			for range rapid.IntRange(0, 3).Draw(t, "bind") {
				ch.Bind = append(ch.Bind, placement.Pod{Namespace: "x", Name: fmt.Sprintf("b%d", next),
					NodeName: c.nodes[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "on")].Name,
					Requests: placement.ResourceList{cpu: 1000 * rapid.Int64Range(0, 3).Draw(t, "cores")}})
				next++
			}
			pods = append(kept, ch.Bind...)
			return ch
		}
		for range rapid.IntRange(1, 4).Draw(t, "snapshots") {
			if rapid.Bool().Draw(t, "free between") {
				// The tree's capacity moves to a snapshot no plan sees and
				// the kept counts stay on the one before: the next plan
				// moves each from its own snapshot.
				s, err = s.Apply(change())
				require.NoError(t, err)
				for d := range tr.Domains(0) {
					_, _, err := tr.Free(s, d.ID, cpu)
					require.NoError(t, err)
					break
				}
			}
			s, err = s.Apply(change())
			require.NoError(t, err)
			got, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts)
			require.NoError(t, err)
			fresh, err := topology.NewTree(s, planKeys)
			require.NoError(t, err)
			want, err := fresh.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts)
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
	})
}
