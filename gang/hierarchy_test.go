package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// cpg is a gang CompositePodGroup of minGroupCount min under parent ("" for
// a root), confined to one domain of key ("" for none).
func cpg(name, parent, key string, min int32) *CompositePodGroup {
	prio := int32(100) // member's and gangPG's: since v1.37 a tree's pods carry it
	c := &CompositePodGroup{ObjectMeta: ObjectMeta{Namespace: "default", Name: name},
		Spec: CompositePodGroupSpec{ParentCompositePodGroupName: parent, Priority: &prio,
			SchedulingPolicy: CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: min}}}}
	if key != "" {
		c.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{Key: key}}
	}
	return c
}

// leafPG is a gang PodGroup of minCount min under parent, confined to key.
func leafPG(name, parent, key string, min int32) *PodGroup {
	pg := gangPG(name, min)
	pg.Spec.ParentCompositePodGroupName = parent
	pg.Spec.PodGroupTemplateRef = &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: name}}
	if key != "" {
		withTopology(pg, key)
	}
	return pg
}

func (h *harness) setCPG(c *CompositePodGroup) {
	h.t.Helper()
	require.NoError(h.t, h.s.SetCompositePodGroup(c))
}

func (h *harness) addMembers(group string, n int, milli int64, queued int) {
	h.t.Helper()
	for i := range n {
		h.addPods(member(fmt.Sprintf("%s-%d", group, i), group, cpu(milli), queued+i))
	}
}

func treeConds(r Result) []string {
	var out []string
	for _, c := range r.Hierarchy.Conditions {
		out = append(out, fmt.Sprintf("%s %s %s=%s %s", c.Kind, c.Key.Name, c.Condition.Type, c.Condition.Status, c.Condition.Reason))
	}
	return out
}

// KEP-6012's worked example through the cycle: block-A offers racks of 3
// and 5 slots, block-B two of 5; a root gang of two children by block, each
// a gang of 5 by rack, binds whole in block-B, one child per rack, in one
// cycle, and every object of the tree gets its condition.
func TestCycleTree_KEPWorkedExample(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{
		rackNode("a1", "block-A", "rack-A1", 3000), rackNode("a2", "block-A", "rack-A2", 5000),
		rackNode("b1", "block-B", "rack-B1", 5000), rackNode("b2", "block-B", "rack-B2", 5000)})
	setKEPTree(h, 5)
	rs := h.drain()
	require.Len(t, rs, 1)
	r := rs[0]
	require.Equal(t, key("root"), r.PodGroup)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, "block-B", r.Hierarchy.Decision.Root.Domain)
	require.Equal(t, []string{"b1"}, nodesOf(h.placements("child-1")))
	require.Equal(t, []string{"b2"}, nodesOf(h.placements("child-2")))
	require.Equal(t, []string{
		"CompositePodGroup root CompositePodGroupInitiallyScheduled=True Scheduled",
		"PodGroup child-1 PodGroupScheduled=True Scheduled",
		"PodGroup child-2 PodGroupScheduled=True Scheduled",
	}, treeConds(r))
	c, ok := h.s.CompositePodGroup(key("root"))
	require.True(t, ok)
	cond, _ := c.Condition(CompositePodGroupScheduled)
	require.Equal(t, ConditionTrue, cond.Status)
}

// setKEPTree sets KEP-6012's example tree: a root CompositePodGroup of two
// children by block, each a PodGroup of minCount 5 by rack; child-1 gets
// five members of one slot, child-2 child2 members.
func setKEPTree(h *harness, child2 int) {
	h.setCPG(cpg("root", "", blockKey, 2))
	h.setPG(leafPG("child-1", "root", rackKey, 5))
	h.setPG(leafPG("child-2", "root", rackKey, 5))
	h.addMembers("child-1", 5, 1000, 0)
	h.addMembers("child-2", child2, 1000, 10)
}

func nodesOf(placements []string) []string {
	var out []string
	for _, p := range placements {
		var node string
		for i := len(p) - 1; i >= 0; i-- {
			if p[i] == '@' {
				node = p[i+1:]
				break
			}
		}
		if len(out) == 0 || out[len(out)-1] != node {
			out = append(out, node)
		}
	}
	return out
}

// The cycle queues the hierarchy, not its PodGroups: while child-2 has 4
// of its minCount 5 members, neither child is tried and both wait gated on
// the tree's quorum, though child-1 alone would fit; the fifth member
// makes the whole tree bind in one cycle.
func TestCycleTree_WaitsWholeForQuorum(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{
		rackNode("b1", "block-B", "rack-B1", 5000), rackNode("b2", "block-B", "rack-B2", 5000)})
	setKEPTree(h, 4)
	require.Empty(t, h.drain())
	for _, g := range []string{"child-1", "child-2"} {
		st, _ := h.s.Group(key(g))
		require.Equal(t, Gated, st.State, g)
		require.Equal(t, "waiting for CompositePodGroup default/root tree to meet quorum", st.Reason)
	}
	h.addPods(member("child-2-4", "child-2", cpu(1000), 20))
	rs := h.drain()
	require.Len(t, rs, 1)
	require.Len(t, rs[0].Bind, 10)
}

// A leaf whose parent CompositePodGroup does not exist yet waits gated,
// and is tried once the parent appears.
func TestCycleTree_WaitsForParent(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{rackNode("b1", "block-B", "rack-B1", 5000)})
	h.setPG(leafPG("child-1", "root", "", 2))
	h.addMembers("child-1", 2, 1000, 0)
	require.Empty(t, h.drain())
	st, _ := h.s.Group(key("child-1"))
	require.Equal(t, "waiting for CompositePodGroup default/root to exist", st.Reason)
	h.setCPG(cpg("root", "", "", 1))
	rs := h.drain()
	require.Len(t, rs, 1)
	require.Len(t, rs[0].Bind, 2)
}

// A leaf under CompositePodGroups that name each other as parent waits
// gated, and its reason names the cycle rather than a depth it never had.
func TestCycleTree_ParentCycle(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{rackNode("b1", "block-B", "rack-B1", 5000)})
	h.setCPG(cpg("a", "b", "", 1))
	h.setCPG(cpg("b", "a", "", 1))
	h.setPG(leafPG("child-1", "a", "", 2))
	h.addMembers("child-1", 2, 1000, 0)
	require.Empty(t, h.drain())
	st, _ := h.s.Group(key("child-1"))
	require.Equal(t, Gated, st.State)
	require.Equal(t, "CompositePodGroups default/a → b → a name each other as parent (spec.parentCompositePodGroupName): a cycle has no root", st.Reason)
}

// Resource stealing through the cycle: upstream's greedy pass gives the
// first child (min 2, 6 pods) every slot and starves its sibling, which
// needs a whole rack of 4; the cycle places the first child at its minimum
// and binds both.
func TestCycleTree_ResourceStealing(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{rackNode("n1", "b", "r1", 4000), rackNode("n2", "b", "r2", 2000)})
	h.setCPG(cpg("root", "", "", 2))
	h.setPG(leafPG("a", "root", "", 2))
	h.setPG(leafPG("b", "root", rackKey, 4))
	h.addMembers("a", 6, 1000, 0)
	h.addMembers("b", 4, 1000, 10)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, []string{"n2"}, nodesOf(h.placements("a")))
	require.Equal(t, []string{"n1"}, nodesOf(h.placements("b")))
	require.Len(t, r.Requeued, 4, "a's members beyond its minimum wait")
}

// A 3-level tree (block > rack > leaves) whose leaf x was bound in an
// earlier cycle: the bound members pin x's rack and block; the pending
// leaves y (same rack as x) and z (a rack of the same block) bind there,
// though block b1 sorts first and has room; x's bound pods never move.
func TestCycleTree_ThreeLevelsWithBoundMembers(t *testing.T) {
	var bound []placement.Pod
	for i := range 2 {
		p := member(fmt.Sprintf("x-%d", i), "x", cpu(1000), 0)
		p.NodeName = "n3"
		bound = append(bound, p)
	}
	h := newHarness(t, Options{}, []placement.Node{
		rackNode("n0", "b1", "r0", 4000), rackNode("n1", "b1", "r1", 4000),
		rackNode("n2", "b2", "r2", 4000), rackNode("n3", "b2", "r3", 4000)}, bound...)
	h.setCPG(cpg("root", "", blockKey, 2))
	h.setCPG(cpg("inner", "root", rackKey, 2))
	h.setPG(leafPG("x", "inner", "", 2))
	h.setPG(leafPG("y", "inner", "", 2))
	h.setPG(leafPG("z", "root", rackKey, 2))
	h.addMembers("y", 2, 1000, 10)
	h.addMembers("z", 2, 1000, 20)
	rs := h.drain()
	require.Len(t, rs, 1)
	r := rs[0]
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Message())
	require.Equal(t, "b2", r.Hierarchy.Decision.Root.Domain)
	require.Equal(t, []string{"x-0@n3", "x-1@n3"}, h.placements("x"))
	require.Equal(t, []string{"n3"}, nodesOf(h.placements("y")))
	require.Equal(t, []string{"n2"}, nodesOf(h.placements("z")))
	require.Equal(t, []string{
		"CompositePodGroup inner CompositePodGroupInitiallyScheduled=True Scheduled",
		"CompositePodGroup root CompositePodGroupInitiallyScheduled=True Scheduled",
		"PodGroup x PodGroupScheduled=True Scheduled", // its bound members satisfy it
		"PodGroup y PodGroupScheduled=True Scheduled",
		"PodGroup z PodGroupScheduled=True Scheduled",
	}, treeConds(r))
}

// A tree that does not fit binds nothing (all-or-nothing at the root);
// every object gets an Unschedulable condition naming the failing level,
// and every leaf backs off together.
func TestCycleTree_UnschedulableBacksOffWhole(t *testing.T) {
	h := unfitTree(t)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	require.Empty(t, r.Bind)
	require.Len(t, r.Requeued, 8)
	require.Equal(t, []string{
		"CompositePodGroup root CompositePodGroupInitiallyScheduled=False Unschedulable",
		"PodGroup a PodGroupScheduled=False Unschedulable",
		"PodGroup b PodGroupScheduled=False Unschedulable",
	}, treeConds(r))
	for _, g := range []string{"a", "b"} {
		st, _ := h.s.Group(key(g))
		require.Equal(t, BackingOff, st.State)
		require.Equal(t, r.RetryAt, st.RetryAt)
	}
	_, ok = h.cycle()
	require.False(t, ok, "the tree is retried whole, at RetryAt")
}

// unfitTree sets a root gang of two leaves, a and b, each four one-slot
// pods by rack, on racks of 4 and 2 slots: no rack holds both leaves'
// quorum, so the tree cannot fit.
func unfitTree(t *testing.T) *harness {
	h := newHarness(t, Options{}, []placement.Node{rackNode("n1", "b", "r1", 4000), rackNode("n2", "b", "r2", 2000)})
	h.setCPG(cpg("root", "", "", 2))
	h.setPG(leafPG("a", "root", rackKey, 4))
	h.setPG(leafPG("b", "root", rackKey, 4))
	h.addMembers("a", 4, 1000, 0)
	h.addMembers("b", 4, 1000, 10)
	return h
}

// A leaf under CompositePodGroups that name each other as parent ranks,
// as a victim, at the last one the walk up reaches before it meets one
// again, as upstream's GetPodPriority (TraverseHierarchyUp stops at a
// visited key): leaf → a (10) → b (20), then a again, so 20, and a
// preemptor of priority 15 cannot evict the leaf's bound pod.
func TestHierarchyPriority_ParentCycle(t *testing.T) {
	v := placement.Pod{Namespace: "default", Name: "v", SchedulingGroup: "child-1", NodeName: "n1", Requests: cpu(1000), Priority: 20}
	h := newHarness(t, Options{Preemption: true}, []placement.Node{cpuNode("n1", 1000)}, v)
	a, b := cpg("a", "b", "", 1), cpg("b", "a", "", 1)
	pa, pb := int32(10), int32(20)
	a.Spec.Priority, b.Spec.Priority = &pa, &pb
	h.setCPG(a)
	h.setCPG(b)
	h.setPG(leafPG("child-1", "a", "", 1))
	pre := gangPG("pre", 1)
	p15 := int32(15)
	pre.Spec.Priority = &p15
	h.setPG(pre)
	p := member("p", "pre", cpu(1000), 0)
	p.Priority = 15
	h.addPods(p)
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, key("pre"), r.PodGroup)
	require.NotNil(t, r.Preemption)
	require.Equal(t, preemption.CannotHelp, r.Preemption.Outcome, r.Preemption.Message)
}
