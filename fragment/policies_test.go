package fragment_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/fragment"
)

// TestBaselines_OnNodeA: a 500-milli share with 2 cores on nodeA, scored
// by hand. Best fit: leftover (6000/128000 + 1400/8000)/2 = 0.1109…,
// 88.9 → 88. Dot product: (8000·2000/128000² + 1900·500/8000²)/2 =
// 0.0079…, 99.2 → 99. Packing: the fullest device that holds it has 600
// free, 60 % → 100 − 6. All three put the share on device 3, the best fit.
func TestBaselines_OnNodeA(t *testing.T) {
	share := Request{CPU: 2000, GPUMilli: 500, GPUs: 1}
	for _, c := range []struct {
		p     Policy
		score int64
	}{
		{BestFit{}, 88},
		{DotProduct{}, 99},
		{GPUPacking{}, 94},
	} {
		sc, dev := c.p.Score("default/p", nodeA(), share)
		require.Equal(t, c.score, sc, "%T", c.p)
		require.Equal(t, 3, dev, "%T", c.p)
	}
}

// TestGPUPacking_Tiers: shares of used devices beat fully free devices
// of a used node, which beat an idle node (fewer devices first); CPU-only
// pods score 0 everywhere.
func TestGPUPacking_Tiers(t *testing.T) {
	whole := Request{CPU: 1000, GPUMilli: 1000, GPUs: 1}
	idle8 := &NodeState{CPUFree: 8000, Model: "G2", Free: []int64{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}}
	idle2 := &NodeState{CPUFree: 8000, Model: "G2", Free: []int64{1000, 1000}}
	for _, c := range []struct {
		name string
		n    *NodeState
		r    Request
		want int64
	}{
		{"share on a used device (600 free)", nodeA(), Request{CPU: 1000, GPUMilli: 500, GPUs: 1}, 94},
		{"whole GPU on a used node", nodeA(), whole, 49},
		{"idle node of 2 GPUs", idle2, whole, 31},
		{"idle node of 8 GPUs", idle8, whole, 25},
		{"CPU-only pod", nodeA(), Request{CPU: 1000}, 0},
	} {
		sc, _ := GPUPacking{}.Score("default/p", c.n, c.r)
		require.Equal(t, c.want, sc, c.name)
	}
}

// nodeC: devices with 1000, 700 and 550 free. Under a workload of one
// 200-milli share and one whole GPU its fragmentation (per workload pod
// count) is 1,250: the whole GPU cannot use 700+550. A 500 share on
// device 0 leaves no whole GPU (1,750, growth 500); on device 1 it leaves
// 1000, 200, 550 (750: shrinks by 500); on device 2 1000, 700, 50 (800:
// shrinks by 450). Per workload pod that is −0.25, +0.25 and +0.225 GPUs,
// scores ⌊100·sigmoid⌋ 43, 56 and 55: FGD takes device 1; best fit would
// take device 2.
func nodeC() *NodeState {
	return &NodeState{Name: "c", CPUFree: 8000, Model: "G2", Free: []int64{1000, 700, 550}}
}

func cWorkload(t *testing.T) *Workload {
	w, err := NewWorkload([]Request{{CPU: 1000, GPUMilli: 200, GPUs: 1}, {CPU: 1000, GPUMilli: 1000, GPUs: 1}}, 100)
	require.NoError(t, err)
	return w
}

func TestFGD_OnNodeC(t *testing.T) {
	fgd := NewFGD(cWorkload(t))
	share := Request{CPU: 1000, GPUMilli: 500, GPUs: 1}
	for range 2 { // the second time from the memo
		sc, dev := fgd.Score("default/p", nodeC(), share)
		require.Equal(t, int64(56), sc)
		require.Equal(t, 1, dev)
	}
	_, dev := BestFit{}.Score("default/p", nodeC(), share)
	require.Equal(t, 2, dev)
	// On an idle node of two GPUs the share leaves 500, which the whole
	// GPU cannot use: −0.25 GPUs per workload pod, 43.
	sc, dev := fgd.Score("default/p", &NodeState{CPUFree: 8000, Model: "G2", Free: []int64{1000, 1000}}, share)
	require.Equal(t, int64(43), sc)
	require.Equal(t, 0, dev)
	// A whole GPU takes device 0 and leaves 700 and 550, which the whole
	// GPU of the workload could not use before either and the share
	// still can: no growth, sigmoid(0) = 0.5.
	sc, dev = fgd.Score("default/p", nodeC(), Request{CPU: 1000, GPUMilli: 1000, GPUs: 1})
	require.Equal(t, int64(50), sc)
	require.Equal(t, -1, dev)
}

// TestRandom: the same pod and node always draw the same, and 2,000 pods
// spread over four equal nodes about evenly (each between 400 and 600).
func TestRandom(t *testing.T) {
	p := Random{Seed: 7}
	nodes := []*NodeState{{Name: "n0"}, {Name: "n1"}, {Name: "n2"}, {Name: "n3"}}
	a, _ := p.Score("default/x", nodes[0], Request{})
	b, _ := p.Score("default/x", nodes[0], Request{})
	require.Equal(t, a, b)
	hits := make([]int, len(nodes))
	for i := range 2000 {
		best, bestScore := 0, int64(-1)
		for k, n := range nodes {
			if sc, _ := p.Score(fmt.Sprintf("default/p%d", i), n, Request{}); sc > bestScore {
				best, bestScore = k, sc
			}
		}
		hits[best]++
	}
	for k, h := range hits {
		require.True(t, h > 400 && h < 600, "node %d drawn %d of 2000 times", k, h)
	}
	_, dev := p.Score("default/x", nodeA(), Request{CPU: 1, GPUMilli: 500, GPUs: 1})
	require.Contains(t, []int{0, 3}, dev, "a device with room")
}
