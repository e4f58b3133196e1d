package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A leader and its workers (LeaderWorkerSet, as Kueue sees it: two pod
// sets of one PodSetGroup) must share one rack. Rack r1 has room for
// the six workers but not for the leader beside them, so the group goes
// to rack r2, each set planned there.
func ExampleTree_PlanPodSets_podSetGroup() {
	var nodes []placement.Node
	for rack, hosts := range map[string]int{"r1": 2, "r2": 3} {
		for h := range hosts {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("%s-h%d", rack, h+1),
				Labels:      map[string]string{"topology.kubernetes.io/rack": rack},
				Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}})
		}
	}
	// Map order does not matter: a snapshot sorts its nodes by name.
	snap, _ := placement.NewSnapshot(nodes, []placement.Pod{{Namespace: "default", Name: "web", NodeName: "r1-h1",
		Requests: placement.ResourceList{placement.ResourceCPU: 1000}}})
	tree, _ := topology.NewTree(snap, []string{"topology.kubernetes.io/rack"})
	g := &placement.Group{Namespace: "default", Name: "lws", MinCount: 7, PodSets: []placement.PodSet{
		{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 2000}}},
		{Name: "workers", Count: 6, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}},
	}}
	rack := "topology.kubernetes.io/rack"
	plan, err := tree.PlanPodSets(snap, g, []topology.PodSetRequest{
		{PodSet: "leader", Required: rack, Group: "lws"},
		{PodSet: "workers", Required: rack, Group: "lws"},
	}, topology.PlanOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Decision.Status)
	for _, ps := range plan.PodSets {
		fmt.Printf("%s in %s:", ps.Name, ps.Domain)
		for _, r := range ps.Ranks {
			fmt.Printf(" %s=%d", r.Node, r.Count)
		}
		fmt.Println()
	}
	// Output:
	// Scheduled
	// leader in r2: r2-h1=1
	// workers in r2: r2-h1=2 r2-h2=4
}
