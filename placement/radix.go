package placement

import "slices"

// sortByBits sorts keys by bits [lo, lo+width) of each, keeping the order
// of keys equal there (the bits below lo ride along). Many keys go through
// a least-significant-digit radix sort, a byte a pass: O(len(keys) ×
// width/8), against O(n log n) comparisons; a few are sorted in place.
func sortByBits(keys []uint64, lo, width int) {
	if len(keys) < 256 {
		slices.SortStableFunc(keys, func(x, y uint64) int {
			x, y = x>>lo, y>>lo
			if width < 64 {
				x, y = x&(1<<width-1), y&(1<<width-1)
			}
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
		return
	}
	src, dst := keys, make([]uint64, len(keys))
	for shift := lo; shift < lo+width; shift += 8 {
		mask := uint64(1)<<min(8, lo+width-shift) - 1 // the last digit may be narrower
		var count [257]int
		for _, k := range src {
			count[(k>>shift)&mask+1]++
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for _, k := range src {
			d := (k >> shift) & mask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
