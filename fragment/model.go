package fragment

import (
	"fmt"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// MilliGPU is one whole GPU in thousandths, the unit of every GPU quantity
// here (Alibaba's alibabacloud.com/gpu-milli, the paper's "GPU milli").
const MilliGPU = 1000

// ResourceGPUMilli is the extended resource that carries GPU milli in a
// placement snapshot: a node's allocatable is its device count × 1000, a
// pod's request its total (GPUs × milli per GPU), so that the solver's
// resource fit is the aggregate check and [Plugin] the per-device one.
const ResourceGPUMilli placement.ResourceName = "alibabacloud.com/gpu-milli"

// ModelLabel is the node label naming the GPU model (open-gpu-share's
// alibabacloud.com/gpu-card-model); a pod restricted to one model carries
// it in its nodeSelector.
const ModelLabel = "alibabacloud.com/gpu-card-model"

// MaxDevicesPerNode bounds the GPUs of one node (the openb trace has at
// most 8).
const MaxDevicesPerNode = 64

// Request is what one pod asks, as the paper models a task (§2.2, Table
// 1): CPU in millicores, and either no GPU, a fraction of one GPU
// (GPUs 1, GPUMilli 1–999, on one device) or whole GPUs (GPUMilli 1000,
// GPUs 1 or more, each a device of its own). Models lists the GPU models
// it may run on, "|"-separated as the trace's gpu_spec; "" means any.
// Requests are comparable, so that equal ones count as one shape.
type Request struct {
	CPU      int64
	GPUMilli int64
	GPUs     int
	Models   string
}

// Validate reports a request the model cannot hold, naming obj and the
// field: a negative quantity, GPUMilli outside 0–1000, a fraction of more
// than one GPU, GPUs without milli or milli without GPUs, or more GPUs
// than [MaxDevicesPerNode].
func (r Request) Validate(obj string) error {
	switch {
	case r.CPU < 0:
		return fmt.Errorf("fragment: %s: cpu: %d is negative", obj, r.CPU)
	case r.GPUMilli < 0 || r.GPUMilli > MilliGPU:
		return fmt.Errorf("fragment: %s: gpu milli: %d is outside 0–1000 per GPU", obj, r.GPUMilli)
	case r.GPUs < 0 || r.GPUs > MaxDevicesPerNode:
		return fmt.Errorf("fragment: %s: gpus: %d is outside 0–%d", obj, r.GPUs, MaxDevicesPerNode)
	case (r.GPUs == 0) != (r.GPUMilli == 0):
		return fmt.Errorf("fragment: %s: gpus %d with gpu milli %d: both or neither must be set", obj, r.GPUs, r.GPUMilli)
	case r.GPUs > 1 && r.GPUMilli < MilliGPU:
		return fmt.Errorf("fragment: %s: gpu milli: %d of %d GPUs: a fraction is of one GPU only", obj, r.GPUMilli, r.GPUs)
	}
	return nil
}

// TotalMilli is the request's GPU milli summed over its GPUs.
func (r Request) TotalMilli() int64 { return r.GPUMilli * int64(r.GPUs) }

// Shared reports whether r asks for a fraction of one GPU.
func (r Request) Shared() bool { return r.GPUs == 1 && r.GPUMilli < MilliGPU }

// allows reports whether a node of GPU model model may serve r: always
// for a request without GPUs or without a model list (upstream
// IsNodeAccessibleToPodByType), never for a GPU request on a node without
// a model.
func (r Request) allows(model string) bool {
	if r.GPUs == 0 || r.Models == "" {
		return true
	}
	if model == "" {
		return false
	}
	for m := range strings.SplitSeq(r.Models, "|") {
		if m == model {
			return true
		}
	}
	return false
}

// RequestOf reads a placement pod as a Request: CPU from its cpu request,
// GPU from its [ResourceGPUMilli] request (below 1000 a share of one GPU,
// otherwise whole GPUs, which must then be a multiple of 1000), and the
// model from its nodeSelector on [ModelLabel]. Errors name the pod and
// the field.
func RequestOf(p *placement.Pod) (Request, error) {
	r := Request{CPU: p.Requests[placement.ResourceCPU], Models: p.NodeSelector[ModelLabel]}
	obj := func() string { return fmt.Sprintf("pod %q", p.Key().String()) }
	switch total := p.Requests[ResourceGPUMilli]; {
	case total < 0:
		return Request{}, fmt.Errorf("fragment: %s: requests[%s]: %d is negative", obj(), ResourceGPUMilli, total)
	case total == 0:
	case total < MilliGPU:
		r.GPUs, r.GPUMilli = 1, total
	case total%MilliGPU != 0:
		return Request{}, fmt.Errorf("fragment: %s: requests[%s]: %d is more than one GPU and not whole GPUs", obj(), ResourceGPUMilli, total)
	default:
		r.GPUs, r.GPUMilli = int(min(total/MilliGPU, MaxDevicesPerNode+1)), MilliGPU
	}
	if err := r.Validate(""); err != nil {
		return Request{}, r.Validate(obj())
	}
	return r, nil
}

// NodeState is one node as the policies see it: its name, free CPU in
// millicores, GPU model ("" for a node without GPUs) and the free milli of
// each GPU device, in device order (0–1000 each). Free is read-only to a
// policy.
type NodeState struct {
	Name    string
	CPUFree int64
	Model   string
	Free    []int64
}

// freeTotal is the node's free GPU milli over all devices.
func (n *NodeState) freeTotal() int64 {
	var t int64
	for _, f := range n.Free {
		t += f
	}
	return t
}

// fits reports whether r fits on n: CPU, model, and devices — one with
// room for a share, or GPUs fully free ones.
func (n *NodeState) fits(r Request) bool {
	if n.CPUFree < r.CPU || !r.allows(n.Model) {
		return false
	}
	return r.GPUs == 0 || countAtLeast(n.Free, r.GPUMilli) >= r.GPUs
}

// countAtLeast counts the devices with at least q free.
func countAtLeast(free []int64, q int64) int {
	c := 0
	for _, f := range free {
		if f >= q {
			c++
		}
	}
	return c
}

// wholeDevices returns the first k fully free devices in device order
// (the simulator's exclusive allocation), appended to dst.
func wholeDevices(dst []int, free []int64, k int) []int {
	for i, f := range free {
		if len(dst) == k {
			break
		}
		if f == MilliGPU {
			dst = append(dst, i)
		}
	}
	return dst
}

// bestFitDevice is the device with the least free milli that still holds
// q, the lowest index on ties (the simulator's "best" GPU selection); -1
// when none does.
func bestFitDevice(free []int64, q int64) int {
	best := -1
	for i, f := range free {
		if f >= q && (best < 0 || f < free[best]) {
			best = i
		}
	}
	return best
}

// take returns the devices r takes on n when its share goes to device
// share: the share device, or the first fully free devices.
func take(n *NodeState, r Request, share int) []int {
	if r.GPUs == 0 {
		return nil
	}
	if r.Shared() {
		return []int{share}
	}
	return wholeDevices(make([]int, 0, r.GPUs), n.Free, r.GPUs)
}
