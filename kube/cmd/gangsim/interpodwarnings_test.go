package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A dump's bound pod with required anti-affinity (an HA Deployment's) and a
// Kueue Workload whose template has it are read, not refused (the tester
// kbreak's finding 02), each named on stderr with what is not checked; the
// Workload is admitted as Kueue admits it, both pods on the one host.
func TestInterPodWarnings(t *testing.T) {
	anti := `affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}`
	in := `apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default, labels: {app: web}}
spec:
  nodeName: n1
  ` + anti + `
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: anti, namespace: default}
spec:
  podSets:
  - name: main
    count: 2
    template:
      metadata: {labels: {app: web}}
      spec:
        ` + anti + `
        containers: [{name: c, resources: {requests: {cpu: "1"}}}]
`
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"-f", "-"}, strings.NewReader(in), &out, &errb, false), errb.String())
	require.Equal(t, `gangsim: warning: pod "default/web-1": spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: not checked against the pods placed in this run (the pod is bound to n1; gangsim reads inter-pod terms among a PodGroup's members only)
gangsim: warning: Kueue Workload "default/anti": spec.podSets[0].template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: not read, as Kueue's admission reads no inter-pod terms; the kube-scheduler honours them once the pods exist
`, errb.String())
	require.Contains(t, out.String(), "kueue Workload default/anti: Admitted\n  pod set main: n1×2\n")
}
