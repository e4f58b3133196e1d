package topology

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// VerifyPodSets checks decision d for g's pod sets (and its members, the
// set named "") — from [Tree.PlanPodSets] or the caller's own Kueue-style
// planner — against everything [placement.Verify] checks (with filters)
// and against the requests reqs it was planned for, read as PlanPodSets
// reads them (a set without a request is unconstrained). When Scheduled:
//
//   - every set is placed whole: its Count (the members: every pending
//     one), as Kueue admits a pod set;
//   - every pod is on a node with a domain at every level of the tree,
//     the only nodes Kueue's topology assignment can name;
//   - a Required set lies, with the group's bound members, in one domain
//     of its level (a Preferred level binds nothing);
//   - every slice layer's domains hold whole slices of the set: a multiple
//     of the layer's size, counting the bound members for the group's one
//     sliced set (PlanPodSets' owner of them) — exactly when the set's pods
//     can be ranked so that each slice lies in one domain of its layer;
//   - the sets of a required PodSetGroup lie, with the bound members, in
//     one domain of the group's level.
//
// [Tree.VerifyPlan] checks a [Plan]'s ranks too. A Kueue leader placed on
// a host only its own filters refuse ([PlanOptions].KueueLeaderAware) is
// refused, as placement.Verify refuses it.
//
// It returns nil; a [*placement.FieldError] for the input PlanPodSets
// rejects (see there) or a snapshot not derived from the tree's; or an
// error wrapping [placement.ErrViolation] naming the set (or member), its
// node and its domain. Cost: placement.Verify's, plus O(entries × slice
// layers) and the domains touched sorted.
func (t *Tree) VerifyPodSets(s *placement.Snapshot, g *placement.Group, d placement.Decision, reqs []PodSetRequest, filters ...placement.Filter) error {
	if err := t.checkArgs(s, g, filters); err != nil {
		return err
	}
	t.mu.Lock()
	c, err := t.capacityFor(s)
	var rs []request
	if err == nil {
		rs, err = t.requests(s, g, reqs, c, false)
	}
	t.mu.Unlock()
	if err != nil {
		return err
	}
	bound := boundRuns(s, g)
	owner, err := ownerOf(rs, len(bound))
	if err != nil {
		return err
	}
	for i := range rs {
		var b int64
		if i == owner {
			b = int64(len(bound))
		}
		if err := rs[i].checkCount(b, "bound members"); err != nil {
			return err
		}
	}
	if err := placement.Verify(s, g, d, filters...); err != nil {
		return err
	}
	if d.Status != placement.Scheduled {
		return nil
	}
	runs := setRuns(d)
	groups := map[string][]run{} // a required PodSetGroup's bound members and sets
	var groupOrder []string
	for i := range rs {
		r := &rs[i]
		name, rr := setName(r.name), runs[r.name]
		var placed int64
		for _, x := range rr {
			placed += x.count
		}
		if placed != r.count {
			return violation(g, fmt.Sprintf("%s places %d of its %d pods: a planned set is placed whole", name, placed, r.count))
		}
		for _, x := range rr {
			if l := t.firstMissing(x.node); l >= 0 {
				return violation(g, fmt.Sprintf("%s on node %q is outside the topology: in no domain of %q", x.who, s.Node(x.node).Name, t.keys[l]))
			}
		}
		withBound := append(slices.Clone(bound), rr...)
		if r.required {
			if msg := t.oneDomain(s, withBound, r.level, "required key"); msg != "" {
				return violation(g, msg)
			}
			if r.group != "" {
				if _, ok := groups[r.group]; !ok {
					groups[r.group] = slices.Clone(bound)
					groupOrder = append(groupOrder, r.group)
				}
				groups[r.group] = append(groups[r.group], rr...)
			}
		}
		sliced := rr
		if i == owner { // the bound members are pods of this set
			sliced = withBound
		}
		for _, ly := range r.layers {
			if msg := t.wholeSlices(s, sliced, name, ly); msg != "" {
				return violation(g, msg)
			}
		}
	}
	for _, gr := range groupOrder {
		// The group's sets share its one level (requests checks it).
		i := slices.IndexFunc(rs, func(r request) bool { return r.group == gr })
		if msg := t.oneDomain(s, groups[gr], rs[i].level, "required key"); msg != "" {
			return violation(g, fmt.Sprintf("PodSetGroup %q: %s", gr, msg))
		}
	}
	return nil
}

// setRuns returns d's pods by set: the members (set ""), one run each in
// d's order, and each pod set's entries.
func setRuns(d placement.Decision) map[string][]run {
	out := map[string][]run{}
	if len(d.Assignments) > 0 {
		out[""] = memberRuns(d)
	}
	for _, a := range d.PodSetAssignments {
		out[a.PodSet] = append(out[a.PodSet], run{a.NodeID, int64(a.Count), setName(a.PodSet)})
	}
	return out
}

// setName names a set in violations: `pod set "w"`, or "the members".
func setName(name string) string {
	if name == "" {
		return "the members"
	}
	return fmt.Sprintf("pod set %q", name)
}

// firstMissing returns the widest level at which node has no domain, or
// -1 when it has one at every level.
func (t *Tree) firstMissing(node placement.NodeID) int {
	for l := range t.keys {
		if t.domainOf(node, l) < 0 {
			return l
		}
	}
	return -1
}
