package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue's sliced request: eight workers in slices of four per rack, all in
// one block, on hosts of three CPUs. Each rack of block b1 takes one
// slice, and the ranks keep each slice's pods together.
func ExampleTree_PlanPodSets() {
	var nodes []placement.Node
	for _, rack := range []string{"r1", "r2"} {
		for _, host := range []string{"h1", "h2"} {
			nodes = append(nodes, placement.Node{Name: rack + "-" + host,
				Labels:      map[string]string{"example.com/block": "b1", "topology.kubernetes.io/rack": rack},
				Allocatable: placement.ResourceList{placement.ResourceCPU: 3000}})
		}
	}
	snap, _ := placement.NewSnapshot(nodes, nil)
	tree, _ := topology.NewTree(snap, []string{"example.com/block", "topology.kubernetes.io/rack"})
	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 8, PodSets: []placement.PodSet{{Name: "workers", Count: 8,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}
	plan, _ := tree.PlanPodSets(snap, g, []topology.PodSetRequest{{PodSet: "workers", Required: "example.com/block",
		Slices: []topology.SliceLayer{{Key: "topology.kubernetes.io/rack", Size: 4}}}}, topology.PlanOptions{})
	fmt.Println(plan.Decision.Status, plan.Decision.Placement.Name)
	for _, r := range plan.PodSets[0].Ranks {
		fmt.Printf("pods %d-%d -> %s\n", r.First, r.First+r.Count-1, r.Node)
	}
	// Output:
	// Scheduled b1
	// pods 0-2 -> r1-h1
	// pods 3-3 -> r1-h2
	// pods 4-6 -> r2-h1
	// pods 7-7 -> r2-h2
}
