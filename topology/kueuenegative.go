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
// the units of us in deficit count below zero together, and records in
// p.negAt the one in the deepest deficit (then the first path). us are
// units that Kueue's TAS fills the least free first — an unconstrained
// set's (LeastFreeCapacity), or a domain's pods split below the slice
// level — and that order takes every unit of a negative count before the
// others: it writes their counts (below 1, which Kueue's Workload API
// refuses) in the set's assignment and takes as many more from the rest,
// which the caller adds to what it takes. A best-fit fill takes the
// largest first, and the counts of those hold what the domain above
// counted with the negative ones: it never reaches them.
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
		p.noteWrite(u, written)
		if p.negAt < 0 || written < p.negPods || written == p.negPods && p.path(u) < p.path(p.negAt) {
			p.negAt, p.negPods = u, written
		}
	}
	return sum
}

// noteWrite records that Kueue writes count (below zero) for unit u,
// when u is a node or a host's one node: Kueue's assumption then gives
// that room back (PlanOptions.KueueLift). A domain written below zero
// is split further by Kueue, into counts not modelled here.
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
// other (see lfLow).
func (p *planner) noteLow(us []int) {
	p.lfLow = p.lfLow[:0]
	for _, u := range us {
		if p.kueueSlices(u) <= 0 {
			p.lfLow = append(p.lfLow, u)
		}
	}
}

// splitLow splits, at level lv (at or below the slice level), the
// units Kueue's least-free-first fill appended with no pods (p.lfLow):
// Kueue splits each as it splits the others, with 0 pods, the least free
// children first. A child of a negative count is written, and as many
// pods are taken from the rest (see negatives); otherwise the least free
// child, of no pods below zero, is given the 0 pods and split in turn.
// It appends the children taken to dst and keeps those given 0 pods in
// p.lfLow. A node, or a host's one node, is counted where it was pooled.
func (p *planner) splitLow(dst []int, lv int) []int {
	sc := p.t.plan
	unit := p.r.unitAt(lv + 1)
	low := p.lfLow
	var passed []int
	for _, u := range low {
		if u >= p.D || sc.only[u] >= 0 {
			continue
		}
		ks := p.appendKids(nil, u)
		if extra := p.negatives(ks, false); extra > 0 {
			dst, _ = p.takeFrom(dst, ks, extra/unit, unit, capMode{unit: unit}, true)
			continue
		}
		least := ks[0]
		for _, k := range ks[1:] {
			if c, l := p.kueueCount(k), p.kueueCount(least); c < l || c == l && p.path(k) < p.path(least) {
				least = k
			}
		}
		passed = append(passed, least)
	}
	p.lfLow = append(low[:0], passed...)
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
