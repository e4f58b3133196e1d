package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// TestProp_ShortOfGroupsEqualsOneByOne checks a group of one class (listed
// members alike, or a pod set) that falls short of room in placements of
// fewer than 64 nodes, answered without placing (shortOfGroups) and
// explained a group of alike nodes at a time (groupReasons), against the
// same group whose members carry a node selector every node matches: that
// turns both shortcuts off (a selector makes reasons depend on labels),
// so the run fills node by node and the diagnosis replays the fill and
// explains node by node. The decisions must be equal, message and
// reasons included (steps: TestShortOfGroups_SpendsAsTheRun). Nodes come in several static types (allocatable,
// taints, a cordon) with a few usage levels, so groups hold many nodes,
// types share usage rows, and groups of one type end the fill short of
// the same or of other resources.
func TestProp_ShortOfGroupsEqualsOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(4, 60).Draw(t, "nodes")
		allocs := []ResourceList{
			{ResourceCPU: 64000, ResourceGPU: 8, ResourcePods: 110},
			{ResourceCPU: 32000, ResourceGPU: 8, ResourcePods: 110},
			{ResourceCPU: 64000, ResourceGPU: 4, ResourcePods: 5},
			{ResourceCPU: 4000, ResourceGPU: 8, ResourcePods: 110}, // too small for a member: unresolvable
		}
		nodes := make([]Node, n)
		var pods []Pod
		for i := range nodes {
			nodes[i] = Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{"all": "yes"},
				Allocatable: allocs[rapid.IntRange(0, len(allocs)-1).Draw(t, "alloc")]}
			switch rapid.IntRange(0, 7).Draw(t, "taint") {
			case 0:
				nodes[i].Taints = []Taint{{Key: "t", Value: "x", Effect: TaintEffectNoSchedule}}
			case 1:
				nodes[i].Unschedulable = true
			}
			if used := rapid.IntRange(0, 4).Draw(t, "used"); used > 0 {
				pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%02d", i), NodeName: nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 7000 * int64(used), ResourceGPU: int64(used)}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		var gen subsets
		for range rapid.IntRange(1, 3).Draw(t, "placements") {
			var sub []NodeID
			for id := range NodeID(n) {
				if rapid.Bool().Draw(t, "in") {
					sub = append(sub, id)
				}
			}
			if len(sub) > 0 {
				gen = append(gen, sub)
			}
		}
		if len(gen) == 0 {
			gen = append(gen, []NodeID{0})
		}
		req := []ResourceList{{ResourceCPU: 8000, ResourceGPU: 1}, {ResourceCPU: 6000, ResourceGPU: 2}}[rapid.IntRange(0, 1).Draw(t, "shape")]
		size := rapid.IntRange(1, 400).Draw(t, "members")
		minCount := int32(rapid.IntRange(1, size).Draw(t, "minCount"))
		podSet := rapid.Bool().Draw(t, "podSet")
		group := func(selector map[string]string) *Group {
			g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: minCount}
			if podSet {
				g.PodSets = []PodSet{{Name: "workers", Count: int32(size), Template: Pod{Requests: req, NodeSelector: selector}}}
				return g
			}
			for i := range size {
				g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("m%03d", i), SchedulingGroup: "pg",
					Requests: req, NodeSelector: selector})
			}
			return g
		}
		opts := Options{Generator: gen} // TestShortOfGroups_SpendsAsTheRun cuts the budget
		fast, err := Solve(s, group(nil), opts)
		require.NoError(t, err)
		slow, err := Solve(s, group(map[string]string{"all": "yes"}), opts)
		require.NoError(t, err)
		// A placement whose nodes all refuse the selector-free members
		// statically is answered before any run, without a step.
		fast.Steps, slow.Steps = 0, 0
		require.Equal(t, slow, fast)
	})
}

// TestShortOfGroups_SpendsAsTheRun: a one-class group short of room in a
// placement of fewer than 64 nodes spends what the greedy's run over the
// placement spends, a step per node, and a budget below that leaves the
// attempt untried, as the run's.
func TestShortOfGroups_SpendsAsTheRun(t *testing.T) {
	var nodes []Node
	var pods []Pod
	for i := range 10 {
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Allocatable: ResourceList{ResourceCPU: 64000, ResourceGPU: 8, ResourcePods: 110}})
		pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%02d", i), NodeName: nodes[i].Name, Requests: ResourceList{ResourceGPU: 4}})
	}
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 40,
		PodSets: []PodSet{{Name: "workers", Count: 40, Template: Pod{Requests: ResourceList{ResourceCPU: 8000, ResourceGPU: 1}}}}}
	gen := subsets{{0, 1, 2, 3, 4, 5}} // room for 24 now, 48 on empty nodes
	d, err := Solve(s, g, Options{Generator: gen})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status)
	require.Equal(t, int64(6), d.Steps)
	require.Equal(t, 24, d.MostFit)
	require.Equal(t, "24 of min 40 members fit in p0; a pod of pod set default/workers fits on none of 6 nodes: 6 Insufficient nvidia.com/gpu", d.Message)

	d, err = Solve(s, g, Options{Generator: gen, Budget: 5})
	require.NoError(t, err)
	require.Equal(t, BudgetExhausted, d.Status, d.Message)
	require.Equal(t, 0, d.MostFit)
}
