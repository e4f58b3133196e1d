package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// Kueue v0.17 replaces one failed node at a time: its node controller
// records the failed node in status.unhealthyNodes and evicts a Workload
// when another of its nodes fails while one is recorded; the scheduler
// replaces the recorded node and clears the field, and a node healthy
// again is dropped from it. Without a replacement, TASFailedNodeReplacementFailFast
// (on by default) evicts the Workload; off, it stays admitted as it is
// and waits. A Workload of 3 one-CPU pods (two-CPU pods where said) with
// rack r1 (hosts b1-r1-h1, b1-r1-h2) required; rack r2 holds one host. An
// evicted Workload is admitted again in the tightest rack that holds it:
// r2 when both hosts of r1 are free, r1's b1-r1-h2 when b1-r1-h1 is
// tainted; with two-CPU pods, none.
func TestAdmitKueueWorkloads_OneNodeAtATime(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	type pods = [][]placement.PodSetAssignment
	const (
		ready    = "status: {allocatable: {cpu: '4', pods: '110'}}"
		tainted  = "spec: {taints: [{key: node.kubernetes.io/unreachable, effect: NoExecute}]}\n" + ready
		cordoned = "spec: {unschedulable: true}\n" + ready
		twice    = "2 of its nodes failed: %s; Kueue replaces one failed node at a time (status.unhealthyNodes) and evicts a workload whose second node fails before the first is replaced"
		noRoom   = `pod set "main" needs 2 pods in one rack domain; the best, r1, holds 1`
	)
	on := func(hosts ...string) string { // "host=count" pairs
		var roots, counts []string
		for _, h := range hosts {
			n, c, _ := strings.Cut(h, "=")
			roots, counts = append(roots, n), append(counts, c)
		}
		return fmt.Sprintf("{domainCount: %d, valuesPerLevel: [{individual: {roots: [%s]}}], podCounts: {individual: [%s]}}", len(hosts), strings.Join(roots, ", "), strings.Join(counts, ", "))
	}
	for _, tc := range []struct {
		name      string
		h1, h2    string // b1-r1-h1's and b1-r1-h2's spec and status
		cpu       string // each pod's request
		slice     string // the admitted assignment
		recorded  string // status.unhealthyNodes in flow style, or ""
		wait      bool   // KueueOptions.WaitForReplacement
		action    KueueAction
		msg       string
		pods      pods
		unhealthy []kueue.UnhealthyNode
		unchanged bool // the admission is written back as read
	}{
		{name: "one gone", h1: ready, h2: ready, cpu: "1", slice: on("b1-r1-h1=2", "b1-r1-h9=1"),
			action: KueueRepaired, msg: `pod set "main": pods of failed node(s) b1-r1-h9 (gone) replaced on b1-r1-h1×1`,
			pods: pods{{{PodSet: "main", Node: "b1-r1-h1", Count: 3}}}},
		{name: "two gone at once", h1: ready, h2: ready, cpu: "1", slice: on("b1-r1-h1=1", "b1-r1-h8=1", "b1-r1-h9=1"),
			action: KueueReadmitted, msg: fmt.Sprintf(twice, "b1-r1-h8 (gone), b1-r1-h9 (gone)"),
			pods: pods{{{PodSet: "main", Node: "b1-r2-h1", Count: 3}}}},
		{name: "tainted and gone at once, waiting", h1: tainted, h2: ready, cpu: "1", slice: on("b1-r1-h1=1", "b1-r1-h2=1", "b1-r1-h9=1"), wait: true,
			action: KueueReadmitted, msg: fmt.Sprintf(twice, "b1-r1-h1 (tainted NoExecute), b1-r1-h9 (gone)"),
			pods: pods{{{PodSet: "main", Node: "b1-r1-h2", Count: 3}}}},
		{name: "second failure", h1: ready, h2: ready, cpu: "1", slice: on("b1-r1-h1=1", "b1-r1-h8=1", "b1-r1-h9=1"), recorded: "[{name: b1-r1-h9}]",
			action: KueueReadmitted, msg: fmt.Sprintf(twice, "b1-r1-h9 (gone), b1-r1-h8 (gone)"),
			pods: pods{{{PodSet: "main", Node: "b1-r2-h1", Count: 3}}}},
		{name: "recorded, healthy again", h1: ready, h2: ready, cpu: "1", slice: on("b1-r1-h1=3"), recorded: "[{name: b1-r1-h1}]",
			action: KueueKept, pods: pods{{{PodSet: "main", Node: "b1-r1-h1", Count: 3}}}},
		{name: "recorded, replaced", h1: tainted, h2: ready, cpu: "1", slice: on("b1-r1-h1=2", "b1-r1-h2=1"), recorded: "[{name: b1-r1-h1}]", wait: true,
			action: KueueRepaired, msg: `pod set "main": pods of failed node(s) b1-r1-h1 (tainted NoExecute) replaced on b1-r1-h2×2`,
			pods: pods{{{PodSet: "main", Node: "b1-r1-h2", Count: 3}}}},
		{name: "no room, fail fast", h1: tainted, h2: ready, cpu: "2", slice: on("b1-r1-h1=2", "b1-r1-h2=1"),
			action: KueueEvicted, msg: `pod set "main": 2 pods of failed node(s) b1-r1-h1 (tainted NoExecute) cannot be replaced in their domains: ` + noRoom +
				`; the workload must be evicted whole; queued again: pod set "main" needs 3 pods in one rack domain; the best, r1, holds 2`},
		{name: "no room, waiting", h1: tainted, h2: ready, cpu: "2", slice: on("b1-r1-h1=2", "b1-r1-h2=1"), wait: true,
			action: KueueReplacementWaits, msg: `pod set "main" waits for a replacement of its 2 pods on failed node b1-r1-h1 (tainted NoExecute): ` + noRoom,
			pods: pods{{{PodSet: "main", Node: "b1-r1-h2", Count: 1}}}, unhealthy: []kueue.UnhealthyNode{{Name: "b1-r1-h1"}}, unchanged: true},
		{name: "recorded, still no room, waiting", h1: tainted, h2: ready, cpu: "2", slice: on("b1-r1-h1=2", "b1-r1-h2=1"), recorded: "[{name: b1-r1-h1}]", wait: true,
			action: KueueReplacementWaits, msg: `pod set "main" waits for a replacement of its 2 pods on failed node b1-r1-h1 (tainted NoExecute): ` + noRoom,
			pods: pods{{{PodSet: "main", Node: "b1-r1-h2", Count: 1}}}, unhealthy: []kueue.UnhealthyNode{{Name: "b1-r1-h1"}}, unchanged: true},
		{name: "stale, waiting", h1: ready, h2: cordoned, cpu: "1", slice: on("b1-r1-h1=1", "b1-r1-h2=1", "b1-r1-h9=1"), wait: true,
			action: KueueReplacementWaits, msg: `pod set "main" waits for a replacement of its 1 pod on failed node b1-r1-h9 (gone): its pods on b1-r1-h2 (cordoned) are on a node Kueue's topology snapshot leaves out`,
			pods: pods{{{PodSet: "main", Node: "b1-r1-h1", Count: 1}, {PodSet: "main", Node: "b1-r1-h2", Count: 1}}}, unhealthy: []kueue.UnhealthyNode{{Name: "b1-r1-h9"}}, unchanged: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := "---\napiVersion: v1\nkind: Node\nmetadata: {name: %[1]s, labels: {kubernetes.io/hostname: %[1]s, rack: %[2]s}}\n%[3]s\n"
			var b strings.Builder
			fmt.Fprintf(&b, node, "b1-r1-h1", "r1", tc.h1)
			fmt.Fprintf(&b, node, "b1-r1-h2", "r1", tc.h2)
			fmt.Fprintf(&b, node, "b1-r2-h1", "r2", ready)
			st := kueueAdmission("3", tc.slice)
			if tc.recorded != "" {
				st += "  unhealthyNodes: " + tc.recorded + "\n"
			}
			b.WriteString(kueueWorkload("[{name: main, count: 3, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '"+tc.cpu+"'}}}]}}}]", st))
			out, w, _ := admitOneWith(t, b.String(), KueueOptions{Now: now, WaitForReplacement: tc.wait})
			require.Equal(t, tc.action, out.Action)
			require.Equal(t, tc.msg, out.Message)
			require.Equal(t, tc.pods, out.PodSets)
			require.Equal(t, tc.unhealthy, w.Obj.Status.UnhealthyNodes)
			if tc.unchanged {
				require.Equal(t, admissionAsRead(t, b.String()), w.Obj.Status.Admission)
			}
		})
	}
}

// admissionAsRead is the status.admission of the one Workload of manifest
// y, as loaded.
func admissionAsRead(t *testing.T, y string) *kueue.Admission {
	t.Helper()
	objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	return c.KueueWorkloads[0].Obj.Status.Admission
}

// A Workload waiting for a replacement changes in nothing else: its set
// "grow", asking 2 pods where 1 was admitted on b1-r2-h1, is not grown
// although it fits, because its set "lost" (two-CPU pods) finds no room in
// rack r1 for the 2 pods of the tainted b1-r1-h1. Under the fail-fast
// default the Workload is evicted instead, and both sets are admitted anew.
func TestAdmitKueueWorkloads_ReplacementWaitsKeepsOtherSets(t *testing.T) {
	const (
		ready   = "status: {allocatable: {cpu: '4', pods: '110'}}"
		tainted = "spec: {taints: [{key: node.kubernetes.io/unreachable, effect: NoExecute}]}\n" + ready
		set     = "{name: %s, count: %d, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '%d'}}}]}}}"
		assign  = "{name: %s, count: %d, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [%s]}}"
	)
	node := "---\napiVersion: v1\nkind: Node\nmetadata: {name: %[1]s, labels: {kubernetes.io/hostname: %[1]s, rack: %[2]s}}\n%[3]s\n"
	var b strings.Builder
	fmt.Fprintf(&b, node, "b1-r1-h1", "r1", tainted)
	fmt.Fprintf(&b, node, "b1-r1-h2", "r1", ready)
	fmt.Fprintf(&b, node, "b1-r2-h1", "r2", ready)
	b.WriteString(kueueWorkload("["+fmt.Sprintf(set, "grow", 2, 1)+", "+fmt.Sprintf(set, "lost", 3, 2)+"]",
		kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: ["+
			fmt.Sprintf(assign, "grow", 1, "{domainCount: 1, valuesPerLevel: [{universal: b1-r2-h1}], podCounts: {universal: 1}}")+", "+
			fmt.Sprintf(assign, "lost", 3, "{domainCount: 2, valuesPerLevel: [{individual: {roots: [b1-r1-h1, b1-r1-h2]}}], podCounts: {individual: [2, 1]}}")+"]}\n"))
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	out, w, snap := admitOneWith(t, b.String(), KueueOptions{Now: now, WaitForReplacement: true})
	require.Equal(t, KueueReplacementWaits, out.Action)
	require.Equal(t, `pod set "lost" waits for a replacement of its 2 pods on failed node b1-r1-h1 (tainted NoExecute): pod set "lost" needs 2 pods in one rack domain; the best, r1, holds 1`, out.Message)
	require.Equal(t, [][]placement.PodSetAssignment{{{PodSet: "grow", Node: "b1-r2-h1", Count: 1}}, {{PodSet: "lost", Node: "b1-r1-h2", Count: 1}}}, out.PodSets)
	require.Equal(t, admissionAsRead(t, b.String()), w.Obj.Status.Admission)
	require.Equal(t, []kueue.UnhealthyNode{{Name: "b1-r1-h1"}}, w.Obj.Status.UnhealthyNodes)
	for set, want := range map[string]placement.PodSetAssignment{"grow": {Node: "b1-r2-h1", Count: 1}, "lost": {Node: "b1-r1-h2", Count: 1}} {
		u, ok := snap.PodSetUsage(w.Key(), set)
		require.True(t, ok, set)
		require.Len(t, u.Nodes, 1, set) // the growth tried first was given back
		require.Equal(t, want, placement.PodSetAssignment{Node: u.Nodes[0].Node, Count: u.Nodes[0].Count}, set)
	}

	out, _, _ = admitOneWith(t, b.String(), KueueOptions{Now: now})
	require.Equal(t, KueueEvicted, out.Action)
}
