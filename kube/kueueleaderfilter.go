package kube

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// kueueLeaderOf returns the index in w.Group.PodSets of the leader of
// PodSetGroup group as Kueue v0.17 takes it: a phantom leader
// (kueuephantom.go; of count 0 in Kueue, which always leads), else
// [topology.KueueLeader]'s. ok is false when the group has not two sets.
func kueueLeaderOf(w *KueueWorkload, group string) (lead int, ok bool) {
	g := w.Group
	name, work, ok := topology.KueueLeader(g, w.Requests, group)
	if !ok {
		return 0, false
	}
	if w.isPhantom(work) {
		name = work
	}
	return slices.IndexFunc(g.PodSets, func(ps placement.PodSet) bool { return ps.Name == name }), true
}

// kueuePhantomsLast returns g and requests (one per set, in g.PodSets'
// order) with each phantom leader (phantom reports it by set name;
// kueuephantom.go) that comes first in its PodSetGroup and has a partner
// of one pod listed after that partner: the planner sees it at count 1,
// and under the kueue profiles takes the second of two one-pod sets as
// the leader, as Kueue v0.17 does, where Kueue takes the phantom, of
// count 0, in either place. The planner does the rest of Kueue's leader
// rule itself ([topology.KueueLeader], the leader planned by its
// workers' node filters). g and requests are copied once, when a phantom
// needs moving, and never written; they are returned themselves
// otherwise.
func kueuePhantomsLast(g *placement.Group, requests []topology.PodSetRequest, phantom func(string) bool) (*placement.Group, []topology.PodSetRequest) {
	out, rs := g, requests
	for k, r := range requests {
		if r.Group == "" || !phantom(g.PodSets[k].Name) {
			continue
		}
		j := slices.IndexFunc(requests[k+1:], func(q topology.PodSetRequest) bool { return q.Group == r.Group })
		if j < 0 || g.PodSets[k+1+j].Count > g.PodSets[k].Count {
			continue // after its partner, or the leader by its count
		}
		j += k + 1
		if out == g {
			c := *g
			c.PodSets = slices.Clone(g.PodSets)
			out, rs = &c, slices.Clone(requests)
		}
		out.PodSets[k], out.PodSets[j] = out.PodSets[j], out.PodSets[k]
		rs[k], rs[j] = rs[j], rs[k]
	}
	return out, rs
}

// refusedLeaderWords says which hosts of planned (pods per node by set
// name) a set's own template, group's as planned (its flavor's labels and
// tolerations in it), refuses: under the kueue profiles only a
// PodSetGroup's leader lands there ([topology.KueueLeader]), admitted as
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
// ([kueueLeaderOf]) is read: the workers were planned by their own
// filters, and a worker that a node changed since refuses is no leader
// placed by another set's filters. "" under the gangsched profile, which
// asks each set's own filters, and when no leader is refused.
func (a *admitter) keptLeaderWords(w *KueueWorkload, sets [][]placement.PodSetAssignment) string {
	if !a.opts.Plan.KueueLeaderAware {
		return ""
	}
	leaders := &placement.Group{Namespace: w.Group.Namespace, Name: w.Group.Name}
	planned := map[string][]placement.PodSetAssignment{}
	var seen []string
	for _, r := range w.Requests {
		if r.Group == "" || slices.Contains(seen, r.Group) {
			continue
		}
		seen = append(seen, r.Group)
		lead, ok := kueueLeaderOf(w, r.Group)
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
