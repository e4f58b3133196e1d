package bench

import (
	"fmt"
	"math/bits"
	"slices"
)

// GangFloor is the touch-once floor of the matrix over a [Cluster]: a
// plain Go pass over flat slices — no maps, no snapshot, no hooks — that
// sums each domain's free slots, picks a domain and first-fits the
// members in it. No decision that keeps no state between calls can do
// less than read every node once, so the ratio of a decision's time to
// this one, measured in the same run, says how far the decision is from
// that bound. It keeps its own copy of the cluster's free quantities, so
// a stream of placements can update it.
//
// Its free quantities must stay below 2^36 and requests below 2^28 (the
// benchmark clusters' are below 2^36 and 2^27): a slot count is one
// multiplication by a reciprocal computed once per call, exact in that
// range, instead of a division per node.
type GangFloor struct {
	c     *Cluster
	free  [2][]int64
	whole []int32 // the whole cluster as one domain
	hosts []int32 // every node its own domain
	// counts is PlaceApart's, per domain: matching pods.
	counts []int64
}

// maxFreeBits and maxRequestBits bound the quantities [divider] is exact
// for: their sum must not exceed 64.
const maxFreeBits, maxRequestBits = 36, 28

// Slots is one node's part of a floor's answer: Count members on node
// Node (an index of Cluster.Nodes).
type Slots struct{ Node, Count int32 }

// NewGangFloor returns a floor over c with c's free quantities. It panics
// when a free quantity is negative or not below 2^36, which no benchmark
// cluster has.
func NewGangFloor(c *Cluster) *GangFloor {
	for r := range c.Free {
		for i, v := range c.Free[r] {
			if v < 0 || bits.Len64(uint64(v)) > maxFreeBits {
				panic(fmt.Sprintf("bench: node %d has %d of %s free, outside the floor's range", i, v, c.Res[r]))
			}
		}
	}
	hosts := make([]int32, len(c.Nodes)+1)
	for i := range hosts {
		hosts[i] = int32(i)
	}
	return &GangFloor{c: c, free: [2][]int64{slices.Clone(c.Free[0]), slices.Clone(c.Free[1])},
		whole: []int32{0, int32(len(c.Nodes))}, hosts: hosts, counts: make([]int64, len(c.Nodes))}
}

// Reset restores the cluster's free quantities.
func (f *GangFloor) Reset() {
	copy(f.free[0], f.c.Free[0])
	copy(f.free[1], f.c.Free[1])
}

// Place places count identical members of request unit, all or nothing,
// in one domain of level (an index of Cluster.Levels, or -1 for the whole
// cluster), and returns how many it placed (count or 0) and the answer —
// members per node, in node order — appended to out[:0].
//
// One pass over every node sums the slots each domain offers (copies of
// unit that fit a node's free quantities); the domain with the fewest
// slots that still holds count wins (ties to the first); a first-fit pass
// over its nodes fills each with as many members as it holds. With commit
// the placement's requests are taken from the floor's free quantities.
func (f *GangFloor) Place(level int, unit Request, count int, out []Slots, commit bool) (int, []Slots) {
	out = out[:0]
	if count <= 0 {
		return 0, out
	}
	d0, d1 := newDivider(unit[0]), newDivider(unit[1])
	lo, _, _, ok := f.choose(level, d0, d1, int64(count))
	if !ok {
		return 0, out
	}
	return count, f.fill(lo, d0, d1, unit, count, out, commit)
}

// PlaceWidening is [GangFloor.Place] without commit for a set only
// preferred in a domain of level: when no domain holds count, the sums
// of the same pass say whether the whole cluster does, and then the
// first fit runs from the first node over the cluster — the floor of a
// plan that widens a preferred level to the cluster when no domain of it
// holds the set.
func (f *GangFloor) PlaceWidening(level int, unit Request, count int, out []Slots) (int, []Slots) {
	out = out[:0]
	if count <= 0 {
		return 0, out
	}
	d0, d1 := newDivider(unit[0]), newDivider(unit[1])
	lo, _, total, ok := f.choose(level, d0, d1, int64(count))
	switch {
	case ok:
	case total >= int64(count):
		lo = 0
	default:
		return 0, out
	}
	return count, f.fill(lo, d0, d1, unit, count, out, false)
}

// fill first-fits count members of unit from node lo on, each node as
// many as it holds, appending to out; the nodes from lo on must hold
// them. With commit their requests are taken from the free quantities.
func (f *GangFloor) fill(lo int32, d0, d1 divider, unit Request, count int, out []Slots, commit bool) []Slots {
	free0, free1 := f.free[0], f.free[1]
	for i, left := lo, int64(count); left > 0; i++ {
		s := min(d0.div(free0[i]), d1.div(free1[i]), left)
		if s == 0 {
			continue
		}
		out = append(out, Slots{Node: i, Count: int32(s)})
		left -= s
		if commit {
			free0[i] -= s * unit[0]
			free1[i] -= s * unit[1]
		}
	}
	return out
}

// NextFit is the floor of a gang listed member by member with mixed
// shapes (the heterogeneous groups): like [GangFloor.Place], with the
// smallest request of each resource as the slot, but the first-fit pass
// walks the members in the given order, moving to the next node when a
// member does not fit (a cheap next-fit, exact only for identical
// members). It returns how many members it placed, writing each one's
// node index (or -1) to out, which must be as long as reqs; when no domain
// has the slots it places none.
func (f *GangFloor) NextFit(level int, reqs []Request, out []int32) int {
	if len(reqs) == 0 {
		return 0
	}
	unit := reqs[0]
	for _, r := range reqs[1:] {
		unit[0], unit[1] = min(unit[0], r[0]), min(unit[1], r[1])
	}
	k, end, _, ok := f.choose(level, newDivider(unit[0]), newDivider(unit[1]), int64(len(reqs)))
	if !ok {
		return 0
	}
	free0, free1 := f.free[0], f.free[1]
	g, c := free0[k], free1[k]
	placed := 0
	for j, r := range reqs {
		for k < end && (g < r[0] || c < r[1]) {
			if k++; k < end {
				g, c = free0[k], free1[k]
			}
		}
		if k == end {
			out[j] = -1
			continue
		}
		out[j] = k
		g, c = g-r[0], c-r[1]
		placed++
	}
	return placed
}

// choose returns the nodes lo ≤ i < hi of the domain of level with the
// fewest slots (copies of the request d0, d1 divide by) that still holds
// want, ties to the first; ok is false when no domain does. total is
// every domain's slots summed: the cluster's.
func (f *GangFloor) choose(level int, d0, d1 divider, want int64) (lo, hi int32, total int64, ok bool) {
	start := f.whole
	if level >= 0 {
		start = f.c.Levels[level].Start
	}
	free0, free1 := f.free[0], f.free[1]
	best, bestSum := -1, int64(0)
	for d := range len(start) - 1 {
		a, b := free0[start[d]:start[d+1]], free1[start[d]:start[d+1]]
		b = b[:len(a)]
		var sum int64
		for i := range a {
			sum += min(d0.div(a[i]), d1.div(b[i]))
		}
		total += sum
		if sum >= want && (best < 0 || sum < bestSum) {
			best, bestSum = d, sum
		}
	}
	if best < 0 {
		return 0, 0, total, false
	}
	return start[best], start[best+1], total, true
}

// divider divides by a request with one multiplication: n/d is the high
// word of n·⌈2^64/d⌉, exact for n < 2^N whenever N + log2(d) ≤ 64 (Lemire,
// Kaser and Kurz, "Faster remainder by direct computation", 2019), hence
// the floor's bounds on quantities. d = 1 keeps n (one's mask); d = 0 (a
// resource not requested) gives [unlimited] slots.
type divider struct{ m, one, none uint64 }

// unlimited is the slot count of a resource the request does not name:
// more than any sum over a cluster needs, far from overflowing one.
const unlimited = 1 << 40

func newDivider(d int64) divider {
	switch {
	case d == 0:
		return divider{none: unlimited}
	case d == 1:
		return divider{one: ^uint64(0)}
	case d < 0 || bits.Len64(uint64(d)) > maxRequestBits:
		panic(fmt.Sprintf("bench: request %d outside the floor's range", d))
	}
	return divider{m: ^uint64(0)/uint64(d) + 1}
}

func (v divider) div(n int64) int64 {
	q, _ := bits.Mul64(uint64(n), v.m)
	return int64(q + uint64(n)&v.one + v.none)
}
