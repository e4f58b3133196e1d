package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
)

// shortQueues are quota-only flavors fa and fb and ClusterQueue cq
// (LocalQueue lq) with resource groups groups (flow style), no preemption.
func shortQueues(groups string) string {
	return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: fa}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: fb}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec: {namespaceSelector: {}, resourceGroups: " + groups + "}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq}\nspec: {clusterQueue: cq}\n"
}

// shortWL is a Workload in lq created at second at, one pod per set, each
// set "name:requests" with requests in flow style ("p1:{cpu: '3'}").
func shortWL(name string, at int, sets ...string) string {
	var ps []string
	for _, s := range sets {
		n, req, _ := strings.Cut(s, ":")
		ps = append(ps, fmt.Sprintf("{name: %s, count: 1, template: {spec: {containers: [{name: c, resources: {requests: %s}}]}}}", n, req))
	}
	return fmt.Sprintf("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T10:00:%02dZ'}\nspec: {queueName: lq, podSets: [%s]}\n", name, at, strings.Join(ps, ", "))
}

// Kueue's message for a Workload with several units short of quota, the
// first Workload (w0, admitted) leaving 2 CPUs and 2Gi of 4 and 4Gi: its
// flavor assigner goes on past a unit that needs preemption ("no
// candidates": no preemption here) and names each; a resource group no
// flavor may hold at all replaces its unit's reasons and ends the search.
// Checked on the real Kueue v0.17.0 for the first three
// (kueue-oracle/quota-several-short); the others by its source.
func TestKueueShortWords(t *testing.T) {
	const (
		one  = "[{coveredResources: [cpu, memory], flavors: [{name: fa, resources: [{name: cpu, nominalQuota: 4}, {name: memory, nominalQuota: 4Gi}]}]}]"
		two  = "[{coveredResources: [cpu], flavors: [{name: fa, resources: [{name: cpu, nominalQuota: 4}]}]}, {coveredResources: [memory], flavors: [{name: fb, resources: [{name: memory, nominalQuota: 4Gi}]}]}]"
		used = "main:{cpu: '2', memory: 2Gi}"
		pre  = "couldn't assign flavors to pod set "
	)
	for _, c := range []struct {
		name, groups string
		sets         []string
		kueue, own   string
	}{
		{"two resources of one flavor", one, []string{"main:{cpu: '3', memory: 3Gi}"},
			pre + "main: insufficient unused quota for cpu in flavor fa, 1 more needed, insufficient unused quota for memory in flavor fa, 1Gi more needed",
			pre + "main: insufficient unused quota for cpu in flavor fa, 1 more needed, insufficient unused quota for memory in flavor fa, 1Gi more needed"},
		{"two resource groups", two, []string{"main:{cpu: '3', memory: 3Gi}"},
			pre + "main: insufficient unused quota for cpu in flavor fa, 1 more needed, insufficient unused quota for memory in flavor fb, 1Gi more needed",
			pre + "main: insufficient unused quota for cpu in flavor fa, 1 more needed"},
		{"a later group over its capacity replaces the unit's reasons", two, []string{"main:{cpu: '3', memory: 5Gi}"},
			pre + "main: insufficient quota for memory in flavor fb, previously considered podsets requests (0) + current podset request (5Gi) > maximum capacity (4Gi)",
			pre + "main: insufficient unused quota for cpu in flavor fa, 1 more needed"},
		{"two pod sets", one, []string{"p1:{cpu: '3'}", "p2:{cpu: '1'}"},
			pre + "p1: insufficient unused quota for cpu in flavor fa, 1 more needed; " + pre + "p2: insufficient unused quota for cpu in flavor fa, 2 more needed",
			pre + "p1: insufficient unused quota for cpu in flavor fa, 1 more needed"},
		{"a later pod set over its capacity", one, []string{"p1:{cpu: '3'}", "p2:{cpu: '2'}"},
			pre + "p1: insufficient unused quota for cpu in flavor fa, 1 more needed; " + pre + "p2: insufficient quota for cpu in flavor fa, previously considered podsets requests (3) + current podset request (2) > maximum capacity (4)",
			pre + "p1: insufficient unused quota for cpu in flavor fa, 1 more needed"},
		{"a pod set that fits is not named", one, []string{"p1:{cpu: '1'}", "p2:{cpu: '2'}"},
			pre + "p2: insufficient unused quota for cpu in flavor fa, 1 more needed",
			pre + "p2: insufficient unused quota for cpu in flavor fa, 1 more needed"},
		{"a resource not covered ends the search", one, []string{"p1:{cpu: '3'}", "p2:{nvidia.com/gpu: '1'}"},
			pre + "p1: insufficient unused quota for cpu in flavor fa, 1 more needed; " + pre + "p2: resource nvidia.com/gpu unavailable in ClusterQueue",
			pre + "p1: insufficient unused quota for cpu in flavor fa, 1 more needed"},
	} {
		for _, kueue := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/KueueWords=%v", c.name, kueue), func(t *testing.T) {
				y := shortQueues(c.groups) + shortWL("w0", 0, used) + shortWL("w1", 1, c.sets...)
				objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
				require.NoError(t, err)
				cl, err := Load(objs)
				require.NoError(t, err)
				_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: cl.KueueQueues, KueueWords: kueue})
				require.NoError(t, err)
				require.Len(t, outs, 2)
				require.Equal(t, KueueAdmitted, outs[0].Action)
				want := c.own
				if kueue {
					want = c.kueue
				}
				require.Equal(t, [2]string{string(KueuePending), want}, [2]string{string(outs[1].Action), outs[1].Message})
			})
		}
	}
}
