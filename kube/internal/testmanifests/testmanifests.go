package testmanifests

import (
	"fmt"
	"strings"
	"time"
)

// doc accumulates YAML documents.
type doc struct{ strings.Builder }

func (d *doc) add(format string, args ...any) {
	d.WriteString("---\n")
	fmt.Fprintf(d, format, args...)
}

// PerfNodes is createNodes of scheduler_perf's podgroup/tas template
// (templates/node.yaml): node-i with 4 CPUs, 32Gi and 110 pods, labelled
// topology.kubernetes.io/zone = zone-(i/100) and
// topology.kubernetes.io/rack = rack-(i/nodesPerRack). The gangscheduling
// configuration uses scheduler_perf's default node, which has the same
// capacity; the labels are harmless there.
func PerfNodes(n, nodesPerRack int) string {
	var d doc
	fmt.Fprintf(&d, "# scheduler_perf podgroup nodes: %d nodes, %d per rack (templates/node.yaml).\n", n, nodesPerRack)
	for i := range n {
		d.add(`apiVersion: v1
kind: Node
metadata:
  name: node-%d
  labels:
    kubernetes.io/hostname: node-%d
    topology.kubernetes.io/zone: zone-%d
    topology.kubernetes.io/rack: rack-%d
status:
  allocatable: {cpu: "4", memory: 32Gi, pods: "110"}
`, i, i, i/100, i/nodesPerRack)
	}
	return d.String()
}

// PerfWorkload is createPodGroups/createAny plus createPods of
// scheduler_perf's gangscheduling (rackKey "") or tas (rackKey
// "topology.kubernetes.io/rack") configuration: in namespace ns, PodGroups
// gang-0..gang-(groups-1) (scheduling.k8s.io/v1beta1, gang minCount
// podsPerGroup, and the required topology key when set) and pods
// test-<prefix>-scheduling-i requesting 100m CPU and 100Mi, pod i in
// gang-(i/podsPerGroup).
func PerfWorkload(ns, prefix string, groups, podsPerGroup int, rackKey string) string {
	var d doc
	fmt.Fprintf(&d, "# scheduler_perf podgroup/%s workload: %d gangs of %d pods in namespace %s.\n", prefix, groups, podsPerGroup, ns)
	for g := range groups {
		constraints := ""
		if rackKey != "" {
			constraints = fmt.Sprintf("  schedulingConstraints:\n    topology:\n    - key: %s\n", rackKey)
		}
		d.add(`apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: gang-%d
  namespace: %s
spec:
  schedulingPolicy:
    gang:
      minCount: %d
%s`, g, ns, podsPerGroup, constraints)
	}
	for i := range groups * podsPerGroup {
		d.add(`apiVersion: v1
kind: Pod
metadata:
  name: test-%s-scheduling-%d
  namespace: %s
spec:
  schedulingGroup:
    podGroupName: gang-%d
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.10.1
    resources:
      requests: {cpu: 100m, memory: 100Mi}
`, prefix, i, ns, i/podsPerGroup)
	}
	return d.String()
}

// Kueue's label keys and node group.
const (
	kueueBlock = "cloud.provider.com/topology-block"
	kueueRack  = "cloud.provider.com/topology-rack"
)

// KueueKindNodes is the 8 workers of Kueue's TAS kind cluster
// (site/static/examples/tas/kind-cluster.yaml): blocks b1 and b2, racks r1
// and r2 in each, two nodes per rack, labelled as there. The file gives no
// capacity (kind nodes share the host); each gets 8 CPUs, 32Gi, 110 pods
// and 2 GPUs, so the 16 GPUs of sample-gpu-queues.yaml's quota exist.
func KueueKindNodes() string {
	var d doc
	d.WriteString("# Kueue TAS kind cluster: 2 blocks x 2 racks x 2 nodes (kind-cluster.yaml); capacities assumed.\n")
	i := 0
	for _, b := range []string{"b1", "b2"} {
		for _, r := range []string{"r1", "r2"} {
			for range 2 {
				i++
				d.add(`apiVersion: v1
kind: Node
metadata:
  name: kind-worker%d
  labels:
    kubernetes.io/hostname: kind-worker%d
    cloud.provider.com/node-group: tas-group
    %s: %s
    %s: %s
status:
  allocatable: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "2", pods: "110"}
`, i, i, kueueBlock, b, kueueRack, r)
			}
		}
	}
	return d.String()
}

// kueueJob is an Indexed Job of n pods, each requesting cpu and memory, in
// the shape of Kueue's TAS samples, translated to Kubernetes v1.37
// workload-aware scheduling: Kueue's podset-required-topology annotation
// becomes spec.scheduling's gang policy (minCount = parallelism) with that
// topology key; a preferred topology has no counterpart in the PodGroup
// API (it names required keys only), so those Jobs get the gang policy and
// keep Kueue's podset-preferred-topology annotation, which the adapter
// reads (kube.KueuePreferredTopology); unconstrained ones get the gang
// policy alone. priority, when not "", is spec.template.spec.priority.
func kueueJob(d *doc, name, ns string, n int, cpu, memory, requiredKey, preferredKey, priorityClass string) {
	constraints := ""
	if requiredKey != "" {
		constraints = fmt.Sprintf("    schedulingConstraints:\n      topology:\n      - key: %s\n", requiredKey)
	}
	meta := ""
	if preferredKey != "" {
		meta = "    metadata:\n      annotations:\n        kueue.x-k8s.io/podset-preferred-topology: " + preferredKey + "\n"
	}
	pc := ""
	if priorityClass != "" {
		pc = "      priorityClassName: " + priorityClass + "\n"
	}
	d.add(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  namespace: %s
spec:
  parallelism: %d
  completions: %d
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: %d
%s  template:
%s    spec:
%s      restartPolicy: Never
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        args: ["pause"]
        resources:
          requests: {cpu: "%s", memory: %s}
`, name, ns, n, n, n, constraints, meta, pc, cpu, memory)
}

// KueueSampleJobs are Kueue's three TAS sample Jobs
// (sample-job-{required,preferred,unconstrained}.yaml): 10 pods that must
// share a rack, 40 that prefer a block, 6 unconstrained, each pod 1 CPU and
// 200Mi. Their generateName becomes a fixed name.
func KueueSampleJobs() string {
	var d doc
	d.WriteString("# Kueue TAS sample Jobs as v1.37 Jobs with spec.scheduling (see kueueJob).\n")
	kueueJob(&d, "tas-sample-required", "default", 10, "1", "200Mi", kueueRack, "", "")
	kueueJob(&d, "tas-sample-preferred", "default", 40, "1", "200Mi", "", kueueBlock, "")
	kueueJob(&d, "tas-sample-unconstrained", "default", 6, "1", "200Mi", "", "", "")
	return d.String()
}

// KueuePerfNodes is the topology of Kueue's TAS performance test
// (configs/tas/generator.yaml): 1 block x 10 racks x 64 nodes, 96 CPUs and
// 256Gi each, 640 nodes.
func KueuePerfNodes() string {
	var d doc
	d.WriteString("# Kueue TAS performance topology: 1 block x 10 racks x 64 nodes, 96 CPU / 256Gi each (generator.yaml).\n")
	for r := range 10 {
		for n := range 64 {
			name := fmt.Sprintf("tas-b0-r%d-n%02d", r, n)
			d.add(`apiVersion: v1
kind: Node
metadata:
  name: %s
  labels:
    kubernetes.io/hostname: %s
    tas-node-group: tas
    %s: b0
    %s: r%d
status:
  allocatable: {cpu: "96", memory: 256Gi, pods: "110"}
`, name, name, kueueBlock, kueueRack, r)
		}
	}
	return d.String()
}

// kueueClass is one workloadsSet of generator.yaml.
type kueueClass struct {
	name     string
	count    int
	pods     int
	request  string
	priority string // a PriorityClass below
	tas      string // tasConstraint: "required" or "preferred" (rack), or "balanced"
}

// KueuePerfWorkloads is one ClusterQueue's share of Kueue's TAS
// performance workload (generator.yaml has 5 cohorts x 6 queues of this
// set; one queue's is 500 Jobs, 1,500 pods, 1,850 CPUs): small (2 pods x
// 500m, priority 50), medium (4 x 1250m, 100) and large (8 x 2500m, 200)
// Jobs, each with a required, a preferred or a balanced rack constraint.
// "required" maps to a PodGroup topology key, "preferred" to Kueue's
// annotation (see kueueJob), "balanced" to nothing. Every pod
// requests 1Gi (the generator sets CPU only). Priorities become
// PriorityClasses kueue-50, kueue-100 and kueue-200.
func KueuePerfWorkloads() string {
	classes := []kueueClass{
		{"small-required-rack", 120, 2, "500m", "kueue-50", "required"},
		{"small-preferred-rack", 120, 2, "500m", "kueue-50", "preferred"},
		{"small-balanced-rack", 110, 2, "500m", "kueue-50", "balanced"},
		{"medium-required-rack", 34, 4, "1250m", "kueue-100", "required"},
		{"medium-preferred-rack", 33, 4, "1250m", "kueue-100", "preferred"},
		{"medium-balanced-rack", 33, 4, "1250m", "kueue-100", "balanced"},
		{"large-required-rack", 17, 8, "2500m", "kueue-200", "required"},
		{"large-preferred-rack", 17, 8, "2500m", "kueue-200", "preferred"},
		{"large-balanced-rack", 16, 8, "2500m", "kueue-200", "balanced"},
	}
	var d doc
	d.WriteString("# One ClusterQueue's share of Kueue's TAS performance workload (generator.yaml), as v1.37 Jobs.\n")
	for _, p := range []int{50, 100, 200} {
		d.add("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: kueue-%d\nvalue: %d\n", p, p)
	}
	for _, c := range classes {
		for i := range c.count {
			required, preferred := "", ""
			switch c.tas {
			case "required":
				required = kueueRack
			case "preferred":
				preferred = kueueRack
			}
			kueueJob(&d, fmt.Sprintf("%s-%03d", c.name, i), "kueue-perf", c.pods, c.request, "1Gi", required, preferred, c.priority)
		}
	}
	return d.String()
}

// Files maps each committed manifest, relative to kube/testdata, to its
// content.
func Files() map[string]string {
	return map[string]string{
		"scheduler-perf/nodes-10.yaml":            PerfNodes(10, 5),
		"scheduler-perf/nodes-100.yaml":           PerfNodes(100, 10),
		"scheduler-perf/gangscheduling-3x3.yaml":  PerfWorkload("gang-ns-0", "gang", 3, 3, ""),
		"scheduler-perf/gangscheduling-10x3.yaml": PerfWorkload("gang-ns-0", "gang", 10, 3, ""),
		"scheduler-perf/tas-3x3.yaml":             PerfWorkload("tas-0", "tas", 3, 3, "topology.kubernetes.io/rack"),
		"scheduler-perf/tas-10x3.yaml":            PerfWorkload("tas-0", "tas", 10, 3, "topology.kubernetes.io/rack"),
		"kueue-tas/kind-nodes.yaml":               KueueKindNodes(),
		"kueue-tas/sample-jobs.yaml":              KueueSampleJobs(),
		"kueue-tas/perf-nodes.yaml":               KueuePerfNodes(),
		"kueue-tas/perf-workloads-one-queue.yaml": KueuePerfWorkloads(),
	}
}

// SetAside is gangsim's own Kueue world of heads that keep room (not
// upstream's: a tester's, whose admission once grew with the square of
// the pending Workloads): blocks blocks of 10 racks of 10 hosts of 8 CPUs
// and 110 pods, one Topology (block, rack, hostname), one topology
// ResourceFlavor over them, one ClusterQueue with 100,000 CPUs of quota
// and its LocalQueue q, and n pending Workloads w00000… created a second
// apart from 2026-01-01T10:00:00Z: the even ones 100 one-CPU pods
// required in one rack (a rack holds 80, so they never fit and keep room
// every cycle they head), the odd ones one pod, unconstrained. gangsim
// admits the n/2 odd ones.
func SetAside(blocks, n int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: block}, {nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
spec: {nodeLabels: {pool: f}, topologyName: t}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 100000}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: q}
spec: {clusterQueue: cq}
`)
	for bl := range blocks {
		for r := range 10 {
			for h := range 10 {
				name := fmt.Sprintf("b%dr%dh%d", bl, r, h)
				fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata: {name: %s, labels: {kubernetes.io/hostname: %s, pool: f, block: b%d, rack: b%dr%d}}
status: {allocatable: {cpu: '8', pods: '110'}}
`, name, name, bl, bl, r)
			}
		}
	}
	for i := range n {
		ann, count := "kueue.x-k8s.io/podset-required-topology: rack", 100
		if i%2 == 1 {
			ann, count = "kueue.x-k8s.io/podset-unconstrained-topology: 'true'", 1
		}
		at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w%05d, namespace: default, creationTimestamp: '%s'}
spec:
  queueName: q
  podSets:
  - name: main
    count: %d
    template:
      metadata: {annotations: {%s}}
      spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
`, i, at.Format(time.RFC3339), count, ann)
	}
	return b.String()
}

// ManyClusterQueues is gangsim's own Kueue world of many ClusterQueues in
// one cohort (not upstream's: a tester's, whose admission grew with the
// square of the ClusterQueues): 10 racks of 10 hosts of 64 CPUs and 110
// pods, one Topology (rack, hostname), one topology ResourceFlavor over
// them, n ClusterQueues cq00000… in cohort co with 1 CPU of nominal quota
// each and LocalQueues q00000…, and one pending Workload per LocalQueue,
// created a second apart from 2026-01-01T10:00:00Z: two one-CPU pods
// required in one rack. Each borrows 1 CPU from the cohort, which holds n:
// gangsim admits the first n/2.
func ManyClusterQueues(n int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
spec: {nodeLabels: {pool: f}, topologyName: t}
`)
	for r := range 10 {
		for h := range 10 {
			name := fmt.Sprintf("r%dh%d", r, h)
			fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata: {name: %s, labels: {kubernetes.io/hostname: %s, pool: f, rack: r%d}}
status: {allocatable: {cpu: '64', pods: '110'}}
`, name, name, r)
		}
	}
	for i := range n {
		at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq%05d}
spec:
  cohortName: co
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: q%05d}
spec: {clusterQueue: cq%05d}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w%05d, namespace: default, creationTimestamp: '%s'}
spec:
  queueName: q%05d
  podSets:
  - name: main
    count: 2
    topologyRequest: {required: rack}
    template:
      spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
`, i, i, i, i, at.Format(time.RFC3339), i)
	}
	return b.String()
}
