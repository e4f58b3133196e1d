package placement

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrViolation marks a decision that breaks an invariant; [Verify] wraps it.
var ErrViolation = errors.New("placement: invariant violated")

// Verify checks decision d for group g on snapshot s against the invariants
// of DESIGN.md that hold for every placement:
//
//  1. capacity: no node that receives members ends above its allocatable,
//     for any resource or the pod count;
//  2. all-or-nothing: a Scheduled decision reaches d.Required members
//     (bound ones included; for a gang at least MinCount) and places at
//     least one; any other status places none;
//  3. bound members are kept: assignments name only pending members of g,
//     each once, on nodes that exist;
//  4. filters: every assignment passes the built-in filters (nodeSelector,
//     taints, unschedulable) and the given filters, which see the members
//     assigned before it in d's order;
//  5. placement: every assigned member and every bound member is on a node
//     of d.Placement (for a topology generator, one domain); a nil
//     d.Placement.Nodes stands for every node, so a decision made without
//     placements need not list them;
//  6. constraints: the group's required pod affinity and anti-affinity
//     terms hold among its members (terms between two bound members
//     excepted), and every sub-group reaches its minimum within one domain
//     of its topology key.
//
// It returns nil, an error wrapping [ErrViolation] that names the member,
// the node and the invariant, or, for a group [Solve] would reject (a
// pending member that is bound, a minCount out of range, …), that
// [*FieldError]. Cost: O(assignments × resources + bound members +
// placement nodes + members × log members).
func Verify(s *Snapshot, g *Group, d Decision, filters ...Filter) error {
	if err := checkArgs("Verify", s, g, nil, filters); err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: PodGroup %s: %s", ErrViolation, g.Key(), fmt.Sprintf(format, args...))
	}
	bound := s.GroupMembers(g.Key())
	if err := g.validate(s, bound); err != nil {
		return err
	}
	for i := range g.Members {
		if err := checkPod(&g.Members[i]); err != nil {
			return err
		}
	}
	pending := make(map[Key]*Pod, len(g.Members))
	for i := range g.Members {
		pending[g.Members[i].Key()] = &g.Members[i]
	}
	if d.Status != Scheduled {
		if len(d.Assignments) > 0 {
			return bad("status %s but %d members assigned (all-or-nothing)", d.Status, len(d.Assignments))
		}
		return nil
	}
	if len(d.Assignments) == 0 {
		return bad("status Scheduled with no assignment")
	}
	if g.IsGang() && len(bound)+len(d.Assignments) < int(g.MinCount) {
		return bad("%d bound + %d placed < minCount %d (all-or-nothing)", len(bound), len(d.Assignments), g.MinCount)
	}
	inPlacement := func(id NodeID) bool {
		if d.Placement.Nodes == nil {
			return true // a decision from a scheduler without placements: every node
		}
		_, ok := slices.BinarySearch(d.Placement.Nodes, id)
		return ok
	}
	for _, p := range bound {
		id, ok := s.NodeID(p.NodeName)
		if ok && !inPlacement(id) {
			return bad("bound member %s is on node %q outside placement %q", p.Key(), p.NodeName, d.Placement.Name)
		}
	}
	R := len(s.b.res)
	w := newWork(R)
	seen := make(map[Key]bool, len(d.Assignments))
	for _, a := range d.Assignments {
		// A pending member is not bound: g.validate checked each.
		p, ok := pending[a.Pod]
		if !ok {
			if _, isBound := s.Pod(a.Pod); isBound {
				return bad("assignment moves bound pod %s", a.Pod)
			}
			return bad("assignment for %s, which is not a pending member", a.Pod)
		}
		if seen[a.Pod] {
			return bad("member %s assigned twice", a.Pod)
		}
		seen[a.Pod] = true
		id, ok := s.NodeID(a.Node)
		if !ok || id != a.NodeID {
			return bad("member %s assigned to unknown node %q (id %d)", a.Pod, a.Node, a.NodeID)
		}
		if !inPlacement(id) {
			return bad("member %s on node %q outside placement %q", a.Pod, a.Node, d.Placement.Name)
		}
		if !staticOK(p, s.Node(id)) {
			return bad("member %s on node %q fails nodeSelector, taints or unschedulable", a.Pod, a.Node)
		}
		ni := NodeInfo{s, w, id}
		for _, f := range filters {
			if r := f.Filter(p, ni); !r.OK() {
				return bad("member %s on node %q fails a filter: %s", a.Pod, a.Node, r.Reason)
			}
		}
		row := w.row(id)
		row[s.b.podsR]++
		for r, q := range p.Requests {
			j, known := s.b.resIdx[r]
			if !known {
				if q > 0 {
					return bad("member %s on node %q requests %s, which no node has", a.Pod, a.Node, r)
				}
				continue
			}
			if row[j] > math.MaxInt64-q {
				return bad("node %q over capacity for %s: the members' requests overflow int64", a.Node, r)
			}
			row[j] += q
		}
	}
	pend := make([]*Pod, len(g.Members))
	for i := range g.Members {
		pend[i] = &g.Members[i]
	}
	if c := compileCons(s, g, bound, pend); c != nil {
		pos := make([]NodeID, len(c.pods))
		for i, p := range c.pods {
			pos[i] = -1
			if i < len(bound) {
				pos[i], _ = s.NodeID(p.NodeName)
			}
		}
		for _, a := range d.Assignments {
			for i := len(bound); i < len(c.pods); i++ {
				if c.pods[i].Key() == a.Pod {
					pos[i] = a.NodeID
				}
			}
		}
		if v := c.violation(pos); v != "" {
			return bad("%s", v)
		}
	}
	for _, id := range w.touched {
		alloc, used := s.allocRow(id), s.usedRow(id)
		for r := range R {
			if extra := w.extra(id, r); extra > 0 && (used[r] > alloc[r]-extra) {
				return bad("node %q over capacity for %s: allocatable %d, requested %d + %d", s.Node(id).Name, s.b.res[r], alloc[r], used[r], extra)
			}
		}
	}
	return nil
}
