package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A LeaderWorkerSet of size 2 as Kueue v0.17 sees it: pod sets "leader"
// and "workers" of one pod each, in that spec.podSets order, in one
// PodSetGroup. Kueue takes the second set of equal counts as the leader,
// here "workers", and filters the hosts by the other set's template
// alone: the workers' node selector is never read, and both pods go to
// h2, the tighter host, without the label: the workers' pod will not
// start there, and placement.Verify of g says so. Kueue's TAS, run
// in-process on these nodes, gives the same hosts.
func ExampleKueueLeader() {
	rack, host := "topology.kubernetes.io/rack", "kubernetes.io/hostname"
	snap, _ := placement.NewSnapshot([]placement.Node{
		{Name: "h1", Labels: map[string]string{rack: "r1", host: "h1", "gpu": "true"}, Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}},
		{Name: "h2", Labels: map[string]string{rack: "r1", host: "h2"}, Allocatable: placement.ResourceList{placement.ResourceCPU: 2000}},
	}, nil)
	tree, _ := topology.NewTree(snap, []string{rack, host})
	g := &placement.Group{Namespace: "default", Name: "lws", MinCount: 2, PodSets: []placement.PodSet{
		{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}},
		{Name: "workers", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000},
			NodeSelector: map[string]string{"gpu": "true"}}},
	}}
	reqs := []topology.PodSetRequest{
		{PodSet: "leader", Required: rack, Group: "lws"},
		{PodSet: "workers", Required: rack, Group: "lws"},
	}
	lead, workers, _ := topology.KueueLeader(g, reqs, "lws")
	fmt.Printf("Kueue's leader %q, its workers %q\n", lead, workers)
	plan, err := tree.PlanPodSets(snap, g, reqs, topology.KueueProfile.Options())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Decision.Status)
	for _, a := range plan.Decision.PodSetAssignments {
		fmt.Printf("%s on %s\n", a.PodSet, a.Node)
	}
	fmt.Println("verifies for g:", placement.Verify(snap, g, plan.Decision) == nil)
	// Output:
	// Kueue's leader "workers", its workers "leader"
	// Scheduled
	// leader on h2
	// workers on h2
	// verifies for g: false
}
