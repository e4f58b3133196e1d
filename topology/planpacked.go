package topology

import (
	"math/bits"
	"slices"
)

// takePacked takes need slices of unit pods each from the units of pk,
// as consume takes them in pk's order with need below their slices in
// all, and appends the units used to dst. It does not sort them all:
// consume takes whole every unit before the first whose slices, added
// to those before it, reach need; that unit (or by best fit another
// after it) takes the rest. A selection weighted by slices — partition
// around a key, keep the side holding that unit — finds it in time
// linear in the units (a balanced set over a fragmented cluster pools
// the nodes of a thousand hosts, and sorting their keys was most of its
// descent); the units before it are taken in no particular order, which
// the descent's callers do not read.
func (p *planner) takePacked(dst []int, pk packed, need, unit int64, bestFit bool) []int {
	keys := pk.keys
	// keys[:lo] come before keys[lo:hi] in order, keys[hi:] after; the
	// unit that reaches need is in keys[lo:hi], need less keys[:lo].
	lo, hi := 0, len(keys)
	for depth := 2 * bits.Len(uint(len(keys))); hi-lo > packedSortMax && depth > 0; depth-- {
		m := partition(keys[lo:hi]) + lo
		var before int64
		for _, k := range keys[lo:m] {
			before += pk.slices(k)
		}
		switch {
		case before >= need:
			hi = m
		case before+pk.slices(keys[m]) >= need:
			need -= before
			lo, hi = m, m+1
		default:
			need -= before + pk.slices(keys[m])
			lo = m + 1
		}
	}
	// Few left (or a partition unlucky too often): sort them and walk.
	slices.Sort(keys[lo:hi])
	i := lo
	for ; pk.slices(keys[i]) < need; i++ {
		need -= pk.slices(keys[i])
	}
	for _, k := range keys[:i] {
		u := pk.unit(k)
		p.setTake(u, pk.slices(k)*unit)
		dst = append(dst, u)
	}
	last := keys[i]
	if bestFit { // the first in order of the fewest slices ≥ need after it
		for _, k := range keys[i+1:] {
			s, sl := pk.slices(k), pk.slices(last)
			if s >= need && (s < sl || s == sl && k < last) {
				last = k
			}
		}
	}
	u := pk.unit(last)
	p.setTake(u, need*unit)
	return append(dst, u)
}

// packedSortMax is the most keys takePacked sorts rather than partitions.
const packedSortMax = 32

// partition reorders keys (distinct, at least 3) around the median of
// its first, middle and last: the keys below it first, then it, then
// those above; it returns the median's index.
func partition(keys []uint64) int {
	n := len(keys)
	a, b, c := 0, n/2, n-1
	if keys[a] > keys[b] {
		a, b = b, a
	}
	if keys[b] > keys[c] {
		b = c
		if keys[a] > keys[b] {
			b = a
		}
	}
	keys[b], keys[n-1] = keys[n-1], keys[b]
	pivot, m := keys[n-1], 0
	for i, k := range keys[:n-1] {
		if k < pivot {
			keys[i], keys[m] = keys[m], k
			m++
		}
	}
	keys[m], keys[n-1] = keys[n-1], keys[m]
	return m
}
