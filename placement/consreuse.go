package placement

// A group with affinity terms or sub-groups compiles a cons on every
// Solve: a dozen small arrays per call, a quarter of the time of a small
// group's Solve in the allocator. The solver's pooled scratch (see
// scratch) keeps one cons whose arrays the next Solve writes over. A
// scratch belongs to one Solve at a time (sync.Pool hands it out once and
// release puts it back only when the Solve is done), so Solves on other
// goroutines, over other snapshots or the same, never share one; and every
// entry is written before it is read, so what an earlier Solve left there
// cannot reach a decision.

// reuse empties c for a Solve over s with nb bound members, keeping the
// memory of its arrays.
func (c *cons) reuse(s *Snapshot, nb int) {
	c.s, c.nb = s, nb
	c.terms, c.classes = c.terms[:0], c.classes[:0]
	c.subs, c.maxPref = c.subs[:0], 0
	c.domKeys, c.doms = c.domKeys[:0], c.doms[:0]
	cc := &c.counts
	cc.all, cc.pend, cc.total, cc.sized = cc.all[:0], cc.pend[:0], cc.total[:0], false
}

// forget drops what c points to of the finished Solve — its pods and
// selectors, the snapshot and its label indexes — so that a pooled cons
// keeps none of them alive. (The terms hold no pointer.)
func (c *cons) forget() {
	c.s = nil
	c.pods = memberPods{} // the caller's bound members and group
	for k, classes := 0, c.classes[:cap(c.classes)]; k < len(classes); k++ {
		classes[k].sel, classes[k].dom = nil, nil
	}
	clear(c.doms[:cap(c.doms)])
	clear(c.check.own[:cap(c.check.own)])
	clear(c.check.targets[:cap(c.check.targets)])
	c.check.c, c.check.sub, c.check.subKey = nil, nil, nil
	clear(c.prefBuf[:cap(c.prefBuf)])
	for k, bonus := 0, c.bonusBuf[:cap(c.bonusBuf)]; k < len(bonus); k++ {
		bonus[k].dom = nil
	}
	clear(c.subs[:cap(c.subs)])
}

// zeroed returns buf resized to n entries, all zero, reusing its memory
// when it can.
func zeroed[T any](buf []T, n int) []T {
	buf = grow(buf, n)
	clear(buf)
	return buf
}
