package kube

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// loadSeeds cover each part of Load: a gang with its members and a
// Workload, a Job stamped with a Kueue rack, a PodGroup sharing a claim
// on a device, a tainted device with a DeviceTaintRule and a claim that
// tolerates both, a bound pod, a CompositePodGroup over a leaf PodGroup,
// a PriorityClass with a PodDisruptionBudget, pods asking an extended
// resource a DeviceClass serves (KEP-5004), one pending with an init
// container and one bound, a stale implicit claim of a pod asking a
// resource two classes name, a resource a device plugin serves on one
// node and DRA on another, Kueue's Topology, ResourceFlavor,
// ClusterQueue and LocalQueue, and Kueue Cohorts (a parent, limits), and a
// LimitRange and RuntimeClass admitting a pending pod, a Job's pods and a
// Kueue Workload's template.
var loadSeeds = []string{
	node1 + "---\n" + lrCPU2 + "---\n" + rcKata +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {runtimeClassName: kata, containers: [{name: c}]}\n" +
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2, completions: 2, template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\nspec: {podSets: [{name: main, count: 1, template: {spec: {runtimeClassName: kata, containers: [{name: c}]}}}]}\n",
	node1 + pod("p", "  nodeName: n1\n"),
	"apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {topology.kubernetes.io/rack: r1}}\nstatus: {allocatable: {cpu: '4'}}\n" +
		"---\napiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec: {podGroupTemplates: [{name: t, schedulingPolicy: {gang: {minCount: 2}}}]}\n" +
		"---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {topology: [{key: topology.kubernetes.io/rack}]}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: g-0}\nspec: {schedulingGroup: {podGroupName: g}, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: g-1}\nspec: {schedulingGroup: {podGroupName: g}, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n",
	node1 + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2, completions: 2, completionMode: Indexed, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}}, spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}\n",
	node1 + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: gpu.example.com, pool: {name: n1, generation: 1, resourceSliceCount: 1}, nodeName: n1, devices: [{name: gpu-0}]}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}\n" +
		"---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {schedulingPolicy: {gang: {minCount: 1}}, resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: g-0}\nspec: {schedulingGroup: {podGroupName: g}, resourceClaims: [{name: gpu, resourceClaimTemplateName: t}], containers: [{name: c, resources: {claims: [{name: gpu}]}}]}\n",
	node1 + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: gpu.example.com, pool: {name: n1, generation: 1, resourceSliceCount: 1}, nodeName: n1, devices: [{name: gpu-0, taints: [{key: a, value: x, effect: NoSchedule}]}]}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\nspec: {deviceSelector: {driver: gpu.example.com, pool: n1, device: gpu-0}, taint: {key: b, effect: NoExecute}}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, tolerations: [{key: a, operator: Exists}, {key: b, value: '', effect: NoExecute}]}}]}}\n",
	node1 + "---\napiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: r}\nspec: {workloadRef: {workloadName: w, templateName: r}, schedulingPolicy: {gang: {minGroupCount: 1}}, disruptionMode: {all: {}}}\n" +
		"---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {parentCompositePodGroupName: r, workloadRef: {workloadName: w, templateName: t}, schedulingPolicy: {gang: {minCount: 1}}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: g-0}\nspec: {schedulingGroup: {podGroupName: g}, containers: [{name: c}]}\n",
	node1 + "---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 10\n" +
		"---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1, selector: {matchLabels: {app: a}}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: v, labels: {app: a}}\nspec: {nodeName: n1, priorityClassName: low, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n",
	node1 + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {extendedResourceName: example.com/gpu}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: gpu.example.com, pool: {name: n1, generation: 1, resourceSliceCount: 1}, nodeName: n1, devices: [{name: gpu-0}, {name: gpu-1}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {initContainers: [{name: i, resources: {limits: {example.com/gpu: 2}}}], containers: [{name: c, resources: {limits: {example.com/gpu: 1}}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {nodeName: n1, containers: [{name: c, resources: {limits: {deviceclass.resource.kubernetes.io/gpu: 1}}}]}\n",
	node1 + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\nspec: {extendedResourceName: x.com/gpu}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: b, creationTimestamp: '2026-01-01T00:00:01Z'}\nspec: {extendedResourceName: x.com/gpu}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, annotations: {resource.kubernetes.io/extended-resource-claim: 'true'}, ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: u, controller: true}]}\n" +
		"spec: {devices: {requests: [{name: r, exactly: {deviceClassName: a}}]}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, uid: u}\nspec: {containers: [{name: c, resources: {limits: {x.com/gpu: 1}}}]}\n",
	"apiVersion: v1\nkind: Node\nmetadata: {name: dp}\nstatus: {allocatable: {cpu: '4', x.com/gpu: 2}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: d}\nstatus: {allocatable: {cpu: '4'}}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: g}\nspec: {extendedResourceName: x.com/gpu}\n" +
		"---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: g.x.com, pool: {name: d, generation: 1, resourceSliceCount: 1}, nodeName: d, devices: [{name: g0}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {nodeName: dp, containers: [{name: c, resources: {limits: {x.com/gpu: 1}}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {limits: {x.com/gpu: 1}}}]}\n",
	"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: kubernetes.io/hostname}]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {nodeLabels: {p: a}, nodeTaints: [{key: k, effect: NoSchedule}], tolerations: [{key: k, operator: Exists}], topologyName: t}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu, pods], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}, {name: pods, nominalQuota: 9}]}]}]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l}\nspec: {clusterQueue: q}\n",
	"apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: o}\nspec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 2}]}]}]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: t}\nspec: {parentName: o, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, borrowingLimit: 1, lendingLimit: 2}]}]}]}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {cohortName: t, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4, borrowingLimit: 2, lendingLimit: 1}]}]}]}\n",
	// Kueue's Job integration: a labelled Job, a Workload of another Job
	// and that Job's pod.
	"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, labels: {kueue.x-k8s.io/queue-name: l, kueue.x-k8s.io/priority-class: w}, annotations: {kueue.x-k8s.io/job-min-parallelism: '1'}}\n" +
		"spec: {parallelism: 2, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: r}}, spec: {containers: [{name: c}]}}}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: w}\nvalue: 5\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, labels: {kueue.x-k8s.io/job-uid: u}}\nspec: {podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]}\n" +
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: k, uid: u}\nspec: {template: {spec: {containers: [{name: c}]}}}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: k}]}\nspec: {containers: [{name: c}]}\n",
}

// TestLoadSeeds: every seed of FuzzLoad loads, under 1 KB, so that the
// fuzzer starts from valid input of each kind and minimizes quickly.
func TestLoadSeeds(t *testing.T) {
	for i, seed := range loadSeeds {
		require.Less(t, len(seed), 1<<10, "seed %d", i)
		objs, err := manifest.Decode("f.yaml", strings.NewReader(seed), manifest.Options{})
		require.NoError(t, err, "seed %d", i)
		_, err = Load(objs)
		require.NoError(t, err, "seed %d", i)
	}
}

// FuzzLoad: any manifest the reader accepts either loads or fails with an
// error located in the input that wraps a sentinel; it never panics.
func FuzzLoad(f *testing.F) {
	// Seeds stay small (each under 1 KB, in flow style and without
	// comments): every input that finds new coverage is minimized, and a
	// minimization's cost grows with the input's size.
	for _, seed := range loadSeeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		if err != nil {
			return
		}
		// A small bound on pods, so that an input of a few bytes asking
		// for a large Job costs the fuzzer no memory.
		c, err := LoadWithOptions(objs, LoadOptions{MaxPods: 1000})
		if err != nil {
			if c != nil {
				t.Fatal("a cluster returned with an error")
			}
			var me *manifest.Error
			var fe *placement.FieldError
			if !errors.As(err, &me) && !errors.As(err, &fe) {
				t.Fatalf("unlocated error %T: %v", err, err)
			}
			return
		}
		if c.Snapshot == nil {
			t.Fatal("no snapshot")
		}
	})
}

// fuzzManifests fuzzes check with every input the manifest reader
// decodes, starting from the files at paths.
func fuzzManifests(f *testing.F, paths []string, check func(t *testing.T, objs []manifest.Object)) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		if err != nil {
			return
		}
		check(t, objs)
	})
}
