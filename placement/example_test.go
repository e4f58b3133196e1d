package placement_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// The seed's gang: four workers of one CPU each, minCount 4, on two nodes
// with room for three. Nothing is placed, and the decision says why; once a
// blocker leaves, all four are placed together.
func ExampleSolve() {
	nodes := []placement.Node{
		{Name: "node-a", Allocatable: placement.ResourceList{placement.ResourceCPU: 2000}},
		{Name: "node-b", Allocatable: placement.ResourceList{placement.ResourceCPU: 2000}},
	}
	blocker := placement.Pod{Namespace: "default", Name: "blocker", NodeName: "node-b",
		Requests: placement.ResourceList{placement.ResourceCPU: 1000}}
	s, err := placement.NewSnapshot(nodes, []placement.Pod{blocker})
	if err != nil {
		panic(err)
	}
	g := &placement.Group{Namespace: "default", Name: "training-job-workers-pg", MinCount: 4}
	for i := range 4 {
		g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("worker-%d", i),
			SchedulingGroup: g.Name, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
	}
	d, err := placement.Solve(s, g, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Status, "-", d.Message)

	s, err = s.Apply(placement.Change{Remove: []placement.Key{{Namespace: "default", Name: "blocker"}}})
	if err != nil {
		panic(err)
	}
	d, err = placement.Solve(s, g, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Status, "-", d.Message)
	for _, a := range d.Assignments {
		fmt.Println(a.Pod, "->", a.Node)
	}
	// Output:
	// Unschedulable - 3 of min 4 members fit; default/worker-3 fits on none of 2 nodes: 2 Insufficient cpu
	// Scheduled - 4 of 4 members placed
	// default/worker-0 -> node-a
	// default/worker-1 -> node-a
	// default/worker-2 -> node-b
	// default/worker-3 -> node-b
}

// Verify checks a decision from any scheduler. This one puts two members
// on a node with room for one.
func ExampleVerify() {
	s, err := placement.NewSnapshot([]placement.Node{
		{Name: "node-a", Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}},
	}, nil)
	if err != nil {
		panic(err)
	}
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []placement.Pod{
		{Namespace: "default", Name: "p1", SchedulingGroup: "pg", Requests: placement.ResourceList{placement.ResourceCPU: 1000}},
		{Namespace: "default", Name: "p2", SchedulingGroup: "pg", Requests: placement.ResourceList{placement.ResourceCPU: 1000}},
	}}
	d := placement.Decision{
		Group:     g.Key(),
		Status:    placement.Scheduled,
		Placement: placement.Placement{Nodes: []placement.NodeID{0}},
		Assignments: []placement.Assignment{
			{Pod: placement.Key{Namespace: "default", Name: "p1"}, Node: "node-a", NodeID: 0},
			{Pod: placement.Key{Namespace: "default", Name: "p2"}, Node: "node-a", NodeID: 0},
		},
	}
	fmt.Println(placement.Verify(s, g, d))
	// Output:
	// placement: invariant violated: PodGroup default/pg: node "node-a" over capacity for cpu: allocatable 1000, requested 0 + 2000
}
