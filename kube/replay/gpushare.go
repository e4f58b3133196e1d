package replay

import (
	"fmt"

	"github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

// gpuSharePolicies are the policies of the ATC'23 FGD paper (Weng et al.,
// "Beware of Fragmentation", §6; package fragment): FGD and the four
// baselines of its evaluation. Each keeps every GPU device's free share
// across the replay in a [fragment.Tracker] (a [Session]): it books a
// pod's devices when it binds and gives them back when it ends, so a share
// of one GPU must fit on one device, and whole GPUs on fully free ones
// (the node's pooled [fragment.ResourceGPUMilli] is only the aggregate
// check the snapshot makes). A node has its gpu-milli / 1000 devices of
// the model labelled [fragment.ModelLabel], as package replay/trace reads
// the openb trace; a pod asks for GPUs with gpu-milli and for a model
// with a nodeSelector on that label ([fragment.RequestOf]).
var gpuSharePolicies = []Policy{
	gpuShare("fgd", "the FGD paper's Fragmentation Gradient Descent: where the expected unusable GPU share grows least",
		func(in Input) (fragment.Policy, error) {
			w, err := targetWorkload(in)
			if err != nil {
				return nil, err
			}
			return fragment.NewFGD(w), nil
		}),
	gpuShare("bestfit", "the FGD paper's best fit: the least CPU and GPU left on the node after the pod, normalised",
		func(Input) (fragment.Policy, error) { return fragment.BestFit{}, nil }),
	gpuShare("dotprod", "the FGD paper's dot product: the smallest dot product of the node's free resources and the request",
		func(Input) (fragment.Policy, error) { return fragment.DotProduct{}, nil }),
	gpuShare("gpupacking", "the FGD paper's GPU packing: shares onto used GPUs, then free GPUs of used nodes, then idle nodes",
		func(Input) (fragment.Policy, error) { return fragment.GPUPacking{}, nil }),
	gpuShare("random", "the FGD paper's random fit: a node among those that fit, by a hash of pod and node (seed 42)",
		func(Input) (fragment.Policy, error) { return fragment.Random{Seed: 42}, nil }),
}

// gpuShare makes a stateful replay policy of a fragment.Policy.
func gpuShare(name, desc string, newPolicy func(Input) (fragment.Policy, error)) Policy {
	return Policy{Name: name, Description: desc, Start: func(in Input) (*Session, error) {
		p, err := newPolicy(in)
		if err != nil {
			return nil, err
		}
		devs, err := fragment.NewDevices(nodeGPUs(in.Nodes))
		if err != nil {
			return nil, err
		}
		tr := fragment.NewTracker(devs, p)
		return &Session{Configure: tr.Configure, Bound: tr.Bound, Ended: tr.Ended}, nil
	}}
}

// nodeGPUs reads each node's devices: gpu-milli / 1000 of its model.
func nodeGPUs(nodes []placement.Node) []fragment.NodeGPUs {
	out := make([]fragment.NodeGPUs, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		c := int(n.Allocatable[fragment.ResourceGPUMilli] / fragment.MilliGPU)
		out[i] = fragment.NodeGPUs{Name: n.Name, Count: c}
		if c > 0 {
			out[i].Model = n.Labels[fragment.ModelLabel]
		}
	}
	return out
}

// targetWorkload is the paper's target workload (§5.1): the requests of
// the input's pods, the most popular shapes covering 95% of them.
func targetWorkload(in Input) (*fragment.Workload, error) {
	reqs := make([]fragment.Request, 0, len(in.Pods))
	for i := range in.Pods {
		r, err := fragment.RequestOf(&in.Pods[i].Pod)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("fgd: the input has no pods to learn a target workload from")
	}
	return fragment.NewWorkload(reqs, 95)
}
