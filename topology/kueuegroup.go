package topology

import (
	"fmt"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// kueueGroup plans a PodSetGroup of a one-pod leader and workers as
// Kueue v0.17 does without TASBalancedPlacement
// ([PlanOptions].KueueLeaderAware; pkg/cache/scheduler/
// tas_flavor_snapshot.go, findTopologyAssignment with a leader): as one
// request at the workers' level, each domain counting whether the leader
// fits and how many workers fit beside it (kgSearch). done is false
// where it does not apply, and the group is then planned by the group
// search (planWork): other than two sets, a one-pod leader (Kueue's,
// first in w: kueueLeaders) and workers; fixed pods; slices or an unconstrained set; the workers' preferred
// node affinity ranking domains (no Kueue v0.17 gate); a narrowest level
// whose domains hold more than one node; or an answer that leaves
// Kueue's own invariants (a host taken twice, a count other than the
// set's, a negative one), which Kueue would write as it stands and which
// is not modelled. Otherwise msg is why the group does not fit, where
// Kueue finds no domain, or "" with both sets kept, or, where Kueue loses
// the leader, the workers or every pod on the way down, "" with the sets
// Kueue still writes kept (the workers of a lost leader, with Kueue's
// counts; the leader of lost workers; none of a split that does not
// complete) and the plan marked as
// one Kueue assumes and cannot write ([Plan].KueueAssumed).
func (o *planOut) kueueGroup(rs []request, w []int, scope []int) (msg string, done bool) {
	p := o.p
	if len(w) != 2 || scope[w[0]] >= 0 || scope[w[1]] >= 0 {
		return "", false
	}
	lead, work := &rs[w[0]], &rs[w[1]]
	if lead.count != 1 || work.count < 1 || work.unconstrained || len(work.layers) > 1 || work.sliceUnit() > 1 || lead.sliceUnit() > 1 {
		return "", false
	}
	t := p.t
	L := len(t.keys)
	for d := t.levelStart[L-1]; d < t.levelStart[L]; d++ {
		if len(t.doms[d].nodes) != 1 {
			return "", false
		}
	}
	s := p.kueueGroupCounts(lead, work)
	if s == nil {
		return "", false
	}
	res := s.run(work.level, work.required)
	switch {
	case res.fail != "":
		// p.r is the workers' request, whose counts Kueue's reason gives.
		o.notFit = p.kueueNotFit(&failure{kfit: res.kfit, kok: true}, lead.name)
		return p.kueueGroupFail(lead, work, s, res), true
	case res.lost:
		// Kueue keeps no domain of the level that did not complete, and
		// so none below it: both sets are written empty and hold no node.
		why := fmt.Sprintf("PodSetGroup %q: Kueue v0.17's split of pod sets %q and %q (%d pods) over the domains under %s does not complete, "+
			"so Kueue writes them with empty topologyAssignments", work.group, lead.name, work.name, work.count, p.pathsOf(res.fit))
		o.assume(why, why+", which its Workload API refuses, and never admits the group")
		return "", true
	}
	leader, hosts, takes, ok := s.leaves(res.leaves)
	if !ok {
		return "", false
	}
	// The workers' hosts, with the counts Kueue writes (which need not add
	// up to the set's when it loses the leader).
	keepWorkers := func() {
		p.use(work)
		for i, u := range hosts {
			p.setTake(u, takes[i])
		}
		workers := p.finish(hosts, L-1, true)
		workers.fit = res.fit
		o.keep(workers)
	}
	if leader >= 0 && len(hosts) == 0 {
		why := fmt.Sprintf("PodSetGroup %q: Kueue v0.17 loses workers %q carrying the group down from %s to the hosts (a domain it takes twice is left with none of them the second time), "+
			"so Kueue writes the workers' pod set with an empty topologyAssignment", work.group, work.name, p.pathsOf(res.fit))
		o.assume(why, why+", which its Workload API refuses, and never admits the group")
		p.use(lead)
		p.setTake(leader, 1)
		ls := p.finish([]int{leader}, L-1, true)
		ls.fit = res.fit
		o.keep(ls) // Kueue's assumption holds the leader
		return "", true
	}
	if leader < 0 {
		why := fmt.Sprintf("PodSetGroup %q: Kueue v0.17 loses leader %q carrying the group down from %s to the hosts (its best fit of the last host looks at the workers' room alone), "+
			"so Kueue writes the leader's pod set with an empty topologyAssignment", work.group, lead.name, p.pathsOf(res.fit))
		o.assume(why, why+", which its Workload API refuses, and never admits the group")
		if len(hosts) > 0 {
			keepWorkers() // Kueue's assumption holds them
		}
		return "", true
	}
	keepWorkers()
	p.use(lead)
	p.setTake(leader, 1)
	ls := p.finish([]int{leader}, L-1, true)
	ls.fit = res.fit
	o.keep(ls)
	return "", true
}

// kueueGroupCounts counts every domain for the group as Kueue's
// fillInCounts does: per host, the workers that fit, and whether the
// leader fits with the workers that fit beside it. Kueue filters the
// hosts by the workers' template alone (its node selector, affinity and
// tolerations) and counts the leader's requests on those; the leader's
// template here carries the workers' filters (kueueLeaders). nil when
// the workers' preferred node affinity would rank the domains.
func (p *planner) kueueGroupCounts(lead, work *request) *kgSearch {
	t := p.t
	L := len(t.keys)
	p.use(lead)
	fits := make([]bool, t.levelStart[L]-t.levelStart[L-1])
	for d := t.levelStart[L-1]; d < t.levelStart[L]; d++ {
		k, _ := p.nodeCount(t.doms[d].nodes[0])
		fits[d-t.levelStart[L-1]] = k >= 1
	}
	p.use(work)
	if p.prefer {
		return nil
	}
	for d := t.levelStart[0]; d < t.levelStart[1]; d++ {
		p.fill(int(d), 0, true)
	}
	p.t.plan.forget()
	s := &kgSearch{t: t, d: make([]kgDom, len(t.doms)), n: work.count}
	for d := t.levelStart[L-1]; d < t.levelStart[L]; d++ {
		id := t.doms[d].nodes[0]
		// A host in deficit counts its negative workers, and so lowers
		// its domains' sums (PlanOptions.KueueNegativeCounts); the
		// leader never fits there.
		c := p.kueueCount(int(d))
		kd := kgDom{slice: c, wl: c, state: c}
		if fits[d-t.levelStart[L-1]] && placement.StaticFit(work.tmpl, p.s.Node(id)) {
			kd.lead, kd.wl = 1, p.countBeside(id, lead.req)
		}
		s.d[d] = kd
	}
	s.sum()
	return s
}

// leaves reads the search's leaves as Kueue writes them: the one leaf
// with the leader (-1 when none has it), and the leaves with workers and
// their counts (none when a leaf Kueue listed twice was left with none of
// them the second time: Kueue then writes the workers empty). ok is false
// when they leave Kueue's invariants otherwise: a leaf listed twice with
// pods, a leader on two leaves, a negative count, or counts that do not
// add up to the workers'.
func (s *kgSearch) leaves(ls []int) (leader int, hosts []int, takes []int64, ok bool) {
	leader = -1
	seen := map[int]bool{}
	var total int64
	for _, u := range ls {
		d := s.d[u]
		if d.lead > 0 {
			if leader >= 0 || d.lead != 1 {
				return -1, nil, nil, false
			}
			leader = u
		}
		if d.state == 0 {
			continue
		}
		if d.state < 0 || seen[u] {
			return -1, nil, nil, false
		}
		seen[u] = true
		total += d.state
		hosts = append(hosts, u)
		takes = append(takes, d.state)
	}
	if leader >= 0 && total != s.n && len(hosts) > 0 {
		return -1, nil, nil, false
	}
	return leader, hosts, takes, true
}

// kueueGroupFail words phase 2a's failure: the level searched (the
// widest, for a preferred one) and its first domain in Kueue's order.
func (p *planner) kueueGroupFail(lead, work *request, s *kgSearch, res kgResult) string {
	where := fmt.Sprintf("in one %s domain", p.t.keys[res.fitLevel])
	if !work.required {
		where = "in one domain of any level, nor across the cluster"
	}
	msg := fmt.Sprintf("PodSetGroup %q needs pod set %q (%d pods) beside leader %q %s, as Kueue v0.17 places a leader and its workers as one request",
		work.group, work.name, work.count, lead.name, where)
	if res.best < 0 {
		return msg
	}
	d := s.d[res.best]
	if d.lead == 0 {
		return msg + fmt.Sprintf("; no %s domain holds the leader", p.t.keys[res.fitLevel])
	}
	msg += fmt.Sprintf("; the first in Kueue's order, %s, holds %d beside the leader", p.path(res.best), d.wl)
	if d.wl >= s.n {
		msg += " but Kueue's best fit of the workers picks a domain without the leader's room"
	}
	return msg
}

// pathsOf names the domains us for a reason: the first few and how many
// more, so that a group spread over hundreds of domains keeps its reason
// short enough for the API's 32 KiB condition message, the verdict at its
// end included.
func (p *planner) pathsOf(us []int) string {
	const named = 3
	var b strings.Builder
	for i, u := range us[:min(len(us), named)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.path(u))
	}
	if len(us) > named {
		fmt.Fprintf(&b, " and %d more", len(us)-named)
	}
	return b.String()
}
