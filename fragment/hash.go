package fragment

// mixString folds s into h (FNV-1a's step), so that a seed, a pod and a
// node give one 64-bit value.
func mixString(h uint64, s string) uint64 {
	h ^= 0xcbf29ce484222325
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 0x100000001b3
	}
	return mix(h)
}

// mix is SplitMix64's finaliser: every input bit reaches every output
// bit, so hashes of similar names are unrelated.
func mix(h uint64) uint64 {
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
	h = (h ^ (h >> 27)) * 0x94d049bb133111eb
	return h ^ (h >> 31)
}
