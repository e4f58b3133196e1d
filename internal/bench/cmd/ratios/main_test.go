package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
)

// TestRatios_Golden runs the command on a fixture of go test -bench
// output (several counts, a custom metric, a log line, a workload without
// a floor; CPU times other than the wall times, the floors' at another
// share of them than the decisions') and compares with the golden tables:
// read from cpu-ns/op by default, from ns/op with -unit ns/op.
func TestRatios_Golden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"bench.golden", nil},
		{"bench-wall.golden", []string{"-unit", "ns/op"}},
		{"bench-sorted.golden", []string{"-sort", "ratio", "-extra", "steps,heuristic"}},
		{"bench-match.golden", []string{"-match", "n=1000/,tree"}},
		{"bench-grid.golden", []string{"-grid", "-match", "n="}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, run(append(c.args, filepath.Join("testdata", "bench.txt")), nil, &out))
			golden.Check(t, filepath.Join("testdata", c.golden), out.Bytes())
		})
	}
}

func TestRatios_BeforeAfter(t *testing.T) {
	dir := t.TempDir()
	before := filepath.Join(dir, "before.txt")
	require.NoError(t, os.WriteFile(before, []byte(`BenchmarkDecision/w-2 1 400 ns/op 10 B/op 1 allocs/op
BenchmarkFloor/w-2 1 40 ns/op 0 B/op 0 allocs/op
`), 0o644))
	var out bytes.Buffer
	in := strings.NewReader(`BenchmarkDecision/w-2 1 100 ns/op 20 B/op 2 allocs/op
BenchmarkFloor/w-2 1 50 ns/op 0 B/op 0 allocs/op
BenchmarkDecision/new-2 1 30 ns/op 3 B/op 1 allocs/op
`)
	require.NoError(t, run([]string{"-unit", "ns/op", "-before", before}, in, &out))
	require.Contains(t, out.String(), "| w | 400 | 100 | 4.0× | 10 | 2.0 | 20 | 2 |")
	require.Contains(t, out.String(), "| new | — | 30 | — | — | — | 3 | 1 |", "a workload the before run lacks")
	require.Error(t, run([]string{"-unit", "ns/op", "-before", filepath.Join(dir, "missing.txt")}, strings.NewReader("BenchmarkDecision/w-2 1 1 ns/op\n"), &out))
}

func TestRatios_MedianAndRatio(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader(`BenchmarkDecision/w-2 1 300 ns/op 10 B/op 1 allocs/op
BenchmarkDecision/w-2 1 100 ns/op 30 B/op 1 allocs/op
BenchmarkDecision/w-2 1 200 ns/op 20 B/op 1 allocs/op
BenchmarkFloor/w-2 1 40 ns/op 0 B/op 0 allocs/op
BenchmarkFloor/w-2 1 60 ns/op 0 B/op 0 allocs/op
`)
	require.NoError(t, run([]string{"-unit", "ns/op"}, in, &out))
	require.Contains(t, out.String(), "| w | 200 | 50 | 4.0 | 20 | 1 |")
}

func TestRatios_Errors(t *testing.T) {
	var out bytes.Buffer
	require.ErrorContains(t, run(nil, strings.NewReader("PASS\n"), &out), "no BenchmarkDecision lines")
	require.ErrorContains(t, run([]string{"-sort", "name"}, strings.NewReader(""), &out), "want ratio")
	require.ErrorContains(t, run(nil, strings.NewReader("BenchmarkDecision/w-2 1 x ns/op\n"), &out), `value "x"`)
	require.ErrorContains(t, run(nil, strings.NewReader("BenchmarkDecision/w-2 1 5 ns/op\n"), &out), "-unit ns/op reads the wall time", "an old run without CPU times")
	require.Error(t, run([]string{"testdata/missing.txt"}, nil, &out))
	require.ErrorContains(t, run([]string{"-grid", "testdata/bench.txt"}, nil, &out), "fewer than three")
	out.Reset()
	require.NoError(t, run([]string{"-unit", "ns/op"}, strings.NewReader("BenchmarkDecision/w-2 1 5 B/op\nBenchmarkFloor/w-2 1 0 ns/op\n"), &out))
	require.Contains(t, out.String(), "| w | — | 0 | — | 5 | — |", "missing figures are dashes")
}

func TestFormatRatio(t *testing.T) {
	for x, want := range map[float64]string{0.364: "0.36", 4.63: "4.6", 24.4: "24", 153: "150", 2712: "2,700", 1e6: "1,000,000",
		9.96: "10", 0.996: "1.0", 0.0996: "0.10", 99.6: "100", 0.054: "0.05"} {
		require.Equal(t, want, formatRatio(x), "%v", x)
	}
}

// FuzzRatios: any input gives tables or an error, never a panic.
func FuzzRatios(f *testing.F) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "bench.txt"))
	require.NoError(f, err)
	f.Add(fixture)
	f.Add([]byte("BenchmarkDecision/w-2 1 5 B/op\nBenchmarkFloor/w-2 1 0 ns/op\n"))
	f.Add([]byte("BenchmarkDecision/a/b/c-2 1 NaN ns/op\nBenchmarkFloor/a/b/c 1 -Inf ns/op\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, args := range [][]string{nil, {"-grid"}, {"-grid", "-answer"}, {"-sort", "ratio", "-extra", "x"}} {
			var out bytes.Buffer
			_ = run(args, bytes.NewReader(in), &out)
		}
	})
}

// TestRatios_Unit reads times from cpu-ns/op unless -unit says ns/op: the
// ratio and the header follow it, and a benchmark without the metric is
// an error naming it.
func TestRatios_Unit(t *testing.T) {
	var out bytes.Buffer
	in := `BenchmarkDecision/w-2 1 900 ns/op 300 cpu-ns/op 10 B/op 1 allocs/op
BenchmarkFloor/w-2 1 100 ns/op 100 cpu-ns/op 0 B/op 0 allocs/op
`
	require.NoError(t, run(nil, strings.NewReader(in), &out))
	require.Contains(t, out.String(), "| workload | decision cpu-ns/op | floor cpu-ns/op |")
	require.Contains(t, out.String(), "| w | 300 | 100 | 3.0 | 10 | 1 |")
	out.Reset()
	require.NoError(t, run([]string{"-unit", "ns/op"}, strings.NewReader(in), &out))
	require.Contains(t, out.String(), "| workload | decision ns/op | floor ns/op |")
	require.Contains(t, out.String(), "| w | 900 | 100 | 9.0 | 10 | 1 |")
	err := run([]string{"-unit", "cpu-ns/op"}, strings.NewReader(in+"BenchmarkFloor/x-2 1 5 ns/op\n"), &out)
	require.ErrorContains(t, err, "BenchmarkFloor/x does not report it")
}

// TestRatios_Answer: -grid -answer prints (answer + floor) / floor by the
// workload's member count, a dash where no BenchmarkMemberAnswer line has
// that count, and asks for -grid.
func TestRatios_Answer(t *testing.T) {
	in := `BenchmarkDecision/n=1/p=8/rack/empty-2 1 900 ns/op
BenchmarkFloor/n=1/p=8/rack/empty-2 1 100 ns/op
BenchmarkDecision/n=1/p=64/rack/empty-2 1 900 ns/op
BenchmarkFloor/n=1/p=64/rack/empty-2 1 100 ns/op
BenchmarkMemberAnswer/p=8-2 1 150 ns/op
BenchmarkMemberAnswer/p=8-2 1 250 ns/op
BenchmarkMemberAnswer/p=8-2 1 350 ns/op
`
	var out bytes.Buffer
	require.NoError(t, run([]string{"-unit", "ns/op", "-grid", "-answer"}, strings.NewReader(in), &out))
	require.Equal(t, `| (answer+floor)/floor, ns/op | rack/empty |
|---|---:|
| n=1/p=8 | 3.5 |
| n=1/p=64 | — |
`, out.String())
	require.ErrorContains(t, run([]string{"-answer"}, strings.NewReader(in), &out), "go with -grid")

	out.Reset()
	podSet := strings.ReplaceAll(in, "/n=1/", "/podset/n=1/")
	require.NoError(t, run([]string{"-unit", "ns/op", "-grid", "-answer"}, strings.NewReader(podSet), &out))
	require.Contains(t, out.String(), "| podset/n=1/p=8 | — |", "a pod set is not answered member by member")
}

// TestRatios_Answered: -grid -answered prints decision / (floor + the
// workload's BenchmarkResizeAnswer), medians, a dash where the workload
// has none, and refuses -answer beside it.
func TestRatios_Answered(t *testing.T) {
	in := `BenchmarkDecision/elastic/n=1/p=8/rack/empty-2 1 900 ns/op
BenchmarkDecision/elastic/n=1/p=8/rack/empty-2 1 600 ns/op
BenchmarkDecision/elastic/n=1/p=8/rack/empty-2 1 300 ns/op
BenchmarkFloor/elastic/n=1/p=8/rack/empty-2 1 100 ns/op
BenchmarkResizeAnswer/elastic/n=1/p=8/rack/empty-2 1 200 ns/op
BenchmarkResizeAnswer/elastic/n=1/p=8/rack/empty-2 1 100 ns/op
BenchmarkResizeAnswer/elastic/n=1/p=8/rack/empty-2 1 900 ns/op
BenchmarkDecision/elastic/n=1/p=64/rack/empty-2 1 900 ns/op
BenchmarkFloor/elastic/n=1/p=64/rack/empty-2 1 100 ns/op
`
	var out bytes.Buffer
	require.NoError(t, run([]string{"-unit", "ns/op", "-grid", "-answered"}, strings.NewReader(in), &out))
	require.Equal(t, `| decision/(floor+answer), ns/op | rack/empty |
|---|---:|
| elastic/n=1/p=8 | 2.0 |
| elastic/n=1/p=64 | — |
`, out.String())
	require.ErrorContains(t, run([]string{"-answered"}, strings.NewReader(in), &out), "go with -grid")
	out.Reset()
	plan := strings.ReplaceAll(strings.ReplaceAll(in, "ResizeAnswer", "PlanAnswer"), "elastic/", "podset/plan/")
	require.NoError(t, run([]string{"-unit", "ns/op", "-grid", "-answered"}, strings.NewReader(plan), &out))
	require.Contains(t, out.String(), "| podset/plan/n=1/p=8 | 2.0 |", "a plan's answer is read too")
	require.ErrorContains(t, run([]string{"-grid", "-answer", "-answered"}, strings.NewReader(in), &out), "pick one")
}

// TestRatios_UnitOfOthers: -unit asks only the benchmarks the tables read
// for the metric; another benchmark without it (an old run's
// BenchmarkMemberInput) is no error.
func TestRatios_UnitOfOthers(t *testing.T) {
	var out bytes.Buffer
	in := `BenchmarkDecision/w-2 1 900 ns/op 300 cpu-ns/op
BenchmarkFloor/w-2 1 100 ns/op 100 cpu-ns/op
BenchmarkMemberInput/p=8-2 1 100 ns/op
`
	require.NoError(t, run([]string{"-unit", "cpu-ns/op"}, strings.NewReader(in), &out))
	require.Contains(t, out.String(), "| w | 300 | 100 | 3.0 |")
	err := run([]string{"-unit", "cpu-ns/op"}, strings.NewReader(in+"BenchmarkMemberAnswer/p=8-2 1 100 ns/op\n"), &out)
	require.ErrorContains(t, err, "BenchmarkMemberAnswer/p=8 does not report it")
}
