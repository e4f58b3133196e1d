package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/kube/manifest"
)

// A pod set resized in place, or scaled to 0, gets the resourceUsage of
// its new count: Kueue's admission states the quota a set holds, and a
// count of 5 written beside the usage of the 3 admitted would misstate it.
func TestAdmitKueueWorkloads_ResizeRewritesResourceUsage(t *testing.T) {
	const (
		node   = "apiVersion: v1\nkind: Node\nmetadata: {name: h1, labels: {kubernetes.io/hostname: h1, rack: r1}}\nstatus: {allocatable: {cpu: '8', pods: '110'}}\n"
		tmpl   = "template: {metadata: {annotations: {kueue.x-k8s.io/podset-unconstrained-topology: 'true'}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}"
		assign = "{name: %s, count: 3, flavors: {cpu: f}, resourceUsage: {cpu: '3'}, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: h1}], podCounts: {universal: 3}}]}}"
	)
	y := node + kueueWorkload("[{name: grow, count: 5, "+tmpl+"}, {name: gone, count: 0, "+tmpl+"}]",
		kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: ["+fmt.Sprintf(assign, "grow")+", "+fmt.Sprintf(assign, "gone")+"]}\n")
	out, w, _ := admitOneWith(t, y, KueueOptions{Now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)})
	require.Equal(t, KueueResized, out.Action)
	psas := w.Obj.Status.Admission.PodSetAssignments
	require.Equal(t, int32(5), *psas[0].Count)
	require.Equal(t, "5", usageOf(psas[0].ResourceUsage))
	require.Equal(t, int32(0), *psas[1].Count)
	require.Equal(t, "0", usageOf(psas[1].ResourceUsage))
}

// usageOf is the cpu of a resourceUsage with nothing else in it, written.
func usageOf(rl corev1.ResourceList) string {
	if len(rl) != 1 {
		return fmt.Sprint(rl)
	}
	q := rl[corev1.ResourceCPU]
	return q.String()
}

// A pod set of a Workload admitted through a ClusterQueue grows only
// within the queue's unused nominal quota, as Kueue admits an elastic
// Workload's scale-up as a new slice that holds the old one's quota and
// the growth: 3 admitted one-CPU pods, 4 CPUs of quota; growing to 4 fits,
// to 5 waits with Kueue's reason and keeps the 3 pods; when a second
// Workload holding 2 CPUs is evicted (two of its nodes failed: tainted h2
// and the gone h9), its quota is free for the growth, which runs before
// the evicted one is queued again.
func TestAdmitKueueWorkloads_GrowthWithinQuota(t *testing.T) {
	const (
		queues = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\nspec: {nodeLabels: {rack: r1}, topologyName: t}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: %d}]}]}]}\n" +
			"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: l}\nspec: {clusterQueue: q}\n" +
			"---\napiVersion: v1\nkind: Node\nmetadata: {name: h1, labels: {kubernetes.io/hostname: h1, rack: r1}}\nstatus: {allocatable: {cpu: '8', pods: '110'}}\n" +
			"---\napiVersion: v1\nkind: Node\nmetadata: {name: h2, labels: {kubernetes.io/hostname: h2, rack: r1}}\nspec: {taints: [{key: gone, effect: NoExecute}]}\nstatus: {allocatable: {cpu: '8', pods: '110'}}\n"
		wl = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T00:00:0%dZ'}\nspec:\n  queueName: l\n  podSets: [{name: main, count: %d, " +
			"template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n" +
			kueueReserved + "  admission: {clusterQueue: q, podSetAssignments: [{name: main, count: %d, flavors: {cpu: f}, " +
			"topologyAssignment: {levels: [kubernetes.io/hostname], slices: [%s]}}]}\n"
		short = `pod set "main" waits to grow from 3 to 5 pods: insufficient unused quota for cpu in flavor f, 1 more needed`
	)
	for _, c := range []struct {
		name    string
		quota   int
		count   int
		evicted bool // a second Workload of 2 pods on h2 and h9, evicted
		after   bool // ... created after w: tried after it in queue order
		action  KueueAction
		msg     string
		pods    int32
	}{
		{name: "fits", quota: 4, count: 4, action: KueueResized, msg: `pod set "main" grows from 3 to 4 pods: 1 of 1 members placed in r1`, pods: 4},
		{name: "over quota", quota: 4, count: 5, action: KueueGrowWaits, msg: short, pods: 3},
		{name: "quota of an evicted Workload", quota: 6, count: 5, evicted: true, action: KueueResized, msg: `pod set "main" grows from 3 to 5 pods: 2 of 2 members placed in r1`, pods: 5},
		// The eviction frees the quota in the same run, although w comes
		// first in queue order: growths are tried after the releases.
		{name: "quota of a Workload evicted later in queue order", quota: 6, count: 5, evicted: true, after: true, action: KueueResized, msg: `pod set "main" grows from 3 to 5 pods: 2 of 2 members placed in r1`, pods: 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := fmt.Sprintf(queues, c.quota)
			if c.evicted {
				at := 0
				if c.after {
					at = 2
				}
				y += fmt.Sprintf(wl, "lost", at, 2, 2, "{domainCount: 2, valuesPerLevel: [{individual: {roots: [h2, h9]}}], podCounts: {universal: 1}}")
			}
			y += fmt.Sprintf(wl, "w", 1, c.count, 3, "{domainCount: 1, valuesPerLevel: [{universal: h1}], podCounts: {universal: 3}}")
			objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
			require.NoError(t, err)
			i := slices.IndexFunc(outs, func(o KueueOutcome) bool { return o.Workload.String() == "default/w" })
			require.GreaterOrEqual(t, i, 0)
			o := outs[i]
			require.Equal(t, c.action, o.Action)
			require.Equal(t, c.msg, o.Message)
			var n int32
			for _, p := range o.PodSets[0] {
				n += p.Count
			}
			require.Equal(t, c.pods, n)
		})
	}
}
