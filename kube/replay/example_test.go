package replay_test

import (
	"fmt"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// When does a 2-pod gang start on two 4-GPU nodes, one of which runs a
// 4-GPU pod for another hour? At the end of that pod, on both nodes.
func ExampleRun() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := func(name string) placement.Node {
		return placement.Node{Name: name, Allocatable: placement.ResourceList{placement.ResourceGPU: 4, placement.ResourcePods: 110}}
	}
	pod := func(name, group string) replay.Pod {
		return replay.Pod{Pod: placement.Pod{Namespace: "default", Name: name, SchedulingGroup: group, QueuedAt: t0,
			Requests: placement.ResourceList{placement.ResourceGPU: 4}}, Duration: 2 * time.Hour}
	}
	running := pod("old", "")
	running.NodeName, running.StartTime = "n1", t0.Add(-time.Hour)
	in := replay.Input{
		Nodes: []placement.Node{node("n1"), node("n2")},
		Pods:  []replay.Pod{running, pod("train-0", "train"), pod("train-1", "train")},
		PodGroups: []*gang.PodGroup{{ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: "train"},
			Spec: gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: 2}}}}},
	}
	policy, _ := replay.LookupPolicy("packing") // or a Policy of your own: a Configure that sets the solver options
	r, err := replay.Run(in, replay.Options{Policy: policy})
	if err != nil {
		panic(err)
	}
	for _, g := range r.Groups {
		if g.Kind != "PodGroup" {
			continue // the running pod
		}
		fmt.Printf("%s %s: starts at +%s on %v (waited because: %s)\n", g.Kind, g.Name, g.Start.Sub(t0), g.Nodes, g.Reason)
	}
	// Output:
	// PodGroup default/train: starts at +1h0m0s on [n1 n2] (waited because: 1 of min 2 members fit; default/train-1 fits on none of 2 nodes: 2 Insufficient nvidia.com/gpu)
}
