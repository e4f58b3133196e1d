package kube

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
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
