package fragment_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

// TestTracker: a 300 share bound to a 3-GPU node leaves 700, 1000, 1000;
// under nodeC's workload the whole GPU cannot use the 700 and the 200
// share can use everything: (0 + 700)/2 = 350 milli unusable of 2,700
// idle. Its end gives the devices back.
func TestTracker(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{gpuNode("n1", 8000, 3)}, nil)
	require.NoError(t, err)
	devs, err := NewDevices([]NodeGPUs{{"n1", "G2", 3}})
	require.NoError(t, err)
	tr := NewTracker(devs, BestFit{})
	p := gpuPod("p", 1000, 300)
	require.NoError(t, tr.Bound(&p, "n1", 8000))
	require.EqualError(t, tr.Bound(&p, "n1", 8000), `fragment: pod "default/p": bound twice`)
	_, free, _ := tr.Devices().Node("n1")
	require.Equal(t, []int64{700, 1000, 1000}, free)
	frag, idle := tr.Fragmentation(s, cWorkload(t))
	require.Equal(t, 350.0, frag)
	require.Equal(t, int64(2700), idle)

	require.NoError(t, tr.Ended(p.Key()))
	require.NoError(t, tr.Ended(p.Key()), "a pod it does not hold is ignored")
	frag, idle = tr.Fragmentation(s, cWorkload(t))
	require.Zero(t, frag)
	require.Equal(t, int64(3000), idle)

	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []placement.Pod{gpuPod("q", 1000, 2000)}}
	d, err := placement.Solve(s, g, tr.Configure(placement.Options{}))
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
}
