package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube"
)

// kueueFailedNodeCase is one file of kube/testdata/kueue-oracle/failed-nodes:
// the real Kueue v0.17.0's state once it settled on manifests (paths under
// kube/testdata) whose admitted Workloads meet failed nodes, its TAS node
// controller and scheduler run on them (see the README there).
type kueueFailedNodeCase struct {
	Kueue      string   `json:"kueue"`
	KueueGates string   `json:"kueueGates"`
	Manifests  []string `json:"manifests"`
	Phases     []struct {
		Workloads []kueueFailedNodeAns `json:"workloadsAfterSettle"`
	} `json:"phases"`
}

// kueueFailedNodeAns is Kueue's answer for one Workload.
type kueueFailedNodeAns struct {
	Workload string `json:"workload"`
	// Admitted: it holds its quota reservation (kept, repaired, or
	// admitted again after an eviction).
	Admitted bool `json:"admitted"`
	PodSets  []struct {
		Name  string           `json:"name"`
		Nodes map[string]int32 `json:"nodes"`
	} `json:"podSets"`
	// Evictions are the Evicted conditions seen, in order.
	Evictions []kueueEviction `json:"evictions"`
	// UnhealthyNodes is status.unhealthyNodes once it settled.
	UnhealthyNodes []string `json:"unhealthyNodes"`
}

// kueueEviction is one Evicted condition Kueue wrote: its reason and message.
type kueueEviction struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// failedNodeGateArgs are the gangsim flags for the Kueue feature gates a
// case was run with: gates that change what gangsim models have a flag,
// others (TASReplaceNodeOnPodTermination) none.
var failedNodeGateArgs = map[string][]string{
	"TASMultiLayerTopology=true":             {"-kueue-multi-layer-topology"},
	"TASFailedNodeReplacementFailFast=false": {"-kueue-failed-node-replacement-fail-fast=false"},
}

// TestKueueFailedNodeOracle holds gangsim's node replacement to the real
// Kueue's recorded answers, under the kueue topology profile (which words
// evictions as Kueue does): for every Workload, whether it holds its
// reservation and its pods per node (the new topologyAssignment), whether
// it was evicted for node failures and with Kueue's message, and whether
// it waits for a replacement with status.unhealthyNodes naming the node.
func TestKueueFailedNodeOracle(t *testing.T) {
	eachRecord(t, "kueue-oracle/failed-nodes/*.json", func(t *testing.T, name string, c kueueFailedNodeCase) {
		require.NotEmpty(t, c.Phases)
		args := []string{"-topology-profile", "kueue"}
		if c.KueueGates != "" {
			for _, g := range strings.Split(c.KueueGates, ",") {
				args = append(args, failedNodeGateArgs[g]...)
			}
		}
		got := kueueResultsOf(t, args, td, c.Manifests)
		for _, want := range c.Phases[len(c.Phases)-1].Workloads {
			checkFailedNodeAnswer(t, want, got)
		}
	})
}

// checkFailedNodeAnswer compares gangsim's result for want's Workload.
func checkFailedNodeAnswer(t *testing.T, want kueueFailedNodeAns, got map[string]KueueResult) {
	r, ok := got[want.Workload]
	require.True(t, ok, "gangsim has no answer for %s", want.Workload)
	a := kube.KueueAction(r.Action)
	holds := slices.Contains([]kube.KueueAction{kube.KueueAdmitted, kube.KueueKept, kube.KueueRepaired,
		kube.KueueResized, kube.KueueReadmitted, kube.KueueReplacementWaits}, a)
	require.Equal(t, want.Admitted, holds, "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
	if want.Admitted {
		wantNodes, nodes := map[string]map[string]int32{}, map[string]map[string]int32{}
		for _, ps := range want.PodSets {
			wantNodes[ps.Name] = map[string]int32{}
			for node, c := range ps.Nodes {
				// A Workload waiting for a replacement keeps its
				// admission; gangsim gives its surviving pods.
				if !slices.Contains(want.UnhealthyNodes, node) {
					wantNodes[ps.Name][node] = c
				}
			}
		}
		for _, ps := range r.PodSets {
			nodes[ps.Name] = map[string]int32{}
			for _, n := range ps.Nodes {
				nodes[ps.Name][n.Node] += n.Count
			}
		}
		require.Equal(t, wantNodes, nodes, "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
	}
	// The first eviction is the failure's: a Workload the node controller
	// evicted for a second failed node may be evicted again by the
	// scheduler's second pass queued for the first (docs/kueue.md, Not
	// modelled), which gangsim does not write.
	i := slices.IndexFunc(want.Evictions, func(e kueueEviction) bool { return e.Reason == "NodeFailures" })
	require.Equal(t, i >= 0, a == kube.KueueReadmitted || a == kube.KueueEvicted, "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
	if i >= 0 {
		require.True(t, strings.HasPrefix(r.Message, want.Evictions[i].Message), "%s: Kueue %q, gangsim %q", want.Workload, want.Evictions[i].Message, r.Message)
	}
	require.Equal(t, len(want.UnhealthyNodes) > 0, a == kube.KueueReplacementWaits, "%s: gangsim %s %s", want.Workload, r.Action, r.Message)
	for _, node := range want.UnhealthyNodes {
		require.Contains(t, r.Message, node, "%s", want.Workload)
	}
}
