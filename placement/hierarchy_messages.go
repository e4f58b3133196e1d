package placement

import "strconv"

// The messages of a Scheduled HierarchyDecision, written once the search
// has found its placement: each leaf fastLeaf decided (hnode.msgDue),
// each placed inner node and the tree itself, appended to one buffer and
// sliced from one string. Written as each leaf or node was placed, they
// were most of a decision's allocations (22 of 31 at 3 levels), and a
// search that backtracks wrote them for leaves it then dropped.

// msgSpan is where node n's message lies in hscratch.msgs.
type msgSpan struct {
	n      *hnode
	lo, hi int
}

// placedMessages writes the messages of the placed tree under root into
// the leaves' entries of decisions (those fastLeaf left empty) and the
// placed inner nodes' hnode.msg, as placedResult then reads them, and
// returns the tree's message. Each is byte for byte what fastLeaf and
// the per-node formatting it replaces would write.
func (h *hsolver) placedMessages(root *hnode, decisions []Decision) string {
	hs := h.hs
	hs.msgs, hs.msgSpans = hs.msgs[:0], hs.msgSpans[:0]
	h.appendMessages(root, decisions)
	// The tree's: its root's result's counts, as placedResult gives them.
	scheduled, least := 0, root.need
	switch {
	case root.done > 0 || root.extrasLeft:
	case root.src.Group != nil:
		least = int(decisions[root.out].Required)
	default:
		scheduled = placedChildren(root)
	}
	buf := hs.msgs
	lo := len(buf)
	buf = strconv.AppendInt(buf, int64(scheduled), 10)
	buf = append(buf, " of min "...)
	buf = strconv.AppendInt(buf, int64(least), 10)
	buf = append(buf, " children of "...)
	buf = strconv.AppendQuote(buf, root.src.Name)
	buf = append(buf, " scheduled"...)
	hs.msgs = buf
	all := string(buf)
	for _, sp := range hs.msgSpans {
		if sp.n.src.Group != nil {
			decisions[sp.n.out].Message = all[sp.lo:sp.hi]
		} else {
			sp.n.msg = all[sp.lo:sp.hi]
		}
	}
	return all[lo:]
}

// appendMessages appends to h.hs.msgs the messages placedMessages writes
// for n and the placed nodes under it, noting each one's span.
func (h *hsolver) appendMessages(n *hnode, decisions []Decision) {
	hs := h.hs
	switch {
	case n.done > 0 || n.extrasLeft:
		return // placedResult says why it needed no placement
	case n.src.Group != nil:
		if n.msgDue {
			lo := len(hs.msgs)
			hs.msgs = appendFastMessage(hs.msgs, &decisions[n.out])
			hs.msgSpans = append(hs.msgSpans, msgSpan{n, lo, len(hs.msgs)})
		}
		return
	}
	for _, c := range n.children {
		if c.placed {
			h.appendMessages(c, decisions)
		}
	}
	lo := len(hs.msgs)
	hs.msgs = strconv.AppendInt(hs.msgs, int64(placedChildren(n)), 10)
	hs.msgs = append(hs.msgs, " of min "...)
	hs.msgs = strconv.AppendInt(hs.msgs, int64(n.need), 10)
	hs.msgs = append(hs.msgs, " children scheduled"...)
	hs.msgSpans = append(hs.msgSpans, msgSpan{n, lo, len(hs.msgs)})
}

// placedChildren counts the children of n that a placed tree placed.
func placedChildren(n *hnode) int {
	k := 0
	for _, c := range n.children {
		if c.placed {
			k++
		}
	}
	return k
}

// appendFastMessage appends the message fastLeaf gives its decision d,
// every member placed: Solve's for that case.
func appendFastMessage(buf []byte, d *Decision) []byte {
	m := int64(len(d.Assignments))
	buf = strconv.AppendInt(buf, m, 10)
	buf = append(buf, " of "...)
	buf = strconv.AppendInt(buf, m, 10)
	buf = append(buf, " members placed"...)
	if d.Placement.Name != "" {
		buf = append(buf, " in "...)
		buf = append(buf, d.Placement.Name...)
	}
	return buf
}
