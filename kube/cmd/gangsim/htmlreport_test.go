package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	goldenfile "github.com/gangsched/gangsched/internal/golden"
	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/kube/replay/trace"
)

// TestReportData_Golden: the report data adapted from replays of a
// generated day (4 nodes, 40 pods, packing and upstream, a sample every
// 6 h) — percentages, offsets from the start, delays as durations (JSON:
// nanoseconds), the comparison's shares as percentages.
func TestReportData_Golden(t *testing.T) {
	in, err := trace.GenerateDay(trace.Day{Nodes: 4, Pods: 40, Seed: 1})
	require.NoError(t, err)
	var results []*replay.Result
	for _, name := range []string{"packing", "upstream"} {
		pol, _ := replay.LookupPolicy(name)
		r, err := replay.Run(in, replay.Options{Policy: pol, SampleEvery: 6 * time.Hour})
		require.NoError(t, err)
		results = append(results, r)
	}
	d := reportData("day 4x40", results)
	got, err := json.MarshalIndent(d, "", "  ")
	require.NoError(t, err)
	goldenfile.Check(t, filepath.Join("testdata", "report-data-day.golden"), append(got, '\n'))

	// Exact spot checks of the conversions.
	u := results[0].Utilisation[0]
	require.Equal(t, "packing "+u.Name, d.Utilization[0].Name)
	last := u.Samples[len(u.Samples)-1]
	require.Equal(t, last.At.Sub(results[0].Start), d.Utilization[0].Points[len(u.Samples)-1].At)
	require.InDelta(t, 100*last.Value, d.Utilization[0].Points[len(u.Samples)-1].Value, 1e-9)
	require.Equal(t, "%", d.Policies.Metrics[0].Unit)
	require.Equal(t, "upstream", d.Policies.Rows[1].Policy)
}

// TestTraceReportFlag: -report writes one HTML file with the charts'
// options; the same run twice writes the same bytes; -report without
// -trace is refused.
func TestTraceReportFlag(t *testing.T) {
	dir := t.TempDir()
	var pages [2][]byte
	for i := range pages {
		path := filepath.Join(dir, "r.html")
		var out, errb bytes.Buffer
		code := run([]string{"-trace", "day=4x40", "-policy", "packing,upstream", "-report", path}, strings.NewReader(""), &out, &errb, false)
		require.Equal(t, exitWaiting, code, errb.String()) // gangs of 32 never fit 4 nodes
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		pages[i] = b
	}
	require.Equal(t, pages[0], pages[1])
	for _, id := range []string{`id="section-utilization"`, `id="section-delay"`, `id="section-policies"`, `<title>replay of day=4x40: 40 pods on 4 nodes`} {
		require.Contains(t, string(pages[0]), id)
	}
	var out, errb bytes.Buffer
	require.Equal(t, exitInput, run([]string{"-report", filepath.Join(dir, "x.html")}, strings.NewReader(""), &out, &errb, false))
	require.Contains(t, errb.String(), "-report writes a trace replay's report: give -trace")
}
