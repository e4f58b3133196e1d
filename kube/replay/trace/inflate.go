package trace

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"time"

	"github.com/gangsched/gangsched/kube/replay"
)

// Inflate is the FGD paper's workload (Weng et al., ATC'23, §6.1, its
// artifact's "-tune"): in's pods, then pods drawn from them at random,
// with replacement, until one more would take their GPU requests past
// ratio × the cluster's GPUs (in.GPU), all in an order shuffled at
// random; they arrive one second apart from [Epoch] and never end, so the
// cluster only fills, and each pod is tried once (a pod that does not fit
// waits for good: nothing ever ends to wake it). The draws come from a
// PCG generator seeded with seed, by index into in.Pods: the same seed and
// the same pods in the same order (a reader's file order) give the same
// workload.
// The drawn copies are named <name>-tuned-<i>, as the artifact names
// them. Errors: a ratio that is not positive, or a cluster without GPUs.
func Inflate(in replay.Input, ratio float64, seed uint64) (replay.Input, error) {
	if !(ratio > 0) {
		return in, fmt.Errorf("inflate: ratio %g: want a positive number", ratio)
	}
	var capacity int64
	for i := range in.Nodes {
		capacity += in.Nodes[i].Allocatable[in.GPU.Name]
	}
	if capacity == 0 || in.GPU.Name == "" {
		return in, fmt.Errorf("inflate: the cluster has no %q", in.GPU.Name)
	}
	target := int64(ratio * float64(capacity))
	rng := rand.New(rand.NewPCG(seed, seed))
	trace := in.Pods
	out := in
	out.Pods = make([]replay.Pod, 0, len(trace)*int(ratio+1))
	var total int64
	for _, p := range trace {
		total += p.Requests[in.GPU.Name]
		out.Pods = append(out.Pods, p)
	}
	for total > target { // the artifact's tuning down: drop pods at random
		k := rng.IntN(len(out.Pods))
		total -= out.Pods[k].Requests[in.GPU.Name]
		out.Pods = append(out.Pods[:k], out.Pods[k+1:]...)
	}
	for i := 0; len(trace) > 0 && total < target; i++ {
		p := trace[rng.IntN(len(trace))]
		q := p.Requests[in.GPU.Name]
		if total+q > target {
			break
		}
		total += q
		p.Name = fmt.Sprintf("%s-tuned-%d", p.Name, i)
		p.Requests = maps.Clone(p.Requests)
		p.Labels = maps.Clone(p.Labels)
		out.Pods = append(out.Pods, p)
	}
	rng.Shuffle(len(out.Pods), func(i, j int) { out.Pods[i], out.Pods[j] = out.Pods[j], out.Pods[i] })
	for i := range out.Pods {
		p := &out.Pods[i]
		p.QueuedAt = Epoch.Add(time.Duration(i) * time.Second)
		p.Duration = 0
		p.NodeName, p.StartTime = "", time.Time{}
	}
	return out, nil
}
