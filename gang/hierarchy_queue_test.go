package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// backedOffTree runs a cycle of unfitTree: the tree does not fit, and
// both leaves back off.
func backedOffTree(t *testing.T) *harness {
	h := unfitTree(t)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	for _, g := range []string{"a", "b"} {
		st, _ := h.s.Group(key(g))
		require.Equal(t, BackingOff, st.State, g)
	}
	_, ok = h.cycle()
	require.False(t, ok, "backing off until RetryAt")
	return h
}

// Lowering the root's minGroupCount (v1.38: mutable) wakes the tree that
// is backing off: the next cycle, before RetryAt, binds a alone in r1
// and leaves b's members pending.
func TestCycleTree_MinGroupCountChangeWakesTree(t *testing.T) {
	h := backedOffTree(t)
	h.setCPG(cpg("root", "", "", 1))
	for _, g := range []string{"a", "b"} {
		st, _ := h.s.Group(key(g))
		require.Equal(t, Active, st.State, g)
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, []string{"a-0@n1", "a-1@n1", "a-2@n1", "a-3@n1"}, h.placements("a"))
	require.Equal(t, []string{"b-0", "b-1", "b-2", "b-3"}, keyNames(r.Requeued))
	require.Equal(t, []string{
		"CompositePodGroup root CompositePodGroupInitiallyScheduled=True Scheduled",
		"PodGroup a PodGroupScheduled=True Scheduled",
		"PodGroup b PodGroupScheduled=False Unschedulable",
	}, treeConds(r))
}

// A CompositePodGroup set again with the same policy (another disruption
// mode, say) does not cut the tree's backoff short.
func TestCycleTree_SamePolicyKeepsBackoff(t *testing.T) {
	h := backedOffTree(t)
	c := cpg("root", "", "", 2)
	c.Spec.DisruptionMode = CompositeDisruptionAll
	h.setCPG(c)
	_, ok := h.cycle()
	require.False(t, ok)
}

// Lowering a leaf's minCount (elastic gang) wakes its tree too: b's
// minimum of 2 fits r2, and the whole tree binds at the next cycle.
func TestCycleTree_LeafMinCountChangeWakesTree(t *testing.T) {
	h := backedOffTree(t)
	h.setPG(leafPG("b", "root", rackKey, 2))
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, []string{"n1"}, nodesOf(h.placements("a")))
	require.Equal(t, []string{"b-0@n2", "b-1@n2"}, h.placements("b"))
	require.Equal(t, []string{"b-2", "b-3"}, keyNames(r.Requeued))
}

// A tree queues by its root's priority, not by its leaves': the tree of
// root priority 100, whose leaf's members came last and carry none, is
// decided before a standalone PodGroup of priority 50; with the root's
// priority lowered to 10, after it.
func TestCycleTree_QueuesByRootPriority(t *testing.T) {
	for _, tc := range []struct {
		root  int32
		first placement.Key
	}{{100, key("root")}, {10, key("solo")}} {
		h := newHarness(t, Options{}, []placement.Node{rackNode("n1", "b", "r1", 8000)})
		solo := gangPG("solo", 2)
		solo.Spec.Priority = new(int32(50))
		h.setPG(solo)
		for i := range 2 {
			p := member("solo-"+string(rune('0'+i)), "solo", cpu(1000), i)
			p.Priority = 50
			h.addPods(p)
		}
		c := cpg("root", "", "", 1)
		c.Spec.Priority = new(int32(100))
		h.setCPG(c)
		h.setPG(leafPG("a", "root", "", 2))
		h.addMembers("a", 2, 1000, 10)
		if tc.root != 100 {
			c = cpg("root", "", "", 1)
			c.Spec.Priority = new(tc.root)
			h.setCPG(c) // refiles the leaves
		}
		r, ok := h.cycle()
		require.True(t, ok)
		require.Equal(t, tc.first, r.PodGroup, "root priority %d", tc.root)
		require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	}
}

// ResourceClaims in a tree are an input error naming the object and the
// field, on the PodGroup or on a pending member; the cycle binds nothing
// and every object of the tree takes the profile's reason for an invalid
// configuration (v1.38: CompositePodGroupError on CompositePodGroups,
// PodGroupError on PodGroups, as updatePodGroupConditionWithError).
func TestCycleTree_ClaimsAreAnInputError(t *testing.T) {
	for _, tc := range []struct {
		name     string
		onGroup  bool
		wantErr  string
		wantCond string
	}{
		{"pod", false, `CompositePodGroup default/root: pod "default/a-0": spec.resourceClaims: ResourceClaims in a CompositePodGroup hierarchy are not supported (the pod is a member of PodGroup default/a)`, ""},
		{"group", true, `CompositePodGroup default/root: PodGroup "default/a": spec.resourceClaims: ResourceClaims in a CompositePodGroup hierarchy are not supported`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{}, []placement.Node{rackNode("n1", "b", "r1", 4000)})
			h.setCPG(cpg("root", "", "", 1))
			pg := leafPG("a", "root", "", 1)
			p := member("a-0", "a", cpu(1000), 0)
			claim := placement.PodResourceClaim{Name: "fabric", ResourceClaimTemplateName: "fabric-tmpl"}
			if tc.onGroup {
				pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: "fabric-tmpl"}}
			} else {
				p.ResourceClaims = []placement.PodResourceClaim{claim}
			}
			h.setPG(pg)
			h.addPods(p)
			r, ok := h.s.Cycle(h.snap, h.now)
			require.True(t, ok)
			require.EqualError(t, r.Err, tc.wantErr)
			var fe *placement.FieldError
			require.ErrorAs(t, r.Err, &fe)
			require.Equal(t, "spec.resourceClaims", fe.Field)
			require.Empty(t, r.Bind)
			require.Equal(t, []string{
				"CompositePodGroup root CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
				"PodGroup a PodGroupScheduled=False PodGroupError",
			}, treeConds(r))
		})
	}
}

// A tree that does not fit preempts at its root (priority 100): of the
// low pods, the victims of least cost that make room for both leaves —
// the two pods of priority 5 on n2, spared the one of priority 20 on n1
// that a one-slot leaf would also need — and every leaf is retried at
// once; after the host evicts them the tree binds whole.
func TestCycleTree_PreemptsAtTheRoot(t *testing.T) {
	low := func(name, node, group string, prio int32) placement.Pod {
		return placement.Pod{Namespace: "default", Name: name, NodeName: node, SchedulingGroup: group, Requests: cpu(1000), Priority: prio}
	}
	h := newHarness(t, Options{Preemption: true}, []placement.Node{rackNode("n1", "b", "r1", 2000), rackNode("n2", "b", "r2", 2000)},
		low("keep", "n1", "", 20), low("x", "n2", "", 5), low("y", "n2", "", 5))
	c := cpg("root", "", "", 2)
	c.Spec.Priority = new(int32(100))
	h.setCPG(c)
	h.setPG(leafPG("a", "root", rackKey, 1))
	h.setPG(leafPG("b", "root", rackKey, 2))
	for _, p := range []placement.Pod{member("a-0", "a", cpu(1000), 0), member("b-0", "b", cpu(1000), 1), member("b-1", "b", cpu(1000), 2)} {
		p.Priority = 100
		h.addPods(p)
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	p := r.Hierarchy.Preemption
	require.NotNil(t, p)
	require.Equal(t, preemption.Preempt, p.Outcome, p.Message)
	var evicted []string
	for _, v := range p.Victims {
		for _, k := range v.Pods {
			evicted = append(evicted, k.Name)
		}
	}
	require.Equal(t, []string{"y", "x"}, evicted, "most important first: names descending at equal priority")
	require.Equal(t, h.now, r.RetryAt, "requeued at once")
	require.Contains(t, r.Message(), "; preempting: evict 2 pods in 2 victims")

	after, err := h.snap.Apply(placement.Change{Remove: []placement.Key{key("x"), key("y")}})
	require.NoError(t, err)
	h.snap = after
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, []string{"a-0@n1"}, h.placements("a"))
	require.Equal(t, []string{"b-0@n2", "b-1@n2"}, h.placements("b"))
}

// TestQueue_TreeWithUnsetRootQueuesAtZero: upstream's queue sorts a
// hierarchy by its root CompositePodGroup's priority, 0 when unset
// (QueuedPodGroupInfo.GetPriority), whatever its leaf's spec.priority or
// its pods say. Tree "t" (root unset, leaf "t-l") queued first and
// PodGroup "p" of priority 50 queued later both want the only 1-CPU slot:
// p's cycle comes first and binds. Before, the leaf queued by its own
// spec.priority (100, v1.37, pods at the root's 0) or, with that unset,
// by its pod's (100, v1.36, which lets pods differ), and took the slot.
// (v1.38 holds the leaf to its root's priority too, so there it is unset.)
func TestQueue_TreeWithUnsetRootQueuesAtZero(t *testing.T) {
	p100 := int32(100)
	for _, c := range []struct {
		profile  Profile
		leafPrio *int32
		podPrio  int32
	}{
		{ProfileV138, nil, 0},
		{ProfileV137, &p100, 0},
		{ProfileV136, nil, 100},
	} {
		t.Run(string(c.profile), func(t *testing.T) {
			h := newHarness(t, Options{Profile: c.profile}, []placement.Node{rackNode("n1", "b", "r1", 1000)})
			root := cpg("t", "", "", 1)
			root.Spec.Priority = nil
			h.setCPG(root)
			leaf := leafPG("t-l", "t", "", 1)
			leaf.Spec.Priority = c.leafPrio
			h.setPG(leaf)
			tp := member("t-0", "t-l", cpu(1000), 0)
			tp.Priority = c.podPrio
			h.addPods(tp)
			pg := gangPG("p", 1)
			p50 := int32(50)
			pg.Spec.Priority = &p50
			h.setPG(pg)
			pp := member("p-0", "p", cpu(1000), 1)
			pp.Priority = 50
			h.addPods(pp)

			var order []string
			for _, r := range h.drain() {
				order = append(order, fmt.Sprintf("%s:%v", r.PodGroup.Name, bindNames(r)))
			}
			require.Equal(t, []string{"p:[p-0@n1]", "t:[]"}, order)
		})
	}
}
