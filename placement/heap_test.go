package placement

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_HeapPopsInOrder: popping everything yields the sorted slice,
// also after the top is made later and pushed down.
func TestProp_HeapPopsInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(rapid.IntRange(0, 20)).Draw(t, "xs")
		before := func(a, b *int) bool { return *a < *b }
		h := slices.Clone(xs)
		heapInit(h, before)
		if len(h) > 0 && rapid.Bool().Draw(t, "later") {
			i := slices.Index(xs, h[0])
			h[0] += rapid.IntRange(0, 10).Draw(t, "by")
			xs[i] = h[0]
			heapDown(h, 0, before)
		}
		var got []int
		for len(h) > 0 {
			var x int
			x, h = heapPop(h, before)
			got = append(got, x)
		}
		slices.Sort(xs)
		if !slices.Equal(got, xs) {
			t.Fatalf("popped %v, want %v", got, xs)
		}
	})
}
