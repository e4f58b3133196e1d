package placement

import "slices"

// sortByBits sorts keys by their bits from lo up, which hold a field of
// width bits (no bit above it may be set); keys with equal fields end up
// together, in no particular order. Many keys go through a
// least-significant-digit radix sort, a byte of the field a pass:
// O(len(keys) × width/8), against O(n log n) comparisons; a few are
// sorted whole. tmp is scratch memory, reused when large enough; the
// scratch used is returned for the next call.
func sortByBits(keys []uint64, lo, width int, tmp []uint64) []uint64 {
	if len(keys) < 256 {
		slices.Sort(keys) // the field is the keys' top bits
		return tmp
	}
	tmp = grow(tmp, len(keys))
	src, dst := keys, tmp
	for shift := lo; shift < lo+width; shift += 8 {
		var count [257]int
		for _, k := range src {
			count[(k>>shift)&0xff+1]++
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for _, k := range src {
			d := (k >> shift) & 0xff
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	return tmp
}
