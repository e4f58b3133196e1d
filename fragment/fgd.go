package fragment

import (
	"cmp"
	"math"
	"slices"
)

// FGD is the paper's Fragmentation Gradient Descent policy (§4, Algorithm
// 1): a pod goes to the node, and its share to the device, where placing
// it grows the node's fragmentation ([Workload.Expected] under the target
// workload) least, i.e. along the steepest descent of the cluster's
// fragmentation. As in the paper's artifact, the score is the sigmoid of
// the fragmentation's decrease in GPUs, times 100, truncated to an
// integer (0–99), and ties go to the node first by name (the artifact's
// scheduler breaks ties by name too), then to the lowest device. That
// coarse score matters: on openb inflated to 130 % of its GPUs (seed 42),
// the exact decrease as the score allocated 94.7 % of the GPUs and the
// artifact's quantised one 95.5 % (the paper: 95.4 %), since among
// near-equal nodes the tie by name packs.
//
// An FGD remembers the fragmentation of the node states it has computed
// (at most [FGD.MemoLimit] of them, then it starts over), since a cluster
// holds many nodes alike; the memo never changes an answer, but makes an
// FGD unsafe for concurrent use: give each goroutine its own.
//
// Build one with [NewFGD]; the zero FGD has no workload.
type FGD struct {
	w    *Workload
	memo map[stateKey]int64
	free []int64 // Score's scratch
	devs []int
}

// NewFGD returns the FGD policy for target workload w.
func NewFGD(w *Workload) *FGD { return &FGD{w: w, memo: map[stateKey]int64{}} }

// MemoLimit bounds the node states an [FGD] remembers.
const MemoLimit = 1 << 18

// Score is the quantised decrease of n's fragmentation when r goes to n,
// its share to the device with the best such score (the lowest index on
// ties).
func (p *FGD) Score(_ string, n *NodeState, r Request) (int64, int) {
	before := p.fragment(n.CPUFree, n.Model, n.Free)
	cpu := n.CPUFree - r.CPU
	p.free = append(p.free[:0], n.Free...)
	free := p.free
	if !r.Shared() {
		for _, d := range wholeDevices(p.devs[:0], free, r.GPUs) {
			free[d] -= r.GPUMilli
		}
		return p.quantise(before - p.fragment(cpu, n.Model, free)), -1
	}
	best, share := int64(0), -1
	for i, f := range free {
		if f < r.GPUMilli {
			continue
		}
		free[i] -= r.GPUMilli
		if d := p.quantise(before - p.fragment(cpu, n.Model, free)); share < 0 || d > best {
			best, share = d, i
		}
		free[i] = f
	}
	return best, share
}

// quantise is the artifact's int64(sigmoid(x)·100) of a decrease x in
// GPUs, given as d = x·1000·(the workload's pod count): the number of k
// in 1..99 with x ≥ ln(k/(100−k)), compared in integers against
// thresholds in millionths of a GPU, so that no platform's exp rounds it
// differently.
func (p *FGD) quantise(d int64) int64 {
	// |d| < 2^32 pods × 64,000 milli and |t| < 5·10^6: no product overflows.
	dMicro := d * 1000 // x·10⁶·total
	k, _ := slices.BinarySearchFunc(sigmoidSteps[:], dMicro, func(t, v int64) int {
		return cmp.Compare(t*p.w.total, v+1) // first t·total > v
	})
	return int64(k)
}

// sigmoidSteps[k-1] is ln(k/(100−k)) in millionths, rounded: where
// sigmoid·100 reaches k.
var sigmoidSteps = func() (t [99]int64) {
	for k := 1; k < 100; k++ {
		t[k-1] = int64(math.Round(1e6 * math.Log(float64(k)/float64(100-k))))
	}
	return t
}()

// stateKey is what a node's fragmentation depends on: free CPU, model and
// the multiset of its devices' free milli (sorted, for up to 8 devices).
type stateKey struct {
	cpu   int64
	model string
	free  [8]int16
	n     int8
}

// fragment is the workload-weighted fragmentation of a node in the given
// state, from the memo when it is there.
func (p *FGD) fragment(cpu int64, model string, free []int64) int64 {
	n := NodeState{CPUFree: cpu, Model: model, Free: free}
	if len(free) > len(stateKey{}.free) {
		return p.w.weighted(&n)
	}
	k := stateKey{cpu: cpu, n: int8(len(free))}
	if p.w.models {
		k.model = model // else no shape's fragmentation depends on it
	}
	for i, f := range free {
		k.free[i] = int16(f)
	}
	slices.Sort(k.free[:len(free)])
	if v, ok := p.memo[k]; ok {
		return v
	}
	v := p.w.weighted(&n)
	if p.memo == nil || len(p.memo) >= MemoLimit {
		p.memo = make(map[stateKey]int64)
	}
	p.memo[k] = v
	return v
}
