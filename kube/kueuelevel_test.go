package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A request whose levels the Topology has but whose slice layers do not
// nest there waits with Kueue v0.17's reason; Kueue's Workload API lets such
// a topologyRequest through.
func TestMissingLevel_SliceLayers(t *testing.T) {
	snap, err := placement.NewSnapshot([]placement.Node{{Name: "h1", Labels: map[string]string{"block": "b1", "rack": "r1", corev1.LabelHostname: "h1"}}}, nil)
	require.NoError(t, err)
	tree, err := topology.NewTree(snap, []string{"block", "rack", corev1.LabelHostname})
	require.NoError(t, err)
	const host = corev1.LabelHostname
	for _, tc := range []struct {
		name string
		r    topology.PodSetRequest
		want string
	}{
		{"nested", topology.PodSetRequest{Required: "block", Slices: []topology.SliceLayer{{Key: "block", Size: 8}, {Key: "rack", Size: 4}, {Key: host, Size: 2}}}, ""},
		{"a level skipped", topology.PodSetRequest{Preferred: "block", Slices: []topology.SliceLayer{{Key: "block", Size: 8}, {Key: host, Size: 2}}}, ""},
		{"no slices", topology.PodSetRequest{Required: "rack"}, ""},
		{"missing inner level first", topology.PodSetRequest{Required: "block", Slices: []topology.SliceLayer{{Key: "block", Size: 8}, {Key: "zone", Size: 3}}},
			"no requested topology level for additional slice layer: zone"},
		{"slice level above the set's", topology.PodSetRequest{Required: "rack", Slices: []topology.SliceLayer{{Key: "block", Size: 8}}},
			"podset slice topology block is above the podset topology rack"},
		{"preferred too", topology.PodSetRequest{Preferred: host, Slices: []topology.SliceLayer{{Key: "rack", Size: 8}}},
			"podset slice topology rack is above the podset topology kubernetes.io/hostname"},
		{"inner not narrower", topology.PodSetRequest{Required: "block", Slices: []topology.SliceLayer{{Key: "rack", Size: 8}, {Key: "block", Size: 4}}},
			"additional slice layer topology block must be at a lower level than rack"},
		{"inner not dividing", topology.PodSetRequest{Required: "block", Slices: []topology.SliceLayer{{Key: "block", Size: 10}, {Key: host, Size: 3}}},
			"additional slice layer size 3 must evenly divide parent layer size 10"},
		{"third against the second", topology.PodSetRequest{Slices: []topology.SliceLayer{{Key: "block", Size: 8}, {Key: "rack", Size: 4}, {Key: host, Size: 3}}},
			"additional slice layer size 3 must evenly divide parent layer size 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, missingLevel(tree, tc.r))
		})
	}
}
