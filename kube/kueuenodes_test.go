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
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for i, conds := range []string{tc.ready, "[]", "[{type: Ready, status: 'False', lastTransitionTime: '2026-01-01T08:59:59Z'}]"} {
				h := fmt.Sprintf("b1-r1-h%d", i+1)
				fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Node\nmetadata: {name: %s, labels: {kubernetes.io/hostname: %s, rack: r1}}\nstatus: {allocatable: {cpu: '4', pods: '110'}, conditions: %s}\n", h, h, conds)
			}
			b.WriteString(kueueWorkload("[{name: main, count: 3, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]",
				kueueAdmission("3", "{domainCount: 2, valuesPerLevel: [{individual: {roots: [b1-r1-h1, b1-r1-h2]}}], podCounts: {individual: [2, 1]}}")))
			objs, err := manifest.Decode("f.yaml", strings.NewReader(b.String()), manifest.Options{})
			require.NoError(t, err)
			c, err := Load(objs)
			require.NoError(t, err)
			tree, err := topology.NewTree(c.Snapshot, []string{"rack", corev1.LabelHostname})
			require.NoError(t, err)
			_, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{Now: now, NotReady: c.NotReady})
			require.NoError(t, err)
			require.Len(t, outs, 1)
			for _, ps := range outs[0].PodSets {
				for i := range ps {
					ps[i].NodeID = 0
				}
			}
			require.Equal(t, tc.action, outs[0].Action)
			require.Equal(t, tc.msg, outs[0].Message)
			require.Equal(t, tc.pods, outs[0].PodSets)
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
			objs, err := manifest.Decode("f.yaml", strings.NewReader(b.String()), manifest.Options{})
			require.NoError(t, err)
			c, err := Load(objs)
			require.NoError(t, err)
			tree, err := topology.NewTree(c.Snapshot, []string{"rack", corev1.LabelHostname})
			require.NoError(t, err)
			_, outs, err := AdmitKueueWorkloads(c.Snapshot, tree, c.KueueWorkloads, KueueOptions{Now: now, NotReady: c.NotReady})
			require.NoError(t, err)
			require.Len(t, outs, 1)
			for _, ps := range outs[0].PodSets {
				for i := range ps {
					ps[i].NodeID = 0
				}
			}
			require.Equal(t, tc.action, outs[0].Action)
			require.Equal(t, tc.msg, outs[0].Message)
			require.Equal(t, tc.pods, outs[0].PodSets)
		})
	}
}
