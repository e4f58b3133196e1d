package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Elastic gang, minCount raised while waiting: a gang of min 2 with two
// members waits (one free slot); raising minCount to 3 re-evaluates
// it at once — it is gated for a third member instead of backing off —
// and once a third member and room exist, all three bind.
func TestElastic_MinCountRaisedWhileWaiting(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{cpuNode("n1", 1000), cpuNode("n2", 2000)}, blocker("n2", cpu(2000)))
	h.setPG(gangPG("g", 2))
	h.addMembers("g", 2, 1000, 0)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	st, _ := h.s.Group(key("g"))
	require.Equal(t, BackingOff, st.State)

	h.setPG(gangPG("g", 3))
	st, _ = h.s.Group(key("g"))
	require.Equal(t, Active, st.State, "a minCount change re-evaluates the group before its backoff ends")
	_, ok = h.cycle()
	require.False(t, ok)
	st, _ = h.s.Group(key("g"))
	require.Equal(t, Gated, st.State)
	require.Equal(t, "waiting for members: 2 of minCount 3 exist", st.Reason)

	snap, err := h.snap.Apply(placement.Change{Remove: []placement.Key{key("blocker")}})
	require.NoError(t, err)
	h.snap = snap
	h.addPods(member("g-2", "g", cpu(1000), 5))
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Len(t, r.Bind, 3)
}

// Elastic gang, minCount lowered after binding: three members are bound;
// lowering minCount to 2 moves and evicts none of them, the condition
// stays True, and a new member is placed beside them where room is left.
func TestElastic_MinCountLoweredAfterBinding(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{cpuNode("n1", 2000), cpuNode("n2", 2000)})
	h.setPG(gangPG("g", 3))
	h.addMembers("g", 3, 1000, 0)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Len(t, r.Bind, 3)
	before := h.placements("g")

	h.setPG(gangPG("g", 2))
	_, ok = h.cycle()
	require.False(t, ok, "nothing pending: lowering minCount changes no placement")
	require.Equal(t, before, h.placements("g"))
	h.addPods(member("g-3", "g", cpu(1000), 9))
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, ConditionTrue, r.Condition.Status, "PodGroupScheduled stays True")
	require.Equal(t, append(before, "g-3@n2"), h.placements("g"))
}
