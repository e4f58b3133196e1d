package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// treeInput is a two-level hierarchy: root "job" (gang of 2 children by
// block) over leaves job-a and job-b (gangs of 2 one-CPU pods by rack,
// arriving at t0), on block b's racks r1 (n1) and r2 (n2) and block c's
// rack r3 (n3), each node 2 CPUs. running are pods bound before.
func treeInput(running ...Pod) Input {
	node := func(name, block, rack string) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{"block": block, "rack": rack},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 2000, placement.ResourcePods: 110}}
	}
	ref := func(tmpl string) *gang.PodGroupTemplateReference {
		return &gang.PodGroupTemplateReference{Workload: &gang.WorkloadPodGroupTemplateReference{WorkloadName: "job", PodGroupTemplateName: tmpl}}
	}
	root := &gang.CompositePodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: "job"},
		Spec: gang.CompositePodGroupSpec{SchedulingPolicy: gang.CompositeSchedulingPolicy{Gang: &gang.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints: gang.SchedulingConstraints{Topology: []gang.TopologyConstraint{{Key: "block"}}}}}
	in := Input{
		Nodes:              []placement.Node{node("n1", "b", "r1"), node("n2", "b", "r2"), node("n3", "c", "r3")},
		CompositePodGroups: []*gang.CompositePodGroup{root},
		Pods:               running,
	}
	for _, leaf := range []string{"job-a", "job-b"} {
		pg := gangGroup(leaf, 2)
		pg.Spec.ParentCompositePodGroupName, pg.Spec.PodGroupTemplateRef = "job", ref(leaf)
		pg.Spec.SchedulingConstraints.Topology = []gang.TopologyConstraint{{Key: "rack"}}
		in.PodGroups = append(in.PodGroups, pg)
		for _, name := range []string{leaf + "-0", leaf + "-1"} {
			in.Pods = append(in.Pods, Pod{Pod: placement.Pod{Namespace: "default", Name: name, SchedulingGroup: leaf, QueuedAt: t0,
				Requests: placement.ResourceList{placement.ResourceCPU: 1000}}, Duration: time.Hour})
		}
	}
	return in
}

// The tree needs two racks of one block; batch holds r2 until 00:15, so
// the tree waits whole (block c has one rack) and both leaves start at
// 00:15, one per rack of block b, after two cycles: the first, and the
// one batch's end wakes (the hint and the wake-all oracle agree).
func TestRun_TreeWaitsWholeAndStartsTogether(t *testing.T) {
	batch := Pod{Pod: placement.Pod{Namespace: "default", Name: "batch", NodeName: "n2", StartTime: t0.Add(-time.Minute),
		Requests: placement.ResourceList{placement.ResourceCPU: 2000}}, Duration: 16 * time.Minute}
	in := treeInput(batch)
	for _, wakeAll := range []bool{false, true} {
		r, err := run(in, Options{}, wakeAll)
		require.NoError(t, err)
		require.Len(t, r.Groups, 3)
		a, b := r.Groups[0], r.Groups[1]
		require.Equal(t, "default/job-a", a.Name)
		require.Equal(t, "default/job-b", b.Name)
		for i, g := range []GroupOutcome{a, b} {
			require.Equal(t, "default/job", g.Tree)
			require.True(t, g.Started, g.Name)
			require.Equal(t, t0.Add(15*time.Minute), g.Start, g.Name)
			require.Equal(t, []string{[]string{"b/r1", "b/r2"}[i]}, []string{g.Placement}, g.Name)
			require.Equal(t, []string{[]string{"n1", "n2"}[i]}, g.Nodes, g.Name)
			require.Equal(t, 2, g.Attempts, g.Name)
			require.Equal(t, "2 of min 2 children fit one by one, not together", g.Reason, g.Name)
		}
		require.Equal(t, 2, r.Cycles, "wakeAll %v", wakeAll)
		require.Zero(t, r.GroupsWaiting)
	}
}

// Preemption for a tree evicts once for the whole hierarchy, at the root's
// priority: batch (priority 0) holds r2; the tree at 10 evicts it, and
// the leaf placed on batch's node notes the eviction, once.
func TestRun_TreePreemptsOnceForTheWholeTree(t *testing.T) {
	batch := Pod{Pod: placement.Pod{Namespace: "default", Name: "batch", NodeName: "n2", StartTime: t0.Add(-time.Minute),
		Requests: placement.ResourceList{placement.ResourceCPU: 2000}}, Duration: 16 * time.Minute}
	in := treeInput(batch)
	prio := int32(10)
	in.CompositePodGroups[0].Spec.Priority = &prio
	for _, pg := range in.PodGroups {
		pg.Spec.Priority = &prio
	}
	for i := range in.Pods {
		if in.Pods[i].Name != "batch" {
			in.Pods[i].Priority = prio
		}
	}
	r, err := Run(in, Options{Preemption: true})
	require.NoError(t, err)
	require.Equal(t, []Preemption{{At: t0, Preemptor: "default/job", Victims: []string{"default/batch"}}}, r.Preemptions)
	require.Equal(t, 1, r.PodsEvicted)
	for _, g := range r.Groups[:2] {
		require.Equal(t, t0, g.Start, g.Name)
	}
	require.Nil(t, r.Groups[0].Evicts, "job-a takes r1, where nothing was evicted")
	require.Equal(t, []string{"default/batch"}, r.Groups[1].Evicts, "job-b takes r2, batch's node")
	require.Equal(t, "default/batch", r.Groups[2].Name)
	require.Equal(t, 1, r.Groups[2].Evicted)
}

// A leaf whose root does not exist waits, gated, and says so.
func TestRun_TreeWithoutItsRootWaitsGated(t *testing.T) {
	in := treeInput()
	in.CompositePodGroups = nil
	r, err := Run(in, Options{})
	require.NoError(t, err)
	require.Equal(t, 2, r.GroupsWaiting)
	for _, g := range r.Groups {
		require.Equal(t, "default/job", g.Tree)
		require.False(t, g.Started)
		require.Equal(t, "gated: waiting for CompositePodGroup default/job to exist", g.Reason)
	}
}

// A tree whose root has another priority than its pods fails every cycle
// (the v1.37 and v1.38 rules): its leaves never start and say the cycle failed, which
// no freed room can help.
func TestRun_TreeWhoseCycleFailsSaysSo(t *testing.T) {
	in := treeInput()
	prio := int32(10)
	in.CompositePodGroups[0].Spec.Priority = &prio
	r, err := Run(in, Options{MaxCycles: 20})
	require.NoError(t, err)
	require.Equal(t, 2, r.GroupsWaiting)
	for _, g := range r.Groups {
		require.True(t, g.Failed, g.Name)
		require.Contains(t, g.Reason, "differs from the priority 10 of CompositePodGroup default/job", g.Name)
	}
}

// A leaf's placement is its tree's domains down to its own: a rack whose
// label value is "" (a domain under v1.36 and v1.37) reads c/"", not its
// block's name; a leaf without a key is in its parent's domain; an
// unplaced tree names no domain.
func TestCollectLeaves_DomainPath(t *testing.T) {
	leaf := func(name, key, dom string) placement.NodeResult {
		return placement.NodeResult{Name: "PodGroup " + name, TopologyKey: key, Domain: dom, Status: placement.Scheduled, Message: name}
	}
	root := placement.NodeResult{Name: "CompositePodGroup job", TopologyKey: "block", Domain: "c", Status: placement.Scheduled,
		Children: []placement.NodeResult{leaf("a", "rack", ""), leaf("b", "rack", "r3"), leaf("c", "", "")}}
	got := map[string]leafResult{}
	collectLeaves(&root, true, "", got)
	require.Equal(t, map[string]leafResult{"a": {`c/""`, "a"}, "b": {"c/r3", "b"}, "c": {"c", "c"}}, got)
	got = map[string]leafResult{}
	collectLeaves(&root, false, "", got)
	require.Equal(t, map[string]leafResult{"a": {"", "a"}, "b": {"", "b"}, "c": {"", "c"}}, got)
}
