package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	goldenfile "github.com/gangsched/gangsched/internal/golden"
)

// TestMain lets the test binary stand in for the gangsim command: with
// GANGSIM_RUN_MAIN=1 it runs main, so subprocess tests need no go build;
// with GANGSIM_RUN_MAIN=panic it runs a panic under main's guard.
func TestMain(m *testing.M) {
	switch os.Getenv("GANGSIM_RUN_MAIN") {
	case "1":
		main()
		return
	case "panic":
		os.Exit(guard(os.Stderr, func() int { panic("injected for the test") }))
	}
	os.Exit(m.Run())
}

const td = "../../testdata/"

type golden struct {
	name string
	args []string
	code int
}

// goldens are full runs on committed manifests; each output is compared
// with testdata/<name>.golden, so any change in a decision shows as a diff.
var goldens = []golden{
	{"seed-waits", []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/training-job.yaml"}, exitWaiting},
	{"seed-binds", []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/training-job.yaml"}, exitPlaced},
	{"seed-binds-yaml", []string{"-o", "yaml", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/training-job.yaml"}, exitPlaced},
	{"seed-job", []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/job.yaml"}, exitPlaced},
	{"seed-job-yaml", []string{"-o", "yaml", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/job.yaml"}, exitPlaced},
	// v1.36's Job controller stamps the seed's Job as a gang of
	// minCount 4 in scheduling.k8s.io/v1alpha2; v1.37's (and the default
	// v1.38, seed-job above) as a basic group in v1beta1.
	{"seed-job-profile-v1.36", []string{"-profile", "v1.36", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/job.yaml"}, exitPlaced},
	{"seed-job-profile-v1.36-yaml", []string{"-profile", "v1.36", "-o", "yaml", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/job.yaml"}, exitPlaced},
	{"seed-both-json", []string{"-o", "json", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/job.yaml", "-f", td + "seed/training-job.yaml"}, exitWaiting},
	{"perf-gang-3x3", []string{"-f", td + "scheduler-perf/nodes-10.yaml", "-f", td + "scheduler-perf/gangscheduling-3x3.yaml"}, exitPlaced},
	{"perf-gang-10x3", []string{"-f", td + "scheduler-perf/nodes-100.yaml", "-f", td + "scheduler-perf/gangscheduling-10x3.yaml"}, exitPlaced},
	{"lingjun-perf-gang-10x3", []string{"-f", td + "clusters/lingjun/nodes.yaml", "-f", td + "scheduler-perf/gangscheduling-10x3.yaml"}, exitPlaced},
	{"perf-tas-3x3", []string{"-f", td + "scheduler-perf/nodes-10.yaml", "-f", td + "scheduler-perf/tas-3x3.yaml"}, exitPlaced},
	{"perf-tas-10x3", []string{"-f", td + "scheduler-perf/nodes-100.yaml", "-f", td + "scheduler-perf/tas-10x3.yaml"}, exitPlaced},
	{"lingjun-perf-tas-10x3", []string{"-f", td + "clusters/lingjun/nodes.yaml", "-f", td + "scheduler-perf/tas-10x3.yaml"}, exitPlaced},
	{"lingjun-training", []string{"-f", td + "clusters/lingjun/nodes.yaml", "-f", td + "workloads/lingjun-training.yaml"}, exitPlaced},
	{"lingjun-training-too-wide", []string{"-f", td + "clusters/lingjun/nodes.yaml", "-f", td + "workloads/lingjun-training.yaml", "-f", td + "workloads/lingjun-too-wide.yaml"}, exitWaiting},
	{"kueue-kind-samples", []string{"-f", td + "kueue-tas/kind-nodes.yaml", "-f", td + "kueue-tas/sample-jobs.yaml"}, exitPlaced},
	{"kueue-perf-one-queue", []string{"-cycles=false", "-f", td + "kueue-tas/perf-nodes.yaml", "-f", td + "kueue-tas/perf-workloads-one-queue.yaml"}, exitPlaced},
	{"kueue-sliced", []string{"-f", td + "kueue-tas/kind-nodes.yaml", "-f", td + "kueue-tas/sliced-jobs.yaml"}, exitWaiting},
	{"kueue-kind-samples-kueue-profile", []string{"-topology-profile", "kueue", "-f", td + "kueue-tas/kind-nodes.yaml", "-f", td + "kueue-tas/sample-jobs.yaml"}, exitPlaced},
	{"kueue-kind-samples-json", []string{"-o", "json", "-f", td + "kueue-tas/kind-nodes.yaml", "-f", td + "kueue-tas/sample-jobs.yaml"}, exitPlaced},
	{"dra-gangs", []string{"-f", td + "dra/cluster-and-gang.yaml", "-f", td + "dra/more-gangs.yaml"}, exitWaiting},
	{"dra-gang-yaml", []string{"-o", "yaml", "-f", td + "dra/cluster-and-gang.yaml"}, exitPlaced},
	{"dra-shared-gpu", []string{"-f", td + "dra/shared-gpu.yaml"}, exitWaiting},
	{"dra-shared-gpu-yaml", []string{"-o", "yaml", "-f", td + "dra/shared-gpu.yaml"}, exitWaiting},
	{"dra-fabric-gang", []string{"-f", td + "dra/fabric-gang.yaml"}, exitPlaced},
	{"dra-fabric-gang-yaml", []string{"-o", "yaml", "-f", td + "dra/fabric-gang.yaml"}, exitPlaced},
	{"dra-fabric-split", []string{"-f", td + "dra/fabric-split.yaml"}, exitWaiting},
	{"dra-rack-too-small", []string{"-f", td + "dra/rack-too-small.yaml"}, exitWaiting},
	{"dra-extended-gpu", []string{"-f", td + "dra/extended-gpu.yaml"}, exitPlaced},
	{"dra-extended-gpu-yaml", []string{"-o", "yaml", "-f", td + "dra/extended-gpu.yaml"}, exitPlaced},
	{"dra-extended-gpu-short", []string{"-f", td + "dra/extended-gpu-short.yaml"}, exitWaiting},
	{"dra-extended-mixed", []string{"-f", td + "dra/extended-mixed.yaml"}, exitPlaced},
	{"dra-extended-mixed-yaml", []string{"-o", "yaml", "-f", td + "dra/extended-mixed.yaml"}, exitPlaced},
	// Preemption frees a victim's device-plugin units, as v1.37's dry-run
	// frees its requests, and not its DRA devices, as v1.37's does not
	// (DynamicResources has no PreFilterExtensions; KEP-5690 proposes
	// DRA preemption): the gang evicts the plugin node's pod only, and in
	// a cluster served by DRA alone it evicts nothing.
	{"dra-extended-mixed-preemption", []string{"-f", td + "dra/extended-mixed-preemption.yaml"}, exitPlaced},
	{"dra-extended-dra-preemption", []string{"-f", td + "dra/extended-dra-preemption.yaml"}, exitWaiting},
	{"dra-extended-stale-claim", []string{"-f", td + "dra/extended-stale-claim.yaml"}, exitPlaced},
	{"dra-extended-stale-claim-yaml", []string{"-o", "yaml", "-f", td + "dra/extended-stale-claim.yaml"}, exitPlaced},
	{"preemption", []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "preemption/low-priority-and-gang.yaml"}, exitPlaced},
	{"preemption-yaml", []string{"-o", "yaml", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "preemption/low-priority-and-gang.yaml"}, exitPlaced},
	{"preemption-off", []string{"-preemption=false", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "preemption/low-priority-and-gang.yaml"}, exitWaiting},
	{"preempt-cheapest-pod", []string{"-f", "testdata/preempt-cheapest-pod.yaml"}, exitPlaced},
	{"preempt-fewest-violations", []string{"-f", "testdata/preempt-fewest-violations.yaml"}, exitPlaced},
	{"preempt-fewest-violations-podgroup", []string{"-f", "testdata/preempt-fewest-violations-podgroup.yaml"}, exitPlaced},
	{"preempt-gang-lowest-priority", []string{"-f", "testdata/preempt-gang-lowest-priority.yaml"}, exitPlaced},
	// v1.37 ranks a victim at its PodGroup's priority, 0 when unset, and
	// evicts held (as kubeoracle v1.37.2); v1.38 ranks it at its own 500
	// (v1.38.0-beta.0 NewPodVictim), so p waits.
	{"preempt-unset-podgroup-priority", []string{"-profile", "v1.37", "-f", "testdata/preempt-unset-podgroup-priority.yaml"}, exitPlaced},
	{"preempt-unset-podgroup-priority-v1.38", []string{"-f", "testdata/preempt-unset-podgroup-priority.yaml"}, exitWaiting},
	// Since v1.37 a group's pods share one preemption policy
	// (validatePodGroup): the cycle fails with PodGroupError (v1.38) or
	// SchedulerError (v1.37) though both pods fit.
	{"preemption-policy-mixed", []string{"-f", "testdata/preemption-policy-mixed.yaml"}, exitWaiting},
	{"preemption-policy-mixed-v1.37", []string{"-profile", "v1.37", "-f", "testdata/preemption-policy-mixed.yaml"}, exitWaiting},
	// v1.37 with the PodGroupPreemptionPolicy gate off (its default): the
	// group's field is ignored and all-Never pods bind; with it on the
	// unset field reads PreemptLowerPriority and the cycle fails (both
	// as kubeoracle v1.37.2 decides, see the manifest). v1.38 (the
	// default profile) has no such gate: the group sets none, so the
	// first pod's Never holds and they bind.
	{"preemption-policy-all-never", []string{"-f", "testdata/preemption-policy-all-never.yaml"}, exitPlaced},
	{"preemption-policy-all-never-v1.37", []string{"-profile", "v1.37", "-f", "testdata/preemption-policy-all-never.yaml"}, exitPlaced},
	{"preemption-policy-all-never-gate-v1.37", []string{"-profile", "v1.37", "-feature-gates", "PodGroupPreemptionPolicy=true", "-f", "testdata/preemption-policy-all-never.yaml"}, exitWaiting},
	// The Job controller's PodGroup gets its class's policy from
	// admission (v1.37 under the gate, v1.38 always), so a Never Job
	// binds.
	{"job-never-gate-yaml", []string{"-o", "yaml", "-profile", "v1.37", "-feature-gates", "PodGroupPreemptionPolicy=true", "-f", "testdata/job-never-gate.yaml"}, exitPlaced},
	{"job-never-v1.38-yaml", []string{"-o", "yaml", "-f", "testdata/job-never-gate.yaml"}, exitPlaced},
	{"preemption-policy-mixed-gate", []string{"-profile", "v1.37", "-feature-gates", "PodGroupPreemptionPolicy=true", "-f", "testdata/preemption-policy-mixed.yaml"}, exitWaiting},
	{"pai-seed-job", []string{"-f", td + "clusters/pai/nodes.yaml", "-f", td + "seed/job.yaml", "-f", td + "seed/training-job.yaml"}, exitPlaced},
}

func TestGolden(t *testing.T) {
	checkGoldens(t, goldens)
}

// checkGoldens runs gangsim on each case and compares its exit code and
// standard output with testdata/<name>.golden.
func checkGoldens(t *testing.T, cases []golden) {
	for _, g := range cases {
		t.Run(g.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(g.args, strings.NewReader(""), &out, &errb, false)
			require.Equal(t, g.code, code, "stderr: %s", errb.String())
			goldenfile.Check(t, filepath.Join("testdata", g.name+".golden"), out.Bytes())
		})
	}
}

// jobs writes n Indexed Jobs j-00, j-01, … of the given parallelism.
func jobs(n, parallelism int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j-%02d}\nspec:\n  parallelism: %d\n  completions: %d\n  completionMode: Indexed\n"+
			"  template: {spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}\n", i, parallelism, parallelism)
	}
	return b.String()
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: %s}}\n"
	cases := []struct {
		name string
		args []string
		err  string
	}{
		{"no -f", nil, "usage: gangsim"},
		{"bad -o", []string{"-o", "xml", "-f", "x"}, `-o "xml": want text, yaml or json`},
		{"bad -topology-profile", []string{"-topology-profile", "volcano", "-f", "x"}, `-topology-profile "volcano": want gangsched, kueue or kueue-balanced`},
		{"missing file", []string{"-f", filepath.Join(dir, "none.yaml")}, "no such file or directory"},
		{"bad -n", []string{"-n", "Team/A", "-f", "x"}, `-n "Team/A": a lowercase RFC 1123 label`},
		{"empty topology key", []string{"-topology-keys", "rack,", "-f", "x"}, `-topology-keys "rack,": key 2 is empty`},
		{"repeated topology key", []string{"-topology-keys", "rack,rack", "-f", "x"}, `-topology-keys "rack,rack": "rack" is listed twice`},
		{"negative -max-cycles", []string{"-max-cycles", "-1", "-f", "x"}, `-max-cycles -1: want 0 or more`},
		{"zero -max-pods", []string{"-max-pods", "0", "-f", "x"}, `-max-pods 0: want 1 or more`},
		// Flags that qualify another are refused alone (brk7 02), not ignored.
		{"-suggest-domain-nodes alone", []string{"-suggest-domain-nodes", "8", "-f", "x"}, `-suggest-domain-nodes does nothing without -suggest-nodes: give both`},
		{"-suggest-new-domain with -suggest-nodes=false", []string{"-suggest-nodes=false", "-suggest-new-domain", "r9", "-f", "x"}, `-suggest-new-domain does nothing without -suggest-nodes: give both`},
		{"-speed-up without -trace", []string{"-speed-up", "2", "-f", "x"}, `-speed-up does nothing without -trace: give both`},
		{"-fgd-seeds without -fgd-experiment", []string{"-fgd-seeds", "2", "-f", "x"}, `-fgd-seeds does nothing without -fgd-experiment: give both`},
		{"-fgd-experiment with -report", []string{"-fgd-experiment", "-trace", "openb=x", "-report", "r.html"}, `-fgd-experiment does not read -report: leave it out`},
		{"-fgd-experiment with -o json", []string{"-fgd-experiment", "-trace", "openb=x", "-o", "json"}, `-fgd-experiment does not read -o: leave it out`},
		// 50 Jobs of parallelism 100,000: refused before any pod exists.
		{"too many job pods", []string{"-f", write("jobs.yaml", jobs(50, 100_000))},
			`jobs.yaml: document 6 (line 51): Job "default/j-05": spec.parallelism: its 100000 pods would bring the input to 600000 pods (0 given, the rest from Jobs), above the limit of 500000 (LoadOptions.MaxPods); raise the limit with -max-pods`},
		{"-max-pods counts given pods", []string{"-max-pods", "3", "-f", write("jobs3.yaml", jobs(1, 2)+"---\n"+strings.Replace(pod, "%s", "1", 1)+"---\n"+strings.Replace(strings.Replace(pod, "%s", "1", 1), "p1", "p2", 1))},
			`Job "default/j-00": spec.parallelism: its 2 pods would bring the input to 4 pods (2 given, the rest from Jobs), above the limit of 3`},
		{"typo", []string{"-f", write("typo.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: c, resource: {}}]}\n")},
			"typo.yaml: document 2 (line 8): pod \"default/p1\": spec.containers[0].resource: unknown field"},
		{"negative quantity", []string{"-f", write("neg.yaml", strings.Replace(pod, "%s", `"-1"`, 1))},
			`neg.yaml: document 1 (line 7): pod "default/p1": spec.containers[0].resources.requests[cpu]: -1 is negative`},
		{"unknown node of a PodGroup member", []string{"-f", write("bound.yaml", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ns}\nspec: {schedulingPolicy: {gang: {minCount: 1}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\nspec: {nodeName: gone, schedulingGroup: {podGroupName: g}, containers: [{name: c}]}\n")},
			`bound.yaml: document 2 (line 9): pod "ns/p1": spec.nodeName: node "gone" is not in the snapshot`},
		{"bad minCount", []string{"-f", write("pg.yaml", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {gang: {minCount: 0}}}\n")},
			`pg.yaml: document 1 (line 4): PodGroup "default/g": spec.schedulingPolicy.gang.minCount: 0 is below 1`},
		{"topology key on no node", []string{"-f", td + "seed/nodes.yaml", "-f", write("tpg.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec:\n  schedulingPolicy: {gang: {minCount: 1}}\n  schedulingConstraints: {topology: [{key: example.com/pod}]}\n")},
			`tpg.yaml: document 2 (line 10): PodGroup "default/g": spec.schedulingConstraints.topology[0].key: no node carries the label "example.com/pod"`},
		// Kueue names hosts by this label: a shared value let an admission
		// on one node be read back on the other.
		{"hostname label twice", []string{"-f", kw + "cluster.yaml", "-f", write("duphost.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: extra\n  labels: {kubernetes.io/hostname: b1-r1-h1, cloud.provider.com/topology-block: b2, cloud.provider.com/topology-rack: r1}\nstatus: {allocatable: {cpu: '4'}}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec: {queueName: q, podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]}\n")},
			`duphost.yaml: document 1 (line 5): node "extra": metadata.labels[kubernetes.io/hostname]: "b1-r1-h1" is node "b1-r1-h1"'s too (Kueue's topology assignments name a host by this label: give each node its own)`},
		{"unknown priority class in a job", []string{"-f", write("job.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2, completions: 2, completionMode: Indexed, template: {spec: {priorityClassName: gold, containers: [{name: c}]}}}\n")},
			`job.yaml: document 1 (line 4): Job "default/j": spec.template.spec.priorityClassName: no PriorityClass "gold"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, strings.NewReader(""), &out, &errb, false)
			require.Equal(t, exitInput, code)
			require.Contains(t, errb.String(), c.err)
			require.Empty(t, out.String())
		})
	}
}

// TestSubprocess runs gangsim as a separate process: exit codes, stdin,
// and the message of bad input on stderr.
func TestSubprocess(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := func(stdin string, args ...string) (stdout, stderr string, code int) {
		c := exec.Command(exe, args...)
		c.Env = append(os.Environ(), "GANGSIM_RUN_MAIN=1")
		c.Stdin = strings.NewReader(stdin)
		var o, e bytes.Buffer
		c.Stdout, c.Stderr = &o, &e
		err := c.Run()
		code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return o.String(), e.String(), code
	}
	seed, err := os.ReadFile(td + "seed/training-job.yaml")
	require.NoError(t, err)

	out, _, code := cmd(string(seed), "-f", td+"seed/nodes.yaml", "-f", "-")
	require.Equal(t, exitWaiting, code)
	require.Contains(t, out, "3 of min 4 members fit")

	out, _, code = cmd(string(seed), "-f", td+"seed/nodes.yaml", "-f", td+"seed/node-d.yaml", "-f", "-")
	require.Equal(t, exitPlaced, code)
	require.Contains(t, out, "bound 4: worker-0→node-a worker-1→node-b worker-2→node-c worker-3→node-d")

	out, errOut, code := cmd("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}], priority: x}\n", "-f", "-")
	require.Equal(t, exitInput, code)
	require.Empty(t, out)
	require.Equal(t, "gangsim: <stdin>: document 1 (line 4): pod \"default/p\": spec.priority: want an integer, got string \"x\"\n", errOut)
}

// TestProgress: with stderr a terminal, a long run shows a progress line
// there and clears it; stdout is unchanged.
func TestProgress(t *testing.T) {
	args := []string{"-cycles=false", "-f", td + "kueue-tas/perf-nodes.yaml", "-f", td + "kueue-tas/perf-workloads-one-queue.yaml"}
	var out, errb, out2, errb2 bytes.Buffer
	require.Equal(t, exitPlaced, run(args, nil, &out, &errb, true))
	require.Equal(t, "\rgangsim: cycle 500, 1500 pods bound\r\033[K", errb.String())
	require.Equal(t, exitPlaced, run(args, nil, &out2, &errb2, false))
	require.Empty(t, errb2.String())
	require.Equal(t, out2.String(), out.String())
}

// TestAllocationCapped: two nodes whose memory sums past math.MaxInt64
// (8Ei parses to math.MaxInt64) report the cap, not a wrapped negative.
func TestAllocationCapped(t *testing.T) {
	in := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Ei}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: '4', memory: 1Gi}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n2, containers: [{name: c, resources: {requests: {memory: 1Gi}}}]}\n"
	var out, errb bytes.Buffer
	require.Equal(t, exitPlaced, run([]string{"-o", "json", "-f", "-"}, strings.NewReader(in), &out, &errb, false), errb.String())
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Equal(t, Allocation{Resource: "memory", Requested: 1 << 30, Allocatable: math.MaxInt64, Percent: float64(1<<30) * 100 / (float64(math.MaxInt64) + float64(1<<30))}, rep.Summary.Allocation[1])
}

// TestAllocationPerNodeGPUs: nvidia.com/gpu served by a device plugin on
// n1 (4 units, 1 taken) and by DRA on n2, which the snapshot gives no
// limit on them (kube.PerNode): the GPU line counts n1's units alone.
func TestAllocationPerNodeGPUs(t *testing.T) {
	in := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', nvidia.com/gpu: '4'}}\n" +
		"---\napiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: '4'}}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\nspec: {extendedResourceName: nvidia.com/gpu}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: n2-gpus}\nspec: {driver: gpu.nvidia.com, pool: {name: n2, generation: 1, resourceSliceCount: 1}, nodeName: n2, devices: [{name: gpu-0}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n1, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n"
	var out, errb bytes.Buffer
	require.Equal(t, exitPlaced, run([]string{"-o", "json", "-f", "-"}, strings.NewReader(in), &out, &errb, false), errb.String())
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Equal(t, Allocation{Resource: "nvidia.com/gpu", Requested: 1, Allocatable: 4, Percent: 25}, rep.Summary.Allocation[len(rep.Summary.Allocation)-1])
}

// TestMaxCyclesZero: a group never tried still says why it waits.
func TestMaxCyclesZero(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"-max-cycles", "0", "-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/training-job.yaml"}
	require.Equal(t, exitWaiting, run(args, nil, &out, &errb, false), errb.String())
	require.Contains(t, out.String(), "waiting: PodGroup default/training-job-workers-pg (4 pending): not tried: the run stopped first (-max-cycles)\n")
}
