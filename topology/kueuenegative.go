package topology

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// Kueue's negative counts (PlanOptions.KueueNegativeCounts): a node whose
// bound pods exceed its allocatable counts as a negative number of pods in
// Kueue v0.17's TAS, lowering its domains' totals, and a least-free-first
// fill that reaches it writes that count, which Kueue's Workload API
// refuses (KueueAssumed). The planner's counting of them lives here.

// kueueCount is unit u's pods as Kueue's TAS counts them: a domain's
// count holds its nodes in deficit already (fill), a node's or a host's
// own never goes below zero, so its deficit is added back while negOn.
func (p *planner) kueueCount(u int) int64 {
	if !p.negOn {
		return p.pods[u]
	}
	switch p.level(u) {
	case p.L:
		return p.pods[u] + p.negCount(placement.NodeID(u-p.D))
	case p.L - 1:
		return p.pods[u] + p.neg[u]
	}
	return p.pods[u]
}

// kueueSlices is unit u's slices as Kueue's TAS counts them: kueueCount
// in slices, a host's deficit truncated toward zero as Kueue divides it.
func (p *planner) kueueSlices(u int) int64 {
	if !p.negOn || p.level(u) < p.L-1 {
		return p.slice[u]
	}
	return p.slice[u] + div(p.kueueCount(u)-p.pods[u], p.r.sliceUnit())
}

// negatives returns, while negOn, how many pods (slices when inSlices)
// the units of us in deficit count below zero together. us are units
// that Kueue's TAS pools the least free first above the slice level — an
// unconstrained set's (LeastFreeCapacity) — and that order takes every
// unit of a negative count before the others: it appends them with their
// counts and takes as many more from the rest, which the caller adds to
// what it takes. A node, or a host's one node, so appended has its count
// written in the set's assignment (below 1, which Kueue's Workload API
// refuses: see writeNeg); a domain is split further (noteLow, splitLow).
// A best-fit fill takes the largest first, and the counts of those hold
// what the domain above counted with the negative ones: it never reaches
// them.
func (p *planner) negatives(us []int, inSlices bool) int64 {
	if !p.negOn {
		return 0
	}
	var sum int64
	for _, u := range us {
		// Counting slices, Kueue writes a unit's slices times their
		// size: one of negative pods but no slice below zero (-1 pod
		// in slices of 2) is written 0, which it leaves out.
		c, written := p.kueueCount(u), p.kueueCount(u)
		if inSlices {
			c = p.kueueSlices(u)
			written = c * p.r.sliceUnit()
		}
		if c >= 0 {
			continue
		}
		sum -= c
		if p.isNode(u) {
			p.writeNeg(u, written)
		}
	}
	return sum
}

// isNode reports whether unit u is a node or a host of one node, which
// Kueue's TAS counts as one leaf.
func (p *planner) isNode(u int) bool { return u >= p.D || p.t.plan.only[u] >= 0 }

// writeNeg records that Kueue writes count (below zero) for u, a node or
// a host's one node, in the set's assignment: p.negAt is the one in the
// deepest deficit (then the first path), which the failure names.
func (p *planner) writeNeg(u int, count int64) {
	p.noteWrite(u, count)
	if p.negAt < 0 || count < p.negPods || count == p.negPods && p.path(u) < p.path(p.negAt) {
		p.negAt, p.negPods = u, count
	}
}

// noteWrite records that Kueue writes count (below zero) for unit u, a
// node or a host's one node: Kueue's assumption then gives that room
// back (PlanOptions.KueueLift).
func (p *planner) noteWrite(u int, count int64) {
	if u < p.D {
		if p.t.plan.only[u] < 0 {
			return
		}
		u = p.D + int(p.t.plan.only[u])
	}
	if count < 0 {
		p.negWrites = append(p.negWrites, placement.PodSetAssignment{Node: p.s.Node(placement.NodeID(u - p.D)).Name, NodeID: placement.NodeID(u - p.D), Count: int32(-count)})
	}
}

// lift gives back, as negative usage in p.extra, the room of lifts
// (PlanOptions.KueueLift): count × one pod's requests on each node.
func (p *planner) lift(lifts []placement.PodSetUsage) {
	for _, l := range lifts {
		for _, a := range l.Nodes {
			id, ok := p.s.NodeID(a.Node)
			if !ok || a.Count < 1 {
				continue
			}
			if p.extra == nil {
				p.extra = p.t.plan.extra
			}
			for j, r := range p.c.res {
				p.extra[int(id)*p.R+j] -= int64(a.Count) * l.Requests[r]
			}
		}
	}
}

// noteLow keeps in p.lfLow the units of us, a least-free-first pool,
// that count no slice or fewer: Kueue's fill appends them before any
// other (see lfLow), each with its slices times their size, which
// splitLow splits below the slice level.
func (p *planner) noteLow(us []int) {
	p.lfLow, p.lfLowN = p.lfLow[:0], p.lfLowN[:0]
	for _, u := range us {
		if s := p.kueueSlices(u); s <= 0 {
			p.lfLow = append(p.lfLow, u)
			p.lfLowN = append(p.lfLowN, s*p.r.sliceUnit())
		}
	}
}

// splitLow splits, below the slice level, the domains Kueue's fill
// appended with no pods or fewer (p.lfLow, with their counts in
// p.lfLowN) over their children as splitNeg does, and appends the
// children given pods to dst. Those given none or fewer are kept in
// p.lfLow for the next level. A node, or a host's one node, was
// counted where it was appended.
func (p *planner) splitLow(dst []int) []int {
	if len(p.lfLow) == 0 {
		return dst
	}
	low, lowN := p.lfLow, p.lfLowN
	p.lfLow, p.lfLowN = nil, nil // splitNeg appends the next level's
	var ks []int
	for i, u := range low {
		if p.isNode(u) {
			continue
		}
		ks = p.appendKids(ks[:0], u)
		dst = p.splitNeg(dst, ks, lowN[i])
	}
	return dst
}

// splitNeg splits count pods (≤ 0 too) of a domain over its children ks
// as Kueue v0.17's TAS does below the slice level
// (updateCountsToMinimumGeneric in pod units): in order of their counts,
// negative ones included, ascending, then path, each child is given its
// whole count until one holds what is left, which it is given. A child
// given pods has its take set and is appended to dst; a node (or a
// host's one node) given fewer than none is written (writeNeg); a domain
// given none or fewer is kept in p.lfLow to be split at the next level.
// When the children's counts never hold what is left (a domain whose
// slices, truncated toward zero, count more than its pods in deficit)
// Kueue logs "unexpected remainingCount" and appends no child for the
// domain: its part of the set is dropped, and so it is here. ks is
// reordered.
func (p *planner) splitNeg(dst, ks []int, count int64) []int {
	slices.SortFunc(ks, func(a, b int) int {
		if c := cmp.Compare(p.kueueCount(a), p.kueueCount(b)); c != 0 {
			return c
		}
		return cmp.Compare(p.path(a), p.path(b))
	})
	n, left := -1, count
	for i, k := range ks {
		if c := p.kueueCount(k); c >= left {
			n = i
			break
		}
		left -= p.kueueCount(k)
	}
	if n < 0 {
		p.negDrop = true
		return dst // dropped, as Kueue drops it
	}
	for i, k := range ks[:n+1] {
		c := p.kueueCount(k)
		if i == n {
			c = left
		}
		switch {
		case c > 0:
			p.setTake(k, c)
			dst = append(dst, k)
		case p.isNode(k):
			if c < 0 {
				p.writeNeg(k, c)
			}
		default:
			p.lfLow = append(p.lfLow, k)
			p.lfLowN = append(p.lfLowN, c)
		}
	}
	return dst
}

// negFailure is the failure of r, planned as so, when Kueue writes the
// negative count of p.negAt in its assignment: Kueue assumes the
// Workload with so's takes (its positive counts, which add up to more
// than r's count by the negative ones) and its API refuses it.
func (p *planner) negFailure(so setOut) *failure {
	u := p.negAt
	name := p.path(u)
	if u < p.D && p.t.plan.only[u] >= 0 {
		name = p.s.Node(placement.NodeID(p.t.plan.only[u])).Name
	}
	why := fmt.Sprintf("%s: Kueue v0.17's TAS fills the least free first and counts %s as %d pods (its running pods request more than its allocatable), which it writes in the pod set's topology assignment with as many more pods elsewhere",
		p.r.obj(), name, p.negPods)
	lift := slices.Clone(p.negWrites)
	slices.SortFunc(lift, func(a, b placement.PodSetAssignment) int { return cmp.Compare(a.NodeID, b.NodeID) })
	lift = slices.CompactFunc(lift, func(a, b placement.PodSetAssignment) bool { return a.NodeID == b.NodeID })
	return &failure{msg: why + ", and its Workload API refuses a count below 1: Kueue assumes the Workload every scheduling cycle and never admits it", why: why, assumed: &so, lift: lift}
}

// trimDropped caps so's takes at its set's count where a split dropped a
// domain given fewer than no pods (splitNeg): the others then hold more
// pods than the set has (seed 395 of the tester peer10's differential:
// 18 for a set of 9), which Kueue writes and admits, its pods placed on
// the assignment's domains in order (its topology ungater gives each
// domain up to its count, the domains sorted by their level values).
// gangsim places the set's pods so: the first nodes by domain path take
// theirs, the rest none. Kueue's assumed usage holds the extra pods'
// room too, which gangsim does not (docs/kueue.md, Not modelled).
func (p *planner) trimDropped(so *setOut) {
	var sum int64
	for _, k := range so.takes {
		sum += k
	}
	if !p.negDrop || sum <= p.r.count {
		return
	}
	idx := make([]int, len(so.nodes))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) string {
		n := so.nodes[i] - p.D
		return p.t.doms[p.t.nodeDom[n*p.L+p.L-1]].path + "/" + p.s.Node(placement.NodeID(n)).Name
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	left := p.r.count
	keep := make([]int64, len(so.takes))
	for _, i := range idx {
		keep[i] = min(so.takes[i], left)
		left -= keep[i]
	}
	n := 0
	for i, u := range so.nodes {
		if keep[i] > 0 {
			so.nodes[n], so.takes[n] = u, keep[i]
			n++
		}
	}
	so.nodes, so.takes = so.nodes[:n], so.takes[:n]
}
