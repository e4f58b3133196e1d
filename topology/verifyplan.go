package topology

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// VerifyPlan checks plan p for g's pod sets against reqs: its Decision as
// [Tree.VerifyPodSets] checks one, and, as [PodSetPlan] promises, its
// sets' ranks:
//
//   - PodSets lists exactly the sets the decision places (none unless
//     Scheduled), sorted by name;
//   - a set's Ranks number its pods from 0 without gap, each run of at
//     least one pod on the node it names, and put as many pods on each
//     node as the decision does;
//   - a set's Domain, when not "", holds all its pods;
//   - taken in rank order, the pods fill one domain after another at every
//     level: once they leave a domain they never come back to it. With
//     VerifyPodSets' whole slices per domain, this puts each slice of
//     every layer (ranks [k·size, (k+1)·size)) in one domain of its
//     level: each domain's run of ranks starts at a multiple of the
//     sizes around it. (The set that the group's bound members belong to
//     ranks only its new pods, which first complete the bound ones'
//     slices: its slices are whole per domain, not in rank order.)
//
// A plan's KueueAssumed is not checked. Errors as VerifyPodSets'; a broken
// rank promise wraps [placement.ErrViolation] and names the set, the rank
// and its node. Cost: VerifyPodSets', plus O(pods × levels).
func (t *Tree) VerifyPlan(s *placement.Snapshot, g *placement.Group, p Plan, reqs []PodSetRequest, filters ...placement.Filter) error {
	if err := t.VerifyPodSets(s, g, p.Decision, reqs, filters...); err != nil {
		return err
	}
	d := p.Decision
	want := map[string]map[placement.NodeID]int64{} // per set, pods per node
	if d.Status == placement.Scheduled {
		for name, rr := range setRuns(d) {
			want[name] = map[placement.NodeID]int64{}
			for _, x := range rr {
				want[name][x.node] += x.count
			}
		}
	}
	names := make([]string, len(p.PodSets))
	for k := range p.PodSets {
		names[k] = p.PodSets[k].Name
	}
	if placed := slices.Sorted(maps.Keys(want)); !slices.Equal(names, placed) {
		return violation(g, fmt.Sprintf("plan lists sets %q, where the %s decision places %q, by name", names, d.Status, placed))
	}
	for k := range p.PodSets {
		if err := t.checkRanks(s, g, &p.PodSets[k], want[names[k]]); err != nil {
			return err
		}
	}
	return nil
}

// checkRanks checks one planned set's ranks against want, its pods per
// node in the decision.
func (t *Tree) checkRanks(s *placement.Snapshot, g *placement.Group, ps *PodSetPlan, want map[placement.NodeID]int64) error {
	name := setName(ps.Name)
	bad := func(format string, args ...any) error { return violation(g, name+": "+fmt.Sprintf(format, args...)) }
	var pods []placement.NodeID // by rank
	got := map[placement.NodeID]int64{}
	for _, rk := range ps.Ranks {
		if int(rk.First) != len(pods) || rk.Count < 1 {
			return bad("ranks on node %q start at %d with %d pods, after %d ranked pods", rk.Node, rk.First, rk.Count, len(pods))
		}
		if id, ok := s.NodeID(rk.Node); !ok || id != rk.NodeID {
			return bad("ranks %d on node %q with NodeID %d, which is not that node's", rk.First, rk.Node, rk.NodeID)
		}
		got[rk.NodeID] += int64(rk.Count)
		for range rk.Count {
			pods = append(pods, rk.NodeID)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(want)) {
		if got[id] != want[id] {
			return bad("ranks put %d pods on node %q, the decision %d", got[id], s.Node(id).Name, want[id])
		}
	}
	if ps.Domain != "" {
		dom, ok := t.byPath[ps.Domain]
		if !ok {
			return bad("planned into domain %s, which the tree does not have", ps.Domain)
		}
		for k, id := range pods {
			if t.domainOf(id, t.doms[dom].level) != dom {
				return bad("rank %d on node %q is outside the set's domain %s", k, s.Node(id).Name, ps.Domain)
			}
		}
	}
	for l := range t.keys {
		left := map[DomainID]bool{}
		for k := 1; k < len(pods); k++ {
			a, b := t.domainOf(pods[k-1], l), t.domainOf(pods[k], l)
			if a == b {
				continue
			}
			left[a] = true
			if left[b] {
				return bad("rank %d on node %q returns to domain %s, which ranks before it left", k, s.Node(pods[k]).Name, t.doms[b].path)
			}
		}
	}
	return nil
}
