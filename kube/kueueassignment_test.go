package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueuetas "sigs.k8s.io/kueue/pkg/util/tas"

	"github.com/gangsched/gangsched/placement"
)

// One level's values are written as Kueue v0.17's compact encoding writes
// them (tas_assignment.go, fillSingleCompactSliceValues): prefix and
// suffix found over all values, the prefix cut when they overlap in the
// shortest, roots possibly empty.
func TestCompactValues(t *testing.T) {
	ind := func(pre, suf string, roots ...string) kueue.TopologyAssignmentSliceLevelValues {
		return kueue.TopologyAssignmentSliceLevelValues{Individual: &kueue.TopologyAssignmentSliceLevelIndividualValues{Prefix: ptrOrNil(pre), Suffix: ptrOrNil(suf), Roots: roots}}
	}
	for _, tc := range []struct {
		in   []string
		want kueue.TopologyAssignmentSliceLevelValues
	}{
		{[]string{"b1"}, kueue.TopologyAssignmentSliceLevelValues{Universal: ptr("b1")}},
		{[]string{"b1", "b1", "b1"}, kueue.TopologyAssignmentSliceLevelValues{Universal: ptr("b1")}},
		{[]string{"r1", "r2", "r2"}, ind("r", "", "1", "2", "2")},
		{[]string{"rack-1-a", "rack-22-a"}, ind("rack-", "-a", "1", "22")},
		{[]string{"x1", "x11"}, ind("x", "1", "", "1")},
		{[]string{"ababa", "aba"}, ind("", "aba", "ab", "")},
		{[]string{"a", "ab"}, ind("a", "", "", "b")},
		{[]string{"p", "q"}, ind("", "", "p", "q")},
	} {
		require.Equal(t, tc.want, compactValues(tc.in), "%q", tc.in)
	}
}

// A topologyAssignment gangsim writes, at the hostname level or above it,
// is the one Kueue v0.17.0's own encoder (V1Beta2From, run here) writes
// for the same domains: the same bytes in a Workload's status, hostnames
// such as node-1 and node-10 (prefix "node-1", an empty root) included.
func TestProp_TopologyAssignmentAsKueueWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		levels := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{1,3}`), 1, 3, rapid.ID).Draw(t, "levels")
		n := rapid.IntRange(0, 8).Draw(t, "domains")
		value := rapid.OneOf(rapid.StringMatching(`[ab]{0,3}`), rapid.StringMatching(`n-?1[0-9]?`))
		var ours []domainPods
		theirs := &kueuetas.TopologyAssignment{Levels: levels}
		for range n {
			vs := make([]string, len(levels))
			for l := range vs {
				vs[l] = value.Draw(t, "value")
			}
			c := int32(rapid.IntRange(1, 3).Draw(t, "count"))
			ours = append(ours, domainPods{values: vs, count: c})
			theirs.Domains = append(theirs.Domains, kueuetas.TopologyDomainAssignment{Values: vs, Count: c})
		}
		require.Equal(t, kueuetas.V1Beta2From(theirs), writeDomainAssignment(levels, ours))
	})
}

// Pods per host are written as Kueue writes them: a prefix that leaves a
// host an empty root when its name is the others' prefix.
func TestWriteTopologyAssignment_EmptyRoot(t *testing.T) {
	ta := writeTopologyAssignment([]placement.PodSetAssignment{{Node: "node-1", Count: 2}, {Node: "node-10", Count: 1}})
	require.Equal(t, &kueue.TopologyAssignment{Levels: []string{corev1.LabelHostname}, Slices: []kueue.TopologyAssignmentSlice{{
		DomainCount: 2,
		ValuesPerLevel: []kueue.TopologyAssignmentSliceLevelValues{{Individual: &kueue.TopologyAssignmentSliceLevelIndividualValues{
			Prefix: ptr("node-1"), Roots: []string{"", "0"}}}},
		PodCounts: kueue.TopologyAssignmentSlicePodCounts{Individual: []int32{2, 1}},
	}}}, ta)
	pods, err := readTopologyAssignment("w", "ta", ta)
	require.NoError(t, err)
	require.Equal(t, []string{"node-1", "node-10"}, []string{pods[0].Node, pods[1].Node})
}
