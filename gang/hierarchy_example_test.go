package gang_test

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// A CompositePodGroup "train" asks for both its PodGroups in one block,
// each in a rack: the cycle decides the tree whole, from its root, and
// binds both leaves together in block-B, where each finds a rack.
func ExampleScheduler_SetCompositePodGroup() {
	node := func(name, block, rack string, cpu int64) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{"block": block, "rack": rack},
			Allocatable: placement.ResourceList{placement.ResourceCPU: cpu}}
	}
	snap, _ := placement.NewSnapshot([]placement.Node{
		node("a1", "block-A", "rack-A1", 3000), node("a2", "block-A", "rack-A2", 5000),
		node("b1", "block-B", "rack-B1", 5000), node("b2", "block-B", "rack-B2", 5000)}, nil)
	s := gang.NewScheduler(gang.Options{})
	_ = s.SetCompositePodGroup(&gang.CompositePodGroup{
		ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: "train"},
		Spec: gang.CompositePodGroupSpec{
			SchedulingPolicy:      gang.CompositeSchedulingPolicy{Gang: &gang.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints: gang.SchedulingConstraints{Topology: []gang.TopologyConstraint{{Key: "block"}}},
		},
	})
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	for _, leaf := range []string{"train-0", "train-1"} {
		_ = s.SetPodGroup(&gang.PodGroup{
			ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: leaf},
			Spec: gang.PodGroupSpec{
				ParentCompositePodGroupName: "train",
				PodGroupTemplateRef:         &gang.PodGroupTemplateReference{Workload: &gang.WorkloadPodGroupTemplateReference{WorkloadName: "train", PodGroupTemplateName: "worker"}},
				SchedulingPolicy:            gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: 5}},
				SchedulingConstraints:       gang.SchedulingConstraints{Topology: []gang.TopologyConstraint{{Key: "rack"}}},
			},
		})
		for i := range 5 {
			_ = s.AddPod(placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%d", leaf, i), SchedulingGroup: leaf,
				Requests: placement.ResourceList{placement.ResourceCPU: 1000}, QueuedAt: now})
		}
	}
	r, _ := s.Cycle(snap, now)
	fmt.Println(r.PodGroup.Name, r.Decision.Status, "in", r.Hierarchy.Decision.Root.Domain+";", len(r.Bind), "pods bound")
	for _, c := range r.Hierarchy.Decision.Root.Children {
		fmt.Println(" ", c.Name, "in", c.Domain)
	}
	for _, c := range r.Hierarchy.Conditions {
		fmt.Println(" ", c.Kind, c.Key.Name, c.Condition.Type, c.Condition.Status)
	}
	// Output:
	// train Scheduled in block-B; 10 pods bound
	//   PodGroup train-0 in rack-B1
	//   PodGroup train-1 in rack-B2
	//   CompositePodGroup train CompositePodGroupInitiallyScheduled True
	//   PodGroup train-0 PodGroupScheduled True
	//   PodGroup train-1 PodGroupScheduled True
}
