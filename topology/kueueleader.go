package topology

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// KueueLeader returns the pod sets of g that Kueue v0.17 takes as the
// leader and the workers of PodSetGroup group, reqs naming each set's
// group (any order): of the group's two sets in g.PodSets' order (its
// spec.podSets order), the second leads unless it has more pods than the
// first (pkg/cache/scheduler/tas_flavor_snapshot.go, findLeaderAndWorkers).
// The leader so never has more pods than its workers, and of two one-pod
// sets the second leads. ok is false unless reqs put exactly two of g's
// pod sets, and not the members, in group. [Tree.PlanPodSets] takes this
// leader under [PlanOptions].KueueLeaderAware with InGroupOrder (without
// it, that of g with its PodSets sorted by name); a caller may need it to
// read an admission back, e.g. to check the leader's own filters against
// its hosts.
func KueueLeader(g *placement.Group, reqs []PodSetRequest, group string) (leader, workers string, ok bool) {
	if g == nil || group == "" {
		return "", "", false
	}
	var at []int // g.PodSets indexes of the group's sets
	for _, r := range reqs {
		if r.Group != group {
			continue
		}
		k := slices.IndexFunc(g.PodSets, func(ps placement.PodSet) bool { return ps.Name == r.PodSet })
		if r.PodSet == "" || k < 0 || slices.Contains(at, k) {
			return "", "", false
		}
		at = append(at, k)
	}
	if len(at) != 2 {
		return "", "", false
	}
	slices.Sort(at)
	w, l := &g.PodSets[at[0]], &g.PodSets[at[1]]
	if l.Count > w.Count {
		w, l = l, w
	}
	return l.Name, w.Name, true
}

// kueueLeaders makes each PodSetGroup of two pod sets in rs (bound, in
// the order they are planned: g.PodSets' with [PlanOptions].InGroupOrder,
// as Kueue's spec.podSets, else by name) the group Kueue v0.17 places
// ([PlanOptions].KueueLeaderAware): its leader is [KueueLeader]'s for
// that order, put before its workers in rs, so that every group search
// here takes it as the leader (works keeps a group's sets of equal counts
// in rs's order); and the leader's template gets its workers' node
// selector, node affinity and tolerations, as Kueue filters the group's
// hosts by the workers' pod set alone and counts the leader's requests
// on those (findTopologyAssignment). The leader's own filters are never
// read: the real Kueue put a leader on a host they refuse, and kept it
// off a host only they let in (kube/testdata/kueue-oracle/leader-filter-*).
// A group of another size, or with the members, is left as it is.
func kueueLeaders(rs []request) {
	var done []string
	for i := range rs {
		grp := rs[i].group
		if grp == "" || slices.Contains(done, grp) {
			continue
		}
		done = append(done, grp)
		at := []int{i}
		for j := i + 1; j < len(rs); j++ {
			if rs[j].group == grp {
				at = append(at, j)
			}
		}
		if len(at) != 2 || rs[at[0]].members || rs[at[1]].members {
			continue
		}
		a, b := at[0], at[1]
		w, l := a, b
		if rs[l].count > rs[w].count {
			w, l = l, w
		}
		if l == b {
			rs[a], rs[b] = rs[b], rs[a]
			l, w = a, b
		}
		tmpl := *rs[l].tmpl
		wt := rs[w].tmpl
		tmpl.NodeSelector, tmpl.NodeAffinity, tmpl.Tolerations = wt.NodeSelector, wt.NodeAffinity, wt.Tolerations
		rs[l].tmpl = &tmpl
	}
}
