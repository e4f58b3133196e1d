package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// FuzzPlanPodSets: any request — unknown or empty keys, sizes of any
// sign, layers in any order, counts of any size — gets a field error or a
// plan that verifies, never a panic.
func FuzzPlanPodSets(f *testing.F) {
	f.Add(blockKey, "", false, rackKey, int32(4), "", int32(0), int32(8), "")
	f.Add("", rackKey, false, hostKey, int32(2), "", int32(0), int32(6), "g")
	f.Add("", "", true, blockKey, int32(8), rackKey, int32(3), int32(16), "")
	f.Add("nope", "", false, rackKey, int32(-1), rackKey, int32(1), int32(0), "")
	f.Fuzz(func(t *testing.T, required, preferred string, unconstrained bool, k1 string, s1 int32, k2 string, s2 int32, count int32, group string) {
		s := snapshot(t, brh([][][]int64{{{3, 3}, {2}}, {{4}}}))
		tr := tree(t, s, blockKey, rackKey, hostKey)
		g := podSetGroup("g", max(min(count, 64), 1))
		req := topology.PodSetRequest{PodSet: "workers", Required: required, Preferred: preferred, Unconstrained: unconstrained, Group: group}
		for _, l := range []topology.SliceLayer{{Key: k1, Size: s1}, {Key: k2, Size: s2}} {
			if l.Key != "" || l.Size != 0 {
				req.Slices = append(req.Slices, l)
			}
		}
		p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{Balanced: count%2 == 0})
		if err != nil {
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe), "not a field error: %v", err)
			return
		}
		require.NoError(t, placement.Verify(s, g, p.Decision))
	})
}
