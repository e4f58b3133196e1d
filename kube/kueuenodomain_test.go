package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/topology"
)

// The level Kueue v0.17 searches first, and names when its topology
// snapshot is empty: slices without a required or preferred level are a
// slice-only request, searched from the widest level, whether or not the
// set is also marked unconstrained (levelKey tests slice-only first).
func TestKueueSearchedLevel(t *testing.T) {
	keys := []string{"block", "rack", "host"}
	slices := []topology.SliceLayer{{Key: "rack", Size: 2}}
	for _, tc := range []struct {
		name string
		r    topology.PodSetRequest
		want string
	}{
		{"required", topology.PodSetRequest{Required: "rack", Slices: slices}, "rack"},
		{"preferred", topology.PodSetRequest{Preferred: "block"}, "block"},
		{"slices alone", topology.PodSetRequest{Slices: slices}, "block"},
		{"unconstrained with slices", topology.PodSetRequest{Unconstrained: true, Slices: slices}, "block"},
		{"unconstrained", topology.PodSetRequest{Unconstrained: true}, "host"},
		{"no request", topology.PodSetRequest{}, "host"},
	} {
		require.Equal(t, tc.want, kueueSearchedLevel(tc.r, keys), tc.name)
	}
}
