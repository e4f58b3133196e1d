package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/topology"
)

// Unconstrained beside slices is slices alone, as Kueue v0.17 takes it:
// its Job webhook accepts podset-unconstrained-topology beside the slice
// annotations, and its TAS reads any request with slices and neither a
// required nor a preferred level as a slice-only one (searched from the
// widest level, least free first). So the two requests plan alike, under
// every profile, and neither is an error.
func TestPlanPodSets_UnconstrainedWithSlicesIsSlicesAlone(t *testing.T) {
	caps := uniform(2, 2, 2, 4)
	caps[1][0] = []int64{4, 2} // b2-r1 holds 6 pods: one 4-pod slice
	for _, tc := range []struct {
		name   string
		count  int32
		slices []topology.SliceLayer
		want   map[string]int32
	}{
		// Slices alone search from the widest level: block b2 (three
		// 4-pod slices, b1 four) is the tightest that holds the set, and
		// in it rack r1, which holds one slice.
		{"one slice", 4, []topology.SliceLayer{{Key: rackKey, Size: 4}},
			map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2}},
		// Two 8-pod slices: only b1 holds both.
		{"two slices in one block", 16, []topology.SliceLayer{{Key: rackKey, Size: 8}},
			map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4, "b1-r2-h1": 4, "b1-r2-h2": 4}},
		{"two layers", 8, []topology.SliceLayer{{Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}},
			map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2, "b2-r2-h1": 4}},
	} {
		for _, prof := range []topology.Profile{topology.GangschedProfile, topology.KueueProfile, topology.KueueBalancedProfile} {
			t.Run(tc.name+"/"+prof.String(), func(t *testing.T) {
				s := snapshot(t, brh(caps))
				g := podSetGroup("sl", tc.count)
				alone := plan(t, s, g, prof.Options(), topology.PodSetRequest{PodSet: "workers", Slices: tc.slices})
				unc := plan(t, s, g, prof.Options(), topology.PodSetRequest{PodSet: "workers", Unconstrained: true, Slices: tc.slices})
				require.Equal(t, alone, unc)
				require.Equal(t, tc.want, counts(unc.Decision, "workers"), unc.Decision.Message)
			})
		}
	}
}
