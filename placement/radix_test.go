package placement

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_SortByBits checks sortByBits on both sides of its switch to
// radix passes, with fields that end inside a byte and bits below the
// field that must not count: the fields come out in ascending order and
// the keys are the same keys.
func TestProp_SortByBits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(0, 40).Draw(t, "lo")
		width := rapid.IntRange(1, 64-lo).Draw(t, "width")
		n := rapid.SampledFrom([]int{0, 1, 7, 255, 256, 300, 700}).Draw(t, "n")
		keys := rapid.SliceOfN(rapid.Uint64(), n, n).Draw(t, "keys")
		few := rapid.Bool().Draw(t, "fewValues") // many equal fields
		for i := range keys {
			if few {
				keys[i] = keys[i]&(1<<lo-1) | (keys[i]%5)<<lo
			}
			if lo+width < 64 {
				keys[i] &= 1<<(lo+width) - 1 // nothing above the field
			}
		}
		// A few ascending runs (merged rather than sorted), or just over
		// the most merged.
		if runs := rapid.IntRange(0, maxMergedRuns+1).Draw(t, "ascendingRuns"); runs > 0 {
			for r := range runs {
				slices.Sort(keys[r*len(keys)/runs : (r+1)*len(keys)/runs])
			}
		}
		field := func(k uint64) uint64 { return k >> lo }
		want := slices.Sorted(slices.Values(keys))
		sortByBits(keys, lo, width, nil)
		for i := 1; i < len(keys); i++ {
			if field(keys[i]) < field(keys[i-1]) {
				t.Fatalf("sortByBits(lo=%d, width=%d): field %x after %x", lo, width, field(keys[i]), field(keys[i-1]))
			}
		}
		if got := slices.Sorted(slices.Values(keys)); !slices.Equal(got, want) {
			t.Fatalf("sortByBits(lo=%d, width=%d) changed the keys", lo, width)
		}
	})
}
