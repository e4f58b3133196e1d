package trace

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

func inflateInput() replay.Input {
	in := replay.Input{GPU: replay.GPUResource{Name: ResourceGPUMilli, PerGPU: 1000}}
	for _, n := range []string{"a", "b"} {
		in.Nodes = append(in.Nodes, placement.Node{Name: n, Allocatable: placement.ResourceList{placement.ResourceCPU: 64000, ResourceGPUMilli: 4000}})
	}
	for i, m := range []int64{1000, 500, 2000, 0} {
		in.Pods = append(in.Pods, replay.Pod{Pod: placement.Pod{Namespace: "openb", Name: "p" + string(rune('0'+i)), NodeName: "a",
			Requests: placement.ResourceList{placement.ResourceCPU: 1000, ResourceGPUMilli: m}}, Duration: time.Hour})
	}
	return in
}

func gpuSum(in replay.Input) (s int64) {
	for _, p := range in.Pods {
		s += p.Requests[ResourceGPUMilli]
	}
	return s
}

// TestInflate: to 130% of 8 GPUs the workload keeps the 4 pods (3.5
// GPUs) and adds drawn copies while they fit 10.4 GPUs; every pod arrives
// one second after the one before, unbound, never ending; the same seed
// gives the same workload; to 25% it drops pods until 2 GPUs are left.
func TestInflate(t *testing.T) {
	in := inflateInput()
	out, err := Inflate(in, 1.3, 7)
	require.NoError(t, err)
	total := gpuSum(out)
	require.LessOrEqual(t, total, int64(10400))
	require.Greater(t, total, int64(10400-2000), "it stops only when the next draw would overshoot")
	originals := 0
	for i, p := range out.Pods {
		require.Equal(t, Epoch.Add(time.Duration(i)*time.Second), p.QueuedAt)
		require.Zero(t, p.Duration)
		require.Empty(t, p.NodeName)
		if !strings.Contains(p.Name, "-tuned-") {
			originals++
		}
	}
	require.Equal(t, 4, originals)
	again, err := Inflate(in, 1.3, 7)
	require.NoError(t, err)
	require.Equal(t, out, again)
	require.Equal(t, int64(1000), in.Pods[0].Requests[ResourceGPUMilli], "the input is not changed")
	require.Equal(t, "a", in.Pods[0].NodeName)

	down, err := Inflate(in, 0.25, 7)
	require.NoError(t, err)
	require.LessOrEqual(t, gpuSum(down), int64(2000))

	_, err = Inflate(in, 0, 7)
	require.ErrorContains(t, err, "want a positive number")
	in.Nodes = nil
	_, err = Inflate(in, 1.3, 7)
	require.ErrorContains(t, err, "has no")
}
