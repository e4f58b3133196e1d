package topology

import (
	"math"
	"math/bits"
)

// shareIndex is a per-level index over one capacity's domain aggregates
// that bounds, in O(resources × log domains), the MostAllocated score
// bound ([Scorer.upper]) of every domain of the level but one. With it
// GenerateHolding proves that the one domain it answers ranks first
// without reading each other domain's bound (see [Scorer.rivalsUpper]).
//
// Per resource r it keeps a tournament tree over the level's domains:
// each inner node holds the domain of its range with the largest share
// of r's allocatable requested (sumUsed/sumAlloc, ties to the lower ID;
// domains with no allocatable of r take no part). The tree is moved with
// the capacity: a domain whose sums change replays its path to the root.
// Allocatable never changes, so the two domains with the least positive
// allocatable of r are found once.
type shareIndex struct {
	first DomainID // the level's first domain; leaf i is domain first+i
	count int      // the level's domains
	size  int      // leaves: a power of two, at least count
	R     int
	win   []DomainID    // node*R+r for nodes 1..2*size-1 (leaves from size); -1: none
	least [][2]DomainID // per r: the two domains with the least positive allocatable, -1 when fewer
}

// newShareIndex builds the index of level l over c, in O(domains × R).
func newShareIndex(t *Tree, c *capacity, l int) *shareIndex {
	R := len(c.res)
	ix := &shareIndex{first: t.levelStart[l], count: int(t.levelStart[l+1] - t.levelStart[l]), R: R}
	ix.size = 1
	for ix.size < ix.count {
		ix.size *= 2
	}
	ix.win = make([]DomainID, 2*ix.size*R)
	ix.least = make([][2]DomainID, R)
	for r := range R {
		ix.least[r] = [2]DomainID{-1, -1}
	}
	for i := range ix.size {
		d := ix.first + DomainID(i)
		for r := range R {
			ix.win[(ix.size+i)*R+r] = -1
			if i >= ix.count || c.sumAlloc[int(d)*R+r].get() <= 0 {
				continue
			}
			ix.win[(ix.size+i)*R+r] = d
			lr := &ix.least[r]
			a := c.sumAlloc[int(d)*R+r].get()
			switch {
			case lr[0] < 0 || a < c.sumAlloc[int(lr[0])*R+r].get():
				lr[0], lr[1] = d, lr[0]
			case lr[1] < 0 || a < c.sumAlloc[int(lr[1])*R+r].get():
				lr[1] = d
			}
		}
	}
	for n := ix.size - 1; n >= 1; n-- {
		for r := range R {
			ix.win[n*R+r] = ix.larger(c, ix.win[2*n*R+r], ix.win[(2*n+1)*R+r], r)
		}
	}
	return ix
}

// moved replays domain d's path after its sums changed (allocatable, and
// so which domains take part, never does).
func (ix *shareIndex) moved(c *capacity, d DomainID) {
	R := ix.R
	for n := (ix.size + int(d-ix.first)) / 2; n >= 1; n /= 2 {
		for r := range R {
			ix.win[n*R+r] = ix.larger(c, ix.win[2*n*R+r], ix.win[(2*n+1)*R+r], r)
		}
	}
}

// larger returns whichever of x and y (-1: none) has the larger share of
// r, the lower ID on a tie. Shares compare exactly, as 128-bit products.
func (ix *shareIndex) larger(c *capacity, x, y DomainID, r int) DomainID {
	if x < 0 {
		return y
	}
	if y < 0 {
		return x
	}
	R := ix.R
	ux, ax := uint64(c.sumUsed[int(x)*R+r].get()), uint64(c.sumAlloc[int(x)*R+r].get())
	uy, ay := uint64(c.sumUsed[int(y)*R+r].get()), uint64(c.sumAlloc[int(y)*R+r].get())
	h1, l1 := bits.Mul64(ux, ay)
	h2, l2 := bits.Mul64(uy, ax)
	switch {
	case h1 > h2 || h1 == h2 && l1 > l2:
		return x
	case h1 < h2 || h1 == h2 && l1 < l2:
		return y
	}
	return min(x, y)
}

// largestShareExcept returns the domain of the level other than d with the
// largest share of r, or -1 when no other domain has r allocatable: the
// winners of the siblings along d's path to the root.
func (ix *shareIndex) largestShareExcept(c *capacity, d DomainID, r int) DomainID {
	best := DomainID(-1)
	for n := ix.size + int(d-ix.first); n > 1; n /= 2 {
		best = ix.larger(c, best, ix.win[(n^1)*ix.R+r], r)
	}
	return best
}

// leastAllocExcept returns the least positive allocatable of r among the
// level's domains other than d (math.MaxInt64 when none has any).
func (ix *shareIndex) leastAllocExcept(c *capacity, d DomainID, r int) int64 {
	for _, e := range ix.least[r] {
		if e >= 0 && e != d {
			return c.sumAlloc[int(e)*ix.R+r].get()
		}
	}
	return math.MaxInt64
}

// shares returns level l's index over c, built on first use; t.mu must be
// held.
func (c *capacity) shares(t *Tree, l int) *shareIndex {
	if c.shareIx == nil {
		c.shareIx = make([]*shareIndex, len(t.keys))
	}
	if c.shareIx[l] == nil {
		c.shareIx[l] = newShareIndex(t, c, l)
	}
	return c.shareIx[l]
}

// rivalsUpper returns, with ok, a score that no domain of d's level other
// than d exceeds as its bound ([Scorer.upper]) for sh: with MostAllocated,
// each requested resource r scores min(scale, (used+total)·scale/alloc) at
// most, which is at most scale·(the largest share of r among the others
// + total/the least allocatable among them). Computed in float64 with a
// margin (a relative 1e-9, plus one) well over its rounding, so the result
// is an upper bound; it only decides whether to read the other bounds,
// never a decision. BestFit, and a group that requests nothing (every
// domain bounds alike), give ok false.
func (sc *Scorer) rivalsUpper(c *capacity, ix *shareIndex, sh *shape, d DomainID) (int64, bool) {
	if sc.kind != MostAllocated {
		return 0, false
	}
	R := len(c.res)
	var sum float64
	var n int64
	for r := range R {
		if !sh.requested[r] {
			continue
		}
		n++
		w := ix.largestShareExcept(c, d, r)
		if w < 0 {
			continue // every other domain has none of r allocatable: it scores 0 there
		}
		share := float64(c.sumUsed[int(w)*R+r].get()) / float64(c.sumAlloc[int(w)*R+r].get())
		v := scoreScale * (share + float64(sh.total[r])/float64(ix.leastAllocExcept(c, d, r)))
		sum += min(scoreScale, math.Floor(v*(1+1e-9))+1)
	}
	if n == 0 {
		return 0, false
	}
	total := int64(sh.bound + sh.n)
	return int64(sum)/n + total*scoreScale/total, true
}
