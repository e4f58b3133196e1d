package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Two racks; rack-1 already runs a pod, so the gang packs into it
// (upstream's MostAllocated placement score).
func Example() {
	rack := func(name, r string) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{"topology.kubernetes.io/rack": r},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}}
	}
	snap, _ := placement.NewSnapshot(
		[]placement.Node{rack("a1", "rack-1"), rack("a2", "rack-1"), rack("b1", "rack-2"), rack("b2", "rack-2")},
		[]placement.Pod{{Namespace: "default", Name: "web", NodeName: "a2", Requests: placement.ResourceList{placement.ResourceCPU: 2000}}})
	tree, _ := topology.NewTree(snap, []string{"topology.kubernetes.io/rack"})
	opts, _ := tree.SolverOptions([]topology.Constraint{{Key: "topology.kubernetes.io/rack"}}, topology.MostAllocated)

	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 3}
	for _, n := range []string{"w0", "w1", "w2"} {
		g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: n, SchedulingGroup: "train",
			Requests: placement.ResourceList{placement.ResourceCPU: 2000}})
	}
	d, _ := placement.Solve(snap, g, opts)
	fmt.Println(d.Status, d.Placement.Name)
	for _, a := range d.Assignments {
		fmt.Println(a.Pod.Name, "->", a.Node)
	}
	// Output:
	// Scheduled rack-1
	// w0 -> a2
	// w1 -> a1
	// w2 -> a1
}
