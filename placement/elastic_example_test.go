package placement_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// An elastic pod set of 4 pods, committed as a reservation (no Pod
// objects), grows to 6: SolveResize takes the reservation's entries as
// Existing, places only the 2 new pods, and the host swaps the
// reservation for the grown set in one Apply (Release runs before
// Reserve). No existing pod moves.
func ExampleSolveResize() {
	var nodes []placement.Node
	for _, n := range []string{"n1", "n2", "n3"} {
		nodes = append(nodes, placement.Node{Name: n, Allocatable: placement.ResourceList{placement.ResourceGPU: 4}})
	}
	snap, _ := placement.NewSnapshot(nodes, nil)
	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 4, PodSets: []placement.PodSet{{Name: "workers", Count: 4,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceGPU: 1}}}}}

	// Admit and commit the set as usage per node.
	d, _ := placement.Solve(snap, g, placement.Options{})
	usage, _ := placement.PodSetUsageOf(g, d)
	snap, _ = snap.Apply(placement.Change{Reserve: usage})

	// Grow: the new count is the set's Count in g.
	g.PodSets[0].Count, g.MinCount = 6, 6
	held, _ := snap.PodSetUsage(g.Key(), "workers")
	rs, err := placement.SolveResize(snap, g, placement.Resize{PodSet: "workers", Existing: held.Nodes}, placement.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rs.Decision.Status, "-", rs.Decision.Message)
	for _, a := range rs.Decision.PodSetAssignments {
		fmt.Printf("new: %d on %s\n", a.Count, a.Node)
	}
	held.Nodes = rs.Assignments
	snap, _ = snap.Apply(placement.Change{
		Release: []placement.PodSetRef{{Group: g.Key(), PodSet: "workers"}},
		Reserve: []placement.PodSetUsage{held}})
	now, _ := snap.PodSetUsage(g.Key(), "workers")
	for _, a := range now.Nodes {
		fmt.Printf("reserved: %d on %s\n", a.Count, a.Node)
	}
	// Output:
	// Scheduled - 2 of 2 members placed
	// new: 2 on n2
	// reserved: 4 on n1
	// reserved: 2 on n2
}
