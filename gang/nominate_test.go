package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// prioPG is a gang of one with the given priority.
func prioPG(name string, prio int32) *PodGroup {
	pg := gangPG(name, 1)
	pg.Spec.Priority = &prio
	return pg
}

// addPrioMember sets PodGroup group at priority prio and adds its member
// name, of that same priority (as v1.37 requires), requesting req,
// queued at queued.
func (h *harness) addPrioMember(group, name string, prio int32, req placement.ResourceList, queued int) {
	h.setPG(prioPG(group, prio))
	m := member(name, group, req, queued)
	m.Priority = prio
	h.addPods(m)
}

// TestNominatedRoomIsHeld: a preemptor evicts a victim on the only node
// and is nominated there; before its retry, a group of equal priority that
// arrived earlier (so the queue takes it first) gets a cycle. The room is
// held for the preemptor: the other group waits, unable to preempt an
// equal priority, and the preemptor binds, its nomination cleared. A group
// of higher priority is not held back (upstream's nominator adds only
// nominated pods of priority at least the pod's), and the preemptor, no
// longer able to preempt, loses its nomination.
func TestNominatedRoomIsHeld(t *testing.T) {
	low := placement.Pod{Namespace: "default", Name: "low", NodeName: "n1", Requests: cpu(2000), Priority: 10}
	for _, c := range []struct {
		name      string
		rival     int32
		rivalBind []string // the rival's cycle
		preBind   []string // the preemptor's retry
		preNom    []Nomination
	}{
		{"equal priority waits", 100, nil, []string{"p0@n1"}, []Nomination{{Pod: key("p0")}}},
		{"higher priority takes it", 200, []string{"r0@n1"}, nil, []Nomination{{Pod: key("p0")}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Options{Preemption: true}, []placement.Node{cpuNode("n1", 2000)}, low)
			h.setPG(prioPG("pre", 100))
			p0 := member("p0", "pre", cpu(2000), 5)
			h.addPods(p0)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Equal(t, preemption.Preempt, r.Preemption.Outcome)
			require.Equal(t, []Nomination{{Pod: key("p0"), Node: "n1"}}, r.Nominations)
			node, ok := h.s.Nominated(key("p0"))
			require.True(t, ok)
			require.Equal(t, "n1", node)

			// The host evicts the victim; the rival arrives, queued
			// before the preemptor.
			after, err := h.snap.Apply(placement.Change{Remove: r.Preemption.EvictedPods()})
			require.NoError(t, err)
			h.snap = after
			h.s.DeletePod(key("low"))
			h.addPrioMember("rival", "r0", c.rival, cpu(2000), 0)

			r, ok = h.cycle()
			require.True(t, ok)
			require.Equal(t, key("rival"), r.PodGroup)
			require.Equal(t, c.rivalBind, bindNames(r))
			require.Empty(t, r.Nominations)
			if c.rivalBind == nil {
				require.Equal(t, placement.Unschedulable, r.Decision.Status)
				require.NotEqual(t, preemption.Preempt, r.Preemption.Outcome, "a nominee is never a victim")
			}

			r, ok = h.cycle()
			require.True(t, ok)
			require.Equal(t, key("pre"), r.PodGroup)
			require.Equal(t, c.preBind, bindNames(r))
			require.Equal(t, c.preNom, r.Nominations)
			_, ok = h.s.Nominated(key("p0"))
			require.False(t, ok)
		})
	}
}

// TestNominate_HeldUntilTheNomineesCycle: a nomination the host read from
// a pod (status.nominatedNodeName) holds the room against a group of lower
// priority while the nominee waits gated (its PodGroup not yet there);
// deleting the pod frees it. Bad nominations are refused.
func TestNominate_HeldUntilTheNomineesCycle(t *testing.T) {
	h := newHarness(t, Options{Preemption: true}, []placement.Node{cpuNode("n1", 2000)})
	h.addPods(member("p0", "pre", cpu(2000), 5)) // priority 100; PodGroup "pre" missing: gated
	require.NoError(t, h.s.Nominate(key("p0"), "n1"))
	require.ErrorIs(t, h.s.Nominate(key("nobody"), "n1"), placement.ErrNotFound)
	require.ErrorIs(t, h.s.Nominate(key("p0"), ""), placement.ErrInvalid)

	h.addPrioMember("lower", "l0", 50, cpu(2000), 0)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Empty(t, r.Bind, "n1 is held for p0")
	require.NotEqual(t, preemption.Preempt, r.Preemption.Outcome)

	require.True(t, h.s.DeletePod(key("p0")))
	_, ok = h.s.Nominated(key("p0"))
	require.False(t, ok)
	h.now = r.RetryAt
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, []string{"l0@n1"}, bindNames(r))
}

// TestCycleTree_NominatesPreemptors: a CompositePodGroup tree that preempts
// nominates every member of its leaves to the node the hierarchy's plan
// gives it, as a PodGroup's cycle does; the room is held against a
// PodGroup of equal priority; the tree's next cycle binds its members and
// clears their nominations.
func TestCycleTree_NominatesPreemptors(t *testing.T) {
	bound := func(name, node string, prio int32) placement.Pod {
		return placement.Pod{Namespace: "default", Name: name, NodeName: node, Requests: cpu(1000), Priority: prio}
	}
	nodes := []placement.Node{rackNode("n1", "b", "r1", 2000), rackNode("n2", "b", "r2", 2000)}
	h := newHarness(t, Options{Preemption: true}, nodes, bound("keep", "n1", 200), bound("x", "n2", 5), bound("y", "n2", 5))
	root := cpg("root", "", "", 2)
	prio := int32(100)
	root.Spec.Priority = &prio
	h.setCPG(root)
	h.setPG(leafPG("a", "root", rackKey, 1))
	h.setPG(leafPG("b", "root", rackKey, 2))
	for _, m := range []struct {
		group string
		n     int
	}{{"a", 1}, {"b", 2}} {
		for i := range m.n {
			p := member(fmt.Sprintf("%s-%d", m.group, i), m.group, cpu(1000), i)
			p.Priority = 100
			h.addPods(p)
		}
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, preemption.Preempt, r.Hierarchy.Preemption.Outcome)
	require.Equal(t, []Nomination{{Pod: key("a-0"), Node: "n1"}, {Pod: key("b-0"), Node: "n2"}, {Pod: key("b-1"), Node: "n2"}}, r.Nominations)
	node, ok := h.s.Nominated(key("b-1"))
	require.True(t, ok)
	require.Equal(t, "n2", node)

	// The host evicts the victims; a PodGroup of the tree's priority,
	// queued first, finds the room held for the tree.
	var victims []placement.Key
	for _, v := range r.Hierarchy.Preemption.Victims {
		victims = append(victims, v.Pods...)
	}
	require.Equal(t, []placement.Key{key("y"), key("x")}, victims) // most important first
	after, err := h.snap.Apply(placement.Change{Remove: victims})
	require.NoError(t, err)
	h.snap = after
	h.addPrioMember("rival", "r0", 100, cpu(1000), -1)
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, key("rival"), r.PodGroup)
	require.Empty(t, r.Bind, "n1 and n2 are held for the tree")
	require.Empty(t, r.Nominations)

	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, key("root"), r.PodGroup)
	require.Equal(t, []string{"a-0@n1", "b-0@n2", "b-1@n2"}, bindNames(r))
	require.Equal(t, []Nomination{{Pod: key("a-0")}, {Pod: key("b-0")}, {Pod: key("b-1")}}, r.Nominations)
	_, ok = h.s.Nominated(key("a-0"))
	require.False(t, ok)
}
