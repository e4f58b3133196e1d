package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

func TestKueueTreeLevels(t *testing.T) {
	require.Equal(t, []string{"block", "rack", corev1.LabelHostname}, KueueTreeLevels([]string{"block", "rack"}))
	require.Equal(t, []string{"rack", corev1.LabelHostname}, KueueTreeLevels([]string{"rack", corev1.LabelHostname}))
	require.Empty(t, KueueTreeLevels(nil))
	backing := []string{"block", "rack", "spare"}
	_ = KueueTreeLevels(backing[:2])
	require.Equal(t, "spare", backing[2], "the caller's array is not written")
}

// An assignment above the hostname level reads back to its domains (a
// universal value shared by several domains included) and is written
// again as it was.
func TestDomainAssignment_RoundTrip(t *testing.T) {
	ta := &kueue.TopologyAssignment{Levels: []string{"block", "rack"}, Slices: []kueue.TopologyAssignmentSlice{{
		DomainCount: 2,
		ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{{Universal: ptr("b1")},
			{Individual: &kueue.TopologyAssignmentSliceLevelIndividualValues{Prefix: ptr("r"), Roots: []string{"1", "2"}}}},
		PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{3, 1}},
	}}}
	set, total, err := readDomainAssignment("w", "ta", ta)
	require.NoError(t, err)
	require.Equal(t, int64(4), total)
	require.Equal(t, []domainPods{{values: []string{"b1", "r1"}, count: 3}, {values: []string{"b1", "r2"}, count: 1}}, set.domains)
	require.Equal(t, ta, writeDomainAssignment(set.levels, set.domains))
	require.Equal(t, &kueue.TopologyAssignment{Levels: []string{"block"}, Slices: []kueue.TopologyAssignmentSlice{}}, writeDomainAssignment([]string{"block"}, nil))
}
