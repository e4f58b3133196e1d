package bench

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// Shapes of upstream scheduler_perf (test/integration/scheduler_perf): a
// node of cpu 4, memory 32Gi, pods 110; a pod of cpu 100m, memory 100Mi.
const (
	NodeCPU    = 4000
	NodeMemory = 32 << 30
	NodePods   = 110
	PodCPU     = 100
	PodMemory  = 100 << 20
)

// Nodes returns n scheduler_perf nodes named node-00000, node-00001, ….
func Nodes(n int) []placement.Node {
	out := make([]placement.Node, n)
	for i := range out {
		out[i] = placement.Node{
			Name: fmt.Sprintf("node-%05d", i),
			Allocatable: placement.ResourceList{
				placement.ResourceCPU:    NodeCPU,
				placement.ResourceMemory: NodeMemory,
				placement.ResourcePods:   NodePods,
			},
		}
	}
	return out
}

// pod returns a scheduler_perf pod.
func pod(namespace, name string) placement.Pod {
	return placement.Pod{Namespace: namespace, Name: name, Requests: placement.ResourceList{
		placement.ResourceCPU:    PodCPU,
		placement.ResourceMemory: PodMemory,
	}}
}

// Bound returns perNode scheduler_perf pods bound to each node, named
// bound-<node index>-<i> in namespace default.
func Bound(nodes []placement.Node, perNode int) []placement.Pod {
	out := make([]placement.Pod, 0, len(nodes)*perNode)
	for n := range nodes {
		for i := range perNode {
			p := pod("default", fmt.Sprintf("bound-%05d-%03d", n, i))
			p.NodeName = nodes[n].Name
			out = append(out, p)
		}
	}
	return out
}

// Gang returns a gang PodGroup named name in namespace default with size
// pending scheduler_perf members and minCount size.
func Gang(name string, size int) *placement.Group {
	g := &placement.Group{Namespace: "default", Name: name, Policy: placement.PolicyGang, MinCount: int32(size)}
	for i := range size {
		p := pod("default", fmt.Sprintf("%s-%04d", name, i))
		p.SchedulingGroup = name
		g.Members = append(g.Members, p)
	}
	return g
}

// Floor is one plain pass over the input: it reads every node's cpu
// allocatable and every member's cpu request once and returns their sum,
// the least work a decision over these nodes and members can do.
func Floor(nodes []placement.Node, members []placement.Pod) int64 {
	var sum int64
	for i := range nodes {
		sum += nodes[i].Allocatable[placement.ResourceCPU]
	}
	for i := range members {
		sum += members[i].Requests[placement.ResourceCPU]
	}
	return sum
}
