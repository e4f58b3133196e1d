package topology

import "github.com/gangsched/gangsched/placement"

// changedMemo is the last answer of [placement.Snapshot.ChangedNodes] a
// tree asked for. A plan on a snapshot derived from the last one moves the
// capacity aggregates and the plan's kept counts between the same two
// snapshots, and the comparison reads every usage page that differs — at
// 10,000 nodes with 1 % changed, 100 of 157 pages, ~27 µs, its cost the
// memory it reads — so it is asked once, not twice.
type changedMemo struct {
	a, b    *placement.Snapshot
	changed []placement.NodeID
	ok      bool
}

// changedNodes is a.ChangedNodes(b) (nil and false for a nil snapshot),
// remembered for the pair: the nodes whose usage differs are the same
// whichever of the two asks. Callers must not modify the answer; t.mu must
// be held.
func (t *Tree) changedNodes(a, b *placement.Snapshot) ([]placement.NodeID, bool) {
	if a == nil || b == nil {
		return nil, false
	}
	if m := &t.changed; (m.a == a && m.b == b) || (m.a == b && m.b == a) {
		return m.changed, m.ok
	}
	ch, ok := a.ChangedNodes(b)
	t.changed = changedMemo{a: a, b: b, changed: ch, ok: ok}
	return ch, ok
}
