package trace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/replay"
)

// openbDir is the openb trace (research use only, never in the repo):
// $GANGSCHED_OPENB, else ../shared/data beside the work tree.
func openbDir(tb testing.TB) string {
	dir := os.Getenv("GANGSCHED_OPENB")
	if dir == "" {
		dir = "/work/shared/data/alibaba-openb-gpu-v2023"
	}
	if _, err := os.Stat(filepath.Join(dir, "csv", "openb_pod_list_default.csv")); err != nil {
		tb.Skipf("openb trace not found (%v): set GANGSCHED_OPENB to its folder", err)
	}
	return dir
}

// TestOpenB_Replay replays the whole openb trace (1,523 nodes, 8,152
// pods) with each built-in policy: every pod that fits some node starts.
func TestOpenB_Replay(t *testing.T) {
	in, err := ReadOpenBDir(openbDir(t), "default")
	require.NoError(t, err)
	require.Len(t, in.Nodes, 1523)
	require.Len(t, in.Pods, 8152)
	for _, pol := range replay.Policies() {
		r, err := replay.Run(in, replay.Options{Policy: pol})
		require.NoError(t, err)
		t.Logf("%s: %d cycles, %d groups waiting, delay p50 %.0fs p99 %.0fs, stranded GPUs max %v", pol.Name, r.Cycles, r.GroupsWaiting, r.Delay.P50, r.Delay.P99, maxOf(r.StrandedGPUs))
		require.Len(t, r.Groups, 8152)
	}
}

func maxOf(s replay.Series) float64 {
	m := 0.0
	for _, x := range s.Samples {
		m = max(m, x.Value)
	}
	return m
}
