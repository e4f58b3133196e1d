package topology

import "github.com/gangsched/gangsched/placement"

// kueueBalancedGroup plans a PodSetGroup of a leader and workers that
// prefer a level as Kueue v0.17 does with TASBalancedPlacement: the
// workers balanced with the leader's room counted (kueueBalanced with a
// kbLeader), the leader on the domain the balance gives it. Kueue takes
// the group's smaller set (here the first of w, the smaller by count,
// then name) as the leader and places one pod of it. done is false
// where it does not apply, and the group is then planned as without
// the gate: a group of other than a one-pod set and another, sets with
// fixed pods, a narrowest level whose domains hold more than one node, no
// domain whose lower domains hold the group, or a balance that fits with
// the preferred level more than one above the narrowest (where Kueue
// v0.17 carries the leader down through levels and, in every world run,
// lost it and never admitted the group: not modelled). Otherwise msg is
// the reason it did not fit, or "" with both sets kept.
func (o *planOut) kueueBalancedGroup(rs []request, w []int, scope []int) (msg string, done bool) {
	p := o.p
	if len(w) != 2 || scope[w[0]] >= 0 || scope[w[1]] >= 0 {
		return "", false
	}
	lead, work := &rs[w[0]], &rs[w[1]]
	if lead.count != 1 || !work.preferred {
		return "", false
	}
	// Above the level over the hosts Kueue carries the leader down level
	// by level after the balance, and in every world run it lost it and
	// never admitted the group: only the balance's own failure is Kueue's
	// answer there; a balance that fits falls back to the group search.
	deep := work.level < p.L-2
	t := p.t
	for d := t.levelStart[p.L-1]; d < t.levelStart[p.L]; d++ {
		if len(t.doms[d].nodes) != 1 {
			return "", false
		}
	}
	// Per host node: does the leader fit, and how many workers beside it.
	ld := &kbLeader{fits: map[int]bool{}, with: map[int]int64{}}
	var hosts []placement.NodeID
	for d := t.levelStart[p.L-1]; d < t.levelStart[p.L]; d++ {
		hosts = append(hosts, t.doms[d].nodes[0])
	}
	p.use(lead)
	for _, id := range hosts {
		if k, _ := p.nodeCount(id); k >= 1 {
			ld.fits[p.D+int(id)] = true
		}
	}
	p.use(work)
	for _, id := range hosts {
		if ld.fits[p.D+int(id)] {
			ld.with[p.D+int(id)] = p.countBeside(id, lead.req)
		}
	}
	p.fillScope(-1)
	p.t.plan.forget()
	units, fl, at, applied, f := p.kueueBalanced(-1, ld)
	if !applied {
		return "", false
	}
	if f != nil {
		p.clearTakes()
		return p.reason(f), true
	}
	if deep {
		p.clearTakes()
		return "", false
	}
	workers := p.finish(units, fl, true)
	p.use(lead)
	p.setTake(at, 1)
	leader := p.finish([]int{at}, fl, true)
	o.keep(workers)
	o.keep(leader)
	return "", true
}

// countBeside is nodeCount of node id with other's requests taken from
// its free capacity first (a leader beside the workers counted).
func (p *planner) countBeside(id placement.NodeID, other []int64) int64 {
	if p.extra == nil {
		p.extra = p.t.plan.extra
		defer func() { p.extra = nil }()
	}
	row := p.extra[int(id)*p.R : int(id+1)*p.R]
	for j, q := range other {
		row[j] += q
	}
	k, _ := p.nodeCount(id)
	for j, q := range other {
		row[j] -= q
	}
	return k
}
