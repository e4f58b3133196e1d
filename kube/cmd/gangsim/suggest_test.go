package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var lingjunTooWide = []string{"-f", td + "clusters/lingjun/nodes.yaml", "-f", td + "workloads/lingjun-training.yaml", "-f", td + "workloads/lingjun-too-wide.yaml"}

// suggestGoldens are runs with -suggest-nodes, each compared with
// testdata/<name>.golden.
var suggestGoldens = []golden{
	// The gang of twelve 8-GPU pods that no Lingjun rack holds: four more
	// hosts of the cluster's one shape in a rack of eight free hosts.
	{"suggest-lingjun-too-wide", append([]string{"-cycles=false", "-suggest-nodes"}, lingjunTooWide...), exitWaiting},
	// With eight slots per rack no rack can take twelve hosts, a new one
	// neither.
	{"suggest-lingjun-rack-slots", append([]string{"-cycles=false", "-suggest-nodes", "-suggest-domain-nodes", "8", "-suggest-new-domain", "P10-new"}, lingjunTooWide...), exitWaiting},
	// Gangs whose claims do not fit: added nodes would carry no devices,
	// so they are not searched.
	{"suggest-dra-not-searched", []string{"-cycles=false", "-suggest-nodes", "-f", td + "dra/cluster-and-gang.yaml", "-f", td + "dra/more-gangs.yaml"}, exitWaiting},
	// The seed's 4-GPU gang on three 1-GPU nodes: one node more, anywhere.
	{"suggest-seed-waits-json", []string{"-o", "json", "-suggest-nodes", "-f", td + "seed/nodes.yaml", "-f", td + "seed/training-job.yaml"}, exitWaiting},
}

func TestGolden_SuggestNodes(t *testing.T) {
	checkGoldens(t, suggestGoldens)
}

// TestSuggestNodes_Applied: the nodes -suggest-nodes names, written as
// Nodes with the labels of their rack and the shape's allocatable, let the
// too-wide gang bind, and every pod is placed.
func TestSuggestNodes_Applied(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, exitWaiting, run(append([]string{"-o", "json", "-suggest-nodes"}, lingjunTooWide...), nil, &out, &errb, false), errb.String())
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Len(t, rep.Suggestions, 1)
	s := rep.Suggestions[0]
	require.True(t, s.Found)
	require.Equal(t, "topology.kubernetes.io/rack", s.Key)
	zone, rest, _ := strings.Cut(s.Domain, "/")
	block, rack, _ := strings.Cut(rest, "/")
	var b strings.Builder
	for _, n := range s.Nodes {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  labels: {topology.kubernetes.io/zone: %s, topology.kubernetes.io/block: %s, topology.kubernetes.io/rack: %s}\n"+
			"status:\n  allocatable: {cpu: %dm, memory: \"%d\", nvidia.com/gpu: \"%d\", pods: \"%d\"}\n",
			n, zone, block, rack, s.Allocatable["cpu"], s.Allocatable["memory"], s.Allocatable["nvidia.com/gpu"], s.Allocatable["pods"])
	}
	added := filepath.Join(t.TempDir(), "added.yaml")
	require.NoError(t, os.WriteFile(added, []byte(b.String()), 0o644))
	out.Reset()
	errb.Reset()
	require.Equal(t, exitPlaced, run(append([]string{"-cycles=false", "-f", added}, lingjunTooWide...), nil, &out, &errb, false), out.String()+errb.String())
	require.Contains(t, out.String(), "PodGroups: 8 placed, 0 waiting")
}

func TestSuggestNodes_BadInput(t *testing.T) {
	seed := []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/training-job.yaml"}
	cases := []struct {
		name string
		args []string
		err  string
	}{
		{"negative slots", append([]string{"-suggest-nodes", "-suggest-domain-nodes", "-1"}, seed...), "gangsim: -suggest-domain-nodes -1: want 0 or more\n"},
		{"existing new domain", append([]string{"-suggest-nodes", "-suggest-new-domain", "P10-S10"}, lingjunTooWide...),
			`gangsim: -suggest-nodes: PodGroup training/too-wide-57fd34f1-job: scale-up options: NewDomain: domain G6/P10/P10-S10 of "topology.kubernetes.io/rack" exists already: name a new value` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, exitInput, run(c.args, nil, &out, &errb, false))
			require.Equal(t, c.err, errb.String())
			require.Empty(t, out.String())
		})
	}
}

// -suggest-nodes reads no Kueue Workload: a warning says so rather than
// leaving a waiting Workload without a word (the tester kbreak's finding 10).
func TestSuggest_KueueWorkloadsWarned(t *testing.T) {
	in := `apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {rack: r1}}
status: {allocatable: {cpu: "4", pods: "110"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w1, namespace: default}
spec:
  podSets:
  - name: main
    count: 8
    topologyRequest: {required: rack}
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
`
	var out, errb bytes.Buffer
	require.Equal(t, 3, run([]string{"-suggest-nodes", "-f", "-"}, strings.NewReader(in), &out, &errb, false), errb.String())
	require.Equal(t, "gangsim: warning: -suggest-nodes does not read Kueue Workloads yet: it suggests nodes for PodGroups and pods only\n", errb.String())
}
