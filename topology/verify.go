package topology

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// Verify checks decision d for group g on snapshot s — from this
// package's generator, [Tree.PlanPodSets] or the caller's own scheduler —
// against everything [placement.Verify] checks (invariants 1–4 and 6 of
// DESIGN.md, with filters) and against the topology constraints cs it was
// asked to meet, which placement.Verify never sees (its invariant 5 only
// holds the members to d.Placement, a set the decision declares itself):
//
//   - a required key (invariant 5): every member of a Scheduled decision,
//     the bound ones, the assigned ones and the pods of its pod set
//     entries, is on a node of one domain of the narrowest required key
//     (a wider required key is implied: a domain lies in one domain of
//     each wider level);
//   - a slice layer (SliceSize > 0), as [Tree.MembersRequest] plans the
//     members: every domain of the layer's key holds whole slices of the
//     members, bound ones included (a count that is a multiple of
//     SliceSize), which is exactly when the members can be ranked so that
//     each slice of SliceSize lies in one domain.
//
// A preferred key is a soft constraint and binds nothing. cs is read as
// [Tree.SolverOptions] reads it, slice layers allowed.
//
// It returns nil; a [*placement.FieldError] for a nil or zero Tree, a
// snapshot not derived from the tree's, a constraint SolverOptions would
// reject (or MembersRequest, with slices), or a group placement.Verify
// rejects; or an error wrapping [placement.ErrViolation] that names the
// member (or pod set), its node and its domain. Cost: placement.Verify's,
// plus O((bound + assigned entries) × required and slice levels).
func (t *Tree) Verify(s *placement.Snapshot, g *placement.Group, d placement.Decision, cs []Constraint, filters ...placement.Filter) error {
	if err := t.checkArgs(s, g, filters); err != nil {
		return err
	}
	required, sliced := -1, false
	for i, c := range cs {
		l, err := t.constraintLevel(i, c)
		if err != nil {
			return err
		}
		if c.SliceSize != 0 {
			sliced = true
		} else if !c.Preferred {
			required = max(required, l)
		}
	}
	var layers []layer
	if sliced {
		req, err := t.MembersRequest(cs)
		if err != nil {
			return err
		}
		r, err := t.compile(g, req, func() string { return "spec.schedulingConstraints.topology" })
		if err != nil {
			return err
		}
		layers = r.layers
	}
	if err := placement.Verify(s, g, d, filters...); err != nil || d.Status != placement.Scheduled {
		return err
	}
	members := append(boundRuns(s, g), memberRuns(d)...)
	all := slices.Clone(members)
	for _, a := range d.PodSetAssignments {
		all = append(all, run{a.NodeID, int64(a.Count), fmt.Sprintf("pod set %q", a.PodSet)})
	}
	if required >= 0 {
		if msg := t.oneDomain(s, all, required, "required key"); msg != "" {
			return violation(g, msg)
		}
	}
	for _, ly := range layers {
		if msg := t.wholeSlices(s, members, "the members", ly); msg != "" {
			return violation(g, msg)
		}
	}
	return nil
}

// checkArgs refuses what the checks cannot start from: a nil or zero
// Tree, a nil snapshot, group or filter, a snapshot not derived from the
// tree's.
func (t *Tree) checkArgs(s *placement.Snapshot, g *placement.Group, filters []placement.Filter) error {
	if err := t.checkBuilt(); err != nil {
		return err
	}
	// Verify of no decision checks the arguments and the group alone.
	if err := placement.Verify(s, g, placement.Decision{}, filters...); err != nil {
		return err
	}
	if _, ok := s.ChangedNodes(t.snap); !ok {
		return errForeign()
	}
	return nil
}

// run is count pods of a group on one node, as the checks see them; who
// names them in a violation (`member default/a`, `pod set "w"`).
type run struct {
	node  placement.NodeID
	count int64
	who   string
}

// boundRuns returns g's bound members, one run each, by name.
func boundRuns(s *placement.Snapshot, g *placement.Group) []run {
	var out []run
	for _, p := range s.GroupMembers(g.Key()) {
		if id, ok := s.NodeOf(p); ok {
			out = append(out, run{id, 1, "bound member " + p.Key().String()})
		}
	}
	return out
}

// memberRuns returns d's assigned members, one run each, in d's order.
func memberRuns(d placement.Decision) []run {
	out := make([]run, 0, len(d.Assignments))
	for _, a := range d.Assignments {
		out = append(out, run{a.NodeID, 1, "member " + a.Pod.String()})
	}
	return out
}

// oneDomain says how rs fail to lie in one domain of level, whose key
// the violation calls what ("required key"), or "" when they do.
func (t *Tree) oneDomain(s *placement.Snapshot, rs []run, level int, what string) string {
	first := -1
	for i, r := range rs {
		d := t.domainOf(r.node, level)
		if d < 0 {
			return fmt.Sprintf("%s on node %q is in no domain of %s %q", r.who, s.Node(r.node).Name, what, t.keys[level])
		}
		if first < 0 {
			first = i
			continue
		}
		if f := t.domainOf(rs[first].node, level); d != f {
			return fmt.Sprintf("%s on node %q is in domain %s and %s on node %q in %s: two domains of %s %q",
				rs[first].who, s.Node(rs[first].node).Name, t.doms[f].path, r.who, s.Node(r.node).Name, t.doms[d].path, what, t.keys[level])
		}
	}
	return ""
}

// wholeSlices says which domain of ly's level holds pods of rs (whose
// set the violation calls set) that are not whole slices of ly's size,
// the first by path, or "" when none does. Every domain holding a
// multiple of the size is exactly when rs can be ranked with each slice
// of every layer in one domain: rank by domain path, and the domains of
// each level start at multiples of the sizes around them, which the
// inner sizes divide.
func (t *Tree) wholeSlices(s *placement.Snapshot, rs []run, set string, ly layer) string {
	if ly.level >= len(t.keys) {
		return "" // the leaf layer: single nodes, slices of one pod
	}
	per := map[DomainID]int64{}
	node := map[DomainID]placement.NodeID{} // the first node of rs in the domain, for the message
	for _, r := range rs {
		d := t.domainOf(r.node, ly.level)
		if d < 0 {
			return fmt.Sprintf("%s on node %q is in no domain of slice key %q", r.who, s.Node(r.node).Name, t.keys[ly.level])
		}
		if _, ok := node[d]; !ok {
			node[d] = r.node
		}
		per[d] += r.count
	}
	for _, d := range slices.Sorted(maps.Keys(per)) {
		if per[d]%ly.size != 0 {
			return fmt.Sprintf("%s: %d pods in domain %s (first on node %q), not whole slices of %d per domain of slice key %q",
				set, per[d], t.doms[d].path, s.Node(node[d]).Name, ly.size, t.keys[ly.level])
		}
	}
	return ""
}

// violation wraps msg about g's decision in placement.ErrViolation, as
// placement.Verify words its own.
func violation(g *placement.Group, msg string) error {
	return fmt.Errorf("%w: PodGroup %s: %s", placement.ErrViolation, g.Key(), msg)
}
