package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A Workload admitted by the second pass loses node b2-r1-h1 (gone) and
// finds no replacement: evicted (NodeFailures), its check dws goes back
// to Pending as every Kueue eviction resets the checks (v0.17
// workload.Evict), so the first pass that readmits it in the same run
// waits for a new ProvisioningRequest, not a second pass on the old one.
func TestKueueNodeFailureEvictionResetsChecks(t *testing.T) {
	first, code := yamlRun("", "-f", kw+"delayed-topology.yaml")
	require.Equal(t, exitWaiting, code, first)
	ready := strings.ReplaceAll(first, "state: Pending", "state: Ready")
	second, code := yamlRun(ready, "-f", "-", "-f", kw+"delayed-topology-nodes.yaml")
	require.Equal(t, exitPlaced, code, second)

	var docs []string
	for _, d := range strings.Split(second, "\n---\n") {
		if !strings.Contains(d, "kind: Node\n") || !strings.Contains(d, "name: b2-r1-h1\n") {
			docs = append(docs, d)
		}
	}
	require.Len(t, docs, strings.Count(second, "\n---\n"), "one Node removed")
	lost := strings.Join(docs, "\n---\n")

	got := kueueResultsOfStdin(t, lost, []string{"-f", "-"})
	train := got["default/train"]
	require.Equal(t, "AwaitingChecks", train.Action, train.Message)
	require.Contains(t, train.Message, "no replacement for unhealthy node(s): b2-r1-h1")
	require.Contains(t, train.Message, "waiting for admission check(s) dws to be Ready")
	require.Equal(t, "Kept", got["default/infer"].Action)

	out, code := yamlRun(lost, "-f", "-")
	require.Equal(t, exitWaiting, code, out)
	require.Contains(t, out, "Reset to Pending after eviction. Previously: Ready")
}

// A preempted Workload's checks are reset too (Kueue's preemptor evicts
// with workload.Evict): b-big of kueue-workloads/preemption.yaml, its
// ClusterQueue given an AdmissionCheck its status lists Ready, goes back
// to Pending when a-high preempts it.
func TestKueuePreemptionResetsChecks(t *testing.T) {
	b, err := os.ReadFile(kw + "preemption.yaml")
	require.NoError(t, err)
	y := string(b)
	for _, e := range [][2]string{
		{"metadata: {name: team-b}\nspec:\n", "metadata: {name: team-b}\nspec:\n  admissionChecksStrategy:\n    admissionChecks:\n    - name: ac\n"},
		{"          podCounts: {individual: [2, 4, 4]}\n  conditions:\n",
			"          podCounts: {individual: [2, 4, 4]}\n  admissionChecks:\n  - {name: ac, state: Ready, message: m, lastTransitionTime: \"2026-01-01T09:00:00Z\"}\n  conditions:\n"},
	} {
		require.Contains(t, y, e[0])
		y = strings.Replace(y, e[0], e[1], 1)
	}
	y += "\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: ac}\nspec: {controllerName: example.com/ac}\n" +
		"status:\n  conditions:\n  - {type: Active, status: \"True\", reason: Active, message: m, lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n"

	got := kueueResultsOfStdin(t, y, []string{"-f", "-"})
	require.Equal(t, "Preempted", got["default/b-big"].Action, got["default/b-big"].Message)
	out, _ := yamlRun(y, "-f", "-")
	i := strings.Index(out, "name: b-big\n")
	require.GreaterOrEqual(t, i, 0, out)
	bBig := out[i:]
	if j := strings.Index(bBig, "\n---\n"); j >= 0 {
		bBig = bBig[:j]
	}
	require.Contains(t, bBig, "message: 'Reset to Pending after eviction. Previously: Ready'", bBig)
	require.Contains(t, bBig, "state: Pending", bBig)
}
