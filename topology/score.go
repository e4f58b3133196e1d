package topology

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/placement"
)

// Scoring selects how a [Scorer] ranks feasible placements (KEP-5732
// PlacementScore). Higher scores win; the solver breaks ties by placement
// name, which for a domain is its path.
type Scoring int

const (
	// MostAllocated is upstream's default: the NodeResourcesFit
	// MostAllocated score of the whole placement after the assignment plus
	// the PodGroupPodsCount score, equal weights — the same number as
	// [placement.DefaultScorer], computed from the domain's aggregates in
	// O(resources + assignments) instead of O(nodes).
	MostAllocated Scoring = iota
	// BestFit is hierarchical best fit, for clusters shared by gangs of very
	// different sizes: it keeps empty racks and blocks whole for the large
	// gangs that need them. Compared in this order: (1) members placed,
	// bound included (more wins); (2) for each level from the widest down
	// to the placement's own (the first 8 levels), whether that enclosing
	// domain already runs pods (an empty zone is broken last, then an empty
	// block, then an empty rack); (3) the free capacity the placement keeps
	// after the assignment, in 1/1024ths of the group's total request on its
	// scarcest requested resource (less wins: the tightest fit).
	BestFit
)

// String returns the constant's name, e.g. "BestFit".
func (k Scoring) String() string {
	switch k {
	case MostAllocated:
		return "MostAllocated"
	case BestFit:
		return "BestFit"
	}
	return fmt.Sprintf("Scoring(%d)", int(k))
}

// Scorer is a [placement.PlacementScorer] over a [Tree]'s domains. Make one
// with [Tree.SolverOptions]. Placements that are not domains of the tree
// (e.g. the whole cluster, named "") are scored from their nodes.
type Scorer struct {
	tree *Tree
	kind Scoring
}

var _ placement.SumScorer = (*Scorer)(nil)

// ForgetsViews implements [placement.ViewForgetter]: a score shapes the
// group in the tree's shape under its lock and forgets it before it
// returns (genScratch.forgetShape).
func (sc *Scorer) ForgetsViews() bool { return true }

var _ placement.ViewForgetter = (*Scorer)(nil)

const scoreScale = 1_000_000

// BestFit layout: count<<42 | empty-domain flags<<34 | (leftMax - leftover).
const (
	bestFitFlags = 8
	leftBits     = 34
	leftMax      = 1<<leftBits - 1
)

// Score implements [placement.PlacementScorer]: [Scorer.ScoreSums] of a's
// sums ([placement.AssignedSums]).
func (sc *Scorer) Score(s *placement.Snapshot, g placement.GroupView, p *placement.Placement, a []placement.Assignment) (int64, error) {
	placed, requested := placement.AssignedSums(s, g, a)
	return sc.ScoreSums(s, g, p, placed, requested)
}

// ScoreSums implements [placement.SumScorer]. With MostAllocated it
// returns exactly what placement.DefaultScorer returns, in 0..2,000,000.
// With BestFit the score is in 0..2^63 and packs the comparison described
// at [BestFit]. Cost: O(resources × levels) for a placement that is a whole
// domain of the tree, O(nodes of p) otherwise. It never fails.
func (sc *Scorer) ScoreSums(s *placement.Snapshot, g placement.GroupView, p *placement.Placement, placed int64, requested []int64) (int64, error) {
	t := sc.tree
	if t == nil {
		return placement.DefaultScorer{}.ScoreSums(s, g, p, placed, requested)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.capacityFor(s)
	if err != nil {
		// Generate rejects such a snapshot before the solver scores; a
		// zero Scorer, or one paired with another generator on a foreign
		// snapshot, still gives upstream's score.
		return placement.DefaultScorer{}.ScoreSums(s, g, p, placed, requested)
	}
	if len(requested) != len(c.res) {
		// A caller's vector of another length: missing entries are 0.
		padded := make([]int64, len(c.res))
		copy(padded, requested)
		requested = padded
	}
	// The tree's shape, as generate's: t.mu is held until it is forgotten.
	sh := shapeInto(&t.gen.sh, c, len(t.boundOf(s, g.Key()).nodes), g)
	defer t.gen.forgetShape()
	d := t.placementDomain(p)
	// A caller may pass any count: one past what the score's products can
	// hold counts as that much (no real group comes near).
	return sc.score(c, sh, d, p.Nodes, requested, int(min(placed, 1<<30))), nil
}

// upper is the score d would get if every pending member were placed in it:
// no assignment in d scores more, and an assignment of every member scores
// exactly this. MostAllocated's is read straight from d's sums of the
// requested resources: split reads it for every candidate domain, where
// score's general path (any node set, BestFit's leftovers) cost a
// candidate twice as much.
func (sc *Scorer) upper(c *capacity, sh *shape, d DomainID) int64 {
	if sc.kind != MostAllocated {
		return sc.score(c, sh, d, sc.tree.doms[d].nodes, sh.total, sh.n)
	}
	R := len(c.res)
	var sum, n int64
	for r, req := range sh.requested {
		if req {
			i := int(d)*R + r
			sum += allocatedShare(c.sumUsed[i].get(), sh.total[r], c.sumAlloc[i].get())
			n++
		}
	}
	return mostAllocated(sum, n, sh, sh.n)
}

// allocatedShare is one requested resource's term of MostAllocated: the
// share of alloc used once added more is requested, in scoreScale units.
func allocatedShare(used, added, alloc int64) int64 {
	return arith.MulDiv(arith.SatAdd(used, added), scoreScale, alloc)
}

// mostAllocated is MostAllocated's score from the sum of n resources'
// shares (allocatedShare) with placed pending members placed: their mean
// plus the share of the group's pods placed.
func mostAllocated(sum, n int64, sh *shape, placed int) int64 {
	var most int64
	if n > 0 {
		most = sum / n
	}
	return most + int64(sh.bound+placed)*scoreScale/int64(sh.bound+sh.n)
}

// score scores a placement with nodes (domain d's own node slice, or any
// set when d is -1 or nodes differ) after adding the requests added of
// placed pending members.
func (sc *Scorer) score(c *capacity, sh *shape, d DomainID, nodes []placement.NodeID, added []int64, placed int) int64 {
	t := sc.tree
	R := len(c.res)
	whole := d >= 0 && sameNodes(nodes, t.doms[d].nodes)
	c.scratch = slices.Grow(c.scratch[:0], 3*R)[:3*R]
	alloc, used, free := c.scratch[:R], c.scratch[R:2*R], c.scratch[2*R:]
	if whole {
		for r := range R {
			i := int(d)*R + r
			alloc[r], used[r], free[r] = c.sumAlloc[i].get(), c.sumUsed[i].get(), c.sumFree[i].get()
		}
	} else {
		var sa, su, sf = make([]sum128, R), make([]sum128, R), make([]sum128, R)
		for _, id := range nodes {
			for r := range R {
				f, u := c.nodeFree[int(id)*R+r], c.nodeUsed[int(id)*R+r]
				sa[r].add(f + u)
				su[r].add(max(u, 0))
				sf[r].add(max(f, 0))
			}
		}
		for r := range R {
			alloc[r], used[r], free[r] = sa[r].get(), su[r].get(), sf[r].get()
		}
	}
	total := sh.bound + sh.n
	switch sc.kind {
	case BestFit:
		count := int64(sh.bound+min(placed, sh.n)) << 20 / int64(total) // 20 bits: more than every pod is every pod
		var flags int64
		if d >= 0 {
			for l := 0; l <= t.doms[d].level && l < bestFitFlags; l++ {
				if c.sumUsed[int(t.ancestor(d, l))*R+c.podsR].get() > 0 {
					flags |= 1 << (bestFitFlags - 1 - l)
				}
			}
		}
		left := int64(leftMax)
		for r := range R {
			if !sh.scored(r) || sh.total[r] <= 0 {
				continue
			}
			left = min(left, ratio(max(free[r]-added[r], 0), 1024, sh.total[r], leftMax))
		}
		return count<<42 | flags<<leftBits | (leftMax - left)
	default:
		var sum, n int64
		for r := range R {
			if sh.requested[r] {
				sum += allocatedShare(used[r], added[r], alloc[r])
				n++
			}
		}
		return mostAllocated(sum, n, sh, placed)
	}
}

// placementDomain returns the domain a placement stands for (by its name),
// or -1.
func (t *Tree) placementDomain(p *placement.Placement) DomainID {
	if d, ok := t.byPath[p.Name]; ok && p.Name != "" {
		return d
	}
	return -1
}

func sameNodes(a, b []placement.NodeID) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b))
}

// ratio returns min(a*b/c, limit) for a, b >= 0 and c > 0.
func ratio(a, b, c, limit int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return limit
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > uint64(limit) {
		return limit
	}
	return int64(q)
}
