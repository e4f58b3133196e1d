package preemption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// exactCase is units one-slot nodes, each running a pod of its own
// priority (1, 2, …), and a one-leaf tree of need 1-CPU pods of priority
// 100: the cheapest victim set is the need lowest pods, and every cheaper
// set frees fewer slots than the tree needs.
func exactCase(t testing.TB, units, need int) (*placement.Snapshot, *placement.HierarchyNode) {
	var nodes []placement.Node
	var pods []placement.Pod
	for i := range units {
		n := fmt.Sprintf("n%02d", i)
		nodes = append(nodes, node(n, cpu(1000)))
		pods = append(pods, bound(fmt.Sprintf("p%02d", i), n, "", int32(i+1), cpu(1000)))
	}
	s, err := placement.NewSnapshot(nodes, pods)
	require.NoError(t, err)
	leaf := &placement.Group{Namespace: ns, Name: "l0", MinCount: int32(need)}
	for j := range need {
		leaf.Members = append(leaf.Members, placement.Pod{Namespace: ns, Name: fmt.Sprintf("m%d", j), SchedulingGroup: "l0", Requests: cpu(1000), Priority: 100})
	}
	return s, &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{{Name: "l0", Group: leaf}}}
}

// TestFindHierarchy_CapacitySkipsHopelessSets: with 14 candidates and a
// tree of 9 pods, every one of the 2^9 - 1 sets cheaper than the 9 lowest
// frees fewer than 9 slots. The exact search passes over them without a
// solve (the capacity bound), so its first solve finds the answer and the
// plan is proven: 3 solves in all (untouched, every candidate gone, the
// answer). Before, it solved the cheaper sets one by one, ran out of its
// 255 solves and fell back to giving victims back, unproven (and 270
// solves). With 12 candidates and 10 pods the same holds.
func TestFindHierarchy_CapacitySkipsHopelessSets(t *testing.T) {
	for _, c := range []struct{ units, need int }{{14, 9}, {12, 10}, {14, 2}} {
		t.Run(fmt.Sprintf("units=%d/need=%d", c.units, c.need), func(t *testing.T) {
			s, root := exactCase(t, c.units, c.need)
			plan, err := preemption.FindHierarchy(s, root, 100, preemption.HierarchyInput{}, placement.Options{}, placement.HierarchyOptions{})
			require.NoError(t, err)
			require.Equal(t, preemption.Preempt, plan.Outcome)
			require.True(t, plan.Proven, plan.Message)
			require.Equal(t, 3, plan.Solves)
			var names []string
			for _, v := range plan.Victims {
				names = append(names, v.Pods[0].Name)
			}
			var want []string
			for i := c.need - 1; i >= 0; i-- { // most important first
				want = append(want, fmt.Sprintf("p%02d", i))
			}
			require.Equal(t, want, names)
		})
	}
}
