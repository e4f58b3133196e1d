package preemption_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

func started(p placement.Pod, sec int) placement.Pod {
	p.StartTime = t0.Add(time.Duration(sec) * time.Second)
	return p
}

// Three low pods of cpu:1 and one of cpu:2 fill a cpu:5 node; a cpu:2
// preemptor evicts the cpu:2 pod alone (the
// real kube-scheduler v1.37.2 and v1.38.0-beta.0 evict p3 and p4, whose
// priority sum is twice as high).
func TestScenario_EvictsTheOnePodThatFrees(t *testing.T) {
	s := snapshot([]placement.Node{node("n1", cpu(5000))}, []placement.Pod{
		started(bound("p1", "n1", "", low, cpu(2000)), 1),
		started(bound("p2", "n1", "", low, cpu(1000)), 2),
		started(bound("p3", "n1", "", low, cpu(1000)), 3),
		started(bound("p4", "n1", "", low, cpu(1000)), 4),
	})
	for _, policy := range []placement.Policy{placement.PolicyBasic, placement.PolicyGang} {
		g := gang("pre", 1, 1, high, cpu(2000))
		g.Policy = policy
		p := find(t, s, g, preemption.Input{}, placement.Options{})
		require.Equal(t, preemption.Preempt, p.Outcome, policy)
		require.Equal(t, []string{"p1"}, evicted(p), policy)
		require.True(t, p.Proven, policy)
		require.Equal(t, preemption.Cost{MaxPriority: low, PrioritySum: int64(low) - math.MinInt32, Pods: 1, Start: t0.Add(time.Second)}, p.Cost)
		require.Equal(t, map[string]string{"pre-0": "n1"}, assigned(p.Decision))
	}
}

// node1 runs pod1 (priority 1000, no budget) and pod2 (priority 10, a
// budget allowing 0 disruptions); node2 runs pod3 (priority 100, a budget
// allowing 0). A priority-2000 preemptor of cpu:2 evicts pod3 alone, as a
// plain pod and as a 1-member PodGroup alike: either node costs one
// budget violation, and node2's victim has the lower priority (issue
// 17's second manifest; the real kube-scheduler v1.37.2 evicts pod3 for
// the pod, but pod1 and pod2 for the 1-member PodGroup; v1.38.0-beta.0
// evicts pod3 for both).
func TestScenario_FewestViolationsThenLowestPriority(t *testing.T) {
	lbl := func(p placement.Pod, app string) placement.Pod {
		p.Labels = map[string]string{"app": app}
		return p
	}
	s := snapshot([]placement.Node{node("node1", cpu(2000)), node("node2", cpu(2000))}, []placement.Pod{
		started(lbl(bound("pod1", "node1", "", high, cpu(1000)), "one"), 1),
		started(lbl(bound("pod2", "node1", "", low, cpu(1000)), "two"), 2),
		started(lbl(bound("pod3", "node2", "", mid, cpu(2000)), "three"), 3),
	})
	in := preemption.Input{Budgets: []preemption.DisruptionBudget{
		{Namespace: ns, Name: "pdb-two", Selector: placement.LabelSelector{MatchLabels: map[string]string{"app": "two"}}},
		{Namespace: ns, Name: "pdb-three", Selector: placement.LabelSelector{MatchLabels: map[string]string{"app": "three"}}},
	}}
	for _, policy := range []placement.Policy{placement.PolicyBasic, placement.PolicyGang} {
		g := gang("pre", 1, 1, 2000, cpu(2000))
		g.Policy = policy
		p := find(t, s, g, in, placement.Options{})
		require.Equal(t, preemption.Preempt, p.Outcome, policy)
		require.Equal(t, []string{"pod3"}, evicted(p), policy)
		require.Equal(t, []placement.Key{key("pdb-three")}, p.Victims[0].ExceedsBudgets)
		require.Equal(t, int64(1), p.Cost.BudgetViolations)
		require.Equal(t, mid, p.Cost.MaxPriority)
		require.True(t, p.Proven)
		require.Equal(t, map[string]string{"pre-0": "node2"}, assigned(p.Decision))
	}
	// The same preemptor as a 1-member PodGroup whose spec.priority says 2000.
	g := gang("pre", 1, 1, 0, cpu(2000))
	in.PodGroups = map[placement.Key]preemption.PodGroupSpec{key("pre"): {Priority: ptr[int32](2000)}}
	p := find(t, s, g, in, placement.Options{})
	require.Equal(t, []string{"pod3"}, evicted(p))
}

// Cost.Compare orders its fields lexicographically, a later start the
// cheaper and not started the latest of all.
func TestCost_Compare(t *testing.T) {
	base := preemption.Cost{BudgetViolations: 1, MaxPriority: 10, PrioritySum: 100, Pods: 3, Start: t0}
	for _, tc := range []struct {
		name string
		c    preemption.Cost
		want int
	}{
		{"equal", base, 0},
		{"fewer violations beat a higher priority", preemption.Cost{BudgetViolations: 0, MaxPriority: 99, PrioritySum: 999, Pods: 9}, -1},
		{"lower highest priority beats a larger sum", preemption.Cost{BudgetViolations: 1, MaxPriority: 9, PrioritySum: 999, Pods: 9}, -1},
		{"smaller sum beats more pods", preemption.Cost{BudgetViolations: 1, MaxPriority: 10, PrioritySum: 99, Pods: 9}, -1},
		{"fewer pods", preemption.Cost{BudgetViolations: 1, MaxPriority: 10, PrioritySum: 100, Pods: 2, Start: t0}, -1},
		{"later start", preemption.Cost{BudgetViolations: 1, MaxPriority: 10, PrioritySum: 100, Pods: 3, Start: t0.Add(time.Second)}, -1},
		{"not started", preemption.Cost{BudgetViolations: 1, MaxPriority: 10, PrioritySum: 100, Pods: 3}, -1},
		{"earlier start", preemption.Cost{BudgetViolations: 1, MaxPriority: 10, PrioritySum: 100, Pods: 3, Start: t0.Add(-time.Second)}, 1},
		{"more violations", preemption.Cost{BudgetViolations: 2}, 1},
	} {
		require.Equal(t, tc.want, tc.c.Compare(base), tc.name)
		require.Equal(t, -tc.want, base.Compare(tc.c), tc.name)
	}
}

// Twenty identical low pods fill five nodes; a gang of ten needs ten of
// them. Every set of ten costs the same, so only the bounds keep the
// exact search from trying each: it is proven within a budget of 2^16
// steps, with the first ten in eviction order (the names' order).
func TestFind_ExactPrunesEqualCosts(t *testing.T) {
	var nodes []placement.Node
	var pods []placement.Pod
	for i := range 5 {
		nodes = append(nodes, node("n"+itoa(i), cpu(8000)))
	}
	for k := range 20 {
		pods = append(pods, bound("p"+itoa(10+k), "n"+itoa(k%5), "", low, cpu(2000)))
	}
	g := gang("hi", 10, 10, high, cpu(2000))
	p := find(t, snapshot(nodes, pods), g, preemption.Input{}, placement.Options{Budget: 1 << 16})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.True(t, p.Proven)
	require.Equal(t, []string{"p10", "p11", "p12", "p13", "p14", "p15", "p16", "p17", "p18", "p19"}, evicted(p))
}

// node1 runs a (priority 20) and b (priority 10), cpu:1 each; node2 runs c
// (priority 30, cpu:2); a gang of two cpu:1 members evicts a and b (highest
// priority 20), where the real kube-scheduler v1.37.2's workload-aware
// preemption evicts b and c (highest priority 30); v1.38.0-beta.0 evicts a
// and b, as here (kubeoracle, 3 of 3 runs).
func TestScenario_GangCheaperThanUpstream(t *testing.T) {
	s := snapshot([]placement.Node{node("node1", cpu(2000)), node("node2", cpu(2000))}, []placement.Pod{
		bound("a", "node1", "", 20, cpu(1000)),
		bound("b", "node1", "", 10, cpu(1000)),
		bound("c", "node2", "", 30, cpu(2000)),
	})
	p := find(t, s, gang("gang", 2, 2, high, cpu(1000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.Preempt, p.Outcome)
	require.Equal(t, []string{"a", "b"}, evicted(p))
	require.Equal(t, int32(20), p.Cost.MaxPriority)
	require.True(t, p.Proven)
}
