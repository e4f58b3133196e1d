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
//     placements need not list them. This holds the members only to the
//     placement the decision declares itself: Verify never sees a
//     PodGroup's topology constraints, so it cannot tell that d.Placement
//     is not one domain of a required key. Package topology's
//     Tree.Verify (and Tree.VerifyPodSets for pod set requests) checks
//     the decision against the constraints it was asked to meet;
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
	v := &verifier{s: s, g: g, d: &d, filters: filters, bound: s.GroupMembers(g.Key())}
	if _, err := g.validate(s, v.bound, false); err != nil {
		return err
	}
	for i := range g.Members {
		if err := checkPod(&g.Members[i]); err != nil {
			return err
		}
	}
	if d.Status != Scheduled {
		if len(d.Assignments) > 0 || len(d.PodSetAssignments) > 0 {
			return v.bad("status %s but %d members and %d pod set entries assigned (all-or-nothing)", d.Status, len(d.Assignments), len(d.PodSetAssignments))
		}
		return nil
	}
	v.everyNode = d.Placement.Nodes == nil || isEveryNode(d.Placement.Nodes, len(s.b.nodes))
	if err := v.allOrNothing(); err != nil {
		return err
	}
	if err := v.boundInPlacement(); err != nil {
		return err
	}
	entries, err := v.entries()
	if err != nil {
		return err
	}
	v.w = newWork(len(s.b.res), len(s.b.nodes), len(entries))
	if err := v.filtered(entries); err != nil {
		return err
	}
	if err := v.constraints(); err != nil {
		return err
	}
	return v.capacity()
}

// verifier is one call of [Verify]: its arguments, the group's bound
// members, and the usage its entries add (w), which the filters read and
// the capacity check sums.
type verifier struct {
	s         *Snapshot
	g         *Group
	d         *Decision
	filters   []Filter
	bound     []*Pod
	everyNode bool // d.Placement stands for every node
	w         *work
}

func (v *verifier) bad(format string, args ...any) error {
	return fmt.Errorf("%w: PodGroup %s: %s", ErrViolation, v.g.Key(), fmt.Sprintf(format, args...))
}

func (v *verifier) inPlacement(id NodeID) bool {
	if v.everyNode {
		return true // nil: a decision from a scheduler without placements
	}
	_, ok := slices.BinarySearch(v.d.Placement.Nodes, id)
	return ok
}

// allOrNothing is invariant 2 for a Scheduled decision: it places at least
// one pod and, for a gang, reaches MinCount with the bound members.
func (v *verifier) allOrNothing() error {
	d := v.d
	placed := int64(len(d.Assignments))
	for _, a := range d.Assignments {
		if a.Count != 0 {
			return v.bad("member %s assigned with count %d: a member's assignment places one pod (counts are for pod sets)", a.Pod, a.Count)
		}
	}
	for _, a := range d.PodSetAssignments {
		if a.Count < 1 {
			return v.bad("pod set %q assigned %d pods to node %q", a.PodSet, a.Count, a.Node)
		}
		placed += int64(a.Count)
	}
	if placed == 0 {
		return v.bad("status Scheduled with no assignment")
	}
	if v.g.IsGang() && int64(len(v.bound))+placed < int64(v.g.MinCount) {
		return v.bad("%d bound + %d placed < minCount %d (all-or-nothing)", len(v.bound), placed, v.g.MinCount)
	}
	return nil
}

// boundInPlacement is invariant 5 for the bound members.
func (v *verifier) boundInPlacement() error {
	for _, p := range v.bound {
		id, ok := v.s.NodeID(p.NodeName)
		if ok && !v.inPlacement(id) {
			return v.bad("bound member %s is on node %q outside placement %q", p.Key(), p.NodeName, v.d.Placement.Name)
		}
	}
	return nil
}

// entry is one assignment as [Verify] replays it: count pods like pod on
// node id.
type entry struct {
	subj  subject
	pod   *Pod
	node  string
	id    NodeID
	count int64
	size  int64 // for first-fit decreasing
}

// entries is invariant 3: every assignment names a pending member of the
// group, once, and every pod set entry a set of the group, once per node,
// within its Count. It returns the assignments as entries, members first.
func (v *verifier) entries() ([]entry, error) {
	g, d := v.g, v.d
	pending := make(map[Key]int, len(g.Members)) // member index
	for i := range g.Members {
		pending[g.Members[i].Key()] = i
	}
	entries := make([]entry, 0, len(d.Assignments)+len(d.PodSetAssignments))
	seen := make([]bool, len(g.Members))
	for _, a := range d.Assignments {
		// A pending member is not bound: g.validate checked each.
		i, ok := pending[a.Pod]
		if !ok {
			return nil, v.bad("assignment for %s, which is not a pending member", a.Pod)
		}
		if seen[i] {
			return nil, v.bad("member %s assigned twice", a.Pod)
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
			return nil, v.bad("assignment for pod set %q, which the group does not have", a.PodSet)
		}
		who := fmt.Sprintf("pod set %q", a.PodSet)
		if k := (PodSetAssignment{PodSet: a.PodSet, NodeID: a.NodeID}); setNode[k] {
			return nil, v.bad("%s listed twice on node %q", who, a.Node)
		} else {
			setNode[k] = true
		}
		if setPlaced[a.PodSet] += int64(a.Count); setPlaced[a.PodSet] > counts[a.PodSet] {
			return nil, v.bad("%s places %d pods, more than its count %d", who, setPlaced[a.PodSet], counts[a.PodSet])
		}
		entries = append(entries, entry{subject{set: a.PodSet}, t, a.Node, a.NodeID, int64(a.Count), 0})
	}
	return entries, nil
}

// filtered is invariant 4 (and 5 for the assigned pods): it replays the
// entries onto v.w. With filters, entries are checked in one of the two
// orders Solve places pods in, so that a filter that reads what is already
// on a node sees what it saw there: member order (a pod set's pods as if
// named after the set; the greedy pass), else first-fit decreasing (the
// second pass and the search).
func (v *verifier) filtered(entries []entry) error {
	if len(v.filters) == 0 {
		return v.replay(entries)
	}
	slices.SortFunc(entries, func(x, y entry) int { return MemberOrder(x.pod, y.pod) })
	err := v.replay(entries)
	if err == nil {
		return nil
	}
	for i := range entries {
		entries[i].size = v.s.b.ffdSize(v.s.b.requestRow(entries[i].pod))
	}
	slices.SortStableFunc(entries, func(x, y entry) int { return cmp.Compare(y.size, x.size) })
	if v.replay(entries) != nil {
		return err // the member-order failure, the first the greedy would meet
	}
	return nil
}

func (v *verifier) replay(es []entry) error {
	v.w.reset()
	for _, e := range es {
		if err := v.put(e); err != nil {
			return err
		}
	}
	return nil
}

// put checks e's pods on their node and adds them to v.w. The name of
// e.subj is only spelled out for an error.
func (v *verifier) put(e entry) error {
	s := v.s
	// Node names are unique: the name at e.id is e.node exactly when the
	// snapshot's index maps e.node to e.id.
	if e.id < 0 || int(e.id) >= len(s.b.nodes) || s.b.nodes[e.id].Name != e.node {
		return v.bad("%s assigned to unknown node %q (id %d)", e.subj, e.node, e.id)
	}
	if !v.inPlacement(e.id) {
		return v.bad("%s on node %q outside placement %q", e.subj, e.node, v.d.Placement.Name)
	}
	if !staticOK(e.pod, s.Node(e.id)) {
		return v.bad("%s on node %q fails nodeSelector, node affinity, taints or unschedulable", e.subj, e.node)
	}
	row := v.w.row(e.id)
	if len(v.filters) == 0 {
		return v.add(e, row, e.count)
	}
	ni := NodeInfo{s, v.w, e.id}
	for range e.count { // each pod of a count sees the ones before it
		for k, f := range v.filters {
			if r := f.Filter(e.pod, ni); r.Err != nil {
				return hookError(v.g, fmt.Sprintf("filters[%d]", k), e.pod, ni, r.Err)
			} else if !r.OK() {
				return v.bad("%s on node %q fails a filter: %s", e.subj, e.node, r.Reason)
			}
		}
		if err := v.add(e, row, 1); err != nil {
			return err
		}
	}
	return nil
}

// add adds count pods like e.pod to row, its node's row of v.w.
func (v *verifier) add(e entry, row []int64, count int64) error {
	b := v.s.b
	row[b.podsR] += count
	for r, q := range e.pod.Requests {
		j, known := b.resIdx[r]
		if !known {
			if q > 0 {
				return v.bad("%s on node %q requests %s, which no node has", e.subj, e.node, r)
			}
			continue
		}
		if q := arith.MulSat(q, count); row[j] > math.MaxInt64-q {
			return v.bad("node %q over capacity for %s: the members' requests overflow int64", e.node, r)
		} else {
			row[j] += q
		}
	}
	return nil
}

// constraints is invariant 6: the group's required affinity terms and
// sub-groups hold on the members' nodes.
func (v *verifier) constraints() error {
	s, g, bound := v.s, v.g, v.bound
	pend := make([]*Pod, len(g.Members))
	for i := range g.Members {
		pend[i] = &g.Members[i]
	}
	c := compileCons(s, g, bound, pend)
	if c == nil {
		return nil
	}
	pos := make([]NodeID, c.members())
	for i := range pos {
		pos[i] = -1
		if i < len(bound) {
			pos[i], _ = s.NodeID(c.pod(i).NodeName)
		}
	}
	for _, a := range v.d.Assignments {
		for i := len(bound); i < len(pos); i++ {
			if c.pod(i).Key() == a.Pod {
				pos[i] = a.NodeID
			}
		}
	}
	if msg := c.violation(pos); msg != "" {
		return v.bad("%s", msg)
	}
	return nil
}

// capacity is invariant 1: no node that received pods ends above its
// allocatable.
func (v *verifier) capacity() error {
	s := v.s
	for _, id := range v.w.touched {
		alloc, used := s.allocRow(id), s.usedRow(id)
		for r := range len(s.b.res) {
			if extra := v.w.extra(id, r); extra > 0 && (used[r] > alloc[r]-extra) {
				return v.bad("node %q over capacity for %s: allocatable %d, requested %d + %d", s.Node(id).Name, s.b.res[r], alloc[r], used[r], extra)
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
