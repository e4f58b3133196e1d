package replay

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func gpuNode(name string, gpus int64) placement.Node {
	return placement.Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name},
		Allocatable: placement.ResourceList{placement.ResourceCPU: 32000, placement.ResourceGPU: gpus, placement.ResourcePods: 110}}
}

func gpuPod(name, group string, gpus int64, at time.Time, d time.Duration) Pod {
	return Pod{Pod: placement.Pod{Namespace: "default", Name: name, SchedulingGroup: group, QueuedAt: at,
		Requests: placement.ResourceList{placement.ResourceCPU: 1000, placement.ResourceGPU: gpus}}, Duration: d}
}

func gangGroup(name string, minCount int32) *gang.PodGroup {
	return &gang.PodGroup{ObjectMeta: gang.ObjectMeta{Namespace: "default", Name: name},
		Spec: gang.PodGroupSpec{SchedulingPolicy: gang.SchedulingPolicy{Gang: &gang.GangSchedulingPolicy{MinCount: minCount}}}}
}

// A gang of two 4-GPU pods cannot start while the old pod holds n1 (for
// another hour); a lone 4-GPU pod arriving a minute later takes n2 at once
// (nothing reserves it for the gang, as in kube-scheduler), so the gang
// starts when the lone pod ends, at 1h01m, on both nodes.
func TestRun_GangWaitsForEnd(t *testing.T) {
	running := gpuPod("old", "", 4, t0.Add(-time.Hour), 2*time.Hour)
	running.NodeName, running.StartTime = "n1", t0.Add(-time.Hour)
	in := Input{
		Nodes:     []placement.Node{gpuNode("n1", 4), gpuNode("n2", 4)},
		PodGroups: []*gang.PodGroup{gangGroup("g", 2)},
		Pods: []Pod{running,
			gpuPod("g-0", "g", 4, t0, 30*time.Minute), gpuPod("g-1", "g", 4, t0, 3*time.Hour),
			gpuPod("late", "", 4, t0.Add(time.Minute), time.Hour)},
	}
	r, err := Run(in, Options{})
	require.NoError(t, err)
	require.Len(t, r.Groups, 3)
	g := r.Groups[0]
	require.Equal(t, "default/g", g.Name)
	require.True(t, g.Started)
	require.Equal(t, t0.Add(61*time.Minute), g.Start)
	require.Equal(t, []string{"n1", "n2"}, g.Nodes)
	late := r.Groups[1]
	require.Equal(t, "default/late", late.Name)
	require.Equal(t, t0.Add(time.Minute), late.Start)
	require.Equal(t, []string{"n2"}, late.Nodes)
	require.Equal(t, t0.Add(4*time.Hour+time.Minute), r.End)
	require.Equal(t, []float64{0, 3660}, r.Delay.Seconds)
	// The gang at 0, the lone pod at 1m, the gang at 1h01m: at 1h only n1 is
	// free, one slot of the two the gang needs, so it is not woken then.
	require.Equal(t, 3, r.Cycles)
}
