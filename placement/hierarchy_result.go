package placement

import (
	"fmt"
	"slices"
)

// This file holds a hierarchy's answer: the per-node results of a placed
// tree, and the diagnosis of one that does not fit (KEP-6012's
// PlacementFeasible model: scheduled, remaining, unschedulable,
// unresolvable against min).

func (h *hsolver) placedResult(n *hnode, decisions []Decision) NodeResult {
	r := NodeResult{Name: n.src.Name, TopologyKey: n.src.TopologyKey, Status: Scheduled, Domain: n.domain, Min: n.need}
	if n.src.TopologyKey == "" {
		r.Domain = ""
	}
	if n.done > 0 || n.extrasLeft {
		r.Message = fmt.Sprintf("scheduled before: %d bound members", len(h.s.GroupMembers(n.src.Group.Key())))
		if n.extrasLeft {
			r.Message += "; none of the pending members fits beside its siblings"
		}
		return r
	}
	if n.src.Group != nil {
		d := &decisions[n.out]
		r.Decision = d
		r.Min = int(d.Required)
		r.Message = d.Message
		return r
	}
	k := len(n.children)
	r.Children, h.results = h.results[:0:k], h.results[k:]
	for _, c := range n.children {
		if c.placed {
			r.Scheduled++
			r.Children = append(r.Children, h.placedResult(c, decisions))
		} else {
			r.Unschedulable++
			r.Children = append(r.Children, leftOut(c, c))
		}
	}
	r.Message = n.msg
	return r
}

// placedResults counts the children results placedResult gives the
// placed tree under n: every child of each placed inner node it
// describes, so that they share one array (hsolver.results).
func placedResults(n *hnode) int {
	if n.done > 0 || n.extrasLeft || n.src.Group != nil {
		return 0
	}
	k := len(n.children)
	for _, c := range n.children {
		if c.placed {
			k += placedResults(c)
		}
	}
	return k
}

// leftOut is the result of c when a placed tree leaves out holder (c
// itself, or the node above c that was left out), and of every node
// below c, each Unschedulable because holder is: a host looks each of
// its PodGroups up to say why it waits. judgeUnplaced may replace the
// result of the child left out with what it gets alone.
func leftOut(c, holder *hnode) NodeResult {
	msg := "does not fit beside its placed siblings"
	if c != holder {
		msg = fmt.Sprintf("%q, which holds it, %s", holder.src.Name, msg)
	}
	r := NodeResult{Name: c.src.Name, TopologyKey: c.src.TopologyKey, Status: Unschedulable, Min: c.need, Message: msg}
	if len(c.children) > 0 {
		r.Unschedulable = len(c.children)
		r.Children = make([]NodeResult, len(c.children))
		for i, g := range c.children {
			r.Children[i] = leftOut(g, holder)
		}
	}
	return r
}

// judgeUnplaced replaces, in r (n's result in a placed tree), the
// account of each child left out — "does not fit beside its placed
// siblings" — with what the child gets alone in n's domain when it would
// not fit even there (Unschedulable or Unresolvable, with its own
// reason), as upstream reports such a child by its own minimum. s is the
// snapshot without the tree's placements, allowed the nodes of n's
// parent's domain. A child that fits alone, or that the budget leaves
// unjudged, keeps the sibling account.
func (h *hsolver) judgeUnplaced(n *hnode, r *NodeResult, s *Snapshot, allowed []NodeID) error {
	if n.src.Group != nil {
		return nil
	}
	nodes := allowed
	if n.src.TopologyKey != "" {
		vals, sets := h.domains(n, s, allowed)
		i, ok := slices.BinarySearch(vals, n.domain)
		if !ok {
			return nil
		}
		nodes = sets[i]
	}
	for i, c := range n.children {
		if c.placed {
			if err := h.judgeUnplaced(c, &r.Children[i], s, nodes); err != nil {
				return err
			}
			continue
		}
		cr, judged, err := h.diagnose(c, s, nodes)
		if err != nil {
			return err
		}
		if judged && (cr.Status == Unschedulable || cr.Status == Unresolvable) {
			r.Children[i] = cr
		}
	}
	return nil
}

// hasUnplaced reports whether a placed tree left a child of n out.
func hasUnplaced(n *hnode) bool {
	for _, c := range n.children {
		if !c.placed || hasUnplaced(c) {
			return true
		}
	}
	return false
}

// diagnose judges n alone on s within allowed: its status, and its
// children's, each alone. Of the domains of a key it reports the one
// where n comes closest to fitting (see closer), so that a leaf's message
// names the domain that holds most of its members, not the first one,
// which its siblings' bound pods may fill.
func (h *hsolver) diagnose(n *hnode, s *Snapshot, allowed []NodeID) (NodeResult, bool, error) {
	r := NodeResult{Name: n.src.Name, TopologyKey: n.src.TopologyKey, Min: n.need}
	if h.exhausted {
		r.Status, r.Message = BudgetExhausted, "not judged: budget exhausted"
		return r, false, nil
	}
	if n.done > 0 {
		r.Status, r.Message = Scheduled, fmt.Sprintf("scheduled before: %d bound members", len(h.s.GroupMembers(n.src.Group.Key())))
		return r, true, nil
	}
	if n.done < 0 {
		r.Status, r.Message = Unresolvable, "no pending members, and too few bound ones to satisfy it"
		return r, true, nil
	}
	if n.src.Group != nil {
		vals, sets := h.domains(n, s, allowed)
		var first *Decision
		r.Status = Unresolvable
		for i := range vals {
			d, _, err := h.solveLeaf(n, n.src.Group, s, vals[i], sets[i])
			if err != nil {
				return r, false, err
			}
			if first == nil || closer(d.Status, d.MostFit, first.Status, first.MostFit) {
				d = ownNodes(d)
				first = &d
			}
		}
		if first == nil {
			r.Message = fmt.Sprintf("no node carries %q", n.src.TopologyKey)
			return r, true, nil
		}
		r.Status, r.Decision, r.Message, r.Min = first.Status, first, first.Message, int(first.Required)
		return r, true, nil
	}
	// Each child is judged alone in the domains of n's key, the best of
	// them counting: a child that fits only across two domains does not.
	doms := [][]NodeID{allowed}
	if n.src.TopologyKey != "" {
		_, doms = h.domains(n, s, allowed)
	}
	for _, c := range n.children {
		cr, judged := NodeResult{Name: c.src.Name, TopologyKey: c.src.TopologyKey, Min: c.need, Status: Unresolvable,
			Message: fmt.Sprintf("no domain of %q holds a node", n.src.TopologyKey)}, true
		for i, d := range doms {
			dr, dj, err := h.diagnose(c, s, d)
			if err != nil {
				return r, false, err
			}
			if i == 0 || closer(dr.Status, resultFit(&dr), cr.Status, resultFit(&cr)) {
				cr, judged = dr, dj
			}
			if cr.Status == Scheduled || h.exhausted {
				break
			}
		}
		r.Children = append(r.Children, cr)
		switch {
		case !judged || cr.Status == BudgetExhausted:
			r.Remaining++
		case cr.Status == Scheduled:
			r.Scheduled++
		case cr.Status == Unresolvable:
			r.Unresolvable++
		default:
			r.Unschedulable++
		}
	}
	// Is the subtree itself placeable alone?
	stack := h.stack
	ok, err := h.place(n, s, allowed, "", heldRange{}, func(*Snapshot) (bool, error) { return true, nil })
	h.stack = stack
	if h.ov != nil {
		for len(h.ov.frames) > 0 { // the diagnosis runs on the empty overlay
			h.ov.pop()
		}
	}
	if err != nil {
		return r, false, err
	}
	switch {
	case ok:
		r.Status = Scheduled
		r.Message = fmt.Sprintf("placeable alone, not beside its siblings (%d of min %d children)", r.Scheduled, r.Min)
	case h.exhausted:
		r.Status = BudgetExhausted
		r.Message = fmt.Sprintf("budget exhausted: %d scheduled, %d remaining, %d unschedulable, %d unresolvable children against min %d",
			r.Scheduled, r.Remaining, r.Unschedulable, r.Unresolvable, r.Min)
	case r.Scheduled+r.Remaining+r.Unschedulable < r.Min:
		r.Status = Unresolvable
		r.Message = fmt.Sprintf("%d of min %d children could ever fit (%d unresolvable)", r.Scheduled+r.Unschedulable, r.Min, r.Unresolvable)
	default:
		r.Status = Unschedulable
		if r.Scheduled >= r.Min {
			r.Message = fmt.Sprintf("%d of min %d children fit one by one, not together", r.Scheduled, r.Min)
		} else {
			r.Message = fmt.Sprintf("%d of min %d children fit (%d unschedulable, %d unresolvable)", r.Scheduled, r.Min, r.Unschedulable, r.Unresolvable)
		}
	}
	return r, true, nil
}

// closer reports whether one domain's judgement of a node (status st, fit
// members or children fitting) comes closer to fitting than another's
// (bst, bfit): a lower status first (Scheduled, then Unschedulable, where
// preemption may help, then Unresolvable), so the status a diagnosis
// reports never depends on fit; then, of two that fail alike, more
// fitting. On a tie the domain tried first (placement's order: by value)
// is kept, as is the first where a node is Scheduled, whose assignments
// the diagnosis reports.
func closer(st Status, fit int, bst Status, bfit int) bool {
	if st != bst {
		return st < bst
	}
	return st != Scheduled && fit > bfit
}

// resultFit is how close a judged node came in its domain: a leaf's most
// members placed (bound included), an inner node's children fitting.
func resultFit(r *NodeResult) int {
	if r.Decision != nil {
		return r.Decision.MostFit
	}
	return r.Scheduled
}

// failedAt is the deepest node not placeable alone whose children all
// are, or the first leaf that is not.
func failedAt(r *NodeResult) string {
	if r.Status == Scheduled {
		return ""
	}
	for i := range r.Children {
		if f := failedAt(&r.Children[i]); f != "" && r.Children[i].Status != Scheduled {
			if r.Scheduled >= r.Min {
				break
			}
			return f
		}
	}
	return r.Name
}

func placedPods(d Decision) int {
	n := 0
	for _, a := range d.Assignments {
		n += int(a.Pods())
	}
	for _, a := range d.PodSetAssignments {
		n += int(a.Count)
	}
	return n
}

// ownNodes returns d with its own copy of Placement.Nodes, which the
// search shares with the snapshot's label index.
func ownNodes(d Decision) Decision {
	d.Placement.Nodes = slices.Clone(d.Placement.Nodes)
	return d
}
