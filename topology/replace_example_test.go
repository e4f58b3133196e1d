package topology_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// replaceCluster is two racks of three 4-core hosts, the hosts named in
// down tainted unreachable (NoExecute), and a 6-pod set required in one
// rack reserved on them as held says: the host's snapshot right after
// those nodes failed, its reservation not yet changed.
func replaceCluster(held []placement.PodSetAssignment, down ...string) (*placement.Snapshot, *topology.Tree, *placement.Group, topology.PodSetRequest) {
	var nodes []placement.Node
	for _, rack := range []string{"r1", "r2"} {
		for _, host := range []string{"h1", "h2", "h3"} {
			n := placement.Node{Name: rack + "-" + host,
				Labels:      map[string]string{"topology.kubernetes.io/rack": rack},
				Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}}
			for _, d := range down {
				if d == n.Name {
					n.Taints = []placement.Taint{{Key: "node.kubernetes.io/unreachable", Effect: placement.TaintEffectNoExecute}}
				}
			}
			nodes = append(nodes, n)
		}
	}
	snap, _ := placement.NewSnapshot(nodes, nil)
	tree, _ := topology.NewTree(snap, []string{"topology.kubernetes.io/rack"})
	g := &placement.Group{Namespace: "default", Name: "train", MinCount: 6, PodSets: []placement.PodSet{{Name: "workers", Count: 6,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}
	snap, _ = snap.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers",
		Requests: g.PodSets[0].Template.Requests, Nodes: held}}})
	return snap, tree, g, topology.PodSetRequest{PodSet: "workers", Required: "topology.kubernetes.io/rack"}
}

// survivorsOf is the reservation without the failed nodes' entries.
func survivorsOf(u placement.PodSetUsage, failed string) placement.PodSetUsage {
	var keep []placement.PodSetAssignment
	for _, a := range u.Nodes {
		if a.Node != failed {
			keep = append(keep, a)
		}
	}
	u.Nodes = keep
	return u
}

// Node r1-h1 of a set's rack fails (tainted unreachable, NoExecute) and
// its 4 pods are lost. The host first swaps the set's reservation for its
// survivors', asks ReplacePodSet for the lost pods' new nodes (inside the
// required rack, never on the failed node), and reserves the repaired set.
func ExampleTree_ReplacePodSet() {
	before := []placement.PodSetAssignment{{Node: "r1-h1", Count: 4}, {Node: "r1-h2", Count: 2}}
	snap, tree, g, req := replaceCluster(before, "r1-h1")
	ref := placement.PodSetRef{Group: g.Key(), PodSet: "workers"}

	// The reservation still counts the pods of r1-h1: keep the survivors'.
	held, _ := snap.PodSetUsage(g.Key(), "workers")
	snap, _ = snap.Apply(placement.Change{Release: []placement.PodSetRef{ref}, Reserve: []placement.PodSetUsage{survivorsOf(held, "r1-h1")}})

	rep, err := tree.ReplacePodSet(snap, g, req, placement.Repair{PodSet: "workers", Existing: before, Failed: []string{"r1-h1"}}, topology.PlanOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("repairable:", rep.Repairable)
	for _, a := range rep.Replacements {
		fmt.Printf("replacement: %d on %s\n", a.Count, a.Node)
	}
	held.Nodes = rep.Assignments
	snap, _ = snap.Apply(placement.Change{Release: []placement.PodSetRef{ref}, Reserve: []placement.PodSetUsage{held}})
	now, _ := snap.PodSetUsage(g.Key(), "workers")
	for _, a := range now.Nodes {
		fmt.Printf("reserved: %d on %s\n", a.Count, a.Node)
	}
	// Output:
	// repairable: true
	// replacement: 4 on r1-h3
	// reserved: 2 on r1-h2
	// reserved: 4 on r1-h3
}

// A second host of the rack fails: rack r1 keeps room for 2 of the 4
// lost pods, and the set may not leave it, so it cannot be repaired.
// The host evicts the whole workload (Kueue's NodeFailures eviction) and
// releases its reservation; admitted again, it is planned as new.
func ExampleTree_ReplacePodSet_unrepairable() {
	before := []placement.PodSetAssignment{{Node: "r1-h2", Count: 2}, {Node: "r1-h3", Count: 4}}
	snap, tree, g, req := replaceCluster(before, "r1-h1", "r1-h3")
	ref := placement.PodSetRef{Group: g.Key(), PodSet: "workers"}
	held, _ := snap.PodSetUsage(g.Key(), "workers")
	snap, _ = snap.Apply(placement.Change{Release: []placement.PodSetRef{ref}, Reserve: []placement.PodSetUsage{survivorsOf(held, "r1-h3")}})

	rep, err := tree.ReplacePodSet(snap, g, req, placement.Repair{PodSet: "workers", Existing: before, Failed: []string{"r1-h3"}}, topology.PlanOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("repairable:", rep.Repairable)
	fmt.Println(rep.Reason)
	if !rep.Repairable {
		snap, _ = snap.Apply(placement.Change{Release: []placement.PodSetRef{ref}})
		_, held := snap.PodSetUsage(g.Key(), "workers")
		fmt.Println("still reserved:", held)
	}
	// Output:
	// repairable: false
	// 4 pods of failed node(s) r1-h3 cannot be replaced in their domains: pod set "workers" of PodGroup "default/train" needs 4 pods in one topology.kubernetes.io/rack domain; the best, r1, holds 2; the workload must be evicted whole
	// still reserved: false
}
