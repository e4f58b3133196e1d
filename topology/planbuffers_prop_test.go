package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/topology"
)

// TestProp_PlanBuffersPlanAsWithout: one PlanBuffers kept over a run of
// plans — pod sets and members, sliced, balanced or not, placed or not,
// larger and smaller than the last — gives each the plan made without
// it: nothing of an earlier plan shows through the reused memory.
func TestProp_PlanBuffersPlanAsWithout(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var buf topology.PlanBuffers
		for range rapid.IntRange(1, 4).Draw(t, "plans") {
			c := genPlanCase().Draw(t, "case")
			members := rapid.Bool().Draw(t, "members")
			s, tr, g, want, err := c.plan(t, members, c.nodes)
			if errors.Is(err, topology.ErrNoDomain) {
				continue
			}
			require.NoError(t, err)
			req := c.req
			if !members {
				req.PodSet = "w"
			}
			got, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{Balanced: c.balanced, KueueBalanced: c.kueueBalanced, NodeAffinityPreferred: c.prefer, Buffers: &buf})
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
	})
}
