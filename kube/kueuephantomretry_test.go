package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/topology"
)

// phantomRetryWorld: Workload w0's PodSetGroup was admitted with a leader
// s0 of one pod, which has since shrunk to count 0 (a set admitted with
// pods and shrunk to 0 is not a phantom leader while the Workload holds
// quota: kueuephantom.go), and w4, of a higher priority, preempts w0 for
// the ClusterQueue's one half-CPU. Requeued in the same pass, w0 is a
// pending Workload whose s0 Kueue would place as a phantom leader, as
// the next pass does. Minimised from TestProp_KueueAdmitQueues at
// -rapid.checks=20000 (a second pass changed w0's QuotaReserved message).
const phantomRetryWorld = `apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: a, labels: {kubernetes.io/hostname: a, rack: r1, pool: p}}
status: {allocatable: {cpu: '2', pods: '110'}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
spec: {nodeLabels: {pool: p}, topologyName: t}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: q}
spec: {namespaceSelector: {}, preemption: {withinClusterQueue: LowerPriority}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 500m}]}]}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: q}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w0, namespace: default, creationTimestamp: '2026-01-01T10:00:09Z'}
spec:
  queueName: lq
  priority: 0
  podSets:
  - name: s0
    count: 0
    template:
      metadata: {annotations: {kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-required-topology: rack}}
      spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
  - name: s1
    count: 1
    template:
      metadata: {annotations: {kueue.x-k8s.io/podset-group-name: g, kueue.x-k8s.io/podset-required-topology: rack}}
      spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
status:
  admission:
    clusterQueue: q
    podSetAssignments:
    - {name: s0, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: 500m}, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, podCounts: {universal: 1}, valuesPerLevel: [{universal: a}]}]}}
    - {name: s1, count: 1, flavors: {cpu: f}, resourceUsage: {cpu: 500m}, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, podCounts: {universal: 1}, valuesPerLevel: [{universal: a}]}]}}
  conditions:
  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: reserved, lastTransitionTime: '2026-01-01T10:00:10Z'}
  - {type: Admitted, status: 'True', reason: Admitted, message: admitted, lastTransitionTime: '2026-01-01T10:00:10Z'}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w4, namespace: default, creationTimestamp: '2026-01-01T10:00:09Z'}
spec:
  queueName: lq
  priority: 2
  podSets:
  - name: s0
    count: 1
    template:
      metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}
      spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}
`

// A Workload preempted in a pass and requeued in it should be tried as
// the next pass tries it, with the same reason for waiting. A known gap
// (see phantomRetryWorld; docs/kueue.md, Not modelled), held here so
// that it runs: the pass keeps the set of count 0 out of the group it read
// while w0 held quota and names s1 alone; the next pass reads s0 as a
// phantom leader and names both sets of the group, as Kueue's message
// does. When the gap is mended the
// first assertion fails: then require the two reasons equal.
func TestKueuePhantomAfterPreemptionInPass(t *testing.T) {
	objs, err := manifest.Decode("w.yaml", strings.NewReader(phantomRetryWorld), manifest.Options{})
	require.NoError(t, err)
	var msgs []string
	for range 2 {
		c, err := Load(objs)
		require.NoError(t, err)
		tree, err := topology.NewTree(c.Snapshot, c.KueueLevels)
		require.NoError(t, err)
		_, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{Now: propNow, NotReady: c.NotReady, Queues: c.KueueQueues, Plan: topology.KueueProfile.Options()})
		require.NoError(t, err)
		for _, o := range outs {
			if o.Workload.Name == "w0" {
				why := o.Message
				if _, again, ok := strings.Cut(why, "queued again: "); ok {
					why = again // preempted in the pass, then tried again
				}
				msgs = append(msgs, why)
			}
		}
	}
	require.Len(t, msgs, 2)
	const reason = ": insufficient unused quota for cpu in flavor f, 500m more needed"
	require.Equal(t, "couldn't assign flavors to pod set s1"+reason, msgs[0], "the pass that preempts w0 (the known gap)")
	require.Equal(t, "couldn't assign flavors to pod set s0"+reason+"; couldn't assign flavors to pod set s1"+reason, msgs[1], "the next pass, which reads s0 as a phantom leader")
}
