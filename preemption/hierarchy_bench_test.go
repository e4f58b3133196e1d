package preemption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// BenchmarkFindHierarchy_Exact: exactCase's units and need. Every set
// cheaper than the answer frees too few slots, so the capacity bound
// passes over them all and the first solve of the exact search finds it;
// what the search costs beyond its solves is costing and heaping the
// 2^units subsets and checking the capacity of those it takes.
func BenchmarkFindHierarchy_Exact(b *testing.B) {
	for _, units := range []int{8, 12, 14} {
		for _, need := range []int{2, 8} {
			b.Run(fmt.Sprintf("units=%d/need=%d", units, need), func(b *testing.B) {
				s, root := exactCase(b, units, need)
				var plan preemption.HierarchyPlan
				var err error
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
