package placement_test

import (
	"fmt"
	"slices"

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

// A Kueue-style pod set: 1,000 identical workers of one GPU given once, as
// a template and a count, with their leader listed as a member. The answer
// counts pods per node (what Kueue's TopologyAssignment records); the work
// does not grow with reading 1,000 pods.
func ExampleSolve_podSet() {
	var nodes []placement.Node
	for i := range 130 {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("host-%03d", i), Allocatable: placement.ResourceList{
			placement.ResourceGPU: 8, placement.ResourceCPU: 64000, placement.ResourcePods: 110}})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		panic(err)
	}
	g := &placement.Group{Namespace: "team-a", Name: "llm", MinCount: 1001,
		Members: []placement.Pod{{Namespace: "team-a", Name: "llm-leader", SchedulingGroup: "llm", Priority: 1,
			Requests: placement.ResourceList{placement.ResourceCPU: 16000}}},
		PodSets: []placement.PodSet{{Name: "workers", Count: 1000,
			Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceGPU: 1, placement.ResourceCPU: 8000}}}},
	}
	d, err := placement.Solve(s, g, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Status, "-", d.Message)
	fmt.Println(d.Assignments[0].Pod, "->", d.Assignments[0].Node)
	fmt.Println(len(d.PodSetAssignments), "nodes for the workers; first and last:")
	first, last := d.PodSetAssignments[0], d.PodSetAssignments[len(d.PodSetAssignments)-1]
	fmt.Println(first.PodSet, first.Node, first.Count)
	fmt.Println(last.PodSet, last.Node, last.Count)
	fmt.Println(placement.Verify(s, g, d))
	// Output:
	// Scheduled - 1001 of 1001 members placed
	// team-a/llm-leader -> host-000
	// 126 nodes for the workers; first and last:
	// workers host-000 6
	// workers host-125 2
	// <nil>
}

// mostCPULeft prefers the placement that keeps the most CPU free after the
// assignment: it needs only the sum of what is placed, so it is a
// SumScorer, and the solver hands it that sum instead of listing every
// placement's assignments.
type mostCPULeft struct{}

func (mostCPULeft) Score(s *placement.Snapshot, g placement.GroupView, p *placement.Placement, a []placement.Assignment) (int64, error) {
	placed, requested := placement.AssignedSums(s, g, a)
	return mostCPULeft{}.ScoreSums(s, g, p, placed, requested)
}

func (mostCPULeft) ScoreSums(s *placement.Snapshot, _ placement.GroupView, p *placement.Placement, _ int64, requested []int64) (int64, error) {
	var free int64
	for _, id := range p.Nodes {
		free += s.Free(id, placement.ResourceCPU)
	}
	cpu := slices.Index(s.Resources(), placement.ResourceCPU)
	return free - requested[cpu], nil
}

// A SumScorer ranks two zones by the CPU they keep free: zone-b, larger,
// wins although zone-a holds the gang too.
func ExampleSumScorer() {
	s, err := placement.NewSnapshot([]placement.Node{
		{Name: "node-a", Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
		{Name: "node-b", Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
		{Name: "node-c", Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
	}, nil)
	if err != nil {
		panic(err)
	}
	zones := placement.PlacementGeneratorFunc(func(*placement.Snapshot, placement.GroupView) ([]placement.Placement, error) {
		return []placement.Placement{{Name: "zone-a", Nodes: []placement.NodeID{0}}, {Name: "zone-b", Nodes: []placement.NodeID{1, 2}}}, nil
	})
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 2, PodSets: []placement.PodSet{{Name: "worker", Count: 2,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}
	d, err := placement.Solve(s, g, placement.Options{Generator: zones, Scorer: mostCPULeft{}})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Status, "in", d.Placement.Name, "with score", d.Score)
	for _, a := range d.PodSetAssignments {
		fmt.Println(a.Count, a.PodSet, "->", a.Node)
	}
	// Output:
	// Scheduled in zone-b with score 6000
	// 2 worker -> node-b
}

// Nodes lists a snapshot's nodes in name order, whatever order they were
// given in, with the room each has left.
func ExampleSnapshot_Nodes() {
	s, err := placement.NewSnapshot([]placement.Node{
		{Name: "node-b", Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
		{Name: "node-a", Allocatable: placement.ResourceList{placement.ResourceCPU: 2000}},
	}, []placement.Pod{{Namespace: "default", Name: "p", NodeName: "node-b",
		Requests: placement.ResourceList{placement.ResourceCPU: 1500}}})
	if err != nil {
		panic(err)
	}
	for id, n := range s.Nodes() {
		fmt.Println(id, n.Name, s.Free(id, placement.ResourceCPU))
	}
	// Output:
	// 0 node-a 2000
	// 1 node-b 2500
}
