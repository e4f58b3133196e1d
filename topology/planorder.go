package topology

import (
	"cmp"
	"math/bits"
	"slices"
)

// order sorts units best first: Kueue's BestFit order (most slices, then
// fewest pods: a tighter fit among equals) or, with leastFree, its
// LeastFreeCapacity order (fewest slices first); while p prefers, the
// highest summed preferred node affinity comes before either (Kueue's
// TASRespectNodeAffinityPreferred). Ties go by path, as Kueue's level
// values: unit IDs follow paths within a level; nodes go by their
// deepest domain's path, then name. The units are all domains or all
// nodes (one level's). When there are many of them and every field of
// the order, offset by its least value in us, fits one 64-bit key
// together, the keys are sorted as integers (no comparator call per
// comparison); otherwise by orderByCompare, the same order (for a few
// units the keys' extra passes cost more than they save: measured on
// racks of 32 hosts).
func (p *planner) order(us []int, leastFree bool) {
	if len(us) < packedOrderMin {
		p.orderByCompare(us, leastFree)
		return
	}
	pk, ok := p.pack(us, leastFree)
	if !ok {
		p.orderByCompare(us, leastFree)
		return
	}
	slices.Sort(pk.keys)
	for i, k := range pk.keys {
		us[i] = pk.unit(k)
	}
}

// packed holds units' order as one 64-bit key each (see order): sorted
// ascending, the keys are the units best first. The keys live in the
// plan scratch's okeys until the next pack.
type packed struct {
	keys       []uint64
	p          *planner
	nodes      bool   // the units are nodes: the tie field is a tie rank
	leastFree  bool   // the slice field counts up from loS, else down from hiS
	bS, bP, bT int    // widths of the slice, pods and tie fields
	loS, hiS   int64  // the range of the slices
	loT        uint64 // the least tie value
}

// pack builds the packed keys of us, or reports false when the fields,
// offset by their least values in us, do not fit 64 bits together.
func (p *planner) pack(us []int, leastFree bool) (packed, bool) {
	sc := p.t.plan
	nodes := us[0] >= p.D
	tie := func(u int) uint64 {
		if nodes {
			return uint64(sc.tieRank[u-p.D])
		}
		return uint64(u)
	}
	// The range of each field over us.
	loA, hiA := p.aff[us[0]], p.aff[us[0]]
	loS, hiS := p.slice[us[0]], p.slice[us[0]]
	loP, hiP := p.pods[us[0]], p.pods[us[0]]
	loT, hiT := tie(us[0]), tie(us[0])
	for _, u := range us[1:] {
		if p.prefer {
			loA, hiA = min(loA, p.aff[u]), max(hiA, p.aff[u])
		}
		loS, hiS = min(loS, p.slice[u]), max(hiS, p.slice[u])
		loP, hiP = min(loP, p.pods[u]), max(hiP, p.pods[u])
		t := tie(u)
		loT, hiT = min(loT, t), max(hiT, t)
	}
	var bA int
	if p.prefer {
		bA = bits.Len64(uint64(hiA - loA))
	}
	bS, bP, bT := bits.Len64(uint64(hiS-loS)), bits.Len64(uint64(hiP-loP)), bits.Len64(hiT-loT)
	if bA+bS+bP+bT > 64 {
		return packed{}, false
	}
	keys := sc.okeys[:0]
	for _, u := range us {
		var a uint64
		if p.prefer {
			a = uint64(hiA - p.aff[u]) // the highest first
		}
		s := uint64(hiS - p.slice[u]) // the most slices first
		if leastFree {
			s = uint64(p.slice[u] - loS)
		}
		k := a<<bS | s
		k = k<<bP | uint64(p.pods[u]-loP)
		k = k<<bT | (tie(u) - loT)
		keys = append(keys, k)
	}
	sc.okeys = keys
	return packed{keys: keys, p: p, nodes: nodes, leastFree: leastFree,
		bS: bS, bP: bP, bT: bT, loS: loS, hiS: hiS, loT: loT}, true
}

// unit is the unit of key k.
func (pk *packed) unit(k uint64) int {
	t := k&(uint64(1)<<pk.bT-1) + pk.loT
	if pk.nodes {
		return pk.p.D + int(pk.p.t.plan.byRank[t])
	}
	return int(t)
}

// slices is the slices of key k's unit, read from the key.
func (pk *packed) slices(k uint64) int64 {
	s := int64(k >> (pk.bP + pk.bT) & (uint64(1)<<pk.bS - 1))
	if pk.leastFree {
		return pk.loS + s
	}
	return pk.hiS - s
}

// packedOrderMin is the fewest units order sorts by packed keys.
const packedOrderMin = 64

// orderByCompare is order by a comparator, for fields too wide for one
// key: affinity first when p prefers, then compareUnits (whose tie-break
// by tieRank is the (deepest domain, ID) order the keys use).
func (p *planner) orderByCompare(us []int, leastFree bool) {
	slices.SortFunc(us, func(a, b int) int {
		if p.prefer && p.aff[a] != p.aff[b] {
			return cmp.Compare(p.aff[b], p.aff[a])
		}
		return p.compareUnits(a, b, leastFree)
	})
}

// rankOrder returns a planned set's nodes and their takes in rank order:
// by deepest domain, then node — the order of their tie ranks, as every
// node a descent reaches has a deepest domain (nodes are units of the
// deepest level's domains only). Nodes whose tie ranks ascend come back
// as they are: an empty cluster's descent walks runs of hosts in order,
// and a split of domains in order gives each one's units in order
// (descend, appendTaken).
// Otherwise, into the scratch's buffers (valid until the next call): few
// nodes by sorting (tie rank, index) packed in one key each, the takes
// following by index; many by marking each node's tie rank in a bitset
// and reading the marks back in order — O(nodes + N/64), no comparisons —
// the takes waiting in the per-unit take, cleared as they are read (it is
// all zero between descents). The bitset is left clear.
func (p *planner) rankOrder(so setOut) ([]int, []int64) {
	sc := p.t.plan
	tie := sc.tieRank
	// The nodes as one or two runs of ascending tie ranks: runs[1] is
	// second is where the second starts (0: one run), or -1 for more.
	var second int
	for i := 1; i < len(so.nodes); i++ {
		if tie[so.nodes[i-1]-p.D] > tie[so.nodes[i]-p.D] {
			if second > 0 {
				second = -1
				break
			}
			second = i
		}
	}
	if second == 0 {
		return so.nodes, so.takes
	}
	nodes, takes := sc.rankNodes[:0], sc.rankTakes[:0]
	N := len(tie)
	if second > 0 {
		// Two runs (whole domains' nodes, appended as the descent meets
		// them, then the rest): merged a stretch at a time (a domain's
		// nodes are one stretch).
		a, b := so.nodes[:second], so.nodes[second:]
		i, j := 0, 0
		for i < len(a) {
			j0 := j
			for j < len(b) && tie[b[j]-p.D] < tie[a[i]-p.D] {
				j++
			}
			nodes, takes = append(nodes, b[j0:j]...), append(takes, so.takes[second+j0:second+j]...)
			i0 := i
			for i < len(a) && (j == len(b) || tie[a[i]-p.D] < tie[b[j]-p.D]) {
				i++
			}
			nodes, takes = append(nodes, a[i0:i]...), append(takes, so.takes[i0:i]...)
		}
		nodes, takes = append(nodes, b[j:]...), append(takes, so.takes[second+j:]...)
	} else if len(so.nodes) < rankBitsMin || len(so.nodes) < N/1024 {
		keys := sc.keys[:0]
		for i, u := range so.nodes {
			keys = append(keys, uint64(tie[u-p.D])<<32|uint64(i))
		}
		slices.Sort(keys)
		for _, k := range keys {
			nodes = append(nodes, so.nodes[uint32(k)])
			takes = append(takes, so.takes[uint32(k)])
		}
		sc.keys = keys
	} else {
		words := (N + 63) / 64
		if len(sc.rankBits) < words {
			sc.rankBits = make([]uint64, words)
		}
		b := sc.rankBits[:words]
		lo, hi := words, 0
		for i, u := range so.nodes {
			t := tie[u-p.D]
			w := int(t >> 6)
			b[w] |= 1 << (t & 63)
			lo, hi = min(lo, w), max(hi, w)
			p.take[u] = so.takes[i]
		}
		for w := lo; w <= hi; w++ {
			for m := b[w]; m != 0; m &= m - 1 {
				u := p.D + int(sc.byRank[w<<6+bits.TrailingZeros64(m)])
				nodes = append(nodes, u)
				takes = append(takes, p.take[u])
				p.take[u] = 0
			}
			b[w] = 0
		}
	}
	sc.rankNodes, sc.rankTakes = nodes, takes
	return nodes, takes
}

// rankBitsMin is the fewest nodes rankOrder orders by a bitset; a cluster
// of N nodes also needs N/1024 of them (the bitset is scanned a word per
// 64 nodes, where sorting a few keys is cheaper).
const rankBitsMin = 32
