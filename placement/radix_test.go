package placement

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_SortByBits checks sortByBits against a stable sort on the same
// bits, on both sides of its switch to radix passes, with widths that end
// inside a byte and bits outside the field that must not count.
func TestProp_SortByBits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(0, 40).Draw(t, "lo")
		width := rapid.IntRange(1, 64-lo).Draw(t, "width")
		n := rapid.SampledFrom([]int{0, 1, 7, 255, 256, 300, 700}).Draw(t, "n")
		keys := rapid.SliceOfN(rapid.Uint64(), n, n).Draw(t, "keys")
		if rapid.Bool().Draw(t, "fewValues") { // many equal fields: stability shows
			for i := range keys {
				keys[i] = keys[i]&^(0xffff<<lo) | (keys[i]%5)<<lo
			}
		}
		field := func(k uint64) uint64 {
			k >>= lo
			if width < 64 {
				k &= 1<<width - 1
			}
			return k
		}
		want := slices.Clone(keys)
		slices.SortStableFunc(want, func(x, y uint64) int {
			switch fx, fy := field(x), field(y); {
			case fx < fy:
				return -1
			case fx > fy:
				return 1
			}
			return 0
		})
		sortByBits(keys, lo, width)
		if !slices.Equal(keys, want) {
			t.Fatalf("sortByBits(lo=%d, width=%d) = %x, want %x", lo, width, keys, want)
		}
	})
}
