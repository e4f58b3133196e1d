package placement_test

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// KEP-6012's worked example: two gangs of five that must share a block,
// each in its own rack. Block-A's racks hold 3 and 5, block-B's 5 and 5,
// so the tree goes to block-B; a greedy pass that starts in block-A would
// put the first child in rack-A2 and strand the second.
func ExampleSolveHierarchy() {
	const block, rack = "example.com/block", "example.com/rack"
	var nodes []placement.Node
	for _, n := range []struct {
		b, r  string
		slots int64
	}{{"block-A", "rack-A1", 3}, {"block-A", "rack-A2", 5}, {"block-B", "rack-B1", 5}, {"block-B", "rack-B2", 5}} {
		nodes = append(nodes, placement.Node{Name: "node-" + n.r, Labels: map[string]string{block: n.b, rack: n.r},
			Allocatable: placement.ResourceList{placement.ResourceCPU: n.slots * 1000}})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		panic(err)
	}
	child := func(name string) *placement.HierarchyNode {
		g := &placement.Group{Namespace: "default", Name: name, MinCount: 5}
		for i := range 5 {
			g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%d", name, i),
				SchedulingGroup: name, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
		}
		return &placement.HierarchyNode{Name: name, TopologyKey: rack, Group: g}
	}
	root := &placement.HierarchyNode{Name: "trainer", MinGroupCount: 2, TopologyKey: block,
		Children: []*placement.HierarchyNode{child("shard-1"), child("shard-2")}}

	d, err := placement.SolveHierarchy(s, root, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Status, d.Root.Name, d.Root.Domain, "-", d.Root.Message)
	for _, ld := range d.Decisions {
		fmt.Println(" ", ld.Group.Name, ld.Status, ld.Placement.Name, len(ld.Assignments), "pods")
	}
	// Output:
	// Scheduled trainer block-B - 2 of min 2 children scheduled
	//   shard-1 Scheduled rack-B1 5 pods
	//   shard-2 Scheduled rack-B2 5 pods
}

// A host that decides a tree every cycle keeps one HierarchyBuffers: each
// decision's slices reuse the memory of the one before, so a cycle
// allocates little beyond its messages. What outlives the cycle is copied
// out first.
func ExampleHierarchyBuffers() {
	const rack = "example.com/rack"
	var nodes []placement.Node
	for _, r := range []string{"r1", "r2"} {
		nodes = append(nodes, placement.Node{Name: "node-" + r, Labels: map[string]string{rack: r},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		panic(err)
	}
	leaf := func(name string, pods int) *placement.HierarchyNode {
		g := &placement.Group{Namespace: "default", Name: name, MinCount: int32(pods)}
		for i := range pods {
			g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%d", name, i),
				SchedulingGroup: name, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
		}
		return &placement.HierarchyNode{Name: name, TopologyKey: rack, Group: g}
	}
	var buf placement.HierarchyBuffers
	hopts := placement.HierarchyOptions{Buffers: &buf}
	var kept [][]placement.Assignment
	for cycle, pods := range []int{3, 4, 2} {
		root := &placement.HierarchyNode{Name: fmt.Sprintf("job-%d", cycle), MinGroupCount: 2,
			Children: []*placement.HierarchyNode{leaf(fmt.Sprintf("a%d", cycle), pods), leaf(fmt.Sprintf("b%d", cycle), pods)}}
		d, err := placement.SolveHierarchyWith(s, root, placement.Options{}, hopts)
		if err != nil {
			panic(err)
		}
		for _, ld := range d.Decisions {
			kept = append(kept, slices.Clone(ld.Assignments)) // the next cycle overwrites ld's
		}
		fmt.Println(cycle, d.Status, len(d.Decisions), "leaves")
	}
	fmt.Println(len(kept), "decisions kept;", kept[0][0].Pod.Name, "on", kept[0][0].Node)
	// Output:
	// 0 Scheduled 2 leaves
	// 1 Scheduled 2 leaves
	// 2 Scheduled 2 leaves
	// 6 decisions kept; a0-0 on node-r1
}
