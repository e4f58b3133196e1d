package trace

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/replay"
)

// A generated day on 64 nodes with 2,000 pods: the same Day is the same
// input; the cluster saturates, so groups queue, and every group that can
// fit an empty cluster starts by the end.
func TestGenerateDay(t *testing.T) {
	d := Day{Nodes: 64, Pods: 2000, Seed: 1}
	in, err := GenerateDay(d)
	require.NoError(t, err)
	again, err := GenerateDay(d)
	require.NoError(t, err)
	require.Equal(t, in, again)
	require.Len(t, in.Pods, 2000)
	r, err := replay.Run(in, replay.Options{Preemption: true})
	require.NoError(t, err)
	require.Zero(t, r.GroupsWaiting)
	require.Greater(t, r.Delay.P99, 60.0, "the day should queue")
	require.Greater(t, r.End.Sub(Epoch), 24*time.Hour)
	_, err = GenerateDay(Day{Nodes: 0, Pods: 1})
	require.ErrorContains(t, err, "want 1 to 1,000,000 nodes")
}
