package fragment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/fragment"
)

// nodeA: 8 cores free, a T4 node whose four devices have 1000, 300, 0 and
// 600 milli free (1,900 in all).
func nodeA() *NodeState {
	return &NodeState{Name: "a", CPUFree: 8000, Model: "T4", Free: []int64{1000, 300, 0, 600}}
}

// TestUnusable: the paper's F_n(m) on nodeA, computed by hand.
func TestUnusable(t *testing.T) {
	for _, c := range []struct {
		name string
		m    Request
		want int64
	}{
		{"no GPU: every free GPU milli is unusable", Request{CPU: 2000}, 1900},
		{"a 500 share fits on device 0 or 3: 300 and 0 are too small", Request{CPU: 2000, GPUMilli: 500, GPUs: 1}, 300},
		{"one whole GPU fits on device 0: the partial devices are unusable", Request{CPU: 2000, GPUMilli: 1000, GPUs: 1}, 900},
		{"two whole GPUs do not fit: all", Request{CPU: 2000, GPUMilli: 1000, GPUs: 2}, 1900},
		{"short of CPU: all", Request{CPU: 9000, GPUMilli: 500, GPUs: 1}, 1900},
		{"a model the node lacks: all", Request{CPU: 1000, GPUMilli: 200, GPUs: 1, Models: "V100M16"}, 1900},
		{"a model list naming the node's: only the empty device", Request{CPU: 1000, GPUMilli: 200, GPUs: 1, Models: "P100|T4"}, 0},
	} {
		require.Equal(t, c.want, Unusable(nodeA(), c.m), c.name)
	}
	require.Zero(t, Unusable(&NodeState{CPUFree: 8000}, Request{CPU: 1000}), "a node without GPUs has nothing to fragment")
}

// TestWorkload_Expected: two 500 shares, one whole GPU and one CPU-only
// pod on nodeA: (2·300 + 900 + 1900)/4 = 850 milli.
func TestWorkload_Expected(t *testing.T) {
	share := Request{CPU: 2000, GPUMilli: 500, GPUs: 1}
	w, err := NewWorkload([]Request{share, {CPU: 2000, GPUMilli: 1000, GPUs: 1}, share, {CPU: 2000}}, 100)
	require.NoError(t, err)
	require.Equal(t, 850.0, w.Expected(nodeA()))
	require.Equal(t, []Shape{{share, 2}, {Request{CPU: 2000}, 1}, {Request{CPU: 2000, GPUMilli: 1000, GPUs: 1}, 1}}, w.Shapes(),
		"by count, then by CPU, GPU milli")
}

// TestNewWorkload_Coverage: of ten pods in shapes of 6, 3 and 1, coverage
// 60 keeps the first shape, 61–90 the first two, above 90 all three.
func TestNewWorkload_Coverage(t *testing.T) {
	var pods []Request
	for i, n := range []int{6, 3, 1} {
		for range n {
			pods = append(pods, Request{CPU: int64(1000 * (i + 1))})
		}
	}
	for cov, want := range map[int]int{1: 1, 60: 1, 61: 2, 90: 2, 91: 3, 100: 3} {
		w, err := NewWorkload(pods, cov)
		require.NoError(t, err)
		require.Len(t, w.Shapes(), want, "coverage %d", cov)
	}
}

// TestNewWorkload_Errors: bad input names the field.
func TestNewWorkload_Errors(t *testing.T) {
	_, err := NewWorkload([]Request{{CPU: 1}}, 0)
	require.EqualError(t, err, "fragment: workload: coverage: 0 is outside 1–100")
	_, err = NewWorkload(nil, 95)
	require.EqualError(t, err, "fragment: workload: pods: 0, want 1–4294967296")
	_, err = NewWorkload([]Request{{CPU: 1}, {GPUMilli: 500, GPUs: 2}}, 95)
	require.EqualError(t, err, "fragment: workload pod 1: gpu milli: 500 of 2 GPUs: a fraction is of one GPU only")
}
