package kube

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKueueHoldersIn: the quota holders kept by cohort root are those of
// the kept list with that root, in queue order, before and after a
// holder's status changes (which drops the list).
func TestKueueHoldersIn(t *testing.T) {
	c, _ := admitWorld(t, fungibilityWorld(1, 6, 9, 90, true), nil)
	// The Workloads now hold what the admission wrote.
	a := &admitter{opts: KueueOptions{Queues: c.KueueQueues}, queue: c.KueueWorkloads,
		holders: &holderCache{is: map[int]bool{}, dirty: map[int]bool{}}}
	check := func() {
		all := a.quotaHolders()
		require.NotEmpty(t, all)
		seen := 0
		for _, root := range []string{"co0", "co1", "co2", ""} {
			var want []int
			for _, h := range all {
				if h.root == root {
					want = append(want, h.i)
				}
			}
			var got []int
			for _, h := range a.holdersIn(root) {
				got = append(got, h.i)
			}
			require.Equal(t, want, got, "root %q", root)
			seen += len(got)
		}
		require.Len(t, all, seen)
	}
	check()
	// A holder preempted: its status no longer holds quota.
	h := a.quotaHolders()[0]
	unreserve(a.queue[h.i].Obj, "gone", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	a.statusChanged(h.i, false)
	check()
	require.NotContains(t, a.holdersIn(h.root), h, "a holder no longer holding quota is kept")
}

// TestKueueQueueKeyKept: the queue key and namespace/name kept per queue
// index are those of the Workload the queue holds there now, also after
// another Workload takes the index.
func TestKueueQueueKeyKept(t *testing.T) {
	c := loadWorld(t, fungibilityWorld(2, 4, 6, 20, true))
	a := &admitter{opts: KueueOptions{Queues: c.KueueQueues}, queue: slices.Clone(c.KueueWorkloads)}
	want := func(i int) string {
		cq, why := c.KueueQueues.route(a.queue[i])
		require.Empty(t, why)
		return cq.Name
	}
	for range 2 {
		for i := range a.queue {
			require.Equal(t, want(i), a.queueKey(i))
			require.Equal(t, a.queue[i].Key().String(), a.keyString(i))
		}
	}
	// Another Workload at index 0, of another ClusterQueue.
	j := slices.IndexFunc(a.queue, func(w *KueueWorkload) bool { return want(0) != a.queueKey(slices.Index(a.queue, w)) })
	require.Positive(t, j, "the world routes to one ClusterQueue")
	a.queue[0] = a.queue[j]
	require.Equal(t, want(j), a.queueKey(0))
}

// TestKueueGroupLabelKeysKept: the node label keys kept per resource
// group are those of that group's flavors, for each ClusterQueue and
// group, on every read.
func TestKueueGroupLabelKeysKept(t *testing.T) {
	world := `---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: pool}
spec: {nodeLabels: {pool: a}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: zone}
spec: {nodeLabels: {zone: z, rack: r}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: plain}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: a}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: pool, resources: [{name: cpu, nominalQuota: 1}]}, {name: plain, resources: [{name: cpu, nominalQuota: 1}]}]
  - coveredResources: [memory]
    flavors: [{name: zone, resources: [{name: memory, nominalQuota: 1Gi}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: b}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: zone, resources: [{name: cpu, nominalQuota: 1}]}]
  - coveredResources: [memory]
    flavors: [{name: plain, resources: [{name: memory, nominalQuota: 1Gi}]}]
`
	c := loadWorld(t, world)
	q := c.KueueQueues.indexed()
	distinct := map[string]bool{}
	for range 2 {
		for _, name := range slices.Sorted(maps.Keys(q.ClusterQueues)) {
			cq := q.ClusterQueues[name]
			for g := range cq.Groups {
				want := map[string]bool{}
				for _, fq := range cq.Groups[g].Flavors {
					for k := range q.Flavors[fq.Flavor].NodeLabels {
						want[k] = true
					}
				}
				require.Equal(t, want, q.groupLabelKeys(cq, g), "%s group %d", name, g)
				distinct[fmt.Sprint(slices.Sorted(maps.Keys(want)))] = true
			}
		}
	}
	require.Greater(t, len(distinct), 1, "every group has the same keys: the test tells nothing")
}
