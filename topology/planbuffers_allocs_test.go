package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/topology"
)

// TestPlanBuffers_BalancedAllocatesLittle: a balanced plan of one set with
// its PlanBuffers kept allocates only what a plan cannot keep — the set's
// request (its rows, layers and the requests' slice), the planned sets'
// list and the message — not the scopes searched, the chosen domains or
// the list of sets planned together, which the tree keeps between plans.
func TestPlanBuffers_BalancedAllocatesLittle(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates")
	}
	s := snapshot(t, brh(uniform(2, 4, 4, 5)))
	g := podSetGroup("bal", 24)
	req := topology.PodSetRequest{PodSet: "workers", Preferred: rackKey}
	tr := tree(t, s, blockKey, rackKey, hostKey)
	var buf topology.PlanBuffers
	opts := topology.PlanOptions{Balanced: true, Buffers: &buf}
	want, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{Balanced: true})
	require.NoError(t, err)
	got, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Len(t, got.PodSets[0].Ranks, 6, "balanced over two racks of a block: three hosts each")
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts); err != nil {
			t.Fatal(err)
		}
	})
	require.LessOrEqual(t, allocs, 6.0)
}
