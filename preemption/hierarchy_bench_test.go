package preemption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// BenchmarkFindHierarchy_Exact: units one-slot nodes, each running a pod
// of its own priority (1, 2, …), and a one-leaf tree of need 1-CPU pods:
// the cheapest set is the need lowest, found after every subset of them
// (2^need - 1 solves) — with need 8 the exact search's whole solve budget.
// What the search costs beyond its solves is costing and sorting the
// 2^units subsets.
func BenchmarkFindHierarchy_Exact(b *testing.B) {
	for _, units := range []int{8, 12, 14} {
		for _, need := range []int{2, 8} {
			b.Run(fmt.Sprintf("units=%d/need=%d", units, need), func(b *testing.B) {
				var nodes []placement.Node
				var pods []placement.Pod
				for i := range units {
					n := fmt.Sprintf("n%02d", i)
					nodes = append(nodes, node(n, cpu(1000)))
					pods = append(pods, bound(fmt.Sprintf("p%02d", i), n, "", int32(i+1), cpu(1000)))
				}
				s, err := placement.NewSnapshot(nodes, pods)
				require.NoError(b, err)
				leaf := &placement.Group{Namespace: ns, Name: "l0", MinCount: int32(need)}
				for j := range need {
					leaf.Members = append(leaf.Members, placement.Pod{Namespace: ns, Name: fmt.Sprintf("m%d", j), SchedulingGroup: "l0", Requests: cpu(1000), Priority: 100})
				}
				root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{{Name: "l0", Group: leaf}}}
				var plan preemption.HierarchyPlan
				cputime.Loop(b, func() {
					plan, err = preemption.FindHierarchy(s, root, 100, preemption.HierarchyInput{}, placement.Options{}, placement.HierarchyOptions{})
				})
				require.NoError(b, err)
				require.Equal(b, preemption.Preempt, plan.Outcome)
				require.True(b, plan.Proven)
				require.Len(b, plan.Victims, need)
				b.ReportMetric(float64(plan.Solves), "solves")
			})
		}
	}
}
