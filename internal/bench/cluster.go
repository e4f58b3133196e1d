package bench

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// Topology keys of the benchmark clusters, widest first.
const (
	BlockKey = "example.com/block"
	RackKey  = "topology.kubernetes.io/rack"
	HostKey  = "kubernetes.io/hostname"
)

// Shapes of the GPU cluster: hosts of 8 GPUs, 64 CPUs and 110
// pods, 32 hosts to a rack and 16 racks to a block; pods of 1 GPU and 8 CPUs.
const (
	HostGPU       = 8
	HostCPU       = 64_000
	PodGPU        = 1
	PodGPUCPU     = 8_000
	HostsPerRack  = 32
	RacksPerBlock = 16
)

// Request is one member's request of a [Cluster]'s two resources, indexed
// like Cluster.Res, in canonical units.
type Request [2]int64

// Level is one topology level of a [Cluster] as the floor reads it: the
// nodes of every domain are one run of consecutive node indices, domain d
// holding Start[d] ≤ i < Start[d+1].
type Level struct {
	Key   string
	Start []int32
}

// Cluster is a benchmark cluster: the nodes and bound pods a snapshot is
// built from, plus the same facts as plain slices for the floor — each
// node's free quantity of the two resources the workloads request, and
// the domains of each topology level as runs of node indices.
type Cluster struct {
	Nodes []placement.Node
	// Bound are the pods running on Nodes (NodeName set).
	Bound []placement.Pod
	// Keys are the topology keys of the tree, widest first (the node
	// label the deepest level, kubernetes.io/hostname, included).
	Keys []string
	// Levels are the levels a constraint may name, widest first (the
	// hostname level excluded).
	Levels []Level
	// Res are the two resources the members request; Free[r][i] is node
	// i's allocatable of Res[r] minus what Bound requests there.
	Res  [2]placement.ResourceName
	Free [2][]int64
}

// Level returns the index in c.Levels of key, or -1.
func (c *Cluster) Level(key string) int {
	for i := range c.Levels {
		if c.Levels[i].Key == key {
			return i
		}
	}
	return -1
}

// GPUCluster returns the matrix's GPU cluster of n hosts in blocks of 16 racks of
// 32 hosts (the last rack and block may be partial), each host with 8 GPUs
// (nvidia.com/gpu), cpu 64 and pods 110. When fragmented, each host keeps
// 0–8 GPUs free, drawn from a fixed linear congruential sequence (the same
// every run), and the used part is bound pods of 1 GPU and 8 CPUs named
// bound-<host>-<i>; otherwise the cluster is empty.
func GPUCluster(n int, fragmented bool) *Cluster {
	c := &Cluster{Keys: []string{BlockKey, RackKey, HostKey},
		Res: [2]placement.ResourceName{placement.ResourceGPU, placement.ResourceCPU}}
	c.Free = [2][]int64{make([]int64, n), make([]int64, n)}
	x := uint32(20260801)
	for i := range n {
		name := fmt.Sprintf("host-%05d", i)
		rack := i / HostsPerRack
		c.Nodes = append(c.Nodes, placement.Node{
			Name: name,
			Labels: map[string]string{
				BlockKey: fmt.Sprintf("block-%02d", rack/RacksPerBlock),
				RackKey:  fmt.Sprintf("rack-%03d", rack),
				HostKey:  name,
			},
			Allocatable: placement.ResourceList{
				placement.ResourceGPU:  HostGPU,
				placement.ResourceCPU:  HostCPU,
				placement.ResourcePods: 110,
			},
		})
		used := 0
		if fragmented {
			x = x*1664525 + 1013904223
			used = HostGPU - int(x>>16)%(HostGPU+1)
		}
		for j := range used {
			c.Bound = append(c.Bound, placement.Pod{Namespace: "default", Name: fmt.Sprintf("bound-%05d-%d", i, j), NodeName: name,
				Requests: placement.ResourceList{placement.ResourceGPU: PodGPU, placement.ResourceCPU: PodGPUCPU}})
		}
		c.Free[0][i] = HostGPU - int64(used)*PodGPU
		c.Free[1][i] = HostCPU - int64(used)*PodGPUCPU
	}
	c.Levels = []Level{
		{Key: BlockKey, Start: runs(n, HostsPerRack*RacksPerBlock)},
		{Key: RackKey, Start: runs(n, HostsPerRack)},
	}
	return c
}

// TASCluster returns upstream's TAS perf cluster: n scheduler_perf nodes
// (cpu 4, memory 32Gi, pods 110; see [Nodes]) in racks of 100, empty.
func TASCluster(n int) *Cluster {
	c := &Cluster{Keys: []string{RackKey, HostKey}, Nodes: Nodes(n),
		Res:  [2]placement.ResourceName{placement.ResourceCPU, placement.ResourceMemory},
		Free: [2][]int64{make([]int64, n), make([]int64, n)}}
	for i := range c.Nodes {
		c.Nodes[i].Labels = map[string]string{RackKey: fmt.Sprintf("rack-%03d", i/100), HostKey: c.Nodes[i].Name}
		c.Free[0][i], c.Free[1][i] = NodeCPU, NodeMemory
	}
	c.Levels = []Level{{Key: RackKey, Start: runs(n, 100)}}
	return c
}

// runs splits n nodes into domains of size consecutive nodes.
func runs(n, size int) []int32 {
	var out []int32
	for i := 0; i < n; i += size {
		out = append(out, int32(i))
	}
	return append(out, int32(n))
}

// GPUGang returns a gang PodGroup name in namespace default of size
// pending members of 1 GPU and 8 CPUs, minCount size.
func GPUGang(name string, size int) *placement.Group {
	return ShapedGang(name, size, 1)
}

// Shapes are the member shapes of the heterogeneous groups, as requests
// of nvidia.com/gpu and cpu (millicores): the first is the GPU cluster's
// pod; the others vary both the GPU count and the CPUs per GPU, so that
// members pack differently in the two resources.
var Shapes = [16]Request{
	{1, 8_000}, {2, 4_000}, {1, 24_000}, {4, 16_000},
	{2, 32_000}, {3, 6_000}, {1, 2_000}, {8, 8_000},
	{2, 12_000}, {4, 40_000}, {1, 16_000}, {3, 30_000},
	{6, 12_000}, {2, 20_000}, {5, 10_000}, {1, 48_000},
}

// ShapedGang returns a gang PodGroup name of size pending members using the
// first shapes of [Shapes] in consecutive runs of equal length (members
// named <name>-<i>, i from 0; a leader-and-workers group lists its shapes
// the same way), minCount size.
func ShapedGang(name string, size, shapes int) *placement.Group {
	g := &placement.Group{Namespace: "default", Name: name, Policy: placement.PolicyGang, MinCount: int32(size)}
	g.Members = make([]placement.Pod, size)
	for i := range g.Members {
		sh := Shapes[i*shapes/size]
		g.Members[i] = placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%04d", name, i), SchedulingGroup: name,
			Requests: placement.ResourceList{placement.ResourceGPU: sh[0], placement.ResourceCPU: sh[1]}}
	}
	return g
}

// PodSetGang returns the gang of [GPUGang] given as one pod set: size
// pods of the GPU cluster's pod shape, named set "workers", minCount size.
func PodSetGang(name string, size int) *placement.Group {
	return &placement.Group{Namespace: "default", Name: name, Policy: placement.PolicyGang, MinCount: int32(size),
		PodSets: []placement.PodSet{{Name: "workers", Count: int32(size),
			Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceGPU: PodGPU, placement.ResourceCPU: PodGPUCPU}}}}}
}

// Requests returns each member's request of c.Res, the floor's view of
// the members.
func (c *Cluster) Requests(members []placement.Pod) []Request {
	out := make([]Request, len(members))
	for i := range members {
		out[i] = Request{members[i].Requests[c.Res[0]], members[i].Requests[c.Res[1]]}
	}
	return out
}
