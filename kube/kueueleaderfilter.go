package kube

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// kueueGroupPair returns the spec order indexes (in requests) of the
// workers and the leader of the PodSetGroup whose first set is k, as
// Kueue v0.17's findLeaderAndWorkers takes them: the second set leads
// unless it has more pods than the first, a phantom leader
// (kueuephantom.go; its count is 0 in Kueue) in either place. ok is
// false when k is not a group's first set or the group has not two sets.
func kueueGroupPair(g *placement.Group, requests []topology.PodSetRequest, k int, phantom func(string) bool) (work, lead int, ok bool) {
	r := requests[k]
	if r.Group == "" || slices.ContainsFunc(requests[:k], func(q topology.PodSetRequest) bool { return q.Group == r.Group }) {
		return 0, 0, false // not grouped, or not the group's first set
	}
	var sets []int
	for j := k; j < len(requests); j++ {
		if requests[j].Group == r.Group {
			sets = append(sets, j)
		}
	}
	if len(sets) != 2 {
		return 0, 0, false
	}
	work, lead = sets[0], sets[1]
	if g.PodSets[lead].Count > g.PodSets[work].Count || phantom(g.PodSets[work].Name) {
		work, lead = lead, work
	}
	return work, lead, true
}

// kueueGroupPlan returns g and requests as the planner must see them to
// place each PodSetGroup of two sets ([kueueGroupPair]) as Kueue v0.17
// does, g's pod sets' topology requests being requests (one per set, in
// g.PodSets' order):
//
//   - the leader is given its workers' node filters: their node selector,
//     node affinity and tolerations (the flavor's already in them). Kueue
//     places such a group as one request (its TAS
//     FindTopologyAssignmentsForFlavor and findTopologyAssignment), the
//     hosts filtered by the workers' pod set alone, the leader's requests
//     counted on those. The leader's own filters are never read, so Kueue
//     may put the leader on a host they refuse (its pod then never starts)
//     and keeps it off a host only they let in. The real Kueue did both
//     (kueue-oracle/leader-filter-*).
//   - the leader takes the workers' place when it comes after them, and
//     they its own: the planner takes a group's set of fewest pods as its
//     leader, the first of them on a tie, where Kueue takes the second (of
//     equal counts) or a phantom one (phantom reports it by set name;
//     kueuephantom.go), whose count in Kueue is 0. The plan is read back by
//     pod set name.
//
// g and requests are copied once, when a group needs either change, and
// never written; they are returned themselves when no group has two sets
// (one of three is refused at load: checkGroupSize).
func kueueGroupPlan(g *placement.Group, requests []topology.PodSetRequest, phantom func(string) bool) (*placement.Group, []topology.PodSetRequest) {
	out, rs, swapped := g, requests, false
	for k := range requests {
		work, lead, ok := kueueGroupPair(g, requests, k, phantom)
		if !ok {
			continue
		}
		if out == g {
			c := *g
			c.PodSets = slices.Clone(g.PodSets)
			out = &c
		}
		wt, lt := &out.PodSets[work].Template, &out.PodSets[lead].Template
		lt.NodeSelector, lt.NodeAffinity, lt.Tolerations = wt.NodeSelector, wt.NodeAffinity, wt.Tolerations
		if lead < work {
			continue
		}
		if !swapped {
			rs, swapped = slices.Clone(requests), true
		}
		out.PodSets[work], out.PodSets[lead] = out.PodSets[lead], out.PodSets[work]
		rs[work], rs[lead] = rs[lead], rs[work]
	}
	return out, rs
}

// refusedLeaderWords says which hosts of planned (pods per node by set
// name) a set's own template, group's as planned (its flavor's labels and
// tolerations in it), refuses: under the kueue profiles only a
// PodSetGroup's leader lands there ([kueueGroupPlan]), admitted as
// Kueue admits it, and its pod then never starts, which the caller would
// otherwise learn only from the pod. A phantom leader (phantom reports it
// by set name) has no pod to start and is left out. It is said when the
// Workload is admitted, and of an admission read back
// ([admitter.keptLeaderWords]). "" when every host admits its set.
func refusedLeaderWords(s *placement.Snapshot, group *placement.Group, planned map[string][]placement.PodSetAssignment, phantom func(string) bool) string {
	var out []string
	for _, set := range group.PodSets {
		if phantom(set.Name) {
			continue
		}
		var refused []string
		for _, a := range planned[set.Name] {
			if !placement.StaticFit(&set.Template, s.Node(a.NodeID)) {
				refused = append(refused, a.Node)
			}
		}
		if len(refused) > 0 {
			out = append(out, fmt.Sprintf("pod set %s is on %s, which its own node selector, affinity or tolerations refuse: Kueue places a PodSetGroup's leader by its workers' filters, so the leader's pod never starts there",
				set.Name, hostList(refused)))
		}
	}
	return joinReasons(out)
}

// keptLeaderWords is [refusedLeaderWords] for admitted Workload w read
// back (its view: each set's template in the topology flavor its
// admission names), whose pods per node sets gives (Group.PodSets'
// order), so that every run on a Kept Workload says what the run that
// admitted it said. Only the leader of each PodSetGroup of two sets
// ([kueueGroupPair]) is read: the workers were planned by their own
// filters, and a worker that a node changed since refuses is no leader
// placed by another set's filters. "" under the gangsched profile, which
// asks each set's own filters, and when no leader is refused.
func (a *admitter) keptLeaderWords(w *KueueWorkload, sets [][]placement.PodSetAssignment) string {
	if !a.opts.Plan.KueueLeaderAware {
		return ""
	}
	leaders := &placement.Group{Namespace: w.Group.Namespace, Name: w.Group.Name}
	planned := map[string][]placement.PodSetAssignment{}
	for k := range w.Requests {
		_, lead, ok := kueueGroupPair(w.Group, w.Requests, k, w.isPhantom)
		if !ok || lead >= len(sets) {
			continue
		}
		set := w.Group.PodSets[lead]
		leaders.PodSets = append(leaders.PodSets, set)
		for _, p := range sets[lead] {
			if p.NodeID >= 0 { // a gone node has no filters to read
				planned[set.Name] = append(planned[set.Name], p)
			}
		}
	}
	if len(leaders.PodSets) == 0 {
		return ""
	}
	return refusedLeaderWords(a.s, leaders, planned, w.isPhantom)
}
