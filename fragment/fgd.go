package fragment

import "slices"

// FGD is the paper's Fragmentation Gradient Descent policy (§4, Algorithm
// 1): a pod goes to the node, and its share to the device, where placing
// it grows the node's fragmentation ([Workload.Expected] under the target
// workload) least, i.e. along the steepest descent of the cluster's
// fragmentation. The paper's simulator maps the growth through a sigmoid
// onto kube-scheduler's 0–100 and draws ties at random; here the score is
// the exact growth (scaled by the workload's pod count) and ties go by
// node name, then by device index.
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
}

// NewFGD returns the FGD policy for target workload w.
func NewFGD(w *Workload) *FGD { return &FGD{w: w, memo: map[stateKey]int64{}} }

// MemoLimit bounds the node states an [FGD] remembers.
const MemoLimit = 1 << 18

// Score is minus the growth of n's fragmentation when r goes to n, its
// share to the device that grows it least (the lowest index on ties).
func (p *FGD) Score(_ string, n *NodeState, r Request) (int64, int) {
	before := p.fragment(n.CPUFree, n.Model, n.Free)
	cpu := n.CPUFree - r.CPU
	if !r.Shared() {
		return before - p.fragment(cpu, n.Model, after(n, r, take(n, r, -1))), -1
	}
	best, share := int64(0), -1
	p.free = append(p.free[:0], n.Free...)
	free := p.free
	for i, f := range free {
		if f < r.GPUMilli {
			continue
		}
		free[i] -= r.GPUMilli
		if d := before - p.fragment(cpu, n.Model, free); share < 0 || d > best {
			best, share = d, i
		}
		free[i] = f
	}
	return best, share
}

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
	k := stateKey{cpu: cpu, model: model, n: int8(len(free))}
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
