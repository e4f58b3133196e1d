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
	// Keys often arrive as a few ascending runs (a run of pods fills a
	// node class's nodes in ID order, one class after another): merging
	// those takes a pass per halving of the runs.
	runs := 1
	for i := 1; i < len(keys) && runs <= maxMergedRuns; i++ {
		if keys[i] < keys[i-1] {
			runs++
		}
	}
	if runs == 1 {
		return tmp
	}
	if runs <= maxMergedRuns {
		return mergeRuns(keys, grow(tmp, len(keys)))
	}
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

// maxMergedRuns is the most ascending runs sortByBits merges rather than
// sorts: three passes at most.
const maxMergedRuns = 8

// mergeRuns sorts keys, made of a few ascending runs, by merging adjacent
// runs pairwise until one is left; tmp is as long as keys and returned.
func mergeRuns(keys, tmp []uint64) []uint64 {
	src, dst := keys, tmp
	for pass := 0; pass < 64; pass++ { // runs halve each pass: three passes do; the bound guards a loop that must end
		merged, out := 0, 0
		for i := 0; i < len(src); {
			j := i + 1 // the first run: src[i:j]
			for j < len(src) && src[j] >= src[j-1] {
				j++
			}
			k := j // the second: src[j:k]
			for k < len(src) && (k == j || src[k] >= src[k-1]) {
				k++
			}
			a, b := i, j
			for a < j && b < k {
				if src[b] < src[a] {
					dst[out], b = src[b], b+1
				} else {
					dst[out], a = src[a], a+1
				}
				out++
			}
			out += copy(dst[out:], src[a:j])
			out += copy(dst[out:], src[b:k])
			i, merged = k, merged+1
		}
		src, dst = dst, src
		if merged == 1 {
			break
		}
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	return tmp
}
