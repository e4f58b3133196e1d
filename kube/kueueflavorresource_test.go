package kube

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_KueueFlavorResource: a flavor-resource is equal to another
// exactly when their names are, gives its names back, and orders by them.
func TestProp_KueueFlavorResource(t *testing.T) {
	name := rapid.SampledFrom([]string{"", "a", "b", "ab", "a\x00b"})
	rapid.Check(t, func(rt *rapid.T) {
		f1, r1 := name.Draw(rt, "f1"), placement.ResourceName(name.Draw(rt, "r1"))
		f2, r2 := name.Draw(rt, "f2"), placement.ResourceName(name.Draw(rt, "r2"))
		x, y := frOf(f1, r1), frOf(f2, r2)
		require.Equal(rt, f1 == f2 && r1 == r2, x == y)
		require.Equal(rt, f1, x.Flavor())
		require.Equal(rt, r1, x.Resource())
		require.Equal(rt, x == y, compareFlavorResources(x, y) == 0)
	})
	require.Equal(t, frOf("", ""), flavorResource{}, "the zero value is the pair of empty names")
}

// TestKueueFlavorResource_Concurrent: callers asking for the same pairs
// at once get one handle per pair (run with -race).
func TestKueueFlavorResource_Concurrent(t *testing.T) {
	var wg sync.WaitGroup
	got := make([][]flavorResource, 8)
	for g := range got {
		wg.Go(func() {
			for i := range 200 {
				got[g] = append(got[g], frOf(fmt.Sprintf("concurrent-%d", i), "cpu"))
			}
		})
	}
	wg.Wait()
	for g := range got {
		require.Equal(t, got[0], got[g])
	}
	for i, fr := range got[0] {
		require.Equal(t, fmt.Sprintf("concurrent-%d", i), fr.Flavor())
	}
}
