package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A host picks its profile by name (a flag, say) and plans with the
// profile's options. One 3-pod slice in a rack of hosts with room for 4,
// 3 and 2 pods: gangsched's profile puts the slice on the one host that
// fits it best; Kueue's profile gives Kueue v0.17's answer, the hosts
// with the least room first (2 + 1), as a Kueue user expects it.
func ExampleProfile_Options() {
	var nodes []placement.Node
	for i, cpu := range []int64{4000, 3000, 2000} {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("r1-h%d", i+1),
			Labels:      map[string]string{"topology.kubernetes.io/rack": "r1", "kubernetes.io/hostname": fmt.Sprintf("r1-h%d", i+1)},
			Allocatable: placement.ResourceList{placement.ResourceCPU: cpu}})
	}
	snap, _ := placement.NewSnapshot(nodes, nil)
	tree, _ := topology.NewTree(snap, []string{"topology.kubernetes.io/rack", "kubernetes.io/hostname"})
	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 3, PodSets: []placement.PodSet{{Name: "workers", Count: 3,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}
	req := topology.PodSetRequest{PodSet: "workers", Required: "topology.kubernetes.io/rack",
		Slices: []topology.SliceLayer{{Key: "topology.kubernetes.io/rack", Size: 3}}}
	for _, name := range []string{"gangsched", "kueue"} {
		profile, err := topology.ParseProfile(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		plan, _ := tree.PlanPodSets(snap, g, []topology.PodSetRequest{req}, profile.Options())
		fmt.Printf("%s:", profile)
		for _, a := range plan.Decision.PodSetAssignments {
			fmt.Printf(" %s=%d", a.Node, a.Count)
		}
		fmt.Println()
	}
	// Output:
	// gangsched: r1-h2=3
	// kueue: r1-h2=1 r1-h3=2
}
