package gangsched_test

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Two gangs of three on a node with room for four: the one whose member
// arrived first binds whole, the other waits whole; never two and two.
func Example() {
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	snap, _ := placement.NewSnapshot([]placement.Node{{Name: "n1", Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}}}, nil)
	s := gang.NewScheduler(gang.Options{})
	for _, name := range []string{"pg1", "pg2"} {
		_ = s.SetPodGroup(&gang.PodGroup{
			ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: name},
			Spec:       gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: 3}}},
		})
	}
	for i := range 6 {
		group := []string{"pg1", "pg2"}[i%2]
		_ = s.AddPod(placement.Pod{
			Namespace: "default", Name: fmt.Sprintf("%s-%d", group, i/2), SchedulingGroup: group,
			Requests: placement.ResourceList{placement.ResourceCPU: 1000}, QueuedAt: now.Add(time.Duration(i) * time.Second),
		})
	}
	for {
		r, ok := s.Cycle(snap, now)
		if !ok {
			break
		}
		fmt.Printf("%s: %s, %d bound, %d waiting\n", r.PodGroup.Name, r.Decision.Status, len(r.Bind), len(r.Requeued))
		snap = r.Snapshot
	}
	// Output:
	// pg1: Scheduled, 3 bound, 0 waiting
	// pg2: Unschedulable, 0 bound, 3 waiting
}
