package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// Day describes a generated day of GPU work (see [GenerateDay]).
type Day struct {
	// Nodes is the number of 8-GPU hosts (96 CPUs, 768 GiB, 110 pods), in
	// racks of 16 (label topology.kubernetes.io/rack) and blocks of 16
	// racks (topology.kubernetes.io/block).
	Nodes int
	// Pods is the number of pods, arriving over 24 hours.
	Pods int
	// Seed makes another day of the same shape.
	Seed uint64
}

// GenerateDay returns a day of the shape of a GPU training cluster: groups
// of 1 (60%), 2, 4, 8, 16 and 32 pods (15, 12, 8, 4, 1%), groups of more
// than one pod being gangs (minCount all) of which those of 8 or more
// require one rack half of the time; pods of 1, 2, 4 or 8 GPUs with 12
// CPUs and 96 GiB per GPU; arrivals uniform over the day from [Epoch];
// durations log-uniform from a minute to eight hours, both in whole
// seconds. The same Day gives the same input (the generator is seeded; it
// is test data, not a decision).
func GenerateDay(d Day) (replay.Input, error) {
	if d.Nodes < 1 || d.Pods < 0 || d.Nodes > 1_000_000 || d.Pods > 10_000_000 {
		return replay.Input{}, fmt.Errorf("trace: generated day of %d nodes and %d pods: want 1 to 1,000,000 nodes and 0 to 10,000,000 pods", d.Nodes, d.Pods)
	}
	rng := rand.New(rand.NewPCG(d.Seed, 0x9e3779b97f4a7c15))
	in := replay.Input{DomainKey: "topology.kubernetes.io/rack"}
	for i := range d.Nodes {
		name := fmt.Sprintf("host-%05d", i)
		in.Nodes = append(in.Nodes, placement.Node{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname":       name,
			"topology.kubernetes.io/rack":  fmt.Sprintf("rack-%04d", i/16),
			"topology.kubernetes.io/block": fmt.Sprintf("block-%03d", i/256),
		}, Allocatable: placement.ResourceList{placement.ResourceCPU: 96_000, placement.ResourceMemory: 768 << 30, placement.ResourceGPU: 8, placement.ResourcePods: 110}})
	}
	sizes := []struct {
		size int
		pct  int
	}{{1, 60}, {2, 15}, {4, 12}, {8, 8}, {16, 4}, {32, 1}}
	for g := 0; len(in.Pods) < d.Pods; g++ {
		size, roll := 1, rng.IntN(100)
		for _, s := range sizes {
			if roll < s.pct {
				size = s.size
				break
			}
			roll -= s.pct
		}
		size = min(size, d.Pods-len(in.Pods))
		gpus := int64(1) << rng.IntN(4)
		at := Epoch.Add(time.Duration(rng.Int64N(24*3600)) * time.Second)
		dur := time.Duration(60*math.Exp(rng.Float64()*math.Log(480))) * time.Second
		group := ""
		if size > 1 {
			group = fmt.Sprintf("job-%06d", g)
			pg := &gang.PodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "day", Name: group},
				Spec: gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: int32(size)}}}}
			if size >= 8 && rng.IntN(2) == 0 {
				pg.Spec.SchedulingConstraints.Topology = []gang.TopologyConstraint{{Key: "topology.kubernetes.io/rack"}}
			}
			in.PodGroups = append(in.PodGroups, pg)
		}
		for j := range size {
			in.Pods = append(in.Pods, replay.Pod{Pod: placement.Pod{Namespace: "day", Name: fmt.Sprintf("job-%06d-%d", g, j), SchedulingGroup: group, QueuedAt: at,
				Requests: placement.ResourceList{placement.ResourceCPU: 12_000 * gpus, placement.ResourceMemory: (96 << 30) * gpus, placement.ResourceGPU: gpus}}, Duration: dur})
		}
	}
	return in, nil
}
