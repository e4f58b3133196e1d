package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// growingWL is Workload g in LocalQueue la (ClusterQueue a), admitted with
// one one-CPU pod on r1-h1 and now asking for two: an elastic scale-up.
func growingWL() string {
	return "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: g, creationTimestamp: '2026-01-01T09:00:00Z'}\nspec:\n  queueName: la\n  podSets: [" +
		partialSet("main", 2, 0, "kueue.x-k8s.io/podset-unconstrained-topology: 'true'", "") + "]\n" + kueueReserved +
		"  admission: {clusterQueue: a, podSetAssignments: [{name: main, count: 1, flavors: {cpu: tas}, resourceUsage: {cpu: '1'}, " +
		"topologyAssignment: {levels: [kubernetes.io/hostname], slices: [{domainCount: 1, valuesPerLevel: [{universal: r1-h1}], podCounts: {universal: 1}}]}}]}\n"
}

// An admitted Workload of an inactive ClusterQueue does not grow: Kueue
// admits a scale-up as a new slice, and leaves an inactive ClusterQueue
// out of its snapshot. Under a cycle of spec.parentName this once walked
// the cohort tree for ever (a fatal stack overflow).
func TestAdmitKueueWorkloads_InactiveClusterQueueGrowWaits(t *testing.T) {
	const prefix = `pod set "main" waits to grow from 1 to 2 pods: ClusterQueue a is inactive: `
	lend := func(name, parent string) string { // a Cohort with quota it lends in part
		return fmt.Sprintf("kind: Cohort\nmetadata: {name: %s}\nspec: {parentName: %s, resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, nominalQuota: 2, lendingLimit: 1}]}]}]}", name, parent)
	}
	for _, c := range []struct {
		name   string
		queues []string
		msg    string
	}{
		{"a Cohort its own parent", []string{preemptCQ("a", "loop", 4, ""), "kind: Cohort\nmetadata: {name: loop}\nspec: {parentName: loop}"},
			"its cohorts' spec.parentName form a cycle, loop → loop"},
		{"a cycle of three Cohorts lending", []string{preemptCQ("a", "c1", 4, ""), lend("c1", "c2"), lend("c2", "c3"), lend("c3", "c1")},
			"its cohorts' spec.parentName form a cycle, c1 → c2 → c3 → c1"},
		{"a Cohort under a cycle", []string{preemptCQ("a", "leaf", 4, ""), lend("leaf", "c1"), lend("c1", "c2"), lend("c2", "c1"), preemptCQ("b", "", 4, "")},
			"its cohorts' spec.parentName form a cycle, c1 → c2 → c1"},
		{"stopPolicy Hold", []string{strings.Replace(preemptCQ("a", "", 4, ""), "spec: {", "spec: {stopPolicy: Hold, ", 1)}, "spec.stopPolicy is Hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, _ := admitAll(t, partialNodes+cohortQueues(c.queues...)+growingWL())
			require.Len(t, outs, 1)
			require.Equal(t, KueueGrowWaits, outs[0].Action)
			require.Equal(t, prefix+c.msg, outs[0].Message)
			require.Equal(t, int32(1), outs[0].PodSets[0][0].Count)
		})
	}
}

// The quota walks end under a cycle of spec.parentName, finding nothing
// there; outside it they are unchanged.
func TestQuotaTree_Cycle(t *testing.T) {
	objs := []any{
		cohortObj("x", "y", "2", "", "1"), cohortObj("y", "x", "2", "", "1"), cohortObj("leaf", "x", "2", "", "1"),
		cohortObj("self", "self", "2", "", "1"), cohortQ("a", "leaf"), cohortQ("b", "self"), cohortQ("c", "ok"),
		cohortObj("ok", "", "2", "", ""),
	}
	var in kueueQueueInputs
	for _, o := range objs {
		require.NoError(t, in.add(o))
	}
	_, q := in.result()
	fr := frOf("f", "cpu")
	tree := q.indexed().tree(quotaUsage{"a": {fr: 1000}, "c": {fr: 1000}})
	for _, cq := range []string{"a", "b"} {
		capacity, free := tree.room(q.ClusterQueues[cq], fr)
		require.Equal(t, [2]int64{0, 0}, [2]int64{capacity, free}, cq)
	}
	for _, c := range []string{"x", "y", "leaf", "self"} {
		n := quotaNode{cohort: c}
		require.True(t, tree.inCycle(n), c)
		require.Zero(t, tree.subtree(n, fr), c)
		require.Zero(t, tree.usage(n, fr), c)
		require.Zero(t, tree.height(c), c)
	}
	require.False(t, tree.inCycle(quotaNode{cohort: "ok"}))
	capacity, free := tree.room(q.ClusterQueues["c"], fr)
	require.Equal(t, [2]int64{6000, 5000}, [2]int64{capacity, free}) // c's 4 and ok's 2, c using 1
}

// cohortQ is ClusterQueue name in cohort with 4 CPUs of flavor f.
func cohortQ(name, cohort string) any { return cohortCQ(name, cohort, "4", "", "") }

// The Workloads of an inactive ClusterQueue are never preemption
// candidates, as Kueue leaves the queue out of the snapshot its candidates
// come from, while the cohort still counts the queue's quota and usage: b
// borrows a's 4 CPUs with bb, and ah (a, reclaimWithinCohort Any) finds no
// victim and waits; bb keeps running (under HoldAndDrain it is evicted
// instead). With b active, bb is reclaimed.
func TestAdmitKueueWorkloads_NoVictimsInInactiveClusterQueue(t *testing.T) {
	a := preemptCQ("a", "c", 4, "reclaimWithinCohort: Any")
	b := preemptCQ("b", "c", 4, "")
	wls := preemptWL("bb", "lb", 0, 0, 8, "", "r1-h1:4 r1-h2:4", 0) + preemptWL("ah", "la", 5, 9, 4, "", "", 0)
	const waits = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"
	for _, c := range []struct {
		name   string
		b      string
		action [2]KueueAction // ah, bb
		msg    string         // ah's
	}{
		{"active: reclaimed", b, [2]KueueAction{KueueAdmitted, KueuePreempted}, "preempted default/bb (InCohortReclamation)"},
		{"stopPolicy Hold", strings.Replace(b, "spec: {", "spec: {stopPolicy: Hold, ", 1), [2]KueueAction{KueuePending, KueueKept}, waits},
		// HoldAndDrain evicts bb, as Kueue's workload controller does:
		// its quota released, ah fits without preempting.
		{"stopPolicy HoldAndDrain", strings.Replace(b, "spec: {", "spec: {stopPolicy: HoldAndDrain, ", 1), [2]KueueAction{KueueAdmitted, KueueEvicted}, ""},
		{"a missing flavor", strings.Replace(b, "flavors: [", "flavors: [{name: gone, resources: [{name: cpu, nominalQuota: 0}]}, ", 1), [2]KueueAction{KueuePending, KueueKept}, waits},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, partialNodes+cohortQueues(a, c.b)+wls)
			require.Len(t, outs, 2)
			require.Equal(t, "default/ah", outs[0].Workload.String())
			require.Equal(t, c.action, [2]KueueAction{outs[0].Action, outs[1].Action})
			require.Equal(t, c.msg, outs[0].Message)
			requireNoOverlap(t, cl)
		})
	}
}

// The borrowing height of a ClusterQueue under a cycle is 0: its walk up
// the cohorts ends.
func TestHeightWith_Cycle(t *testing.T) {
	var in kueueQueueInputs
	for _, o := range []any{cohortObj("c1", "c2", "2", "", "1"), cohortObj("c2", "c1", "2", "", "1"), cohortQ("a", "c1")} {
		require.NoError(t, in.add(o))
	}
	_, q := in.result()
	q = q.indexed()
	a := &admitter{opts: KueueOptions{Queues: q}}
	ch := flavorChoice{usage: map[flavorResource]int64{frOf("f", "cpu"): 9000}}
	require.Zero(t, a.heightWith(q.ClusterQueues["a"], ch, q.tree(nil)))
}
