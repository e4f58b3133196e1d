package kube

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

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
			benchAdmitWorld(b, preemptionWorld(c.ncq, c.w/c.ncq, 2*c.ncq))
		})
	}
}

// fungibilityWorld is the world of the tester's genff.py
// (brk4-findings/06-fungibility-preemption-slow), drawn from seed:
// nf quota-only flavors (cpu on the even ones, memory on the odd), each
// with one huge node; ncq ClusterQueues in three cohorts, each with a
// random subset of the cpu and of the memory flavors at nominal quotas of
// 0–20, preemption {withinClusterQueue LowerPriority, reclaimWithinCohort
// Any, borrowWithinCohort LowerPriority} and a flavorFungibility drawn
// from {}, TryNextFlavor borrow, MayStopSearch preempt, both
// preferences, TryNextFlavor+MayStopSearch (only {} when defaultOnly);
// nw Workloads of 1–6 pods of 1 CPU and 1Gi, priorities 0/5/10, a second
// apart, each in a random ClusterQueue's LocalQueue. Not genff.py's
// stream of draws: the same kind of world, not the same world.
func fungibilityWorld(seed uint64, nf, ncq, nw int, defaultOnly bool) string {
	r := rand.New(rand.NewPCG(seed, 0))
	var b strings.Builder
	for f := range nf {
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f%d}
spec: {nodeLabels: {pool: p%d}}
---
apiVersion: v1
kind: Node
metadata: {name: n%d, labels: {kubernetes.io/hostname: n%d, pool: p%d}}
status: {allocatable: {cpu: "100000", memory: 100Ti, pods: "100000"}}
`, f, f, f, f, f)
	}
	policies := []string{"{}", "{whenCanBorrow: TryNextFlavor}", "{whenCanPreempt: MayStopSearch}",
		"{whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: PreemptionOverBorrowing}",
		"{whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: BorrowingOverPreemption}",
		"{whenCanBorrow: TryNextFlavor, whenCanPreempt: MayStopSearch}"}
	// sample draws k of the flavors from first (0 or 1) on, every other
	// one, in a random order.
	sample := func(first int) []int {
		var all []int
		for f := first; f < nf; f += 2 {
			all = append(all, f)
		}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		return all[:1+r.IntN(max(1, nf/2))]
	}
	for c := range ncq {
		policy := policies[r.IntN(len(policies))]
		if defaultOnly {
			policy = "{}"
		}
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq%d}
spec:
  cohortName: co%d
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any, borrowWithinCohort: {policy: LowerPriority}}
  flavorFungibility: %s
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
`, c, c%3, policy)
		for _, f := range sample(0) {
			fmt.Fprintf(&b, "    - {name: f%d, resources: [{name: cpu, nominalQuota: %d}]}\n", f, r.IntN(21))
		}
		b.WriteString("  - coveredResources: [memory]\n    flavors:\n")
		for _, f := range sample(1) {
			fmt.Fprintf(&b, "    - {name: f%d, resources: [{name: memory, nominalQuota: %dGi}]}\n", f, r.IntN(21))
		}
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: q%d}
spec: {clusterQueue: cq%d}
`, c, c)
	}
	for w := range nw {
		at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(w) * time.Second)
		fmt.Fprintf(&b, `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w%d, namespace: default, creationTimestamp: '%s'}
spec:
  queueName: q%d
  priority: %d
  podSets:
  - name: main
    count: %d
    template:
      spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
`, w, at.Format(time.RFC3339), r.IntN(ncq), 5*r.IntN(3), 1+r.IntN(6))
	}
	return b.String()
}

// BenchmarkAdmitKueueWorkloads_Fungibility admits the genff.py world of
// 06-fungibility-preemption-slow whole, per op: 8 flavors, 20
// ClusterQueues in three cohorts, 400 Workloads, with preemption and
// the flavor fungibilities mixed (ff=mixed) or all Kueue's default
// (ff=default). Every head that does not fit searches for victims, and
// under a fungibility other than the default grades each flavor by a
// victim search of its own; the run tries every pending Workload again
// after each admission or preemption.
func BenchmarkAdmitKueueWorkloads_Fungibility(b *testing.B) {
	for _, c := range []struct {
		name        string
		defaultOnly bool
	}{{"mixed", false}, {"default", true}} {
		b.Run("ff="+c.name+"/w=400", func(b *testing.B) {
			benchAdmitWorld(b, fungibilityWorld(2, 8, 20, 400, c.defaultOnly))
		})
	}
}

// benchAdmitWorld admits the Workloads of world (a manifest) per op,
// fresh ones each time, and reports how many were admitted.
func benchAdmitWorld(b *testing.B, world string) {
	var admitted int
	for b.Loop() {
		b.StopTimer()
		// The run changes the Workloads: fresh ones per op.
		cl := loadWorld(b, world)
		var tree *topology.Tree
		if cl.KueueLevels != nil {
			var err error
			if tree, err = topology.NewTree(cl.Snapshot, cl.KueueLevels); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		_, outs, err := AdmitKueueWorkloads(cl.Snapshot, tree, cl.KueueWorkloads, KueueOptions{Now: worldNow, Queues: cl.KueueQueues})
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
}
