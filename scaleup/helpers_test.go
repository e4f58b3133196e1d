package scaleup

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

const (
	rackKey  = "topology.kubernetes.io/rack"
	blockKey = "topology.kubernetes.io/block"
	gpu      = placement.ResourceGPU
	cpu      = placement.ResourceCPU
)

// rl is a resource list of GPUs and CPU millicores.
func rl(gpus, millis int64) placement.ResourceList {
	out := placement.ResourceList{}
	if gpus > 0 {
		out[gpu] = gpus
	}
	if millis > 0 {
		out[cpu] = millis
	}
	return out
}

// node is a host in rack (none when ""), with alloc.
func node(name, rack string, alloc placement.ResourceList) placement.Node {
	n := placement.Node{Name: name, Labels: map[string]string{HostnameLabel: name}, Allocatable: alloc}
	if rack != "" {
		n.Labels[rackKey] = rack
	}
	return n
}

// running is a pod outside any group bound to node.
func running(name, node string, req placement.ResourceList) placement.Pod {
	return placement.Pod{Namespace: "other", Name: name, NodeName: node, Requests: req}
}

// gangOf is a gang of n pending members named w-0… with req each.
func gangOf(n int, req placement.ResourceList) *placement.Group {
	g := &placement.Group{Namespace: "ml", Name: "train", MinCount: int32(n)}
	for i := range n {
		g.Members = append(g.Members, placement.Pod{Namespace: "ml", Name: fmt.Sprintf("w-%d", i), SchedulingGroup: "train", Requests: req})
	}
	return g
}
