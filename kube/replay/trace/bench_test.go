package trace

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/replay"
)

// BenchmarkReplayDay replays a generated day (GenerateDay) with packing:
// the target is 10,000 nodes and 100,000 pods in under a minute;
// the smaller days show how the cost grows. Generating the input is
// timed apart (BenchmarkGenerateDay).
func BenchmarkReplayDay(b *testing.B) {
	for _, d := range []Day{{Nodes: 1000, Pods: 10_000, Seed: 1}, {Nodes: 10_000, Pods: 100_000, Seed: 1}} {
		in, err := GenerateDay(d)
		require.NoError(b, err)
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", d.Nodes, d.Pods), func(b *testing.B) {
			for b.Loop() {
				r, err := replay.Run(in, replay.Options{})
				require.NoError(b, err)
				require.Positive(b, r.Cycles)
			}
		})
	}
}

// BenchmarkGenerateDay is the input side of BenchmarkReplayDay.
func BenchmarkGenerateDay(b *testing.B) {
	for b.Loop() {
		in, err := GenerateDay(Day{Nodes: 10_000, Pods: 100_000, Seed: 1})
		require.NoError(b, err)
		require.Len(b, in.Pods, 100_000)
	}
}

// BenchmarkReplayOpenB replays the whole openb trace (1,523 nodes, 8,152
// pods; research use only, skipped without it) under each built-in
// policy; the target is under 2 s each. BenchmarkReadOpenB is the
// time to parse it.
func BenchmarkReplayOpenB(b *testing.B) {
	in, err := ReadOpenBDir(openbDir(b), "default")
	require.NoError(b, err)
	for _, pol := range replay.Policies() {
		b.Run("policy="+pol.Name, func(b *testing.B) {
			for b.Loop() {
				r, err := replay.Run(in, replay.Options{Policy: pol})
				require.NoError(b, err)
				require.Len(b, r.Groups, 8152)
			}
		})
	}
}

func BenchmarkReadOpenB(b *testing.B) {
	dir := openbDir(b)
	for b.Loop() {
		in, err := ReadOpenBDir(dir, "default")
		require.NoError(b, err)
		require.Len(b, in.Pods, 8152)
	}
}
