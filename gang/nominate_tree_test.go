package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// setTree queues a tree of one leaf: root CompositePodGroup name (no
// topology, minGroupCount 1, priority prio) over a gang leaf name+"-l"
// confined to a rack, of n members of milli CPU each (queued from t0 +
// queued seconds), every object and pod at priority prio.
func (h *harness) setTree(name string, prio int32, n int, milli int64, queued int) {
	h.t.Helper()
	root := cpg(name, "", "", 1)
	root.Spec.Priority = &prio
	h.setCPG(root)
	leaf := leafPG(name+"-l", name, rackKey, int32(n))
	leaf.Spec.Priority = &prio
	h.setPG(leaf)
	for i := range n {
		p := member(fmt.Sprintf("%s-%d", name, i), leaf.Name, cpu(milli), queued+i)
		p.Priority = prio
		h.addPods(p)
	}
}

// TestCycleTree_HoldsRoomNominatedForAPodGroup: PodGroup "pre" (priority
// 100, a gang of two 1-CPU pods) preempts the only victim, on n1 (rack
// r1), and both members are nominated there. The host evicts the victim;
// one of pre's pods is deleted, so pre waits gated for its quorum with p0
// still nominated to n1 (1 of n1's 2 CPUs). A tree then gets a cycle
// before pre binds. As for a PodGroup (kube-scheduler's nominator), a tree
// of equal or lower priority decides as if p0 were on n1: it cannot take
// n1 whole — it waits, or goes to rack r2 when n2 is free, or takes n1's
// other half — and cannot preempt p0; a tree of higher priority ignores
// the nomination and takes n1. When pre's pod comes back, pre binds on n1
// wherever the tree left room for it.
func TestCycleTree_HoldsRoomNominatedForAPodGroup(t *testing.T) {
	for _, c := range []struct {
		name      string
		treePrio  int32
		treePods  int // of 1 CPU each, all in one rack
		n2Free    bool
		treeBind  []string
		preBind   []string // pre's cycle once p1 is back; nil: not run
		preNomEnd []Nomination
	}{
		{"equal priority waits", 100, 2, false, nil, []string{"p0@n1", "p1@n1"}, []Nomination{{Pod: key("p0")}}},
		{"lower priority waits", 50, 2, false, nil, []string{"p0@n1", "p1@n1"}, []Nomination{{Pod: key("p0")}}},
		{"equal priority goes elsewhere", 100, 2, true, []string{"root-0@n2", "root-1@n2"}, []string{"p0@n1", "p1@n1"}, []Nomination{{Pod: key("p0")}}},
		{"lower priority goes elsewhere", 50, 2, true, []string{"root-0@n2", "root-1@n2"}, []string{"p0@n1", "p1@n1"}, []Nomination{{Pod: key("p0")}}},
		{"equal priority takes only the room not held", 100, 1, false, []string{"root-0@n1"}, nil, nil},
		{"higher priority takes it", 200, 2, false, []string{"root-0@n1", "root-1@n1"}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodes := []placement.Node{rackNode("n1", "b", "r1", 2000), rackNode("n2", "b", "r2", 2000)}
			low := placement.Pod{Namespace: "default", Name: "low", NodeName: "n1", Requests: cpu(2000), Priority: 10}
			busy := placement.Pod{Namespace: "default", Name: "busy", NodeName: "n2", Requests: cpu(2000), Priority: 1000}
			h := newHarness(t, Options{Preemption: true}, nodes, low, busy)
			h.setPG(gangPG("pre", 2))
			p0, p1 := member("p0", "pre", cpu(1000), 0), member("p1", "pre", cpu(1000), 1)
			h.addPods(p0, p1)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Equal(t, key("pre"), r.PodGroup)
			require.Equal(t, preemption.Preempt, r.Preemption.Outcome)
			require.Equal(t, []Nomination{{Pod: key("p0"), Node: "n1"}, {Pod: key("p1"), Node: "n1"}}, r.Nominations)

			// The host evicts the victim (and, in some rows, busy ends);
			// p1 is deleted: pre waits for its quorum, p0 still nominated.
			gone := r.Preemption.EvictedPods()
			if c.n2Free {
				gone = append(gone, key("busy"))
			}
			after, err := h.snap.Apply(placement.Change{Remove: gone})
			require.NoError(t, err)
			h.snap = after
			require.True(t, h.s.DeletePod(key("p1")))
			_, ok = h.s.Nominated(key("p1"))
			require.False(t, ok)
			h.setTree("root", c.treePrio, c.treePods, 1000, 2)

			r, ok = h.cycle()
			require.True(t, ok)
			require.Equal(t, key("root"), r.PodGroup)
			require.Equal(t, c.treeBind, bindNames(r))
			require.Empty(t, r.Nominations, "the tree neither preempts nor touches pre's nomination")
			if c.treeBind == nil {
				require.Equal(t, placement.Unschedulable, r.Hierarchy.Decision.Status)
				require.NotEqual(t, preemption.Preempt, r.Hierarchy.Preemption.Outcome, "a nominee is never a victim")
			}
			node, ok := h.s.Nominated(key("p0"))
			require.True(t, ok)
			require.Equal(t, "n1", node)

			if c.preBind == nil {
				return
			}
			h.addPods(p1)
			r, ok = h.cycle()
			require.True(t, ok)
			require.Equal(t, key("pre"), r.PodGroup)
			require.Equal(t, c.preBind, bindNames(r))
			require.Equal(t, c.preNomEnd, r.Nominations)
		})
	}
}

// TestCycleTree_HoldsRoomNominatedForATree: tree "a" (priority 100) preempts
// the victim on n1 and its members are nominated there; before its retry,
// tree "b" — queued first (its members arrived earlier) — gets a cycle. At
// equal priority b cannot take the room (nor preempt a's nominees) and a
// binds on n1; at higher priority b takes n1 and a, unable to preempt it,
// loses its nominations.
func TestCycleTree_HoldsRoomNominatedForATree(t *testing.T) {
	for _, c := range []struct {
		name   string
		bPrio  int32
		bBind  []string
		aBind  []string
		aNoms  []Nomination // a's retry
		aState placement.Status
	}{
		{"equal priority waits", 100, nil, []string{"a-0@n1", "a-1@n1"}, []Nomination{{Pod: key("a-0")}, {Pod: key("a-1")}}, placement.Scheduled},
		{"higher priority takes it", 200, []string{"b-0@n1", "b-1@n1"}, nil, []Nomination{{Pod: key("a-0")}, {Pod: key("a-1")}}, placement.Unschedulable},
	} {
		t.Run(c.name, func(t *testing.T) {
			low := placement.Pod{Namespace: "default", Name: "low", NodeName: "n1", Requests: cpu(2000), Priority: 10}
			h := newHarness(t, Options{Preemption: true}, []placement.Node{rackNode("n1", "b", "r1", 2000)}, low)
			h.setTree("a", 100, 2, 1000, 10)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Equal(t, key("a"), r.PodGroup)
			require.Equal(t, preemption.Preempt, r.Hierarchy.Preemption.Outcome)
			require.Equal(t, []Nomination{{Pod: key("a-0"), Node: "n1"}, {Pod: key("a-1"), Node: "n1"}}, r.Nominations)

			var victims []placement.Key
			for _, v := range r.Hierarchy.Preemption.Victims {
				victims = append(victims, v.Pods...)
			}
			require.Equal(t, []placement.Key{key("low")}, victims)
			after, err := h.snap.Apply(placement.Change{Remove: victims})
			require.NoError(t, err)
			h.snap = after
			h.s.DeletePod(key("low"))
			h.setTree("b", c.bPrio, 2, 1000, 0)

			r, ok = h.cycle()
			require.True(t, ok)
			require.Equal(t, key("b"), r.PodGroup)
			require.Equal(t, c.bBind, bindNames(r))
			require.Empty(t, r.Nominations)
			if c.bBind == nil {
				require.NotEqual(t, preemption.Preempt, r.Hierarchy.Preemption.Outcome, "a nominee is never a victim")
			}

			r, ok = h.cycle()
			require.True(t, ok)
			require.Equal(t, key("a"), r.PodGroup)
			require.Equal(t, c.aState, r.Hierarchy.Decision.Status)
			require.Equal(t, c.aBind, bindNames(r))
			require.Equal(t, c.aNoms, r.Nominations)
		})
	}
}

// TestNominate_TreeMemberHoldsAtItsRootPriority: a tree member's
// nomination holds room at its root's priority, the one the tree preempts
// with and preemption ranks the member with, whatever its leaf's
// spec.priority says (upstream: every pod of a hierarchy carries its
// root's priority, v1.37 validatePodGroup; GetPodPriority ranks it at the
// root's). Root 200, leaf 100: under v1.37 a PodGroup of priority 150 or
// 200 leaves the room alone and cannot evict the nominee; one of 250
// takes it. v1.38 ranks the nominee at its own priority, 100
// (getLowerPriorityNominatedPods reads PodPriority), so each rival
// ignores its room and binds.
func TestNominate_TreeMemberHoldsAtItsRootPriority(t *testing.T) {
	for _, c := range []struct {
		profile Profile
		rival   int32
		bind    []string
	}{
		{ProfileV137, 150, nil}, {ProfileV137, 200, nil}, {ProfileV137, 250, []string{"m0@n1"}},
		{ProfileV138, 150, []string{"m0@n1"}}, {ProfileV138, 200, []string{"m0@n1"}}, {ProfileV138, 250, []string{"m0@n1"}},
	} {
		t.Run(fmt.Sprint(c.profile, "/", c.rival), func(t *testing.T) {
			h := newHarness(t, Options{Preemption: true, Profile: c.profile}, []placement.Node{rackNode("n1", "b", "r1", 2000)})
			root := cpg("root", "", "", 1)
			prio := int32(200)
			root.Spec.Priority = &prio
			h.setCPG(root)
			h.setPG(leafPG("leaf", "root", rackKey, 2))       // priority 100
			h.addPods(member("t0", "leaf", cpu(2000), 5))     // quorum 1 of 2: the tree waits
			require.NoError(t, h.s.Nominate(key("t0"), "n1")) // as read from the pod

			h.addPrioMember("rival", "m0", c.rival, cpu(2000), 0)
			r, ok := h.cycle()
			require.True(t, ok)
			require.Equal(t, key("rival"), r.PodGroup)
			require.Equal(t, c.bind, bindNames(r))
			if r.Preemption != nil {
				require.NotEqual(t, preemption.Preempt, r.Preemption.Outcome, "a nominee is never a victim")
			}
		})
	}
}

// TestCycleTree_NominatedRoomHeldAtRootPriority: tree "t" (root priority
// 100 over leaf "t-l", spec.priority 10, a gang of two 1-CPU pods in one
// rack) preempts "low" (priority 5) on n1, the only room, and its members
// are nominated there; the host evicts low and one member is deleted, so
// the tree waits for its quorum, t-0 still nominated. PodGroup "mid" (one
// 2-CPU pod, queued first) gets a cycle before the tree's retry. Below the
// root's priority it must leave n1 to the tree, as upstream, where the
// nominees carry the root's priority: it waits, unable to evict the
// nominee; the tree binds on n1 once its pod is back. Above the root's it
// takes n1. The leaf's pods carry the leaf's priority under v1.36 (which
// lets them differ) and the root's under v1.37 (v1.38 would fail the
// tree: its leaf's priority differs from the root's); either way the
// room is held at the root's. Before the fix it was held at the leaf's (10), and
// a mid of 50 took the room the tree's victim left.
func TestCycleTree_NominatedRoomHeldAtRootPriority(t *testing.T) {
	for _, profile := range []Profile{ProfileV136, ProfileV137} {
		for _, c := range []struct {
			mid     int32
			midBind []string
			treeEnd []string // the tree's retry once its pod is back
		}{
			{50, nil, []string{"t-0@n1", "t-1@n1"}},
			{100, nil, []string{"t-0@n1", "t-1@n1"}},
			{150, []string{"mid-0@n1"}, nil},
		} {
			t.Run(fmt.Sprintf("%s/mid=%d", profile, c.mid), func(t *testing.T) {
				nodes := []placement.Node{rackNode("n1", "b", "r1", 2000), rackNode("n2", "b", "r2", 2000)}
				low := placement.Pod{Namespace: "default", Name: "low", NodeName: "n1", Requests: cpu(2000), Priority: 5}
				busy := placement.Pod{Namespace: "default", Name: "busy", NodeName: "n2", Requests: cpu(2000), Priority: 1000}
				h := newHarness(t, Options{Preemption: true, Profile: profile}, nodes, low, busy)
				root := cpg("t", "", "", 1)
				rootPrio, leafPrio := int32(100), int32(10)
				root.Spec.Priority = &rootPrio
				h.setCPG(root)
				leaf := leafPG("t-l", "t", rackKey, 2)
				leaf.Spec.Priority = &leafPrio
				h.setPG(leaf)
				podPrio := rootPrio
				if profile == ProfileV136 {
					podPrio = leafPrio
				}
				var pods []placement.Pod
				for i := range 2 {
					p := member(fmt.Sprintf("t-%d", i), "t-l", cpu(1000), 5+i)
					p.Priority = podPrio
					pods = append(pods, p)
				}
				h.addPods(pods...)
				r, ok := h.cycle()
				require.True(t, ok)
				require.Equal(t, key("t"), r.PodGroup)
				require.Equal(t, preemption.Preempt, r.Hierarchy.Preemption.Outcome)
				require.Equal(t, []Nomination{{Pod: key("t-0"), Node: "n1"}, {Pod: key("t-1"), Node: "n1"}}, r.Nominations)

				after, err := h.snap.Apply(placement.Change{Remove: []placement.Key{key("low")}})
				require.NoError(t, err)
				h.snap = after
				require.True(t, h.s.DeletePod(key("t-1")))
				h.addPrioMember("mid", "mid-0", c.mid, cpu(2000), 0)

				r, ok = h.cycle()
				require.True(t, ok)
				require.Equal(t, key("mid"), r.PodGroup)
				require.Equal(t, c.midBind, bindNames(r))
				if r.Preemption != nil {
					require.NotEqual(t, preemption.Preempt, r.Preemption.Outcome, "a nominee is never a victim")
				}
				node, ok := h.s.Nominated(key("t-0"))
				require.True(t, ok)
				require.Equal(t, "n1", node)

				h.addPods(pods[1])
				r, ok = h.cycle()
				require.True(t, ok)
				require.Equal(t, key("t"), r.PodGroup)
				require.Equal(t, c.treeEnd, bindNames(r))
			})
		}
	}
}
