package placement

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
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
//     each once, on nodes that exist; pod set entries name a set of g, once
//     per node, and place at most its Count;
//  4. filters: every assignment passes the built-in filters (nodeSelector,
//     taints, unschedulable) and the given filters, which see the pods
//     assigned before it on its node in one of the two orders Solve places
//     pods in: [MemberOrder] (a pod set's pods as if named after the set;
//     the greedy pass), or, when that fails, first-fit decreasing (the
//     second pass and the search: larger pods first, then member order);
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
// placement nodes + members × log members), plus, with filters, a filter
// call per pod of a pod set entry.
func Verify(s *Snapshot, g *Group, d Decision, filters ...Filter) error {
	if err := checkArgs("Verify", s, g, nil, filters); err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: PodGroup %s: %s", ErrViolation, g.Key(), fmt.Sprintf(format, args...))
	}
	bound := s.GroupMembers(g.Key())
	if _, err := g.validate(s, bound); err != nil {
		return err
	}
	for i := range g.Members {
		if err := checkPod(&g.Members[i]); err != nil {
			return err
		}
	}
	pending := make(map[Key]int, len(g.Members)) // member index
	for i := range g.Members {
		pending[g.Members[i].Key()] = i
	}
	if d.Status != Scheduled {
		if len(d.Assignments) > 0 || len(d.PodSetAssignments) > 0 {
			return bad("status %s but %d members and %d pod set entries assigned (all-or-nothing)", d.Status, len(d.Assignments), len(d.PodSetAssignments))
		}
		return nil
	}
	placed := int64(len(d.Assignments))
	for _, a := range d.Assignments {
		if a.Count != 0 {
			return bad("member %s assigned with count %d: a member's assignment places one pod (counts are for pod sets)", a.Pod, a.Count)
		}
	}
	for _, a := range d.PodSetAssignments {
		if a.Count < 1 {
			return bad("pod set %q assigned %d pods to node %q", a.PodSet, a.Count, a.Node)
		}
		placed += int64(a.Count)
	}
	if placed == 0 {
		return bad("status Scheduled with no assignment")
	}
	if g.IsGang() && int64(len(bound))+placed < int64(g.MinCount) {
		return bad("%d bound + %d placed < minCount %d (all-or-nothing)", len(bound), placed, g.MinCount)
	}
	everyNode := d.Placement.Nodes == nil || isEveryNode(d.Placement.Nodes, len(s.b.nodes))
	inPlacement := func(id NodeID) bool {
		if everyNode {
			return true // nil: a decision from a scheduler without placements
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
	w := newWork(R, len(s.b.nodes), len(d.Assignments)+len(d.PodSetAssignments))
	// add adds count pods like p to node's row of w.
	add := func(who subject, node string, row []int64, p *Pod, count int64) error {
		row[s.b.podsR] += count
		for r, q := range p.Requests {
			j, known := s.b.resIdx[r]
			if !known {
				if q > 0 {
					return bad("%s on node %q requests %s, which no node has", who, node, r)
				}
				continue
			}
			if q := arith.MulSat(q, count); row[j] > math.MaxInt64-q {
				return bad("node %q over capacity for %s: the members' requests overflow int64", node, r)
			} else {
				row[j] += q
			}
		}
		return nil
	}
	// put checks count pods like p on node and adds them to w. The name
	// of who is only spelled out for an error.
	put := func(who subject, p *Pod, node string, nodeID NodeID, count int64) error {
		// Node names are unique: the name at nodeID is node exactly when
		// the snapshot's index maps node to nodeID.
		if nodeID < 0 || int(nodeID) >= len(s.b.nodes) || s.b.nodes[nodeID].Name != node {
			return bad("%s assigned to unknown node %q (id %d)", who, node, nodeID)
		}
		id := nodeID
		if !inPlacement(id) {
			return bad("%s on node %q outside placement %q", who, node, d.Placement.Name)
		}
		if !staticOK(p, s.Node(id)) {
			return bad("%s on node %q fails nodeSelector, taints or unschedulable", who, node)
		}
		row := w.row(id)
		if len(filters) == 0 {
			return add(who, node, row, p, count)
		}
		ni := NodeInfo{s, w, id}
		for range count { // each pod of a count sees the ones before it
			for _, f := range filters {
				if r := f.Filter(p, ni); !r.OK() {
					return bad("%s on node %q fails a filter: %s", who, node, r.Reason)
				}
			}
			if err := add(who, node, row, p, 1); err != nil {
				return err
			}
		}
		return nil
	}
	// With filters, entries are checked in one of the two orders Solve
	// places pods in, so that a filter that reads what is already on a
	// node sees what it saw there: member order (a pod set's pods as if
	// named after the set; the greedy pass), else first-fit decreasing
	// (the second pass and the search).
	type entry struct {
		subj  subject
		pod   *Pod
		node  string
		id    NodeID
		count int64
		size  int64 // for first-fit decreasing
	}
	entries := make([]entry, 0, len(d.Assignments)+len(d.PodSetAssignments))
	seen := make([]bool, len(g.Members))
	for _, a := range d.Assignments {
		// A pending member is not bound: g.validate checked each.
		i, ok := pending[a.Pod]
		if !ok {
			return bad("assignment for %s, which is not a pending member", a.Pod)
		}
		if seen[i] {
			return bad("member %s assigned twice", a.Pod)
		}
		seen[i] = true
		entries = append(entries, entry{subject{pod: a.Pod}, &g.Members[i], a.Node, a.NodeID, 1, 0})
	}
	sets := make(map[string]*Pod, len(g.PodSets))
	counts := make(map[string]int64, len(g.PodSets))
	for i := range g.PodSets {
		ps := &g.PodSets[i]
		t := ps.Template // the pods as Solve's hooks see them
		t.Namespace, t.Name, t.SchedulingGroup, t.NodeName, t.UID = g.Namespace, ps.Name, g.Name, "", ""
		sets[ps.Name], counts[ps.Name] = &t, int64(ps.Count)
	}
	setPlaced := map[string]int64{}
	setNode := map[PodSetAssignment]bool{}
	for _, a := range d.PodSetAssignments {
		t, ok := sets[a.PodSet]
		if !ok {
			return bad("assignment for pod set %q, which the group does not have", a.PodSet)
		}
		who := fmt.Sprintf("pod set %q", a.PodSet)
		if k := (PodSetAssignment{PodSet: a.PodSet, NodeID: a.NodeID}); setNode[k] {
			return bad("%s listed twice on node %q", who, a.Node)
		} else {
			setNode[k] = true
		}
		if setPlaced[a.PodSet] += int64(a.Count); setPlaced[a.PodSet] > counts[a.PodSet] {
			return bad("%s places %d pods, more than its count %d", who, setPlaced[a.PodSet], counts[a.PodSet])
		}
		entries = append(entries, entry{subject{set: a.PodSet}, t, a.Node, a.NodeID, int64(a.Count), 0})
	}
	replay := func(es []entry) error {
		w.reset()
		for _, e := range es {
			if err := put(e.subj, e.pod, e.node, e.id, e.count); err != nil {
				return err
			}
		}
		return nil
	}
	if len(filters) == 0 {
		if err := replay(entries); err != nil {
			return err
		}
	} else {
		slices.SortFunc(entries, func(x, y entry) int { return MemberOrder(x.pod, y.pod) })
		if err := replay(entries); err != nil {
			for i := range entries {
				entries[i].size = s.b.ffdSize(s.b.requestRow(entries[i].pod))
			}
			slices.SortStableFunc(entries, func(x, y entry) int { return cmp.Compare(y.size, x.size) })
			if replay(entries) != nil {
				return err // the member-order failure, the first the greedy would meet
			}
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

// subject names what [Verify] checks: a member, or a pod set when set is
// not empty.
type subject struct {
	set string
	pod Key
}

func (w subject) String() string {
	if w.set != "" {
		return fmt.Sprintf("pod set %q", w.set)
	}
	return "member " + w.pod.String()
}

// isEveryNode reports whether nodes is exactly the n node IDs in order:
// then membership needs no search.
func isEveryNode(nodes []NodeID, n int) bool {
	if len(nodes) != n {
		return false
	}
	for i, id := range nodes {
		if id != NodeID(i) {
			return false
		}
	}
	return true
}
