package kube

import (
	"math"
	"math/bits"
)

// cohortSums keeps each cohort's usage of each flavor-resource
// ([quotaTree.usage]: what its children use beyond their local quota) for
// one [quotaUsage], changed as the usage of its ClusterQueues changes
// ([cohortSums.moved]). Summing a cohort's children again at every room
// check made each check linear in the cohort's ClusterQueues, and an
// admission pass with preemption quadratic in them; a change now costs a
// step per cohort above the ClusterQueue, a read one lookup.
//
// The sums are exact (128 bits) and read saturated at math.MaxInt64
// ([wideSum.clamped]): the terms are never negative, so that is what [sum]
// folding them in any order gives. A cohort under a cycle of spec.parentName keeps no sum
// (its usage reads 0, [quotaTree.inCycle]).
type cohortSums struct {
	t   quotaTree // the queues, indexed; its usage is not read
	sum map[cohortFR]*wideSum
	// paths are, per ClusterQueue and flavor-resource, the steps a change
	// of its usage takes up the tree, found at its first change.
	paths map[cqFR][]sumStep
	// at are the sums by [quotaCell] id, as [cohortSums.usageAt] first
	// reads them: a cell's sum without hashing its cohort and
	// flavor-resource again.
	at []*wideSum
}

// sumStep is a step of a change up the tree: the local quota of the node
// it comes from, and the sum of the cohort above, which it changes.
type sumStep struct {
	local int64
	sum   *wideSum
}

// cohortFR is a cohort and a flavor-resource.
type cohortFR struct {
	cohort string
	fr     flavorResource
}

// newCohortSums are the cohort sums of usage used in the indexed queues q.
func newCohortSums(q *KueueQueues, used quotaUsage) *cohortSums {
	s := &cohortSums{t: quotaTree{q: q}, sum: map[cohortFR]*wideSum{}, paths: map[cqFR][]sumStep{}}
	for name, u := range used { // exact sums: any order
		for fr, v := range u {
			s.moved(name, fr, 0, v)
		}
	}
	return s
}

// tree is the quota tree of q (indexed) over usage used, with its cohort
// sums; the usage must not change while the tree is read.
func (q *KueueQueues) tree(used quotaUsage) quotaTree {
	return quotaTree{q: q, used: used, sums: newCohortSums(q, used)}
}

// usage is cohort's usage of fr: its exact sum, saturated.
func (s *cohortSums) usage(cohort string, fr flavorResource) int64 {
	if w := s.sum[cohortFR{cohort, fr}]; w != nil {
		return w.clamped()
	}
	return 0
}

// usageAt is [cohortSums.usage] of cohort cell c's node.
func (s *cohortSums) usageAt(c *quotaCell) int64 {
	if c.id < len(s.at) {
		if w := s.at[c.id]; w != nil {
			return w.clamped()
		}
	}
	k := cohortFR{c.n.cohort, c.fr}
	w := s.sum[k]
	if w == nil {
		// A zero sum, which [cohortSums.path] changes in place when
		// it becomes one's step.
		w = &wideSum{}
		s.sum[k] = w
	}
	if c.id >= len(s.at) {
		s.at = append(s.at, make([]*wideSum, c.id+1-len(s.at))...)
	}
	s.at[c.id] = w
	return w.clamped()
}

// moved records that ClusterQueue name's usage of fr went from old to now:
// each cohort above it whose child's term (usage beyond its local quota)
// changed changes by as much, up to the root. Nothing for a ClusterQueue
// not in the queues, or one under a cycle.
func (s *cohortSums) moved(name string, fr flavorResource, old, now int64) {
	if old == now {
		return
	}
	s.along(s.path(name, fr), old, now)
}

// along is [cohortSums.moved] along path, the ClusterQueue's
// [cohortSums.path].
func (s *cohortSums) along(path []sumStep, old, now int64) {
	for _, st := range path {
		// The term [quotaTree.usageOf] folds for the node below, before
		// and after.
		before, after := max(0, old-st.local), max(0, now-st.local)
		if before == after {
			return
		}
		old = st.sum.clamped()
		*st.sum = st.sum.plus(after).minus(wide(before))
		now = st.sum.clamped()
	}
}

// path is the steps from ClusterQueue name's usage of fr to its root;
// none for one not in the queues or under a cycle.
func (s *cohortSums) path(name string, fr flavorResource) []sumStep {
	k := cqFR{name, fr}
	if p, ok := s.paths[k]; ok {
		return p
	}
	var p []sumStep
	if cq := s.t.q.idx.byName[name]; cq != nil && !s.t.inCycle(quotaNode{cq: cq}) {
		for n := (quotaNode{cq: cq}); s.t.q.parentOf(n) != ""; n = (quotaNode{cohort: s.t.q.parentOf(n)}) {
			ck := cohortFR{s.t.q.parentOf(n), fr}
			w := s.sum[ck]
			if w == nil {
				w = &wideSum{}
				s.sum[ck] = w
			}
			p = append(p, sumStep{local: s.t.localOf(n, fr), sum: w})
		}
	}
	s.paths[k] = p
	return p
}

// wideSum is a 128-bit two's complement integer: a sum of int64 terms that
// cannot overflow.
type wideSum struct {
	hi int64
	lo uint64
}

// wide is v as a wideSum.
func wide(v int64) wideSum { return wideSum{v >> 63, uint64(v)} }

// plus is w + v.
func (w wideSum) plus(v int64) wideSum {
	lo, carry := bits.Add64(w.lo, uint64(v), 0)
	return wideSum{w.hi + v>>63 + int64(carry), lo}
}

// minus is w − x.
func (w wideSum) minus(x wideSum) wideSum {
	lo, borrow := bits.Sub64(w.lo, x.lo, 0)
	return wideSum{w.hi - x.hi - int64(borrow), lo}
}

// clamped is w within int64: math.MaxInt64 above it, math.MinInt64 below.
func (w wideSum) clamped() int64 {
	switch {
	case w.hi > 0 || w.hi == 0 && w.lo > math.MaxInt64:
		return math.MaxInt64
	case w.hi < -1 || w.hi == -1 && w.lo <= math.MaxInt64:
		return math.MinInt64
	}
	return int64(w.lo)
}
