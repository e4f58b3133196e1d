package topology_test

import (
	"errors"
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A scheduler of one's own put a gang that requires one rack on two
// racks. placement.Verify, which never sees the constraint, accepts the
// decision; Tree.Verify, given the constraint, refuses it.
func ExampleTree_Verify() {
	rack := func(name, r string) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{"topology.kubernetes.io/rack": r},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}}
	}
	snap, _ := placement.NewSnapshot([]placement.Node{rack("a1", "rack-1"), rack("b1", "rack-2")}, nil)
	tree, _ := topology.NewTree(snap, []string{"topology.kubernetes.io/rack"})
	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 2}
	for _, n := range []string{"w0", "w1"} {
		g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: n, SchedulingGroup: "train",
			Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
	}
	mine := placement.Decision{Group: g.Key(), Status: placement.Scheduled, Assignments: []placement.Assignment{
		{Pod: g.Members[0].Key(), Node: "a1", NodeID: 0},
		{Pod: g.Members[1].Key(), Node: "b1", NodeID: 1},
	}}
	rackRequired := []topology.Constraint{{Key: "topology.kubernetes.io/rack"}}

	fmt.Println("placement.Verify:", placement.Verify(snap, g, mine))
	err := tree.Verify(snap, g, mine, rackRequired)
	fmt.Println("Tree.Verify:", err)
	fmt.Println(errors.Is(err, placement.ErrViolation))
	// Output:
	// placement.Verify: <nil>
	// Tree.Verify: placement: invariant violated: PodGroup default/train: member default/w0 on node "a1" is in domain rack-1 and member default/w1 on node "b1" in rack-2: two domains of required key "topology.kubernetes.io/rack"
	// true
}

// A Kueue-style planner of one's own put a pod set of four pods, in
// slices of two per rack, as three pods in one rack and one in the other.
// Tree.VerifyPodSets, given the set's request, refuses it.
func ExampleTree_VerifyPodSets() {
	node := func(name, r string) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{"example.com/block": "b1", "topology.kubernetes.io/rack": r},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}}
	}
	snap, _ := placement.NewSnapshot([]placement.Node{node("a1", "r1"), node("b1", "r2")}, nil)
	tree, _ := topology.NewTree(snap, []string{"example.com/block", "topology.kubernetes.io/rack"})
	g := &placement.Group{Namespace: "default", Name: "job", MinCount: 4, PodSets: []placement.PodSet{
		{Name: "workers", Count: 4, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}
	req := topology.PodSetRequest{PodSet: "workers", Required: "example.com/block",
		Slices: []topology.SliceLayer{{Key: "topology.kubernetes.io/rack", Size: 2}}}
	mine := placement.Decision{Group: g.Key(), Status: placement.Scheduled, PodSetAssignments: []placement.PodSetAssignment{
		{PodSet: "workers", Node: "a1", NodeID: 0, Count: 3},
		{PodSet: "workers", Node: "b1", NodeID: 1, Count: 1},
	}}
	fmt.Println(tree.VerifyPodSets(snap, g, mine, []topology.PodSetRequest{req}))

	plan, _ := tree.PlanPodSets(snap, g, []topology.PodSetRequest{req}, topology.PlanOptions{})
	fmt.Println(tree.VerifyPlan(snap, g, plan, []topology.PodSetRequest{req}), plan.Decision.PodSetAssignments)
	// Output:
	// placement: invariant violated: PodGroup default/job: pod set "workers": 3 pods in domain b1/r1 (first on node "a1"), not whole slices of 2 per domain of slice key "topology.kubernetes.io/rack"
	// <nil> [{workers a1 0 4}]
}
