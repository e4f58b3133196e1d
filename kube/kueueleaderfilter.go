package kube

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// kueueGroupFilters returns g, whose pod sets' topology requests are
// requests (one per set, in g.PodSets' order), with the leader of each
// PodSetGroup of two sets given its workers' node filters: their node
// selector, node affinity and tolerations (the flavor's already in them).
// Kueue v0.17 places such a group as one request (its TAS
// FindTopologyAssignmentsForFlavor and findTopologyAssignment): the
// workers are the group's first set in spec.podSets order unless the
// second has more pods (findLeaderAndWorkers), and the hosts are filtered
// by the workers' pod set alone, the leader's requests counted on those.
// The leader's own filters are never read, so Kueue may put the leader on
// a host they refuse (its pod then never starts) and keeps it off a host
// only they let in. The real Kueue did both (kueue-oracle/leader-filter-*).
// g itself is returned when no group has two sets (one of three is
// refused at load: checkGroupSize).
func kueueGroupFilters(g *placement.Group, requests []topology.PodSetRequest) *placement.Group {
	var out *placement.Group
	for k, r := range requests {
		if r.Group == "" || slices.ContainsFunc(requests[:k], func(q topology.PodSetRequest) bool { return q.Group == r.Group }) {
			continue // not grouped, or not the group's first set
		}
		var sets []int
		for j := k; j < len(requests); j++ {
			if requests[j].Group == r.Group {
				sets = append(sets, j)
			}
		}
		if len(sets) != 2 {
			continue
		}
		work, lead := sets[0], sets[1]
		if g.PodSets[lead].Count > g.PodSets[work].Count {
			work, lead = lead, work
		}
		if out == nil {
			c := *g
			c.PodSets = slices.Clone(g.PodSets)
			out = &c
		}
		wt, lt := &out.PodSets[work].Template, &out.PodSets[lead].Template
		lt.NodeSelector, lt.NodeAffinity, lt.Tolerations = wt.NodeSelector, wt.NodeAffinity, wt.Tolerations
	}
	if out == nil {
		return g
	}
	return out
}
