package placement

import (
	"cmp"
	"math/bits"
	"slices"
)

// smallBucket is the longest bucket of the key index that is left
// unsorted: scanning it costs less than sorting it (whose compares
// mispredict), and it is checked for duplicates pair by pair.
const smallBucket = 32

// indexKeys makes the key index of hashes, the pods' key hashes in input
// order. It reports false when two pods share a key, which it does not
// look for when told that the keys are unique. Cost O(pods) for
// hashes that spread; a bucket of k > smallBucket is sorted in
// O(k log k). The order inside a bucket never reaches an output.
func (b *base) indexKeys(hashes []uint32, unique bool) bool {
	counts, shift := keyBuckets(len(hashes))
	for _, h := range hashes {
		counts[h>>shift]++
	}
	return b.indexCounted(hashes, counts, shift, unique)
}

// keyBuckets returns zero counts for the buckets of the key index of n
// pods, and the shift that maps a key hash to its bucket. Buckets of 4-8
// hashes keep the counts in a small cache.
func keyBuckets(n int) (counts []int32, shift int) {
	top := max(bits.Len(uint(n))-3, 0)
	return make([]int32, 1<<top), 32 - top
}

// indexCounted is indexKeys once the hashes are counted in their buckets:
// end[d] is the number of hashes h with h>>shift == d. It takes end over as
// the index's bucket ends.
func (b *base) indexCounted(hashes []uint32, end []int32, shift int, unique bool) bool {
	// A counting sort on the top bits. (Sorting in place, American flag
	// style, saves the copy but chains one cache miss to the next: slower.)
	// Each bucket's count becomes its start, which the scatter advances to
	// its end.
	sum := int32(0)
	for d, c := range end {
		end[d] = sum
		sum += c
	}
	b.keyHash = make([]uint32, len(hashes))
	b.keyPos = make([]int32, len(hashes))
	b.keyEnd, b.keyShift = end, shift
	b.keyBits = make([]uint64, len(end))
	for i, h := range hashes {
		d := h >> shift
		b.keyHash[end[d]], b.keyPos[end[d]] = h, int32(i)
		end[d]++
		b.keyBits[d] |= 1 << (h % 64)
	}
	var run []hashPos
	lo := 0
	for _, hi := range end {
		hs, ps := b.keyHash[lo:hi], b.keyPos[lo:hi]
		lo = int(hi)
		if len(hs) <= smallBucket {
			if unique {
				continue
			}
			// Two equal hashes set the same bit of a word: the pairs
			// are compared only when bits clash (a bucket in five), as
			// their loops mispredict.
			var mask, clash uint64
			for _, h := range hs {
				bit := uint64(1) << (h % 64)
				clash |= mask & bit
				mask |= bit
			}
			if clash == 0 {
				continue
			}
			for i := 1; i < len(hs); i++ {
				for j := range i {
					if hs[i] == hs[j] && b.pods[ps[i]].Key() == b.pods[ps[j]].Key() {
						return false
					}
				}
			}
			continue
		}
		run = run[:0]
		for k := range hs {
			run = append(run, hashPos{hs[k], ps[k]})
		}
		slices.SortFunc(run, func(x, y hashPos) int { return cmp.Compare(x.h, y.h) })
		for k, e := range run {
			hs[k], ps[k] = e.h, e.i
		}
		// Only pods of equal hash can share a key.
		for i := 0; !unique && i < len(hs); {
			j := i + 1
			for j < len(hs) && hs[j] == hs[i] {
				j++
			}
			if j-i > 1 && !b.uniqueKeys(ps[i:j]) {
				return false
			}
			i = j
		}
	}
	return true
}

// uniqueKeys reports whether the pods at positions ps have distinct keys.
func (b *base) uniqueKeys(ps []int32) bool {
	same := slices.Clone(ps)
	slices.SortFunc(same, b.cmpKey)
	for k := 1; k < len(same); k++ {
		if b.pods[same[k]].Key() == b.pods[same[k-1]].Key() {
			return false
		}
	}
	return true
}

// hashPos is a pod key's hash and the pod's position.
type hashPos struct {
	h uint32
	i int32
}

// keyHash hashes a pod key eight bytes at a time (FNV-1a's byte loop cost
// a third of a snapshot's build). It is deterministic, so the index never
// depends on the process. The key index buckets by the top bits, which
// hashString's last multiply already makes depend on every input bit: a
// further finaliser (MurmurHash3's fmix64) cost half the hashing. 32 bits
// halve the index (100,000 keys share a hash about once, and then their
// keys are compared).
func keyHash(ns, name string) uint32 { return nameHash(nsHash(ns), name) }

// nsHash and nameHash are keyHash in two steps, so that pods of one
// namespace share the first.
func nsHash(ns string) uint64 { return hashString(0x9e3779b97f4a7c15, ns) }

func nameHash(nsh uint64, name string) uint32 { return uint32(hashString(nsh, name) >> 32) }

// hashString mixes s into h. The tail of fewer than eight bytes is read as
// its first and last four (or first, middle and last) bytes together with
// its length, which determine it.
func hashString(h uint64, s string) uint64 {
	const m = 0x9ddfea08eb382d69
	for ; len(s) >= 8; s = s[8:] {
		h = (h ^ le64(s)) * m
		h ^= h >> 31
	}
	var t uint64
	switch n := len(s); {
	case n >= 4:
		t = le32(s) | le32(s[n-4:])<<32
	case n > 0:
		t = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	h = (h ^ t) * m
	h ^= h>>31 ^ uint64(len(s))
	h *= m
	return h ^ h>>29
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// podIndex finds k among the base pods through the hash index, which it
// builds on first use from the hashes NewSnapshot kept when the keys were
// in order.
func (b *base) podIndex(k Key) (int, bool) {
	return b.podIndexHashed(k, keyHash(k.Namespace, k.Name))
}

// podIndexHashed is podIndex for k, whose key hash is h.
func (b *base) podIndexHashed(k Key, h uint32) (int, bool) {
	b.keyOnce.Do(func() {
		b.indexKeys(b.waiting, true)
		b.waiting = nil
	})
	return b.findKey(k, h)
}

// findKey finds k, whose key hash is h, in the key index.
func (b *base) findKey(k Key, h uint32) (int, bool) {
	d, lo := h>>b.keyShift, int32(0)
	if b.keyBits[d]&(1<<(h%64)) == 0 {
		return 0, false
	}
	if d > 0 {
		lo = b.keyEnd[d-1]
	}
	hs, ps := b.keyHash[lo:b.keyEnd[d]], b.keyPos[lo:b.keyEnd[d]]
	sorted := len(hs) > smallBucket
	i := 0
	if sorted {
		i, _ = slices.BinarySearch(hs, h)
	}
	for ; i < len(hs); i++ {
		if hs[i] != h {
			if sorted {
				break
			}
			continue
		}
		if p := &b.pods[ps[i]]; p.Namespace == k.Namespace && p.Name == k.Name {
			return int(ps[i]), true
		}
	}
	return 0, false
}

func (b *base) cmpKey(x, y int32) int { return b.pods[x].Key().Compare(b.pods[y].Key()) }
