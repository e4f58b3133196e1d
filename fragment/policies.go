package fragment

// Policy is a GPU-sharing scheduling policy of the paper's evaluation
// (§6.1): it scores a pod on a node and picks the device a GPU share goes
// to. Whole GPUs always take the node's first fully free devices, as in
// the paper's simulator.
type Policy interface {
	// Score scores the pod named pod (namespace/name) with request r on
	// node n, where r fits (see [Plugin]); higher wins, ties go to the
	// node first by name. share is the device a GPU share would take
	// (ignored for any other request). It must be a pure function of its
	// arguments.
	Score(pod string, n *NodeState, r Request) (score int64, share int)
}

// The normalisation of the paper's vector baselines: the largest node's
// CPU in millicores and GPUs in milli (its simulator's MaxSpecCpu,
// MaxSpecGpu).
const (
	maxSpecCPU = 128000
	maxSpecGPU = 8 * MilliGPU
)

// Random is the paper's Random-fit baseline: each pod goes to a node drawn
// uniformly among those it fits, its share to a device drawn among those
// with room. The draw is a hash of Seed, the pod and the node, not a
// random-number generator, so the same input gives the same choice.
type Random struct{ Seed uint64 }

// Score is the hash of r.Seed, pod and n's name; the share device is
// drawn by a hash of the same and the device.
func (p Random) Score(pod string, n *NodeState, r Request) (int64, int) {
	h := mix(mixString(mixString(p.Seed, pod), n.Name))
	share, best := -1, uint64(0)
	if r.Shared() {
		for i, f := range n.Free {
			if d := mix(h ^ uint64(i+1)); f >= r.GPUMilli && (share < 0 || d > best) {
				share, best = i, d
			}
		}
	}
	return int64(h >> 1), share
}

// BestFit is the paper's Best-fit baseline (§6.1): the node whose
// leftover after the pod, CPU and GPU milli each normalised by the largest
// node and weighted alike, is smallest; its share goes to the device with
// the least room that holds it.
type BestFit struct{}

// Score is the artifact's (1 − leftover)·100, truncated to an integer
// (computed exactly in integers), where leftover is (CPU left)/128 cores
// + (GPU milli left)/8 GPUs, halved: many nodes tie, and ties go by name,
// as in the artifact.
func (BestFit) Score(_ string, n *NodeState, r Request) (int64, int) {
	const scale = maxSpecCPU * maxSpecGPU
	left := (bound(n.CPUFree)-bound(r.CPU))*maxSpecGPU + (bound(n.freeTotal())-bound(r.TotalMilli()))*maxSpecCPU
	return (maxScore*scale - left*(maxScore/2)) / scale, bestFitDevice(n.Free, r.GPUMilli) // / truncates, as int64(float64) does
}

// DotProduct is the paper's Dot-product baseline (§6.1) as its artifact
// runs it: the node whose free CPU and GPU milli, normalised by the
// largest node, have the smallest dot product with the pod's request (the
// reverse of Tetris's alignment, which takes the largest); its share goes
// to the device with the least room that holds it (the artifact's
// settings "merge" and "max", GPU selection "best").
type DotProduct struct{}

// Score is the artifact's (1 − dot/2)·100, truncated to an integer
// (computed exactly in integers), where dot is (CPU free/128 cores)·(CPU
// request/128 cores) + (GPU milli free/8 GPUs)·(GPU milli requested/8
// GPUs).
func (DotProduct) Score(_ string, n *NodeState, r Request) (int64, int) {
	const scale = maxSpecCPU * maxSpecCPU // dot·scale is an integer
	const ratio = (maxSpecCPU / maxSpecGPU) * (maxSpecCPU / maxSpecGPU)
	dot := bound(n.CPUFree)*bound(r.CPU) + bound(n.freeTotal())*bound(r.TotalMilli())*ratio
	return (maxScore*scale - dot*(maxScore/2)) / scale, bestFitDevice(n.Free, r.GPUMilli)
}

// bound clamps a quantity to 0–2^24 (16,777 cores; 16,777 GPUs) before
// the vector scores multiply it, so that no product overflows; nodes that
// large score alike.
func bound(q int64) int64 { return min(max(q, 0), 1<<24) }

// GPUPacking is the paper's GPU-packing baseline (§6.1, after Gandiva's
// packing): a pod goes first where its GPUs are shares of devices already
// in use, then to fully free devices of a node in use, then to an idle
// node; CPU-only pods score alike everywhere. Within each tier it follows
// the simulator's scores: 100 − (free % of the used devices)/10 (at least
// 50), 50 − fully free devices used (at least 33), 33 − the idle node's
// devices.
type GPUPacking struct{}

// Score is the tiered packing score above; the share goes to the device
// with the least room that holds it. The devices the artifact would use
// are the fullest that hold the request: for a share the best-fit device,
// for whole GPUs fully free ones.
func (GPUPacking) Score(_ string, n *NodeState, r Request) (int64, int) {
	if r.GPUs == 0 {
		return 0, -1
	}
	share := bestFitDevice(n.Free, r.GPUMilli)
	full := countAtLeast(n.Free, MilliGPU)
	switch {
	case full == len(n.Free):
		return max(maxScore/3-int64(full), int64(full)), share
	case !r.Shared():
		return max(maxScore/2-int64(r.GPUs), maxScore/3), share
	case share >= 0 && n.Free[share] == MilliGPU:
		return maxScore/2 - 1, share
	case share >= 0:
		return max(maxScore-n.Free[share]*100/MilliGPU/10, maxScore/2), share
	}
	return 0, -1
}

// maxScore is kube-scheduler's MaxNodeScore, the scale of GPUPacking.
const maxScore = 100
