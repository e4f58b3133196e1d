package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Kueue's first pass then its second, as a user runs them
// (kueue-workloads/delayed-topology.yaml's header): the first run's -o
// yaml holds train's and infer's quota without a topology and reads back
// unchanged; with dws set Ready by hand and the nodes its
// ProvisioningRequest brought up added, the next run's second pass places
// train on the new rack b2-r1 and infer in b1-r1, and that output is a
// fixed point too, under either topology profile.
func TestKueueFirstPassThenSecondPass(t *testing.T) {
	for _, prof := range []string{"gangsched", "kueue"} {
		t.Run(prof, func(t *testing.T) {
			flags := []string{"-topology-profile", prof}
			first, code := yamlRun("", append(flags, "-f", kw+"delayed-topology.yaml")...)
			require.Equal(t, exitWaiting, code, first)
			require.Equal(t, 2, strings.Count(first, "delayedTopologyRequest: Pending"), first)
			checkFixedPoint(t, first, code, flags...)

			ready := strings.ReplaceAll(first, "state: Pending", "state: Ready")
			got := kueueResultsOfStdin(t, ready, append(flags, "-f", "-", "-f", kw+"delayed-topology-nodes.yaml"))
			require.Equal(t, "Admitted", got["default/train"].Action, got["default/train"].Message)
			require.Equal(t, "Admitted", got["default/infer"].Action, got["default/infer"].Message)
			require.Equal(t, map[string]int32{"b2-r1-h1": 4, "b2-r1-h2": 4}, nodesOf(got["default/train"]))
			require.Equal(t, map[string]int32{"b1-r1-h1": 1, "b1-r1-h2": 1}, nodesOf(got["default/infer"]))

			second, code := yamlRun(ready, append(flags, "-f", "-", "-f", kw+"delayed-topology-nodes.yaml")...)
			require.Equal(t, exitPlaced, code, second)
			require.Equal(t, 2, strings.Count(second, "delayedTopologyRequest: Ready"), second)
			checkFixedPoint(t, second, code, flags...)
		})
	}
}

// nodesOf sums r's pods per node over its pod sets.
func nodesOf(r KueueResult) map[string]int32 {
	out := map[string]int32{}
	for _, ps := range r.PodSets {
		for _, n := range ps.Nodes {
			out[n.Node] += n.Count
		}
	}
	return out
}

// kueueResultsOfStdin runs gangsim -o json with args on stdin and returns
// its Kueue results by Workload (namespace/name).
func kueueResultsOfStdin(t *testing.T, stdin string, args []string) map[string]KueueResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"-o", "json"}, args...), strings.NewReader(stdin), &out, &errb, false)
	require.Contains(t, []int{exitPlaced, exitWaiting}, code, "stderr: %s", errb.String())
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	got := map[string]KueueResult{}
	for _, r := range rep.Kueue {
		got[r.Workload] = r
	}
	return got
}
