package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// An elastic pod set (Kueue's elastic Workload) required in one rack
// grows from 6 to 9 pods and shrinks to 4, committed as a reservation
// without pods at every step: plan, reserve what PodSetUsageOf gives,
// resize with the reservation's entries as Existing, and swap the
// reservation for the resized one. No existing pod ever moves.
func ExampleTree_ResizePodSet() {
	var nodes []placement.Node
	for _, rack := range []string{"r1", "r2"} {
		for _, host := range []string{"h1", "h2", "h3"} {
			nodes = append(nodes, placement.Node{Name: rack + "-" + host,
				Labels:      map[string]string{"topology.kubernetes.io/rack": rack},
				Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}})
		}
	}
	snap, _ := placement.NewSnapshot(nodes, nil)
	tree, _ := topology.NewTree(snap, []string{"topology.kubernetes.io/rack"})
	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 6, PodSets: []placement.PodSet{{Name: "workers", Count: 6,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}
	req := topology.PodSetRequest{PodSet: "workers", Required: "topology.kubernetes.io/rack"}
	ref := placement.PodSetRef{Group: g.Key(), PodSet: "workers"}

	// Admit the set and commit it as usage per node.
	plan, _ := tree.PlanPodSets(snap, g, []topology.PodSetRequest{req}, topology.PlanOptions{})
	usage, _ := placement.PodSetUsageOf(g, plan.Decision)
	snap, _ = snap.Apply(placement.Change{Reserve: usage})
	fmt.Println("admitted:", perNodeLine(usage[0].Nodes))

	// resize changes the set's count and swaps its reservation for the
	// resized set in one Apply (Release is applied before Reserve).
	resize := func(count int32) {
		g.PodSets[0].Count, g.MinCount = count, count
		held, _ := snap.PodSetUsage(g.Key(), "workers")
		rs, err := tree.ResizePodSet(snap, g, req, placement.Resize{PodSet: "workers", Existing: held.Nodes}, topology.PlanOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		if rs.Decision.Status != placement.Scheduled {
			// The set keeps its pods and its reservation.
			fmt.Printf("to %d: waits: %s\n", count, rs.Decision.Message)
			return
		}
		held.Nodes = rs.Assignments
		snap, _ = snap.Apply(placement.Change{Release: []placement.PodSetRef{ref}, Reserve: []placement.PodSetUsage{held}})
		fmt.Printf("to %d: new %s; removed %s; now %s\n", count,
			perNodeLine(rs.Decision.PodSetAssignments), perNodeLine(rs.Removed), perNodeLine(rs.Assignments))
	}
	resize(9)  // the 3 new pods join the 6 in rack r1
	resize(13) // rack r1 has room for 12: the set waits as it is
	resize(4)  // the least filled hosts empty first
	// Output:
	// admitted: r1-h1=4 r1-h2=2
	// to 9: new r1-h3=3; removed -; now r1-h1=4 r1-h2=2 r1-h3=3
	// to 13: waits: pod set "workers" of PodGroup "default/train" needs 4 pods in one topology.kubernetes.io/rack domain; the best, r1, holds 3
	// to 4: new -; removed r1-h2=2 r1-h3=3; now r1-h1=4
}

// perNodeLine words pods per node as "node=count ...", "-" for none.
func perNodeLine(as []placement.PodSetAssignment) string {
	if len(as) == 0 {
		return "-"
	}
	s := ""
	for i, a := range as {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s=%d", a.Node, a.Count)
	}
	return s
}
