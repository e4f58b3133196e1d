package kube

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// FilterPlacement re-checks a group's whole assignment a against the
// DoNotSchedule constraints of its members (a [placement.PlacementFilter];
// the gang cycle runs it again before it binds, see gang.Scheduler.Cycle).
// The filter is order-dependent, as upstream's: each member is checked
// against the pods placed before it. The assignment passes when its
// members can be placed one by one, each passing as the Reserver checks
// it: in member order ([placement.MemberOrder]) when that works, as it
// does for the solver's greedy pass, else by placing, again and again,
// the first remaining member that passes, which finds an order whenever
// one exists for members that share one constraint and match it. A
// member's pod is looked up in g by the assignment's key; pod set entries
// (Count > 0) carry no constraints and are skipped. The rejection names
// the first member, in member order, of those left when none of them
// passes, and its node. Cost: O(members² · (domains + members)) at worst, O(members ·
// (domains + members)) when member order passes.
func (f *SpreadFilter) FilterPlacement(s *placement.Snapshot, g placement.GroupView, _ *placement.Placement, a []placement.Assignment) placement.Rejection {
	type entry struct {
		pod  *placement.Pod
		node placement.NodeID
	}
	var members map[placement.Key]*placement.Pod
	var rest []entry
	for _, as := range a {
		if as.Count > 0 {
			continue
		}
		if members == nil {
			members = make(map[placement.Key]*placement.Pod, len(g.Members))
			for i := range g.Members {
				members[g.Members[i].Key()] = &g.Members[i]
			}
		}
		if p, ok := members[as.Pod]; ok {
			rest = append(rest, entry{p, as.NodeID})
		}
	}
	pods := make([]*placement.Pod, len(rest))
	for i := range rest {
		pods[i] = rest[i].pod
	}
	if !f.Needed(pods) {
		return placement.Rejection{}
	}
	slices.SortFunc(rest, func(x, y entry) int { return placement.MemberOrder(x.pod, y.pod) })
	r := &spreadReserver{f: f, s: s, states: map[placement.Key][]spreadState{}}
	for len(rest) > 0 {
		k := slices.IndexFunc(rest, func(e entry) bool { return r.check(e.pod, e.node).OK() })
		if k < 0 {
			e := rest[0]
			why := r.check(e.pod, e.node)
			return placement.Rejection{Reason: fmt.Sprintf("pod %s on node %q: %s", e.pod.Key(), s.Node(e.node).Name, why.Reason), Unresolvable: why.Unresolvable}
		}
		r.reserved = append(r.reserved, placed{rest[k].pod, rest[k].node})
		rest = slices.Delete(rest, k, k+1)
	}
	return placement.Rejection{}
}

var _ placement.PlacementFilter = (*SpreadFilter)(nil)
