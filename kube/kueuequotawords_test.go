package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/topology"
)

// The quota and queue reasons in Kueue v0.17's words and in gangsim's.
func TestKueueQuotaWords(t *testing.T) {
	alone, inCohort := &KueueClusterQueue{Name: "q"}, &KueueClusterQueue{Name: "q", Cohort: "co"}
	for _, c := range []struct {
		name  string
		kueue bool
		cq    *KueueClusterQueue
		want  string
	}{
		{"kueue, alone", true, alone, "insufficient quota for cpu in flavor tas, previously considered podsets requests (1500m) + current podset request (5) > maximum capacity (4)"},
		{"kueue, in a cohort", true, inCohort, "insufficient quota for cpu in flavor tas, previously considered podsets requests (1500m) + current podset request (5) > maximum capacity (4)"},
		{"gangsim, alone", false, alone, "insufficient quota for cpu in flavor tas, earlier pod sets' requests (1500m) + this pod set's request (5) > nominal quota (4)"},
		{"gangsim, in a cohort", false, inCohort, "insufficient quota for cpu in flavor tas, earlier pod sets' requests (1500m) + this pod set's request (5) > maximum capacity with borrowing in cohort co (4)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := &KueueQueues{idx: &quotaIndex{kueueWords: c.kueue}}
			require.Equal(t, c.want, q.overCapacity(c.cq, frOf("tas", "cpu"), 1500, 5000, 4000))
		})
	}
	kq := &KueueQueues{idx: &quotaIndex{kueueWords: true}}
	require.Equal(t, "Workload namespace doesn't match ClusterQueue selector", kq.namespaceMismatch("team-b", "gpu-cq"))
	gq := &KueueQueues{}
	require.Equal(t, `namespace "team-b" doesn't match ClusterQueue gpu-cq's namespaceSelector`, gq.namespaceMismatch("team-b", "gpu-cq"))
}

// A Workload set aside for quota keeps, under KueueWords, the reason of
// the attempt that set it aside, as Kueue does not try it again when
// another Workload is admitted: a (nominal 0) borrows b's 4 CPUs in
// cohort c. Cycle 1: w-b (3, within b's nominal) goes first, so w-a1 (2,
// borrowing) no longer fits; cycle 2: w-a1 finds 1 CPU left ("1 more
// needed") and is set aside, w-a3 (5) can never fit (a may hold 4 at
// most); cycle 3: w-a2 (1) takes the last CPU. gangsim's next round
// tries w-a1 again and finds 2 more needed: its own words say so, Kueue's
// keep the 1 of its last attempt, and its Detail says gangsim's, as for
// w-a3's maximum capacity. A second run on the output, with w-a1's
// condition read as that attempt's, keeps it too.
func TestAdmitKueueWorkloads_AsideKeepsReason(t *testing.T) {
	y := partialNodes + cohortQueues(cqDoc("a", "c", "nominalQuota: 0"), cqDoc("b", "c", "nominalQuota: 4")) +
		cohortWL("w-a1", "la", 0, 2) + cohortWL("w-b", "lb", 1, 3) + cohortWL("w-a2", "la", 2, 1) + cohortWL("w-a3", "la", 3, 5)
	const short = "couldn't assign flavors to pod set main: insufficient "
	for _, c := range []struct {
		kueue   bool
		want    map[string]string
		details map[string]string // gangsim's own words on the final state
	}{
		{true, map[string]string{
			"w-a1": short + "unused quota for cpu in flavor tas, 1 more needed",
			"w-a3": short + "quota for cpu in flavor tas, previously considered podsets requests (0) + current podset request (5) > maximum capacity (4)",
		}, map[string]string{
			"w-a1": short + "unused quota for cpu in flavor tas, 2 more needed",
			"w-a3": short + "quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (5) > maximum capacity with borrowing in cohort c (4)",
		}},
		{false, map[string]string{
			"w-a1": short + "unused quota for cpu in flavor tas, 2 more needed",
			"w-a3": short + "quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (5) > maximum capacity with borrowing in cohort c (4)",
		}, map[string]string{}},
	} {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(y), manifest.Options{})
		require.NoError(t, err)
		cl, err := Load(objs)
		require.NoError(t, err)
		tree, err := topology.NewTree(cl.Snapshot, cl.KueueLevels)
		require.NoError(t, err)
		opts := KueueOptions{Now: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), Queues: cl.KueueQueues, KueueWords: c.kueue}
		_, outs, err := AdmitKueueWorkloads(cl.Snapshot, tree, cl.KueueWorkloads, opts)
		require.NoError(t, err)
		got := map[string]string{}
		for _, o := range outs {
			if o.Action == KueuePending {
				got[o.Workload.Name] = o.Message
			}
		}
		require.Equal(t, c.want, got, "KueueWords %v", c.kueue)
		details := map[string]string{}
		for _, o := range outs {
			if o.Detail != "" {
				details[o.Workload.Name] = o.Detail
			}
		}
		require.Equal(t, c.details, details, "KueueWords %v: details", c.kueue)
		for _, w := range cl.KueueWorkloads {
			if msg, ok := c.want[w.Obj.Name]; ok {
				require.Equal(t, msg, w.Obj.Status.Conditions[0].Message, "%s's QuotaReserved condition", w.Obj.Name)
			}
		}
		if !c.kueue {
			continue
		}
		// Again, on the Workloads as written: w-a1's reason read as that
		// of an attempt before the run; nothing frees room, so it stays.
		_, again, err := AdmitKueueWorkloads(cl.Snapshot, tree, cl.KueueWorkloads, opts)
		require.NoError(t, err)
		for _, o := range again {
			if msg, ok := c.want[o.Workload.Name]; ok {
				require.Equal(t, msg, o.Message, "%s on the second run", o.Workload.Name)
			}
		}
	}
}
