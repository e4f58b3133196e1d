package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_KueueAmountsOf: a usage's list holds each of its
// flavor-resources once with its quantity, in compareFlavorResources'
// order, and a candidate's list is its usage's.
func TestProp_KueueAmountsOf(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		u := rapid.MapOf(rapid.Custom(func(rt *rapid.T) flavorResource {
			return frOf(rapid.SampledFrom([]string{"a", "b", "ab"}).Draw(rt, "flavor"), rapid.SampledFrom([]placement.ResourceName{"cpu", "memory"}).Draw(rt, "resource"))
		}), rapid.Int64Range(-3, 3)).Draw(rt, "usage")
		list := (&preemptCand{usage: u}).amountList()
		require.Len(rt, list, len(u))
		for k, x := range list {
			require.Equal(rt, u[x.fr], x.v, "%v", x.fr)
			if k > 0 {
				require.Negative(rt, compareFlavorResources(list[k-1].fr, x.fr), "out of order")
			}
		}
	})
}
