package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/placement"
)

// kjobNodes are two hosts of 4 CPUs.
const kjobNodes = `apiVersion: v1
kind: Node
metadata: {name: h1, labels: {kubernetes.io/hostname: h1}}
status: {allocatable: {cpu: "4", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: h2, labels: {kubernetes.io/hostname: h2}}
status: {allocatable: {cpu: "4", pods: "110"}}
`

// kjob is a Job of 2 pods of 1 CPU; extra goes under metadata.
func kjob(name, meta string) string {
	return `---
apiVersion: batch/v1
kind: Job
metadata:
  name: ` + name + `
  namespace: default
` + meta + `spec:
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
`
}

// kjobWorkload is a Kueue Workload of 2 pods of 1 CPU; meta goes under
// metadata, status at the end.
func kjobWorkload(name, meta, status string) string {
	return `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: ` + name + `
  namespace: default
` + meta + `spec:
  queueName: lq
  podSets:
  - name: main
    count: 2
    template:
      spec:
        containers: [{name: c, resources: {requests: {cpu: "1"}}}]
` + status
}

// kjobAdmitted is a status holding quota with both pods on h1.
const kjobAdmitted = `status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 2
      flavors: {cpu: tas}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        slices:
        - domainCount: 1
          podCounts: {universal: 2}
          valuesPerLevel: [{universal: h1}]
`

// kjobQuotaOnly is a status holding quota in a flavor without a Topology.
const kjobQuotaOnly = `status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  admission:
    clusterQueue: cq
    podSetAssignments:
    - name: main
      count: 2
      flavors: {cpu: plain}
`

// kjobPod is a pod of Job train bound to h2.
func kjobPod(name, meta string) string {
	return `---
apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: default
` + meta + `spec:
  nodeName: h2
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
status: {phase: Running}
`
}

const kjobOwner = "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train, controller: true}]\n"

// TestKueueJobLoad checks how Load reads Kueue's Jobs (rules of [Load]):
// which Workload each gets, that the Job controller makes nothing for
// them, and which of their pods are charged to their nodes.
func TestKueueJobLoad(t *testing.T) {
	derived := KueueJobWorkloadName("train", "")
	for _, tc := range []struct {
		name string
		in   string
		// workloads are the Kueue Workloads, each with its Job ("" none).
		workloads map[string]string
		pods      []string // pods converted
		h2CPU     int64    // millicores requested on h2 by bound pods
		podGroups int
	}{
		{name: "labelled Job gets Kueue's Workload, not the Job controller's pods",
			in:        kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq}\n"),
			workloads: map[string]string{derived: "default/train"}},
		{name: "labelled Job with active pods waits for them before Kueue builds its Workload",
			in:        strings.Replace(kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq}\n"), "spec:\n  parallelism", "status: {active: 1, startTime: \"2026-01-01T00:00:00Z\"}\nspec:\n  parallelism", 1) + kjobPod("train-0", kjobOwner),
			workloads: map[string]string{}, pods: []string{"default/train-0", "default/train-1"}, h2CPU: 1000},
		{name: "Job without the label is the Job controller's",
			in:        kjob("train", ""),
			workloads: map[string]string{}, pods: []string{"default/train-0", "default/train-1"}, podGroups: 1},
		{name: "Job owning a Workload by ownerReference keeps it",
			in:        kjob("train", "") + kjobWorkload("w", kjobOwner, ""),
			workloads: map[string]string{"w": "default/train"}},
		{name: "Job owning a Workload by the job-uid label keeps it",
			in:        kjob("train", "  uid: u1\n  labels: {kueue.x-k8s.io/queue-name: lq}\n") + kjobWorkload("w", "  labels: {kueue.x-k8s.io/job-uid: u1}\n", ""),
			workloads: map[string]string{"w": "default/train"}},
		{name: "ownerReference of another UID is another Job's",
			in:        kjob("train", "  uid: u1\n  labels: {kueue.x-k8s.io/queue-name: lq}\n") + kjobWorkload("w", "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: train, uid: u0, controller: true}]\n", ""),
			workloads: map[string]string{"w": "", KueueJobWorkloadName("train", "u1"): "default/train"}},
		{name: "prebuilt Workload is the Job's",
			in:        kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/prebuilt-workload-name: w}\n") + kjobWorkload("w", "", ""),
			workloads: map[string]string{"w": "default/train"}},
		{name: "pods of an admitted TAS Workload are charged through it alone",
			in:        kjob("train", "") + kjobWorkload("w", kjobOwner, kjobAdmitted) + kjobPod("train-0", kjobOwner) + kjobPod("train-1", kjobOwner),
			workloads: map[string]string{"w": "default/train"}},
		{name: "pods naming an admitted TAS Workload are its, without their Job",
			in:        kjobWorkload("w", "", kjobAdmitted) + kjobPod("train-0", "  annotations: {kueue.x-k8s.io/workload: w}\n"),
			workloads: map[string]string{"w": ""}},
		{name: "pods of a pending Workload's Job are being deleted",
			in:        kjob("train", "") + kjobWorkload("w", kjobOwner, "") + kjobPod("train-0", kjobOwner),
			workloads: map[string]string{"w": "default/train"}},
		{name: "pods of a Workload admitted without a topology run as any pod",
			in:        kjob("train", "") + kjobWorkload("w", kjobOwner, kjobQuotaOnly) + kjobPod("train-0", kjobOwner) + kjobPod("other", ""),
			workloads: map[string]string{"w": "default/train"}, pods: []string{"default/other", "default/train-0"}, h2CPU: 2000},
		{name: "other pods are charged",
			in:        kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq}\n") + kjobPod("other", ""),
			workloads: map[string]string{derived: "default/train"}, pods: []string{"default/other"}, h2CPU: 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, kjobNodes+tc.in)
			require.NoError(t, err)
			got := map[string]string{}
			for _, w := range c.KueueWorkloads {
				job := ""
				if w.Job != (placement.Key{}) {
					job = w.Job.String()
				}
				got[w.Obj.Name] = job
			}
			require.Equal(t, tc.workloads, got)
			var pods []string
			for k := range c.pods {
				pods = append(pods, k.String())
			}
			require.ElementsMatch(t, tc.pods, pods)
			require.Len(t, c.PodGroups, tc.podGroups)
			h2, _ := c.Snapshot.NodeID("h2")
			require.Equal(t, tc.h2CPU, c.Snapshot.Requested(h2, placement.ResourceCPU))
		})
	}
}

// TestKueueJobLoadWritesWorkload checks that the Workload built for a Job
// is written back with the input, and read back as the Job's own.
func TestKueueJobLoadWritesWorkload(t *testing.T) {
	c, err := load(t, kjobNodes+kjob("train", "  uid: u1\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"))
	require.NoError(t, err)
	objs := c.Objects()
	require.Len(t, objs, 4) // two Nodes, the Job, its Workload
	var out strings.Builder
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		require.NoError(t, err)
		out.WriteString("---\n" + string(b))
	}
	again, err := load(t, out.String())
	require.NoError(t, err)
	require.Len(t, again.KueueWorkloads, 1)
	require.Equal(t, KueueJobWorkloadName("train", "u1"), again.KueueWorkloads[0].Obj.Name)
	require.Equal(t, "default/train", again.KueueWorkloads[0].Job.String())
}

// TestKueueJobLoadErrors checks that a Job Kueue's webhook refuses, or one
// Kueue cannot build a Workload for, is an input error naming the Job and
// the field, located at the Job.
func TestKueueJobLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"queue name", kjob("train", "  labels: {kueue.x-k8s.io/queue-name: Bad_Queue}\n"),
			`Job "default/train": metadata.labels[kueue.x-k8s.io/queue-name]: "Bad_Queue" is not a valid name`},
		{"min-parallelism not an integer", kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq}\n  annotations: {kueue.x-k8s.io/job-min-parallelism: two}\n"),
			`Job "default/train": metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: "two" is not an integer`},
		{"min-parallelism not below the count", kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq}\n  annotations: {kueue.x-k8s.io/job-min-parallelism: \"2\"}\n"),
			`Job "default/train": metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: 2: want 1 to 1`},
		{"missing WorkloadPriorityClass", kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: gold}\n"),
			`no WorkloadPriorityClass "gold"`},
		{"missing prebuilt Workload", kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/prebuilt-workload-name: w}\n"),
			`metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]: no Kueue Workload "w" in the input`},
		{"name taken", kjob("train", "  labels: {kueue.x-k8s.io/queue-name: lq}\n") + kjobWorkload(KueueJobWorkloadName("train", ""), "", ""),
			`Kueue would create Kueue Workload "default/` + KueueJobWorkloadName("train", "") + `" for the Job, which the input already has`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, kjobNodes+tc.in)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "in.yaml: document 3") // the Job
		})
	}
}

// The Workload built for a Kueue Job is adjusted as Kueue adjusts every
// Workload's templates (AdjustResources): a namespace's LimitRange gives
// its containers their default requests.
func TestKueueJobLoadAdjusted(t *testing.T) {
	lr := `---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: default}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: 1500m}
`
	c, err := load(t, kjobNodes+lr+strings.Replace(kjob("train", "  uid: u1\n  labels: {kueue.x-k8s.io/queue-name: lq}\n"), `containers: [{name: c, resources: {requests: {cpu: "1"}}}]`, "containers: [{name: c}]", 1))
	require.NoError(t, err)
	require.Len(t, c.KueueWorkloads, 1)
	require.Equal(t, placement.ResourceList{placement.ResourceCPU: 1500}, c.KueueWorkloads[0].Group.PodSets[0].Template.Requests)
}
