package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tester kbreak's findings 05 and 12, reduced to two racks of two 4-CPU
// hosts (testdata/admission): a namespace's LimitRange defaults and a
// RuntimeClass's overhead are charged to Kueue Workloads and to the pods
// the Job controller creates, and a Kueue Configuration's
// excludeResourcePrefixes keeps a NIC out of the quota charged but not out
// of the topology placement, which finds no host with the NIC (as the real
// Kueue v0.17.0 did: kueue-oracle/resources/excluded-nic.json), its
// unmodelled waitForPodsReady named on stderr.
func TestAdmission_Findings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		stdout []string
		stderr string
		exit   int
	}{
		{name: "LimitRange defaults a Workload's requests: 4 × 2 CPU fill rack r1",
			args:   []string{"-f", "limitrange.yaml", "-f", "workload-no-requests.yaml"},
			stdout: []string{"kueue Workload default/noreq: Admitted\n  pod set main (flavor tas): r1-h1×2 r1-h2×2\n", "  cpu: 50.0% allocated (8 of 16)\n"}},
		{name: "RuntimeClass overhead: 4 × (1 + 1) CPU fill rack r1",
			args:   []string{"-f", "runtimeclass.yaml", "-f", "workload-runtimeclass.yaml"},
			stdout: []string{"kueue Workload default/rc: Admitted\n  pod set main (flavor tas): r1-h1×2 r1-h2×2\n", "  cpu: 50.0% allocated (8 of 16)\n"}},
		{name: "LimitRange defaults the Job's pods: 8 of 10 fit 16 CPUs",
			args:   []string{"-cycles=false", "-f", "limitrange.yaml", "-f", "job-no-requests.yaml"},
			stdout: []string{"  pods: 8 bound in this run, 2 waiting, 0 preempted\n", "  cpu: 100.0% allocated (16 of 16)\n"}, exit: exitWaiting},
		{name: "excluded NIC prefix: charged on cpu alone, placed on hosts with the NIC, which none has",
			args:   []string{"-f", "kueue-configuration.yaml", "-f", "workload-nic.yaml"},
			stdout: []string{"kueue Workload default/w1: Pending\n  couldn't assign flavors to pod set main: topology \"default\" doesn't allow to fit any of 6 pod(s). Total nodes: 4; excluded: resource \"example.com/nic\": 4\n"},
			exit:   exitWaiting,
			stderr: "gangsim: warning: " + filepath.Join("testdata", "admission", "kueue-configuration.yaml") + ": document 1 (line 2): Kueue Configuration: waitForPodsReady: not modelled: an admitted Workload is neither evicted nor requeued for pods not ready, and admission is not blocked\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-f", filepath.Join("testdata", "admission", "cluster.yaml")}
			for i := 0; i < len(tc.args); i++ {
				a := tc.args[i]
				if a == "-f" {
					i++
					a = "-f=" + filepath.Join("testdata", "admission", tc.args[i])
				}
				args = append(args, a)
			}
			var out, errb bytes.Buffer
			require.Equal(t, tc.exit, run(args, nil, &out, &errb, false), errb.String())
			require.Equal(t, tc.stderr, errb.String())
			for _, s := range tc.stdout {
				require.Contains(t, out.String(), s)
			}
			require.NotContains(t, out.String(), "not used")
			first, code := yamlRun("", args...)
			require.Equal(t, tc.exit, code, first)
			checkFixedPoint(t, first, code)
		})
	}
}

// A pending pod without requests and a Job's pods are written by -o yaml
// with what LimitRanger and RuntimeClass admission gave them (the pod,
// 2 + 1 CPUs, waits: the Job's 8 pods of 2 CPUs fill the 16), the Job's
// template as given; the output reads back the same.
func TestAdmission_WrittenBack(t *testing.T) {
	dir := filepath.Join("testdata", "admission")
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {runtimeClassName: kata, containers: [{name: c}]}\n"
	args := []string{"-cycles=false", "-f", filepath.Join(dir, "cluster.yaml"), "-f", filepath.Join(dir, "limitrange.yaml"), "-f", filepath.Join(dir, "runtimeclass.yaml"),
		"-f", filepath.Join(dir, "job-no-requests.yaml"), "-f", "-"}
	first, code := yamlRun(pod, args...)
	require.Equal(t, exitWaiting, code, first)
	require.Contains(t, first, `  name: p
  namespace: default
spec:
  containers:
  - name: c
    resources:
      limits:
        cpu: "2"
      requests:
        cpu: "2"
  overhead:
    cpu: "1"
  runtimeClassName: kata
`)
	require.Contains(t, first, `  template:
    spec:
      containers:
      - image: busybox
        name: c
      restartPolicy: Never
`)
	require.Contains(t, first, `  name: noreq-0
  namespace: default
  ownerReferences:
  - apiVersion: batch/v1
    controller: true
    kind: Job
    name: noreq
  - apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    name: noreq-ef07f6e5-job
spec:
  containers:
  - image: busybox
    name: c
    resources:
      limits:
        cpu: "2"
      requests:
        cpu: "2"
  nodeName: r1-h1
`)
	checkFixedPoint(t, first, code)
}
