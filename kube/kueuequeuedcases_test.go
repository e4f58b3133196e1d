package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// queuedAdmission is status.admission of a Workload holding count pods of
// pod set main in flavor tas of ClusterQueue cq, on hosts with counts
// (flow lists), or with no pods and no flavor when hosts is "".
func queuedAdmission(count int, hosts, counts string) string {
	ta, flavors := "{levels: [kubernetes.io/hostname]}", ""
	if hosts != "" {
		ta = fmt.Sprintf("{levels: [kubernetes.io/hostname], slices: [{domainCount: %d, valuesPerLevel: [{individual: {roots: [%s]}}], podCounts: {individual: [%s]}}]}",
			strings.Count(hosts, ",")+1, hosts, counts)
		flavors = fmt.Sprintf("flavors: {cpu: tas}, resourceUsage: {cpu: '%d'}, ", count)
	}
	return fmt.Sprintf(`status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: main, count: %d, %stopologyAssignment: %s}
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
`, count, flavors, ta)
}

// The cases TestProp_KueueAdmitQueues found, each failing before its fix:
// a set admitted at count 0 (no flavor, or none for a resource its
// ClusterQueue does not cover) that grows took no quota and no flavor's
// nodes; a set whose resources took two topology flavors was
// planned on one flavor's nodes (Kueue refuses "more than one TAS flavor
// assigned"); a set that lost a node and grew in the same step grew past
// its ClusterQueue's nominal quota.
func TestAdmitKueueWorkloads_QueuesPropCases(t *testing.T) {
	gpuQueues := `
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
spec: {nodeLabels: {pool: tas}, topologyName: t}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - {coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, nominalQuota: 10}]}]}
  - {coveredResources: [nvidia.com/gpu], flavors: [{name: gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 10}]}]}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {nodeLabels: {pool: tas}, topologyName: t}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq}
spec: {clusterQueue: cq}
`
	rack := "kueue.x-k8s.io/podset-required-topology: rack"
	for _, tc := range []struct {
		name, y string
		action  KueueAction
		msg     string
	}{
		{"grows from an admission of 0 pods",
			partialNodes + strings.Replace(partialQueues, "nominalQuota: 10", "nominalQuota: 0", 1) + partialWL("w", 0, "["+partialSet("main", 2, 0, "", "")+"]") + queuedAdmission(0, "", ""),
			KueueGrowWaits, `pod set "main" waits to grow from 0 to 2 pods: admitted with 0 pods, it holds no flavor to grow in: gangsim gives a pod set of count 0 none`},
		// Admitted at 0 with a flavor for cpu alone, as its ClusterQueue
		// covers no GPU: its pods, which ask for one each, cannot grow
		// there (it grew without GPU quota before).
		{"grows from 0 in a resource its ClusterQueue does not cover",
			partialNodes + partialQueues + partialWL("w", 0, "["+strings.Replace(partialSet("main", 2, 0, "", ""), "cpu: '1'", "cpu: '1', nvidia.com/gpu: '1'", 1)+"]") +
				strings.Replace(queuedAdmission(0, "", ""), "count: 0, ", "count: 0, flavors: {cpu: tas}, resourceUsage: {cpu: '0'}, ", 1),
			KueueGrowWaits, `pod set "main" waits to grow from 0 to 2 pods: resource nvidia.com/gpu unavailable in ClusterQueue`},
		{"two topology flavors",
			partialNodes + gpuQueues + partialWL("w", 0, "["+strings.Replace(partialSet("main", 2, 0, rack, ""), "cpu: '1'", "cpu: '1', nvidia.com/gpu: '1'", 1)+"]"),
			KueuePending, "pod set main: more than one TAS flavor assigned: gpu, tas"},
		// 5 pods admitted (1 on gone host r1-h9), the count now 12: 7
		// more over 10 CPUs of quota, 5 in use.
		{"repaired and grown past quota",
			partialNodes + partialQueues + partialWL("w", 0, "["+partialSet("main", 12, 0, rack, "")+"]") + queuedAdmission(5, "r1-h1, r1-h9", "4, 1"),
			KueueEvicted, `pod set "main": pods of failed node(s) r1-h9 (gone) cannot be replaced: it grows from 5 to 12 pods in the same step: insufficient unused quota for cpu in flavor tas, 2 more needed; the workload must be evicted whole; ` +
				`queued again: couldn't assign flavors to pod set main: insufficient quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (12) > nominal quota (10)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs, _ := admitAll(t, tc.y)
			require.Equal(t, tc.action, outs[0].Action, outs[0].Message)
			require.Equal(t, tc.msg, outs[0].Message)
		})
	}
}
