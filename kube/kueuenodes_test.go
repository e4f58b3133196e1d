package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A node's Ready condition is read as Kueue's TAS reads it: not True is
// not ready; conditions without Ready are not ready; no conditions at all
// is a hand-written node, ready.
func TestNodeNotReady(t *testing.T) {
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	cond := func(typ corev1.NodeConditionType, st corev1.ConditionStatus) corev1.NodeCondition {
		return corev1.NodeCondition{Type: typ, Status: st, LastTransitionTime: metav1.NewTime(at)}
	}
	for _, tc := range []struct {
		name  string
		conds []corev1.NodeCondition
		want  NotReadyNode
		not   bool
	}{
		{"no conditions", nil, NotReadyNode{}, false},
		{"ready", []corev1.NodeCondition{cond(corev1.NodeMemoryPressure, corev1.ConditionFalse), cond(corev1.NodeReady, corev1.ConditionTrue)}, NotReadyNode{}, false},
		{"false", []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionFalse)}, NotReadyNode{Status: corev1.ConditionFalse, Since: at}, true},
		{"unknown", []corev1.NodeCondition{cond(corev1.NodeReady, corev1.ConditionUnknown)}, NotReadyNode{Status: corev1.ConditionUnknown, Since: at}, true},
		{"no Ready", []corev1.NodeCondition{cond(corev1.NodeMemoryPressure, corev1.ConditionFalse)}, NotReadyNode{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, not := NodeNotReady(&corev1.Node{Status: corev1.NodeStatus{Conditions: tc.conds}})
			require.Equal(t, tc.not, not)
			require.Equal(t, tc.want, got)
		})
	}
}

// An admitted Workload with 2 pods on a not-ready node b1-r1-h1 and 1 on
// b1-r1-h2 of its required rack: the node is failed once its Ready has not
// been True for 30s (Kueue's NodeFailureDelay) before now, or at once
// without a Ready condition, and its pods come back on b1-r1-h2; before
// that the Workload keeps its pods. A third host, b1-r1-h3, is not ready
// for 1s throughout: it never takes a replacement.
func TestAdmitKueueWorkloads_NotReady(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	kept := [][]placement.PodSetAssignment{{{PodSet: "main", Node: "b1-r1-h1", Count: 2}, {PodSet: "main", Node: "b1-r1-h2", Count: 1}}}
	repaired := [][]placement.PodSetAssignment{{{PodSet: "main", Node: "b1-r1-h2", Count: 3}}}
	for _, tc := range []struct {
		name, ready string // ready: h1's conditions, in flow style
		action      KueueAction
		pods        [][]placement.PodSetAssignment
		msg         string
	}{
		{"ready", "[{type: Ready, status: 'True', lastTransitionTime: '2026-01-01T08:00:00Z'}]", KueueKept, kept, ""},
		{"false 0s", "[{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T09:00:00Z'}]", KueueKept, kept, ""},
		{"false 29s", "[{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:31Z'}]", KueueKept, kept, ""},
		{"false 30s", "[{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:30Z'}]", KueueRepaired, repaired,
			`pod set "main": pods of failed node(s) b1-r1-h1 (Ready False for 30s) replaced on b1-r1-h2×2`},
		{"unknown 5m", "[{type: Ready, status: Unknown, lastTransitionTime: '2026-01-01T08:55:00Z'}]", KueueRepaired, repaired,
			`pod set "main": pods of failed node(s) b1-r1-h1 (Ready Unknown for 5m0s) replaced on b1-r1-h2×2`},
		{"no Ready", "[{type: DiskPressure, status: 'False', lastTransitionTime: '2026-01-01T08:00:00Z'}]", KueueRepaired, repaired,
			`pod set "main": pods of failed node(s) b1-r1-h1 (no Ready condition) replaced on b1-r1-h2×2`},
		// peer10 07: without lastTransitionTime (the API allows it) the
		// node is failed at once, not worded as 2562047h since year 1.
		{"false, no time", "[{type: Ready, status: 'False'}]", KueueRepaired, repaired,
			`pod set "main": pods of failed node(s) b1-r1-h1 (Ready False, no lastTransitionTime) replaced on b1-r1-h2×2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for i, conds := range []string{tc.ready, "[]", "[{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:59Z'}]"} {
				h := fmt.Sprintf("b1-r1-h%d", i+1)
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s, rack: r1}}\nstatus: {allocatable: {cpu: '4', pods: '110'}, conditions: %s}\n", h, h, conds)
			}
			b.WriteString(kueueWorkload("[{name: main, count: 3, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]",
				kueueAdmission("3", "{domainCount: 2, valuesPerLevel: [{individual: {roots: [b1-r1-h1, b1-r1-h2]}}], podCounts: {individual: [2, 1]}}")))
			out := admitOne(t, b.String(), now)
			require.Equal(t, tc.action, out.Action)
			require.Equal(t, tc.msg, out.Message)
			require.Equal(t, tc.pods, out.PodSets)
		})
	}
}

// A node Kueue's topology snapshot leaves out although it has not failed
// — cordoned, or not ready for less than 30s — makes an assignment that
// names it "stale": the pods of a failed node beside it are not replaced,
// and the Workload is evicted whole and admitted again on the one ready,
// schedulable host b1-r1-h3. With h2 ready the failed h1's pods come back
// beside h2's.
func TestAdmitKueueWorkloads_StaleAssignment(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	const evicted = `pod set "main": pods of failed node(s) b1-r1-h1 (Ready False for 1m0s) cannot be replaced: its pods on b1-r1-h2 (%s) are on a node Kueue's topology snapshot leaves out; the workload must be evicted whole`
	readmitted := [][]placement.PodSetAssignment{{{PodSet: "main", Node: "b1-r1-h3", Count: 3}}}
	for _, tc := range []struct {
		name, h2 string // h2: b1-r1-h2's spec and conditions, in flow style
		action   KueueAction
		pods     [][]placement.PodSetAssignment
		msg      string
	}{
		{"ready", "spec: {}\nstatus: {allocatable: {cpu: '4', pods: '110'}}", KueueRepaired,
			[][]placement.PodSetAssignment{{{PodSet: "main", Node: "b1-r1-h2", Count: 3}}},
			`pod set "main": pods of failed node(s) b1-r1-h1 (Ready False for 1m0s) replaced on b1-r1-h2×2`},
		{"cordoned", "spec: {unschedulable: true}\nstatus: {allocatable: {cpu: '4', pods: '110'}}", KueueReadmitted, readmitted,
			fmt.Sprintf(evicted, "cordoned")},
		{"not ready 1s", "spec: {}\nstatus: {allocatable: {cpu: '4', pods: '110'}, conditions: [{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:59Z'}]}", KueueReadmitted, readmitted,
			fmt.Sprintf(evicted, "Ready False for 1s")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := "---\napiVersion: v1\nkind: Node\nmetadata: {name: %[1]s, labels: {kubernetes.io/hostname: %[1]s, rack: r1}}\n%[2]s\n"
			var b strings.Builder
			fmt.Fprintf(&b, node, "b1-r1-h1", "status: {allocatable: {cpu: '4', pods: '110'}, conditions: [{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:00Z'}]}")
			fmt.Fprintf(&b, node, "b1-r1-h2", tc.h2)
			fmt.Fprintf(&b, node, "b1-r1-h3", "status: {allocatable: {cpu: '4', pods: '110'}}")
			b.WriteString(kueueWorkload("[{name: main, count: 3, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]",
				kueueAdmission("3", "{domainCount: 2, valuesPerLevel: [{individual: {roots: [b1-r1-h1, b1-r1-h2]}}], podCounts: {individual: [2, 1]}}")))
			out := admitOne(t, b.String(), now)
			require.Equal(t, tc.action, out.Action)
			require.Equal(t, tc.msg, out.Message)
			require.Equal(t, tc.pods, out.PodSets)
		})
	}
}

// An elastic Workload admitted with 2 pods on b1-r1-h1 and 1 on b1-r1-h2
// whose count changed: while h1 is in Kueue's topology snapshot the set
// is resized in place (a growth adds its pod beside the existing ones, on
// the fullest host that holds it; a shrink drops the least filled host);
// with h1 cordoned or not ready for less than 30s the assignment is stale
// and Kueue plans the set anew for its whole count, beside its old pods
// (still held until the new slice replaces them): 4 pods fit only on the
// empty b1-r1-h3, 2 on b1-r1-h2, the fullest host that holds them; 12
// fit nowhere, and the set keeps its pods and waits, as the new slice
// of Kueue stays pending beside the old one.
func TestAdmitKueueWorkloads_StaleResize(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	const anew = `pod set "main" is planned anew for %d pods (its admitted 3 pods are not kept: b1-r1-h1 (%s) is on a node Kueue's topology snapshot leaves out)`
	cordoned := "spec: {unschedulable: true}\nstatus: {allocatable: {cpu: '4', pods: '110'}}"
	notReady := "spec: {}\nstatus: {allocatable: {cpu: '4', pods: '110'}, conditions: [{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:59Z'}]}"
	ready := "spec: {}\nstatus: {allocatable: {cpu: '4', pods: '110'}}"
	type pods = [][]placement.PodSetAssignment
	for _, tc := range []struct {
		name, h1 string // h1: b1-r1-h1's spec and status, in flow style
		count    int
		action   KueueAction
		pods     pods
		msg      string
	}{
		{"ready grow", ready, 4, KueueResized, pods{{{PodSet: "main", Node: "b1-r1-h1", Count: 3}, {PodSet: "main", Node: "b1-r1-h2", Count: 1}}},
			`pod set "main" grows from 3 to 4 pods: 1 of 1 members placed`},
		{"ready shrink", ready, 2, KueueResized, pods{{{PodSet: "main", Node: "b1-r1-h1", Count: 2}}}, `pod set "main" shrinks from 3 to 2 pods`},
		{"cordoned grow", cordoned, 4, KueueResized, pods{{{PodSet: "main", Node: "b1-r1-h3", Count: 4}}}, fmt.Sprintf(anew, 4, "cordoned")},
		{"cordoned shrink", cordoned, 2, KueueResized, pods{{{PodSet: "main", Node: "b1-r1-h2", Count: 2}}}, fmt.Sprintf(anew, 2, "cordoned")},
		{"not ready 1s grow", notReady, 4, KueueResized, pods{{{PodSet: "main", Node: "b1-r1-h3", Count: 4}}}, fmt.Sprintf(anew, 4, "Ready False for 1s")},
		{"cordoned too wide", cordoned, 12, KueueGrowWaits, pods{{{PodSet: "main", Node: "b1-r1-h1", Count: 2}, {PodSet: "main", Node: "b1-r1-h2", Count: 1}}},
			`pod set "main" waits to grow from 3 to 12 pods: pod set "main" needs 12 pods; the cluster holds 7`},
		{"not ready 1s shrink", notReady, 2, KueueResized, pods{{{PodSet: "main", Node: "b1-r1-h2", Count: 2}}}, fmt.Sprintf(anew, 2, "Ready False for 1s")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := "---\napiVersion: v1\nkind: Node\nmetadata: {name: %[1]s, labels: {kubernetes.io/hostname: %[1]s, rack: r1}}\n%[2]s\n"
			var b strings.Builder
			fmt.Fprintf(&b, node, "b1-r1-h1", tc.h1)
			fmt.Fprintf(&b, node, "b1-r1-h2", ready)
			fmt.Fprintf(&b, node, "b1-r1-h3", ready)
			b.WriteString(kueueWorkload(fmt.Sprintf("[{name: main, count: %d, template: {metadata: {annotations: {kueue.x-k8s.io/podset-unconstrained-topology: 'true'}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]", tc.count),
				kueueAdmission("3", "{domainCount: 2, valuesPerLevel: [{individual: {roots: [b1-r1-h1, b1-r1-h2]}}], podCounts: {individual: [2, 1]}}")))
			out := admitOne(t, b.String(), now)
			require.Equal(t, tc.action, out.Action)
			require.Equal(t, tc.msg, out.Message)
			require.Equal(t, tc.pods, out.PodSets)
		})
	}
}

// A set that shares a PodSetGroup is still resized in place when its
// assignment is stale (it names a required level, which Kueue v0.17
// refuses for elastic Workloads with TAS, so Kueue has no rule): leader and workers run on the cordoned b1-r1-h1 of rack r1,
// the workers grow from 2 to 3, and with rack r1 holding nothing more
// for Kueue they keep their pods and wait, the leader untouched, rather
// than leave the leader's rack.
func TestAdmitKueueWorkloads_StaleResizePodSetGroup(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\napiVersion: v1\nkind: Node\nmetadata: {name: b1-r1-h1, labels: {kubernetes.io/hostname: b1-r1-h1, rack: r1}}\nspec: {unschedulable: true}\nstatus: {allocatable: {cpu: '4', pods: '110'}}\n")
	b.WriteString("---\napiVersion: v1\nkind: Node\nmetadata: {name: b1-r2-h1, labels: {kubernetes.io/hostname: b1-r2-h1, rack: r2}}\nstatus: {allocatable: {cpu: '8', pods: '110'}}\n")
	tmpl := "template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-group-name: g}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}"
	on := func(set string, n int) string {
		return fmt.Sprintf("{name: %s, count: %d, topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: b1-r1-h1}], podCounts: {universal: %d}}]}}", set, n, n)
	}
	b.WriteString(kueueWorkload("[{name: leader, count: 1, "+tmpl+"}, {name: workers, count: 3, "+tmpl+"}]",
		kueueReserved+"  admission: {clusterQueue: q, podSetAssignments: ["+on("leader", 1)+", "+on("workers", 2)+"]}\n"))
	out := admitOne(t, b.String(), time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	require.Equal(t, KueueGrowWaits, out.Action)
	require.Equal(t, [][]placement.PodSetAssignment{{{PodSet: "leader", Node: "b1-r1-h1", Count: 1}}, {{PodSet: "workers", Node: "b1-r1-h1", Count: 2}}}, out.PodSets)
}

// admitOne admits the one Kueue Workload of manifest y (its nodes
// labelled rack and kubernetes.io/hostname) at now and returns its
// outcome, node IDs zeroed so that a table names the nodes alone.
func admitOne(t *testing.T, y string, now time.Time) KueueOutcome {
	t.Helper()
	out, _, _ := admitOneWith(t, y, KueueOptions{Now: now})
	return out
}

// admitOneWith is admitOne under opts (NotReady read from y) and also
// returns the Workload, its status as admission wrote it, and the
// snapshot with its reservations.
func admitOneWith(t *testing.T, y string, opts KueueOptions) (KueueOutcome, *KueueWorkload, *placement.Snapshot) {
	t.Helper()
	objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	tree, err := topology.NewTree(c.Snapshot, []string{"rack", corev1.LabelHostname})
	require.NoError(t, err)
	opts.NotReady = c.NotReady
	snap, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, opts)
	require.NoError(t, err)
	require.Len(t, outs, 1)
	for _, ps := range outs[0].PodSets {
		for i := range ps {
			ps[i].NodeID = 0
		}
	}
	return outs[0], c.KueueWorkloads[0], snap
}
