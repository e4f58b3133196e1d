package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
)

// A node whose allocatable lists no "pods" holds none when asked
// (LoadOptions.KueueNodePods) and the input has Kueue Workloads, as
// Kueue's TAS counts it; without the option, or without a Kueue Workload,
// it keeps no pod-count limit. A node listing pods keeps its count.
func TestLoad_KueueNodePods(t *testing.T) {
	nodes := `
apiVersion: v1
kind: Node
metadata: {name: bare}
status: {allocatable: {cpu: "4"}}
---
apiVersion: v1
kind: Node
metadata: {name: listed}
status: {allocatable: {cpu: "4", pods: "10"}}
`
	workload := `
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: q
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - {name: c, resources: {requests: {cpu: "1"}}}
`
	for _, c := range []struct {
		name string
		in   string
		opt  bool
		full bool // bare gets "pods" 0
	}{
		{"option and a Workload", nodes + workload, true, true},
		{"no option", nodes + workload, false, false},
		{"no Workload", nodes, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c2, err := LoadWithOptions(decode(t, c.in), LoadOptions{KueueNodePods: c.opt})
			require.NoError(t, err)
			q, ok := c2.Nodes[0].Allocatable[placement.ResourcePods]
			require.Equal(t, c.full, ok)
			require.Zero(t, q)
			require.Equal(t, int64(10), c2.Nodes[1].Allocatable[placement.ResourcePods])
			id, _ := c2.Snapshot.NodeID("bare")
			if c.full {
				require.Equal(t, int64(0), c2.Snapshot.Free(id, placement.ResourcePods))
			} else {
				require.Greater(t, c2.Snapshot.Free(id, placement.ResourcePods), int64(1000))
			}
		})
	}
}
