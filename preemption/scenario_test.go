package preemption_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// find runs Find and checks what every plan must satisfy.
func find(t *testing.T, s *placement.Snapshot, g *placement.Group, in preemption.Input, opts placement.Options) preemption.Plan {
	t.Helper()
	p, err := preemption.Find(s, g, in, opts)
	require.NoError(t, err)
	if p.Outcome == preemption.Preempt {
		require.Equal(t, placement.Scheduled, p.Decision.Status, p.Message)
		require.NoError(t, placement.Verify(p.After, g, p.Decision, opts.Filters...))
		require.Equal(t, s.NumPods()-len(p.EvictedPods()), p.After.NumPods())
	} else {
		require.Empty(t, p.Victims, p.Message)
	}
	return p
}

// P1: Three nodes, each holding one low pod: p1 belongs to no group, p2 to pg1 and p3 to pg2 (both
// disruptionMode Pod). A 1-member preemptor evicts p1: a pod outside any group is less important
// than a group member of equal priority.
func TestScenario_P1(t *testing.T) {
	s := snapshot(
		[]placement.Node{node("n1", cpu(1000)), node("n2", cpu(1000)), node("n3", cpu(1000))},
		[]placement.Pod{
			bound("p1", "n1", "", low, cpu(1000)),
			bound("p2", "n2", "pg1", low, cpu(1000)),
			bound("p3", "n3", "pg2", low, cpu(1000)),
		})
	g := gang("hi", 1, 1, high, cpu(1000))
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"p1"}, evicted(p))
	require.Equal(t, map[string]string{"hi-0": "n1"}, assigned(p.Decision))
}

// P2: One node with a low, a mid and a high pod; removing any one of them frees room. Evict low.
func TestScenario_P2(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(3000))}, []placement.Pod{
		bound("high", "n1", "", high, cpu(1000)),
		bound("low", "n1", "", low, cpu(1000)),
		bound("mid", "n1", "", mid, cpu(1000)),
	})
	p := find(t, s, gang("hi", 1, 1, high, cpu(1000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"low"}, evicted(p))
	require.Equal(t, low, p.Victims[0].Priority)
}

// P3: One node with 4 low pods; removing p1 alone frees room. Evict only p1 (the smallest set).
func TestScenario_P3(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(4000))}, []placement.Pod{
		bound("p4", "n1", "", low, cpu(1000)),
		bound("p2", "n1", "", low, cpu(1000)),
		bound("p1", "n1", "", low, cpu(1000)),
		bound("p3", "n1", "", low, cpu(1000)),
	})
	p := find(t, s, gang("hi", 1, 1, high, cpu(1000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"p1"}, evicted(p))
	require.Equal(t, map[string]string{"hi-0": "n1"}, assigned(p.Decision))
}

// P4: A budget (PodDisruptionBudget) allows 0 disruptions for the pod labelled app=foo; two group
// members on two nodes, either frees room: evict the one without the budget.
func TestScenario_P4(t *testing.T) {
	foo := bound("a", "n1", "pg1", low, cpu(1000))
	foo.Labels = map[string]string{"app": "foo"}
	s := snapshot([]placement.Node{node("n1", cpu(1000)), node("n2", cpu(1000))}, []placement.Pod{
		foo, bound("b", "n2", "pg1", low, cpu(1000)),
	})
	g := gang("hi", 1, 1, high, cpu(1000))
	budget := preemption.DisruptionBudget{Namespace: ns, Name: "foo-pdb", Selector: placement.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}, DisruptionsAllowed: 0}

	// Without the budget, name order evicts a; the budget moves it to b.
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, []string{"a"}, evicted(p))
	p = find(t, s, g, preemption.Input{Budgets: []preemption.DisruptionBudget{budget}}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"b"}, evicted(p))
	require.Empty(t, p.Victims[0].ExceedsBudgets)
	require.Equal(t, map[string]string{"hi-0": "n2"}, assigned(p.Decision))

	// When only the guarded pod can make room, the budget yields and says so.
	s = snapshot([]placement.Node{node("n1", cpu(1000))}, []placement.Pod{foo})
	p = find(t, s, g, preemption.Input{Budgets: []preemption.DisruptionBudget{budget}}, placement.Options{})
	require.Equal(t, []string{"a"}, evicted(p))
	require.Equal(t, []placement.Key{key("foo-pdb")}, p.Victims[0].ExceedsBudgets)
	require.Contains(t, p.Message, "1 beyond a disruption budget")
}

// P5: Any preemptor member with preemptionPolicy Never: no victims, unschedulable.
func TestScenario_P5(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(1000))}, []placement.Pod{bound("low", "n1", "", low, cpu(1000))})
	g := gang("hi", 2, 2, high, cpu(500))
	g.Members[1].PreemptionPolicy = placement.PreemptNever
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.NotAllowed, p.Outcome)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Same(t, s, p.After)
	require.Contains(t, p.Message, "member default/hi-1 has preemptionPolicy Never")
}

// P6: A victim group with disruptionMode PodGroup has members on node1 and node2; only the node1
// member blocks the preemptor: both members are evicted (whole group or nothing).
func TestScenario_P6(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(2000)), node("n2", cpu(1000))}, []placement.Pod{
		bound("g1-1", "n1", "g1", low, cpu(2000)),
		bound("g1-2", "n2", "g1", low, cpu(500)),
	})
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("g1"): {DisruptionMode: preemption.DisruptionModePodGroup}}}
	p := find(t, s, gang("hi", 1, 1, high, cpu(2000)), in, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"g1-1", "g1-2"}, evicted(p))
	require.Len(t, p.Victims, 1)
	require.True(t, p.Victims[0].Whole)
	require.Equal(t, key("g1"), p.Victims[0].PodGroup)
	require.Equal(t, map[string]string{"hi-0": "n1"}, assigned(p.Decision))

	// In Pod mode only the blocking member goes.
	p = find(t, s, gang("hi", 1, 1, high, cpu(2000)), preemption.Input{}, placement.Options{})
	require.Equal(t, []string{"g1-1"}, evicted(p))
}

// P7: A single low pod p1 and a low disruptionMode-PodGroup group {g1-1, g1-2} on one node, either
// removal frees room: evict p1 (fewer pods).
func TestScenario_P7(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(2000))}, []placement.Pod{
		bound("p1", "n1", "", low, cpu(1000)),
		bound("g1-1", "n1", "g1", low, cpu(500)),
		bound("g1-2", "n1", "g1", low, cpu(500)),
	})
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("g1"): {DisruptionMode: preemption.DisruptionModePodGroup}}}
	p := find(t, s, gang("hi", 1, 1, high, cpu(1000)), in, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"p1"}, evicted(p))
}

// P8: The only pods in the way have priority ≥ the preemptor's, or the node is empty and still too
// small: unschedulable and unresolvable, nothing evicted.
func TestScenario_P8(t *testing.T) {
	// Only pods of equal or higher priority are in the way.
	s := snapshot([]placement.Node{node("n1", cpu(2000))}, []placement.Pod{
		bound("same", "n1", "", high, cpu(1000)),
		bound("above", "n1", "", high+1, cpu(1000)),
	})
	p := find(t, s, gang("hi", 1, 1, high, cpu(1000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.CannotHelp, p.Outcome)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Equal(t, 0, p.Candidates)
	require.Contains(t, p.Message, "no pod of priority below 1000 is in the way")

	// A group's priority override lifts its low pods out of reach.
	s = snapshot([]placement.Node{node("n1", cpu(1000))}, []placement.Pod{bound("m", "n1", "vip", low, cpu(1000))})
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("vip"): {Priority: ptr(high)}}}
	p = find(t, s, gang("hi", 1, 1, high, cpu(1000)), in, placement.Options{})
	require.Equal(t, preemption.CannotHelp, p.Outcome)

	// The node is empty and still too small.
	s = snapshot([]placement.Node{node("n1", cpu(500))}, nil)
	p = find(t, s, gang("hi", 1, 1, high, cpu(1000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.CannotHelp, p.Outcome)
	require.Equal(t, placement.Unresolvable, p.Decision.Status)
}

// P9: Ranking of victim units, most important first: higher priority; at equal priority a group
// before a pod; two pods: the one that started earlier; two groups: the larger, then the earlier.
// Feasibility before eviction (never evict in vain)
func TestScenario_P9(t *testing.T) {
	later := t0.Add(time.Hour)
	pod := func(name string, prio int32, start time.Time) preemption.Victim {
		return preemption.Victim{Pods: []placement.Key{key(name)}, Priority: prio, StartTime: start}
	}
	member := func(name, group string, prio int32, start time.Time) preemption.Victim {
		v := pod(name, prio, start)
		v.PodGroup = key(group)
		return v
	}
	whole := func(group string, size int, prio int32, start time.Time) preemption.Victim {
		v := preemption.Victim{PodGroup: key(group), Whole: true, Priority: prio, StartTime: start}
		for i := range size {
			v.Pods = append(v.Pods, key(group+"-"+itoa(i)))
		}
		return v
	}
	want := []preemption.Victim{
		pod("mid-pod", mid, t0),                   // higher priority first
		whole("big-group", 3, low, later),         // a group before a pod; the larger group first
		whole("early-group", 2, low, t0),          // two groups of one size: the earlier first
		whole("late-group", 2, low, later),        //
		member("member", "pg", low, later),        // a member of a Pod-mode group counts as in a group
		pod("early", low, t0),                     // two pods: the earlier first
		pod("late", low, later),                   //
		pod("zz-twin", low, later.Add(time.Hour)), // full tie: the greater name is kept...
		pod("aa-twin", low, later.Add(time.Hour)), // ...so the smaller name is evicted first
		pod("not-started", low, time.Time{}),      // not started counts as the latest
		whole("solo", 1, low-1, later),            // lower priority after, whatever else
		member("lowest-member", "pg", low-2, t0),  //
		pod("lowest", low-2, t0),                  //
	}
	got := slices.Clone(want)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
	slices.SortFunc(got, func(a, b preemption.Victim) int { return preemption.VictimOrder(&a, &b) })
	require.Equal(t, want, got)
	for i := range want {
		require.Zero(t, preemption.VictimOrder(&want[i], &want[i]))
		for j := i + 1; j < len(want); j++ {
			require.Negative(t, preemption.VictimOrder(&want[i], &want[j]), "%v before %v", want[i].Pods, want[j].Pods)
			require.Positive(t, preemption.VictimOrder(&want[j], &want[i]))
		}
	}
}

// P10: 4 nodes × gpu:8; each node runs six high 1-GPU pods and two low 1-GPU pods. A high group of
// 1 member × gpu:8 cannot fit anywhere even if every low pod goes (at most 2 GPUs freeable per
// node): evict nothing; the reason says the most that can be freed on one node is gpu:2.
func TestScenario_P10(t *testing.T) {
	var nodes []placement.Node
	var pods []placement.Pod
	for i := 1; i <= 4; i++ {
		n := "n" + itoa(i)
		nodes = append(nodes, node(n, gpu(8)))
		for j := range 6 {
			pods = append(pods, bound(n+"-high-"+itoa(j), n, "", high, gpu(1)))
		}
		for j := range 2 {
			pods = append(pods, bound(n+"-low-"+itoa(j), n, "", low, gpu(1)))
		}
	}
	s := snapshot(nodes, pods)
	p := find(t, s, gang("hi", 1, 1, high, gpu(8)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.CannotHelp, p.Outcome)
	require.Equal(t, 8, p.Candidates)
	require.Equal(t, []preemption.Freeable{
		{Resource: placement.ResourceGPU, Node: "n1", Free: 0, Freed: 2, Request: 8},
	}, p.MostFreeable)
	require.Contains(t, p.Message, "at most nvidia.com/gpu 2 on node n1 (0 free + 2 from lower-priority pods), a member requests 8")
	require.Same(t, s, p.After)
}

// P11: One node of 60 cores runs a low group of 59 × 1 core and a high pod of 1 core. A gang that
// needs 60 cores on that node can free at most 59: evict nothing, and say why.
func TestScenario_P11(t *testing.T) {
	pods := []placement.Pod{bound("keeper", "n1", "", high, cpu(1000))}
	for i := range 59 {
		pods = append(pods, bound("low-"+itoa(i), "n1", "lows", low, cpu(1000)))
	}
	s := snapshot([]placement.Node{node("n1", cpu(60000))}, pods)
	for _, mode := range []preemption.DisruptionMode{preemption.DisruptionModePod, preemption.DisruptionModePodGroup} {
		in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("lows"): {DisruptionMode: mode}}}
		p := find(t, s, gang("hi", 60, 60, high, cpu(1000)), in, placement.Options{})
		require.Equal(t, preemption.CannotHelp, p.Outcome, mode)
		require.Equal(t, 59, p.Decision.MostFit)
		require.Equal(t, []preemption.Freeable{
			{Resource: placement.ResourceCPU, Node: "n1", Free: 0, Freed: 59000, Request: 1000},
		}, p.MostFreeable)
		require.Contains(t, p.Message, "59 of min 60 members fit")
	}
}

// P12: The pod-count limit is a resource like any other: a node with pods:1 and plenty of CPU runs
// a low pod; a high 1-member group evicts it and fits.
func TestScenario_P12(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", placement.ResourceList{placement.ResourcePods: 1, placement.ResourceCPU: 64000})},
		[]placement.Pod{bound("low", "n1", "", low, cpu(100))})
	p := find(t, s, gang("hi", 1, 1, high, cpu(100)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"low"}, evicted(p))
	require.Equal(t, map[string]string{"hi-0": "n1"}, assigned(p.Decision))
}

// P13: Free room and victims combine: 2 nodes that each hold one pod of cpu:4; n1 is empty, n2
// runs a low pod. A high gang of 2 (min 2) evicts the low pod and is placed on n1 and n2.
func TestScenario_P13(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(4000)), node("n2", cpu(4000))},
		[]placement.Pod{bound("low", "n2", "", low, cpu(4000))})
	p := find(t, s, gang("hi", 2, 2, high, cpu(4000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"low"}, evicted(p))
	require.Equal(t, map[string]string{"hi-0": "n1", "hi-1": "n2"}, assigned(p.Decision))
}

// P14: Enough victims, not a capped number: a 1-member group needs cpu:3; the only node has cpu:3
// and runs three low pods of cpu:1: all three are evicted.
func TestScenario_P14(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(3000))}, []placement.Pod{
		bound("l1", "n1", "", low, cpu(1000)), bound("l2", "n1", "", low, cpu(1000)), bound("l3", "n1", "", low, cpu(1000)),
	})
	p := find(t, s, gang("hi", 1, 1, high, cpu(3000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"l1", "l2", "l3"}, evicted(p))
}

// P15: A whole-cluster gang: 8 nodes × gpu:8 run a low gang of 8 × gpu:8 (disruptionMode
// PodGroup); an identical high gang evicts all 8 and takes the nodes.
func TestScenario_P15(t *testing.T) {
	var nodes []placement.Node
	var pods []placement.Pod
	want := map[string]string{}
	for i := range 8 {
		n := "n" + itoa(i)
		nodes = append(nodes, node(n, gpu(8)))
		pods = append(pods, bound("lo-"+itoa(i), n, "lo", low, gpu(8)))
		want["hi-"+itoa(i)] = n
	}
	s := snapshot(nodes, pods)
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{
		key("lo"): {DisruptionMode: preemption.DisruptionModePodGroup},
		key("hi"): {Priority: ptr(high)},
	}}
	g := gang("hi", 8, 8, 0, gpu(8)) // the members' own priority is overridden
	p := find(t, s, g, in, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Len(t, p.Victims, 1)
	require.True(t, p.Victims[0].Whole)
	require.Len(t, p.Victims[0].Pods, 8)
	require.Equal(t, want, assigned(p.Decision))
}

// P16: Topology together with preemption (v1.36 upstream refuses; we do it): required rack; the
// gang fits in rack-1 only if two low pods there go, and in rack-2 only if one mid pod goes: it
// evicts the two low pods in rack-1 (lower priorities beat fewer pods), never pods in both racks.
func TestScenario_P16(t *testing.T) {
	s := snapshot([]placement.Node{
		node("r1a", cpu(4000), rackKey, "rack-1"), node("r1b", cpu(4000), rackKey, "rack-1"),
		node("r2a", cpu(4000), rackKey, "rack-2"), node("r2b", cpu(4000), rackKey, "rack-2"),
	}, []placement.Pod{
		bound("low-1a", "r1a", "", low, cpu(2000)), bound("low-1b", "r1b", "", low, cpu(2000)),
		bound("mid-2a", "r2a", "", mid, cpu(4000)),
	})
	g := gang("hi", 4, 4, high, cpu(2000)) // needs 8 cores in one rack; each rack has 4 free
	opts := placement.Options{Generator: rackGenerator()}
	p := find(t, s, g, preemption.Input{}, opts)
	require.Equal(t, preemption.Preempt, p.Outcome, p.Message)
	require.Equal(t, []string{"low-1a", "low-1b"}, evicted(p))
	require.Equal(t, "rack-1", p.Decision.Placement.Name)
	require.Equal(t, map[string]string{"hi-0": "r1a", "hi-1": "r1a", "hi-2": "r1b", "hi-3": "r1b"}, assigned(p.Decision))

	// Without the constraint the free room of both racks suffices.
	p = find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Fits, p.Outcome)

	// The mid pod is chosen once rack-1 would need a pod of higher priority.
	s2, err := s.Apply(placement.Change{Bind: []placement.Pod{bound("high-1a", "r1a", "", high, cpu(2000))}})
	require.NoError(t, err)
	p = find(t, s2, g, preemption.Input{}, opts)
	require.Equal(t, []string{"mid-2a"}, evicted(p))
	require.Equal(t, "rack-2", p.Decision.Placement.Name)
}

// A caller filter that reads the pods on a node (here an anti-affinity to
// app=noisy) is not part of the capacity check of reprieve: giving back
// the noisy pod leaves room but breaks the filter, so it stays a victim.
func TestFind_FilterSeesPodsGivenBack(t *testing.T) {
	noisy := bound("noisy", "n1", "", low, cpu(100))
	noisy.Labels = map[string]string{"app": "noisy"}
	filler := bound("filler", "n1", "", low, cpu(1900))
	filler.StartTime = t0.Add(time.Hour) // less important than noisy
	s := snapshot([]placement.Node{node("n1", cpu(2000))}, []placement.Pod{noisy, filler})
	g := gang("hi", 1, 1, high, cpu(1000))

	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, []string{"filler"}, evicted(p))

	opts := placement.Options{Filters: []placement.Filter{avoid("app", "noisy")}}
	p = find(t, s, g, preemption.Input{}, opts)
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"filler", "noisy"}, evicted(p))
}

// The search spends a number of solves that does not grow with the
// candidates: the issue forbids a solve per unit where a cheaper check
// suffices. Counted, not timed.
func TestFind_SolvesDoNotGrowWithCandidates(t *testing.T) {
	for _, tc := range []struct {
		name      string
		make      func(testing.TB) workload
		victims   int
		maxSolves int
	}{
		{"1000 pods", upstream1000, 100, 2},
		{"5 groups", upstreamGroups, 2, 2},
		{"40000 pods", packed5000, 32, 2},
		{"700 groups", groups700, 53, 3},
		{"50 racks", racks5000, 32, 2 + 50*2},
	} {
		w := tc.make(t)
		p := find(t, w.s, w.g, w.in, w.opts)
		require.Equal(t, preemption.Preempt, p.Outcome, tc.name)
		require.Len(t, p.Victims, tc.victims, tc.name)
		require.LessOrEqual(t, p.Solves, tc.maxSolves, tc.name)
	}
}

// The preemptor's own bound members are never victims, even when their
// own priority is below the pending members'.
func TestFind_OwnBoundMembersAreKept(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(2000)), node("n2", cpu(1000))}, []placement.Pod{
		bound("hi-bound", "n1", "hi", low, cpu(1000)),
		bound("other", "n1", "", low, cpu(1000)),
		bound("far", "n2", "", low, cpu(1000)),
	})
	g := gang("hi", 1, 2, high, cpu(1000)) // minCount 2: the bound member counts
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"far"}, evicted(p))
	require.Equal(t, 1, p.Decision.Bound)
}

// A member that requests a resource no node has cannot be helped.
func TestFind_UnknownResource(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(1000))}, []placement.Pod{bound("low", "n1", "", low, cpu(1000))})
	g := gang("hi", 1, 1, high, placement.ResourceList{"example.com/fpga": 1})
	p := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.CannotHelp, p.Outcome)
	require.Contains(t, p.Decision.Message, "Insufficient example.com/fpga")
	require.Equal(t, "preemption cannot help: even with every candidate victim of priority below 1000 removed (1 in all), 0 of min 1 members fit", p.Message)
}

// Budgets select pods of their own namespace only.
func TestFind_BudgetNamespace(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(1000)), node("n2", cpu(1000))}, []placement.Pod{
		bound("a", "n1", "", low, cpu(1000)), bound("b", "n2", "", low, cpu(1000)),
	})
	g := gang("hi", 1, 1, high, cpu(1000))
	elsewhere := preemption.DisruptionBudget{Namespace: "other", Name: "all"}
	p := find(t, s, g, preemption.Input{Budgets: []preemption.DisruptionBudget{elsewhere}}, placement.Options{})
	require.Equal(t, []string{"a"}, evicted(p))
	// The empty selector guards every pod of its namespace.
	here := preemption.DisruptionBudget{Namespace: ns, Name: "all", DisruptionsAllowed: 0}
	p = find(t, s, g, preemption.Input{Budgets: []preemption.DisruptionBudget{here}}, placement.Options{})
	require.Equal(t, []string{"a"}, evicted(p))
	require.Equal(t, []placement.Key{key("all")}, p.Victims[0].ExceedsBudgets)
}

// Nil arguments are errors, and VictimOrder orders victims a caller built
// without pods (zero values) instead of panicking.
func TestFind_NilArgumentsAndZeroVictims(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(1000))}, nil)
	g := gang("hi", 1, 1, high, cpu(1000))
	_, err := preemption.Find(nil, g, preemption.Input{}, placement.Options{})
	require.ErrorIs(t, err, placement.ErrInvalid)
	_, err = preemption.Find(s, nil, preemption.Input{}, placement.Options{})
	require.ErrorIs(t, err, placement.ErrInvalid)

	var zero preemption.Victim
	require.Zero(t, preemption.VictimOrder(&zero, &zero))
	grouped := preemption.Victim{PodGroup: key("g")}
	require.Negative(t, preemption.VictimOrder(&grouped, &zero), "a group member ranks before a lone pod")
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[preemption.Outcome]string{
		preemption.Fits: "Fits", preemption.Preempt: "Preempt", preemption.CannotHelp: "CannotHelp",
		preemption.NotAllowed: "NotAllowed", 9: "Outcome(9)",
	} {
		require.Equal(t, want, o.String())
	}
}

// Between two racks whose victims start alike, the shorter set wins: a
// PodGroup-mode group spans both racks, and rack-a needs one pod more.
func TestFind_ShorterSetWins(t *testing.T) {
	s := snapshot([]placement.Node{
		node("a1", cpu(2000), rackKey, "rack-a"),
		node("b1", cpu(2000), rackKey, "rack-b"),
	}, []placement.Pod{
		bound("g-a", "a1", "g", low, cpu(1000)), bound("a-x", "a1", "", low, cpu(1000)),
		bound("g-b", "b1", "g", low, cpu(2000)),
	})
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("g"): {DisruptionMode: preemption.DisruptionModePodGroup}}}
	g := gang("hi", 1, 1, high, cpu(2000))
	p := find(t, s, g, in, placement.Options{Generator: rackGenerator()})
	require.Equal(t, []string{"g-a", "g-b"}, evicted(p))
	require.Equal(t, "rack-b", p.Decision.Placement.Name)
}

// TestFind_VerifiesWithCallerFilters: Find skips Verify only for a
// decision Solve made on Plan.After with no caller filter. With one, the
// plan is verified: a filter that stops accepting after the searches'
// solves (not a pure function) makes Find fail with ErrViolation, and the
// same filter that keeps accepting gives the plan.
func TestFind_VerifiesWithCallerFilters(t *testing.T) {
	s := snapshot(
		[]placement.Node{node("n1", cpu(1000)), node("n2", cpu(1000))},
		[]placement.Pod{bound("p1", "n1", "", low, cpu(1000)), bound("p2", "n2", "", low, cpu(1000))})
	g := gang("hi", 2, 2, high, cpu(1000))
	calls, accept := 0, -1 // accept < 0: every call
	counting := placement.FilterFunc(func(*placement.Pod, placement.NodeInfo) placement.Rejection {
		calls++
		if accept >= 0 && calls > accept {
			return placement.Rejection{Reason: "changed its mind"}
		}
		return placement.Rejection{}
	})
	opts := placement.Options{Filters: []placement.Filter{counting}}
	p, err := preemption.Find(s, g, preemption.Input{}, opts)
	require.NoError(t, err)
	require.Equal(t, preemption.Preempt, p.Outcome)
	total := calls // the searches' solves, then Find's Verify
	calls = 0
	require.NoError(t, placement.Verify(p.After, g, p.Decision, counting))
	verify := calls
	require.Positive(t, verify)

	calls, accept = 0, total-verify
	_, err = preemption.Find(s, g, preemption.Input{}, opts)
	require.ErrorIs(t, err, placement.ErrViolation)

	// Without the filter, the same plan comes back unverified by Find, and
	// Verify accepts it.
	p2 := find(t, s, g, preemption.Input{}, placement.Options{})
	require.Equal(t, p.EvictedPods(), p2.EvictedPods())
}
