package fragment_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/fragment"
)

func drawRequest(t *rapid.T, label string) Request {
	r := Request{CPU: int64(rapid.IntRange(0, 8).Draw(t, label+"cpu")) * 1000}
	switch rapid.IntRange(0, 2).Draw(t, label+"kind") {
	case 1:
		r.GPUs, r.GPUMilli = 1, int64(rapid.IntRange(1, 9).Draw(t, label+"milli"))*100
	case 2:
		r.GPUs, r.GPUMilli = rapid.IntRange(1, 4).Draw(t, label+"gpus"), MilliGPU
	}
	return r
}

func drawNode(t *rapid.T) *NodeState {
	free := rapid.SliceOfN(rapid.SampledFrom([]int64{0, 200, 500, 700, 1000}), 0, 4).Draw(t, "free")
	return &NodeState{Name: "n", CPUFree: int64(rapid.IntRange(0, 8).Draw(t, "cpuFree")) * 1000, Model: "T4", Free: free}
}

// TestProp_Fragmentation: a node's unusable GPU milli is never more than
// its free milli, nor its expectation; and FGD scores a pod 50 or more
// exactly when placing it (on the devices it picks) does not grow the
// node's expected fragmentation.
func TestProp_Fragmentation(t *testing.T) {
	grew, shrank := 0, 0 // the generator must yield both
	prop := func(t *rapid.T) {
		var pods []Request
		for i := range rapid.IntRange(1, 4).Draw(t, "shapes") {
			pods = append(pods, drawRequest(t, fmt.Sprint("w", i)))
		}
		w, err := NewWorkload(pods, 100)
		require.NoError(t, err)
		n := drawNode(t)
		var total int64
		for _, f := range n.Free {
			total += f
		}
		for _, m := range pods {
			u := Unusable(n, m)
			require.True(t, u >= 0 && u <= total, "Unusable %d of %d free", u, total)
		}
		require.LessOrEqual(t, w.Expected(n), float64(total))

		r := drawRequest(t, "pod")
		room := 0
		for _, f := range n.Free {
			if f >= r.GPUMilli {
				room++
			}
		}
		if n.CPUFree < r.CPU || (r.GPUs > 0 && room < r.GPUs) {
			t.Skip("does not fit")
		}
		sc, share := NewFGD(w).Score("default/p", n, r)
		next := &NodeState{CPUFree: n.CPUFree - r.CPU, Model: n.Model, Free: slices.Clone(n.Free)}
		switch {
		case r.Shared():
			require.GreaterOrEqual(t, n.Free[share], r.GPUMilli, "the share's device holds it")
			next.Free[share] -= r.GPUMilli
		case r.GPUs > 0:
			for i, left := 0, r.GPUs; left > 0; i++ {
				if next.Free[i] == MilliGPU {
					next.Free[i], left = 0, left-1
				}
			}
		}
		notWorse := w.Expected(next) <= w.Expected(n)
		require.Equal(t, notWorse, sc >= 50, "score %d, fragmentation %g → %g", sc, w.Expected(n), w.Expected(next))
		if notWorse {
			shrank++
		} else {
			grew++
		}
	}
	// One run of 100 cases has about 9 that make fragmentation worse
	// (measured over 30 runs), so it misses them about once in 7,000; run
	// again (at most 20 rounds) until both were seen.
	for round := 0; round < 20 && (grew == 0 || shrank == 0); round++ {
		rapid.Check(t, prop)
	}
	require.Positive(t, grew)
	require.Positive(t, shrank)
}
