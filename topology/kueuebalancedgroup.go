package topology

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// kueueBalancedGroup plans a PodSetGroup of a leader and workers that
// prefer a level as Kueue v0.17 does with TASBalancedPlacement: the
// workers balanced with the leader's room counted (kueueBalanced with a
// kbLeader), the leader on the domain the balance gives it. Kueue takes
// the group's smaller set (here the first of w, the smaller by count,
// then name) as the leader and places one pod of it. done is false
// where it does not apply, and the group is then planned as without
// the gate: a group of other than a one-pod set and another, sets with
// fixed pods, a narrowest level whose domains hold more than one node, no
// domain whose lower domains hold the group, or, with the preferred level
// more than one above the narrowest, a descent carryDown cannot model.
// Otherwise msg is the reason it did not fit, or "" with both sets kept,
// or with a leader Kueue loses on the way down the workers' hosts kept
// (when Kueue writes them whole) and the plan marked as one Kueue
// assumes and cannot write ([Plan].KueueAssumed).
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
	// by level after the balance (carryDown), where it can lose it.
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
	kids := maps.Clone(p.kbKids) // a group planned otherwise leaves no sort behind
	units, fl, at, applied, f := p.kueueBalanced(-1, ld)
	if !applied {
		return "", false
	}
	if f != nil {
		p.clearTakes()
		o.notFit = p.kueueNotFit(f, lead.name)
		return p.reason(f), true
	}
	if deep {
		takes := make([]int64, len(units))
		for i, u := range units {
			takes[i] = p.take[u]
		}
		p.clearTakes()
		kb := kbSearch{p: p, P: work.level, S: p.L - 1, leaf: p.L - 1, z: 1, n: work.count, ld: ld}
		hostsUsed, hostTakes, leadAt, ok := kb.carryDown(units, takes, at, fl)
		switch {
		case !ok:
			p.kbKids = kids
			return "", false
		case leadAt < 0:
			why := fmt.Sprintf("%s: TAS Balanced Placement (Kueue v0.17): the leader is lost carrying it down from %s to the hosts, "+
				"so Kueue writes its pod set with an empty topologyAssignment", lead.obj(), p.path(at))
			o.assume(why, why+", which Kueue's Workload API refuses, and never admits the group")
			if len(hostsUsed) > 0 {
				// Kueue's assumption holds the workers' hosts.
				for i, u := range hostsUsed {
					p.setTake(u, hostTakes[i])
				}
				o.keep(p.finish(hostsUsed, p.L-1, true))
			}
			return "", true
		}
		for i, u := range hostsUsed {
			p.setTake(u, hostTakes[i])
		}
		units, fl, at = hostsUsed, p.L-1, leadAt
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

// kdDom is a domain in Kueue's split of a take among children: its
// workers and the workers beside a leader, and its leaders.
type kdDom struct {
	u                     int
	state, stateWL, leads int64
}

// carryDown splits the balanced takes of units (level fl; the leader on
// unit at) down to the hosts as Kueue v0.17 does for a leader and
// workers: at each level each domain's children in Kueue's order (most
// pods, then path), filled in turn, the last by best fit; while the
// leader is unplaced a child takes the workers beside it, and if that
// child does not complete the take its leader count is cut to what is
// left, 0 — Kueue loses the leader there (lead is then -1); so it does
// when a domain's children cannot hold its take (Kueue keeps none of
// them). With the leader lost, hosts are the workers' hosts Kueue still
// writes, with its counts, whatever they add up to (none where a host
// comes twice or a count is negative, not modelled). With the leader
// kept, ok is false where Kueue's split leaves its
// own invariants (children dropped, a child taken twice, a count other
// than the set's, a negative one), which is not modelled.
func (kb *kbSearch) carryDown(units []int, takes []int64, at, fl int) (hosts []int, hostTakes []int64, lead int, ok bool) {
	p := kb.p
	cur := make([]kdDom, len(units))
	for i, u := range units {
		cur[i] = kdDom{u: u, state: takes[i]}
		if u == at {
			cur[i].leads = 1
		}
	}
	dropped := false
	for lv := fl; lv < p.L-1; lv++ {
		var next []kdDom
		for _, d := range cur {
			kids := p.appendKids(nil, d.u)
			ds := make([]*kdDom, len(kids))
			for i, k := range kids {
				c := kb.count(k, lv+1)
				ds[i] = &kdDom{u: k, state: c.pods, stateWL: c.podsWL, leads: c.leader}
			}
			slices.SortStableFunc(ds, func(a, b *kdDom) int {
				if x := cmp.Compare(b.state, a.state); x != 0 {
					return x
				}
				return cmp.Compare(a.u, b.u)
			})
			res, done := kdSplit(ds, d.state, d.leads)
			if !done {
				dropped = true // Kueue keeps none of this domain's children
				continue
			}
			for _, r := range res {
				next = append(next, *r)
			}
		}
		cur = next
	}
	lead = -1
	for _, d := range cur {
		if d.leads > 0 {
			lead = d.u
		}
	}
	whole := !dropped
	seen := map[int]bool{}
	var total int64
	for _, d := range cur {
		if seen[d.u] || d.state < 0 {
			whole = false
			break
		}
		seen[d.u] = true
		total += d.state
		if d.state > 0 {
			hosts = append(hosts, d.u)
			hostTakes = append(hostTakes, d.state)
		}
	}
	if lead < 0 {
		// Kueue writes the workers' hosts as its split left them, the
		// counts of the domains it kept (which need not add up to the
		// set's); a host listed twice or a negative count is not
		// modelled: none is held.
		if len(seen) < len(cur) {
			hosts, hostTakes = nil, nil
		}
		return hosts, hostTakes, -1, true
	}
	whole = whole && total == kb.n
	if !whole {
		return nil, nil, -1, false
	}
	return hosts, hostTakes, lead, true
}

// kdSplit is Kueue v0.17's split of take workers and leads leaders among
// ds, in order (updateCountsToMinimumGeneric, pods): done is false when
// they do not hold it.
func kdSplit(ds []*kdDom, take, leads int64) (res []*kdDom, done bool) {
	bestFit := func(ds []*kdDom, need int64, f func(*kdDom) int64) *kdDom {
		best := ds[0]
		for _, d := range ds {
			if f(d) >= need && f(d) < f(best) {
				best = d
			}
		}
		return best
	}
	wl := func(d *kdDom) int64 { return d.stateWL }
	st := func(d *kdDom) int64 { return d.state }
	rem, remL := take, leads
	for i := range ds {
		d := ds[i]
		if remL > 0 {
			if d.stateWL >= rem && d.leads >= remL {
				d = bestFit(ds[i:], rem, wl)
			}
			if d.stateWL >= rem && d.leads >= remL {
				d.state, d.leads = rem, remL
				return append(res, d), true
			}
			rem -= d.stateWL
			remL -= d.leads
			d.stateWL = min(d.stateWL, rem)
			d.leads = min(d.leads, remL)
			res = append(res, d)
			continue
		}
		if d.state >= rem {
			d = bestFit(ds[i:], rem, st)
		}
		d.leads = 0
		if d.state >= rem {
			d.state = rem
			return append(res, d), true
		}
		rem -= d.state
		res = append(res, d)
	}
	return nil, false
}
