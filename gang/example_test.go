package gang_test

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// A gang of three on a node with room for two waits whole, then binds whole
// once room appears. The host passes the time and threads the snapshot.
func ExampleScheduler() {
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	snap, _ := placement.NewSnapshot(
		[]placement.Node{{Name: "n1", Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}}},
		[]placement.Pod{{Namespace: "default", Name: "blocker", NodeName: "n1", Requests: placement.ResourceList{placement.ResourceCPU: 2000}}},
	)
	s := gang.NewScheduler(gang.Options{})
	_ = s.SetPodGroup(&gang.PodGroup{
		ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: "pg1"},
		Spec:       gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: 3}}},
	})
	for _, name := range []string{"p1", "p2", "p3"} {
		_ = s.AddPod(placement.Pod{Namespace: "default", Name: name, SchedulingGroup: "pg1",
			Requests: placement.ResourceList{placement.ResourceCPU: 1000}, QueuedAt: now})
	}

	r, _ := s.Cycle(snap, now)
	fmt.Println(r.Decision.Status, len(r.Bind), "bound;", r.Condition.Reason+":", r.Condition.Message)
	fmt.Println("retry in", r.RetryAt.Sub(now))

	snap, _ = r.Snapshot.Apply(placement.Change{Remove: []placement.Key{{Namespace: "default", Name: "blocker"}}})
	next, _ := s.NextRetry()
	r, _ = s.Cycle(snap, next)
	for _, p := range r.Bind {
		fmt.Println("bind", p.Name, "to", p.NodeName)
	}
	fmt.Println(r.Condition.Type, r.Condition.Status)
	// Output:
	// Unschedulable 0 bound; Unschedulable: 2 of min 3 members fit; default/p3 fits on none of 1 nodes: 1 Insufficient cpu
	// retry in 1s
	// bind p1 to n1
	// bind p2 to n1
	// bind p3 to n1
	// PodGroupScheduled True
}

// An Indexed Job with parallelism equal to completions gets a Workload and
// a gang PodGroup of that size; its pods name the PodGroup.
func ExampleStampJob() {
	n := int32(4)
	job := &gang.Job{
		ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: "training-job"},
		UID:        "7c1e",
		Spec:       gang.JobSpec{Parallelism: &n, Completions: &n, CompletionMode: gang.CompletionModeIndexed},
	}
	st, ok, err := gang.StampJob(job)
	fmt.Println(ok, err)
	fmt.Println("Workload", st.Workload.Name, "template", st.Workload.Spec.PodGroupTemplates[0].Name)
	fmt.Println("PodGroup", st.PodGroup.Name, "minCount", st.PodGroup.Spec.SchedulingPolicy.Gang.MinCount)
	fmt.Println("pods join", st.Template.SchedulingGroup.PodGroupName)

	job.Spec.CompletionMode = gang.CompletionModeNonIndexed
	fmt.Println(gang.JobEligible(job))
	// Output:
	// true <nil>
	// Workload training-job-a5733f56 template job
	// PodGroup training-job-a5733f56-job minCount 4
	// pods join training-job-a5733f56-job
	// false spec.completionMode is not Indexed
}
