package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/topology"
)

// preemptionWorld is the world of the tester's scale.py
// (brk-findings/03-preemption-superlinear) with preemption on: ncq
// ClusterQueues of 8 CPUs nominal in cohort "all", each with
// withinClusterQueue LowerPriority and reclaimWithinCohort Any, nodes
// 8-CPU nodes in racks of 8, and perCQ pending Workloads per queue of
// 1..8 one-CPU pods needing one rack, priorities 0/50/100, created a
// second apart.
func preemptionWorld(ncq, perCQ, nodes int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: racks}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {pool: p}, topologyName: racks}
`)
	for n := range nodes {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Node
metadata: {name: n%d, labels: {kubernetes.io/hostname: n%d, rack: r%d, pool: p}}
status: {allocatable: {cpu: '8', pods: '110'}}
`, n, n, n/8)
	}
	for q := range ncq {
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq%d}
spec:
  namespaceSelector: {}
  cohortName: all
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, nominalQuota: 8}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: lq%d}
spec: {clusterQueue: cq%d}
`, q, q, q)
	}
	i := 0
	for q := range ncq {
		for k := range perCQ {
			i++
			at := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
			fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w%d-%d, namespace: default, creationTimestamp: '%s'}
spec:
  queueName: lq%d
  priority: %d
  podSets:
  - name: main
    count: %d
    template:
      metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}
      spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}
`, q, k, at.Format(time.RFC3339), q, (k*37+q)%3*50, 1+(k*7+q)%8)
		}
	}
	return b.String()
}

// BenchmarkAdmitKueueWorkloads_Preemption admits the scale.py world
// (every ClusterQueue over its quota, preempting lower priorities in its
// own queue and reclaiming in the cohort) whole, per op: cq ClusterQueues
// (the cohort's size) and w Workloads. At a fixed cohort size the time
// per op should grow about linearly with w; 03-preemption-superlinear
// found it near cubic.
func BenchmarkAdmitKueueWorkloads_Preemption(b *testing.B) {
	for _, c := range []struct{ ncq, w int }{{25, 250}, {25, 1000}, {25, 2000}, {100, 2000}} {
		b.Run(fmt.Sprintf("cq=%d/w=%d", c.ncq, c.w), func(b *testing.B) {
			world := preemptionWorld(c.ncq, c.w/c.ncq, 2*c.ncq)
			var admitted int
			for b.Loop() {
				b.StopTimer()
				// The run changes the Workloads: fresh ones per op.
				objs, err := manifest.Decode("world.yaml", strings.NewReader(world), manifest.Options{})
				if err != nil {
					b.Fatal(err)
				}
				cl, err := Load(objs)
				if err != nil {
					b.Fatal(err)
				}
				var tree *topology.Tree
				if cl.KueueLevels != nil {
					if tree, err = topology.NewTree(cl.Snapshot, cl.KueueLevels); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				_, outs, err := AdmitKueueWorkloads(cl.Snapshot, tree, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
				if err != nil {
					b.Fatal(err)
				}
				admitted = 0
				for _, o := range outs {
					if o.Action == KueueAdmitted || o.Action == KueueReadmitted {
						admitted++
					}
				}
			}
			if admitted == 0 {
				b.Fatal("nothing admitted")
			}
			b.ReportMetric(float64(admitted), "admitted")
		})
	}
}
