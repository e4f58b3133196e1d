package placement_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// TestApply_SaturatedUsageSumsAsRebuilt: the cluster-wide usage sums the
// default score reads for a placement of every node saturate in
// NewSnapshot; Apply must keep them equal to a rebuilt snapshot's when a
// sum is saturated (removing a pod from a saturated sum) or would overflow
// (binding onto a sum near the top), or Decision.Score differs between a
// snapshot and the same cluster built afresh.
func TestApply_SaturatedUsageSumsAsRebuilt(t *testing.T) {
	big := ResourceList{ResourceCPU: math.MaxInt64, ResourcePods: 110}
	half := int64(math.MaxInt64/2 + 1)
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 1,
		Members: []Pod{{Namespace: "default", Name: "m0", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1}}}}
	for name, tc := range map[string]struct {
		pods []Pod
		ch   Change
	}{
		"remove from a saturated sum": {
			pods: []Pod{
				{Namespace: "x", Name: "a", NodeName: "n0", Requests: ResourceList{ResourceCPU: half}},
				{Namespace: "x", Name: "b", NodeName: "n1", Requests: ResourceList{ResourceCPU: half}},
				{Namespace: "x", Name: "c", NodeName: "n2", Requests: ResourceList{ResourceCPU: half}},
			},
			ch: Change{Remove: []Key{{Namespace: "x", Name: "c"}}},
		},
		"bind past the top": {
			pods: []Pod{
				{Namespace: "x", Name: "a", NodeName: "n0", Requests: ResourceList{ResourceCPU: half}},
			},
			ch: Change{Bind: []Pod{{Namespace: "x", Name: "b", NodeName: "n1", Requests: ResourceList{ResourceCPU: half}}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: big}, {Name: "n1", Allocatable: big}, {Name: "n2", Allocatable: big}}, tc.pods)
			require.NoError(t, err)
			a, err := s.Apply(tc.ch)
			require.NoError(t, err)
			want, err := Solve(rebuilt(t, a), g, Options{})
			require.NoError(t, err)
			got, err := Solve(a, g, Options{})
			require.NoError(t, err)
			require.Equal(t, Scheduled, want.Status)
			require.Equal(t, want.Score, got.Score)
		})
	}
}
