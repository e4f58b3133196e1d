package placement_test

import (
	"fmt"

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
