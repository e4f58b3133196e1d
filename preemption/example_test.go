package preemption_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// A gang of two GPU workers needs two free nodes; a low-priority batch
// PodGroup (disruptionMode PodGroup) spans both, and a lone low pod sits on
// a third node that is too small to matter.
func ExampleFind() {
	gpuNode := func(name string, n int64) placement.Node {
		return placement.Node{Name: name, Allocatable: placement.ResourceList{placement.ResourceGPU: n}}
	}
	running := func(name, node, group string, prio int32, gpus int64) placement.Pod {
		return placement.Pod{Namespace: "ml", Name: name, NodeName: node, SchedulingGroup: group, Priority: prio,
			Requests: placement.ResourceList{placement.ResourceGPU: gpus}}
	}
	s, err := placement.NewSnapshot(
		[]placement.Node{gpuNode("gpu-1", 8), gpuNode("gpu-2", 8), gpuNode("small", 2)},
		[]placement.Pod{
			running("batch-0", "gpu-1", "batch", 10, 4),
			running("batch-1", "gpu-2", "batch", 10, 4),
			running("stray", "small", "", 10, 1),
		})
	if err != nil {
		panic(err)
	}
	train := &placement.Group{Namespace: "ml", Name: "train", MinCount: 2}
	for _, name := range []string{"worker-0", "worker-1"} {
		train.Members = append(train.Members, placement.Pod{Namespace: "ml", Name: name, SchedulingGroup: "train",
			Priority: 1000, Requests: placement.ResourceList{placement.ResourceGPU: 8}})
	}
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{
		{Namespace: "ml", Name: "batch"}: {DisruptionMode: preemption.DisruptionModePodGroup},
	}}

	plan, err := preemption.Find(s, train, in, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.Outcome)
	for _, v := range plan.Victims {
		fmt.Println("evict PodGroup", v.PodGroup, "whole:", v.Whole, v.Pods)
	}
	for _, a := range plan.Decision.Assignments {
		fmt.Println("nominate", a.Pod, "to", a.Node)
	}
	// Output:
	// Preempt
	// evict PodGroup ml/batch whole: true [ml/batch-0 ml/batch-1]
	// nominate ml/worker-0 to gpu-1
	// nominate ml/worker-1 to gpu-2
}

// When even every lower-priority pod gone is not enough, nothing is
// evicted and the plan says what could be had (scenario P10).
func ExampleFind_cannotHelp() {
	s, err := placement.NewSnapshot(
		[]placement.Node{{Name: "n1", Allocatable: placement.ResourceList{placement.ResourceGPU: 8}}},
		[]placement.Pod{
			{Namespace: "ml", Name: "serving", NodeName: "n1", Priority: 2000, Requests: placement.ResourceList{placement.ResourceGPU: 6}},
			{Namespace: "ml", Name: "batch", NodeName: "n1", Priority: 10, Requests: placement.ResourceList{placement.ResourceGPU: 2}},
		})
	if err != nil {
		panic(err)
	}
	g := &placement.Group{Namespace: "ml", Name: "big", MinCount: 1, Members: []placement.Pod{
		{Namespace: "ml", Name: "big-0", SchedulingGroup: "big", Priority: 1000, Requests: placement.ResourceList{placement.ResourceGPU: 8}},
	}}
	plan, err := preemption.Find(s, g, preemption.Input{}, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.Outcome, len(plan.Victims))
	fmt.Println(plan.Message)
	// Output:
	// CannotHelp 0
	// preemption cannot help: even with every candidate victim of priority below 1000 removed (1 in all), 0 of min 1 members fit; at most nvidia.com/gpu 2 on node n1 (0 free + 2 from lower-priority pods), a member requests 8
}

// A host that searches every cycle keeps an Index while its PodGroups and
// budgets stay the same, and calls it on each cycle's snapshot — here the
// cluster as it was, then one derived with Apply after a batch pod ended
// and a notebook took half its node.
func ExampleIndex_Find() {
	s, err := placement.NewSnapshot(
		[]placement.Node{
			{Name: "gpu-1", Allocatable: placement.ResourceList{placement.ResourceGPU: 8}},
			{Name: "gpu-2", Allocatable: placement.ResourceList{placement.ResourceGPU: 8}},
		},
		[]placement.Pod{
			{Namespace: "ml", Name: "batch-0", NodeName: "gpu-1", SchedulingGroup: "batch", Priority: 10, Requests: placement.ResourceList{placement.ResourceGPU: 8}},
			{Namespace: "ml", Name: "batch-1", NodeName: "gpu-2", SchedulingGroup: "batch", Priority: 10, Requests: placement.ResourceList{placement.ResourceGPU: 8}},
			{Namespace: "ml", Name: "dev", NodeName: "gpu-2", Priority: 5},
		})
	if err != nil {
		panic(err)
	}
	x, err := preemption.NewIndex(preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{
		{Namespace: "ml", Name: "batch"}: {DisruptionMode: preemption.DisruptionModePodGroup},
	}})
	if err != nil {
		panic(err)
	}
	g := &placement.Group{Namespace: "ml", Name: "train", MinCount: 1, Members: []placement.Pod{
		{Namespace: "ml", Name: "worker-0", SchedulingGroup: "train", Priority: 1000, Requests: placement.ResourceList{placement.ResourceGPU: 8}},
	}}
	later, err := s.Apply(placement.Change{
		Remove: []placement.Key{{Namespace: "ml", Name: "batch-1"}},
		Bind:   []placement.Pod{{Namespace: "ml", Name: "notebook", NodeName: "gpu-2", Priority: 5, Requests: placement.ResourceList{placement.ResourceGPU: 4}}},
	})
	if err != nil {
		panic(err)
	}
	for _, snap := range []*placement.Snapshot{s, later} {
		plan, err := x.Find(snap, g, placement.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Println(plan.Outcome, plan.EvictedPods())
	}
	// Output:
	// Preempt [ml/batch-0 ml/batch-1]
	// Preempt [ml/notebook]
}

// Three low pods of cpu 1 and one of cpu 2 fill a node of cpu 5; a pod of
// cpu 2 evicts the cpu-2 pod alone: its priority sum is half that of any
// two cpu-1 pods.
func ExampleFind_cheapest() {
	var pods []placement.Pod
	for i, milli := range []int64{2000, 1000, 1000, 1000} {
		pods = append(pods, placement.Pod{Namespace: "default", Name: fmt.Sprintf("p%d", i+1), NodeName: "n1", Priority: 10,
			Requests: placement.ResourceList{placement.ResourceCPU: milli}})
	}
	s, err := placement.NewSnapshot([]placement.Node{{Name: "n1", Allocatable: placement.ResourceList{placement.ResourceCPU: 5000}}}, pods)
	if err != nil {
		panic(err)
	}
	pre := &placement.Group{Namespace: "default", Name: "pre", MinCount: 1, Members: []placement.Pod{{Namespace: "default", Name: "pre",
		SchedulingGroup: "pre", Priority: 1000, Requests: placement.ResourceList{placement.ResourceCPU: 2000}}}}

	plan, err := preemption.Find(s, pre, preemption.Input{}, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.Outcome, plan.EvictedPods(), "proven:", plan.Proven)
	fmt.Println(plan.Cost)
	fmt.Println("makes room for", plan.MakesRoomFor(0))
	// Output:
	// Preempt [default/p1] proven: true
	// budget violations 0, max priority 10, priority sum 2147483658, pods 1, start not started
	// makes room for [default/pre]
}
