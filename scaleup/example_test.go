package scaleup_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/scaleup"
	"github.com/gangsched/gangsched/topology"
)

// A gang of three 8-GPU pods must share a rack; each rack has two 8-GPU
// hosts, so it waits. One more host in rack r1 (the first by path among
// equally good racks) makes it fit.
func ExampleSuggest() {
	const rack = "topology.kubernetes.io/rack"
	gpu8 := placement.ResourceList{placement.ResourceGPU: 8, placement.ResourceCPU: 64000}
	var nodes []placement.Node
	for i, r := range []string{"r1", "r1", "r2", "r2"} {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("host-%d", i), Labels: map[string]string{rack: r}, Allocatable: gpu8})
	}
	snap, _ := placement.NewSnapshot(nodes, nil)
	g := &placement.Group{Namespace: "ml", Name: "train", MinCount: 3, PodSets: []placement.PodSet{
		{Name: "worker", Count: 3, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceGPU: 8}}}}}
	sug, err := scaleup.Suggest(snap, g, []topology.Constraint{{Key: rack}}, scaleup.ShapesOf(snap, []string{rack}), scaleup.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("add %d node(s) shaped like %s to %s %s: %s (proven: %v)\n", sug.Count, sug.Shape, sug.Key, sug.Domain, sug.Nodes[0].Name, sug.Proven)
	// Output:
	// add 1 node(s) shaped like host-0 to topology.kubernetes.io/rack r1: host-0-new-1 (proven: true)
}
