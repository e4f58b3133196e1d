package kube

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// A PodSetGroup's set of count 0 is admitted as Kueue v0.17 admits it,
// with a phantom one-pod leader: placed as a pod of its template beside
// the other set, written with count 0, resourceUsage 0 and a one-pod
// topologyAssignment, charged no quota and held on its host as a pod of no
// requests. Each case is a record run on the real Kueue (kueue-oracle),
// under the Kueue profile; want is, per Workload in input order, its
// action and pods per set, and phantom the pod set written at count 0.
func TestAdmitKueueWorkloads_PhantomLeader(t *testing.T) {
	const dir = "testdata/kueue-oracle/"
	cluster, err := os.ReadFile(dir + "preemption/cluster.yaml")
	require.NoError(t, err)
	for _, c := range []struct {
		file    string
		phantom string
		want    []string
	}{
		{"preemption/r19-group-zero-first", "workers", []string{
			"default/zw: Admitted [workers h1:1 leader h1:1]",
			"default/late: Admitted [main h2:4]",
		}},
		{"preemption/r20-group-zero-second", "workers", []string{
			"default/zw: Admitted [leader h1:1 workers h1:1]",
			"default/late: Admitted [main h2:4]",
		}},
		// r1 holds the workers but not them and the leader's 2 CPUs.
		{"group-zero-leader-room", "leader", []string{
			"default/fill: Admitted [main h1:1]",
			"default/zw: Admitted [leader h3:1 workers h3:1 h4:1]",
			"default/late: Admitted [main h2:1]",
		}},
		// The phantom pod's host keeps its CPUs, and its quota is 0.
		{"group-zero-phantom-free", "leader", []string{
			"default/fill3: Admitted [main h3:1]",
			"default/fill4: Admitted [main h4:1]",
			"default/zw: Admitted [workers h2:1 leader h1:1]",
			"default/late: Admitted [main h1:1]",
		}},
		// No rack holds the workers and the phantom: the group widens.
		{"group-zero-preferred", "leader", []string{
			"default/fill1: Admitted [main h1:1]",
			"default/fill3: Admitted [main h3:1]",
			"default/zw: Admitted [workers h2:1 h4:2 leader h2:1]",
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			wl, err := os.ReadFile(dir + c.file + ".yaml")
			require.NoError(t, err)
			objs, err := manifest.Decode("f.yaml", strings.NewReader(string(cluster)+"\n"+string(wl)), manifest.Options{})
			require.NoError(t, err)
			cl, err := Load(objs)
			require.NoError(t, err)
			now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
			opts := KueueOptions{Now: now, Queues: cl.KueueQueues, Plan: topology.KueueProfile.Options()}
			s, outs, err := AdmitKueueWorkloads(cl.Snapshot, nil, cl.KueueWorkloads, opts)
			require.NoError(t, err)
			var got []string
			for _, o := range outs {
				got = append(got, fmt.Sprintf("%s: %s [%s]", o.Workload, o.Action, setHostsOf(o)))
			}
			require.Equal(t, c.want, got)

			zw := cl.KueueWorkloads[slices0(cl.KueueWorkloads, "zw")]
			psa := assignmentOf(t, zw.Obj, c.phantom)
			require.Equal(t, int32(0), *psa.Count)
			require.Equal(t, "0", func() string { q := psa.ResourceUsage[corev1.ResourceCPU]; return q.String() }())
			require.Equal(t, kueue.ResourceFlavorReference("tas"), psa.Flavors[corev1.ResourceCPU])
			require.Len(t, psa.TopologyAssignment.Slices, 1)
			// Its pod slot counted for Kueue's decisions in the call; no
			// pod of it is made, so the snapshot returned holds none
			// (brk8 06: kube-scheduler would see the slot free).
			_, ok := s.PodSetUsage(zw.Key(), c.phantom)
			require.False(t, ok, "the phantom pod holds nothing once admission is over")

			// Read back, it is admitted at count 1 on its host, and a
			// second admission keeps every Workload as it is.
			var again []*KueueWorkload
			for _, w := range cl.KueueWorkloads {
				r, err := ConvertKueueWorkload(w.Obj.DeepCopy(), nil)
				require.NoError(t, err)
				again = append(again, r)
			}
			rz := again[slices0(again, "zw")]
			require.True(t, rz.Admitted)
			k := slicesIndex(rz.Group.PodSets, c.phantom)
			require.Equal(t, int32(1), rz.AdmittedCount[k])
			require.Equal(t, int32(0), rz.quotaCount(k))
			objs2, err := manifest.Decode("f.yaml", strings.NewReader(string(cluster)), manifest.Options{})
			require.NoError(t, err)
			cl2, err := Load(objs2)
			require.NoError(t, err)
			opts.Queues = cl.KueueQueues
			_, outs2, err := AdmitKueueWorkloads(cl2.Snapshot, nil, again, opts)
			require.NoError(t, err)
			for _, o := range outs2 {
				require.Equal(t, KueueKept, o.Action, "%s: %s", o.Workload, o.Message)
			}
		})
	}
}

// TestPhantomSets: only a set of count 0 in a group of two whose other set
// keeps pods, unsliced, and not admitted with pods or as a set of count 0
// (no slices), is a phantom leader.
func TestPhantomSets(t *testing.T) {
	set := func(name string, count int32) kueue.PodSet {
		return kueue.PodSet{Name: kueue.PodSetReference(name), Count: count}
	}
	req := func(name, group string, slices bool) topology.PodSetRequest {
		r := topology.PodSetRequest{PodSet: name, Group: group, Required: "rack"}
		if slices {
			r.Slices = []topology.SliceLayer{{Key: "rack", Size: 2}}
		}
		return r
	}
	admitted := func(w *kueue.Workload, zeroCount int32) *kueue.Workload {
		w.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue}}
		w.Status.Admission = &kueue.Admission{PodSetAssignments: []kueue.PodSetAssignment{{Name: "a", Count: &zeroCount}, {Name: "b", Count: ptr(int32(1))}}}
		return w
	}
	noSlices := func(w *kueue.Workload) *kueue.Workload {
		w.Status.Admission.PodSetAssignments[0].TopologyAssignment = &kueue.TopologyAssignment{Levels: []string{corev1.LabelHostname}}
		return w
	}
	two := func(a, b int32) *kueue.Workload {
		return &kueue.Workload{Spec: kueue.WorkloadSpec{PodSets: []kueue.PodSet{set("a", a), set("b", b)}}}
	}
	grouped := []topology.PodSetRequest{req("a", "g", false), req("b", "g", false)}
	reclaimed := two(0, 2)
	reclaimed.Status.ReclaimablePods = []kueue.ReclaimablePod{{Name: "b", Count: 2}}
	for _, c := range []struct {
		name string
		w    *kueue.Workload
		reqs []topology.PodSetRequest
		want map[int]bool
	}{
		{"first", two(0, 1), grouped, map[int]bool{0: true}},
		{"second", two(3, 0), grouped, map[int]bool{1: true}},
		{"both zero", two(0, 0), grouped, nil},
		{"ungrouped", two(0, 1), []topology.PodSetRequest{req("a", "", false), req("b", "", false)}, nil},
		{"sliced", two(0, 2), []topology.PodSetRequest{req("a", "g", true), req("b", "g", false)}, nil},
		{"other all reclaimable", reclaimed, grouped, nil},
		{"admitted at 0", admitted(two(0, 1), 0), grouped, map[int]bool{0: true}},
		{"admitted with pods", admitted(two(0, 1), 2), grouped, nil},
		{"admitted with no slices", noSlices(admitted(two(0, 1), 0)), grouped, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, phantomSets(c.w, c.reqs))
		})
	}
}

// setHostsOf is an outcome's pods per node per set: "workers h1:1 leader h1:1".
func setHostsOf(o KueueOutcome) string {
	var hs []string
	for _, set := range o.PodSets {
		for i, p := range set {
			if i == 0 {
				hs = append(hs, p.PodSet)
			}
			hs = append(hs, fmt.Sprintf("%s:%d", p.Node, p.Count))
		}
	}
	return strings.Join(hs, " ")
}

// assignmentOf is w's status.admission entry for pod set name.
func assignmentOf(t *testing.T, w *kueue.Workload, name string) kueue.PodSetAssignment {
	t.Helper()
	require.NotNil(t, w.Status.Admission)
	for _, a := range w.Status.Admission.PodSetAssignments {
		if string(a.Name) == name {
			return a
		}
	}
	t.Fatalf("no assignment for %s", name)
	return kueue.PodSetAssignment{}
}

// slices0 is the index of the Workload named name in ws.
func slices0(ws []*KueueWorkload, name string) int {
	for i, w := range ws {
		if w.Obj.Name == name {
			return i
		}
	}
	return -1
}

// slicesIndex is the index of pod set name in sets.
func slicesIndex(sets []placement.PodSet, name string) int {
	for i, s := range sets {
		if s.Name == name {
			return i
		}
	}
	return -1
}
