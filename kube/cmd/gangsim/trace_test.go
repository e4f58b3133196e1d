package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// traceGoldens replay generated days (the research-only traces stay out of
// the repo): packing against kube-scheduler's spreading on 16 nodes, where
// spreading strands GPUs that gangs then wait for; and the PAI machines
// (nodes from the first source) with a day's pods, whose 8-GPU pods need
// more memory than any PAI machine has, so they never start.
var traceGoldens = []golden{
	{"trace-day", []string{"-trace", "day=16x400", "-policy", "packing,upstream"}, exitPlaced},
	{"trace-pai-day", []string{"-trace", "pai=" + td + "clusters/pai/pai_machine_spec.csv", "-trace", "day=1x300", "-sample-every", "6h"}, exitWaiting},
}

func TestGoldenTrace(t *testing.T) {
	checkGoldens(t, traceGoldens)
}

// TestTraceJSON: -o json carries one result per policy, with the series'
// sample times, and the comparison table, a row per policy.
func TestTraceJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-trace", "day=8x100", "-policy", "upstream,packing", "-o", "json"}, strings.NewReader(""), &out, &errb, false)
	require.Equal(t, exitPlaced, code, errb.String())
	var rep TraceReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Len(t, rep.Results, 2)
	require.Equal(t, "upstream", rep.Comparison.Rows[0].Policy)
	require.Equal(t, "packing", rep.Comparison.Rows[1].Policy)
	require.NotEmpty(t, rep.Results[0].Utilisation[0].Samples)
	require.False(t, rep.Results[0].Utilisation[0].Samples[0].At.IsZero())
	require.NotEmpty(t, rep.Results[0].Domains)
}

func TestTraceBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-trace", "openb"}, `-trace "openb": want KIND=PATH`},
		{[]string{"-trace", "slurm=x"}, `unknown kind "slurm"`},
		{[]string{"-trace", "day=many"}, "want NODESxPODS"},
		{[]string{"-trace", "dlrm=/nonexistent.csv"}, "-trace dlrm=/nonexistent.csv: open /nonexistent.csv"},
		{[]string{"-trace", "day=2x2", "-policy", "fastest"}, `unknown policy "fastest": want one or more of bestfit, dotprod, fgd, gpupacking, packing, random, upstream`},
		{[]string{"-trace", "day=2x2", "-f", "x.yaml"}, "-f manifests are for the cycles or -estimate"},
		{[]string{"-trace", "day=2x2", "-o", "yaml"}, "a replay is text or json"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, strings.NewReader(""), &out, &errb, false)
		require.Equal(t, exitInput, code, c.args)
		require.Contains(t, errb.String(), c.want)
		require.Empty(t, out.String())
	}
}

// TestTraceSpeedUp: -speed-up compresses the arrivals (the day ends
// sooner) and says so; a factor below 1 is refused.
func TestTraceSpeedUp(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-trace", "day=8x100", "-speed-up", "4"}, strings.NewReader(""), &out, &errb, false)
	require.Equal(t, exitPlaced, code, errb.String())
	require.Contains(t, out.String(), "replay of 100 pods on 8 nodes, arriving 4 times as fast as in the trace")
	out.Reset()
	code = run([]string{"-trace", "day=8x100", "-speed-up", "0.5"}, strings.NewReader(""), &out, &errb, false)
	require.Equal(t, exitInput, code)
	require.Contains(t, errb.String(), "-speed-up: trace: speed-up 0.5: want a finite factor of at least 1")
}
