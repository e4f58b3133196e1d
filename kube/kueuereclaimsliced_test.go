package kube

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
)

// slicedReclaimWL is brk4's Workload "sliced" (4 one-CPU pods, preferred
// on one host, in slices of size on a host) with rc pods reclaimable, and
// "late", 4 unconstrained one-CPU pods created after it.
func slicedReclaimWL(size, rc int) string {
	return fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: sliced, namespace: team-a, creationTimestamp: "2026-01-01T10:00:00Z"}
spec:
  queueName: cpu
  podSets:
  - name: main
    count: 4
    topologyRequest: {preferred: kubernetes.io/hostname, podSetSliceRequiredTopology: kubernetes.io/hostname, podSetSliceSize: %d}
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
status:
  reclaimablePods: [{name: main, count: %d}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: late, namespace: team-a, creationTimestamp: "2026-01-01T10:00:05Z"}
spec:
  queueName: cpu
  podSets:
  - name: main
    count: 4
    topologyRequest: {unconstrained: true}
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
`, size, rc)
}

// A pending sliced set with reclaimable pods asks quota for, and is
// written with, its count less those pods, while its topologyAssignment
// places the whole slices of that count, as Kueue v0.17 does (oracle
// record kueue-oracle/preemption/r7-reclaimable-sliced: 3 CPUs held, 2
// pods on c-h1, "late" pending). One left with pods but no whole slice
// holds its quota and is never admitted, without a condition, as Kueue
// assumes it and cannot write its admission, every cycle: "late" waits
// for 1 more CPU (brk4's finding 03; kueue-oracle/preemption/r8). Over
// queues-cluster.yaml: ClusterQueue cpu-cq with 6 CPUs of flavor cpu-tas
// on hosts c-h1 and c-h2 of 4 CPUs.
func TestAdmitKueueWorkloads_ReclaimableSlicedQuota(t *testing.T) {
	cluster, err := os.ReadFile("testdata/kueue-workloads/queues-cluster.yaml")
	require.NoError(t, err)
	for _, c := range []struct {
		name     string
		size, rc int
		want     []string // per Workload: action (message) pods
		written  string   // sliced's status.admission: count and cpu per set
	}{
		{"3 pods left in slices of 2: 3 charged, 2 placed", 2, 1, []string{
			"team-a/sliced: Admitted () [c-h1:2]",
			"team-a/late: Pending (couldn't assign flavors to pod set main: Flavor \"on-demand\" does not support TopologyAwareScheduling, insufficient unused quota for cpu in flavor cpu-tas, 1 more needed) []",
		}, "main 3 cpu=3 placing 2"},
		{"2 pods left in slices of 2: whole slices", 2, 2, []string{
			"team-a/sliced: Admitted () [c-h1:2]",
			"team-a/late: Admitted () [c-h2:4]",
		}, "main 2 cpu=2 placing 2"},
		{"3 pods left in a slice of 4: waits", 4, 1, []string{
			`team-a/sliced: Pending (pod set "main": its 3 pods not reclaimable make no whole slice of 4 pods: Kueue assumes it (cpu 3 in flavor cpu-tas) and its Workload API refuses the admission, whose topologyAssignment has no slices, every scheduling cycle; the Workloads tried after it see its quota held; no QuotaReserved condition is written) []`,
			"team-a/late: Pending (couldn't assign flavors to pod set main: Flavor \"on-demand\" does not support TopologyAwareScheduling, insufficient unused quota for cpu in flavor cpu-tas, 1 more needed) []",
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := manifest.Decode("f.yaml", strings.NewReader(string(cluster)+slicedReclaimWL(c.size, c.rc)), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			// Each flavor names its Topology: no tree of the admitter's own.
			_, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: cl.KueueQueues})
			require.NoError(t, err)
			var got []string
			for _, o := range outs {
				got = append(got, fmt.Sprintf("%s: %s (%s) [%s]", o.Workload, o.Action, o.Message, hostsOf(o)))
			}
			require.Equal(t, c.want, got)
			var written []string
			for _, w := range cl.KueueWorkloads {
				if w.Obj.Name == "sliced" && c.written == "" {
					require.Empty(t, w.Obj.Status.Conditions, "Kueue writes no condition on a Workload it assumes and cannot admit")
				}
				if w.Obj.Name != "sliced" || w.Obj.Status.Admission == nil {
					continue
				}
				for _, psa := range w.Obj.Status.Admission.PodSetAssignments {
					q := psa.ResourceUsage["cpu"]
					var placed int32
					for _, s := range psa.TopologyAssignment.Slices {
						for _, n := range s.PodCounts.Individual {
							placed += n
						}
						if s.PodCounts.Universal != nil {
							placed += *s.PodCounts.Universal * int32(max(1, len(s.ValuesPerLevel)))
						}
					}
					written = append(written, fmt.Sprintf("%s %d cpu=%s placing %d", psa.Name, *psa.Count, q.String(), placed))
				}
			}
			require.Equal(t, c.written, strings.Join(written, "; "))
		})
	}
}
