package topology

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/gangsched/gangsched/placement"
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
		p.orderByCompare(us, leastFree)
		return
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
	slices.Sort(keys)
	mask := uint64(1)<<bT - 1
	for i, k := range keys {
		t := k&mask + loT
		if nodes {
			us[i] = p.D + int(sc.byRank[t])
		} else {
			us[i] = int(t)
		}
	}
	sc.okeys = keys
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
// by deepest domain, then node. Nodes whose tie ranks ascend are in it
// already (an empty cluster's descent walks runs of hosts in order) and
// come back as they are; otherwise they are sorted as one packed key each
// (domain and node IDs are below 2³¹) and their takes read back by node
// from the per-unit take, into the scratch's buffers (valid until the
// next call). Every node a descent reaches has a deepest domain (nodes
// are units of the deepest level's domains only), so tie rank order is
// the keys' order.
func (p *planner) rankOrder(so setOut) ([]int, []int64) {
	sc := p.t.plan
	inOrder := true
	for i := 1; i < len(so.nodes) && inOrder; i++ {
		inOrder = sc.tieRank[so.nodes[i-1]-p.D] < sc.tieRank[so.nodes[i]-p.D]
	}
	if inOrder {
		return so.nodes, so.takes
	}
	keys := sc.keys[:0]
	for i, u := range so.nodes {
		id := placement.NodeID(u - p.D)
		keys = append(keys, uint64(p.t.domainOf(id, p.L-1))<<32|uint64(id))
		p.setTake(u, so.takes[i])
	}
	p.sortRankKeys(keys)
	nodes, takes := sc.rankNodes[:0], sc.rankTakes[:0]
	for _, k := range keys {
		u := p.D + int(uint32(k))
		nodes = append(nodes, u)
		takes = append(takes, p.take[u])
	}
	p.clearTakes()
	sc.keys, sc.rankNodes, sc.rankTakes = keys, nodes, takes
	return nodes, takes
}

// rankBitsMin is the fewest rank keys sortRankKeys orders by a bitset; a
// cluster of N nodes also needs N/1024 of them (the bitset is scanned a
// word per 64 nodes, where sorting a few keys is cheaper).
const rankBitsMin = 32

// sortRankKeys sorts a plan's rank keys in place: per node used, its
// deepest domain << 32 | its NodeID, all distinct. When every node has a
// deepest domain, their order is that of their tie ranks (tieRank ranks
// all nodes by the same (deepest domain, ID)), so many keys are sorted by
// marking each node's rank in a bitset and reading the marks back in
// order — O(keys + N/64), no comparisons; otherwise (few keys, or a node
// outside the deepest level, whose key sorts last) by slices.Sort.
// rankOrder calls it only for nodes out of order. It reports whether the
// bitset ordered them, and leaves it clear.
func (p *planner) sortRankKeys(keys []uint64) bool {
	sc := p.t.plan
	N := len(sc.tieRank)
	if len(keys) < rankBitsMin || len(keys) < N/1024 || slices.ContainsFunc(keys, func(k uint64) bool { return int32(k>>32) < 0 }) {
		slices.Sort(keys)
		return false
	}
	words := (N + 63) / 64
	if len(sc.rankBits) < words {
		sc.rankBits = make([]uint64, words)
	}
	b := sc.rankBits[:words]
	lo, hi := words, 0
	for _, k := range keys {
		t := sc.tieRank[uint32(k)]
		w := int(t >> 6)
		b[w] |= 1 << (t & 63)
		lo, hi = min(lo, w), max(hi, w)
	}
	i := 0
	for w := lo; w <= hi; w++ {
		for m := b[w]; m != 0; m &= m - 1 {
			id := sc.byRank[w<<6+bits.TrailingZeros64(m)]
			keys[i] = uint64(p.t.domainOf(id, p.L-1))<<32 | uint64(id)
			i++
		}
		b[w] = 0
	}
	return true
}
