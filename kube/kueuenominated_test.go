package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A head that preempts issues the victims nominated for it on its
// cycle's starting state, as Kueue's schedule issues the targets its
// nominate found, even when a head before it in the cycle made room
// since: searching again on the state its turn finds would preempt
// nothing. The real Kueue v0.17 did so in both worlds
// (kueue-oracle/preemption p18-nominated-victims and
// fs12-nominated-victims). Each outcome is "name: action (message)", in
// queue order.
func TestAdmitKueueWorkloads_NominatedVictims(t *testing.T) {
	const big = "big: Preempted (preempted by default/a (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 6 more needed)"
	// Cohort org (0 own) over qa (4, reclaims from any) and qb (4,
	// preempts lower priorities within): qb holds big (6) and low (2,
	// newer), borrowing qa's 4. One cycle's heads, both nominated on
	// its starting state, where nothing is free: a (qa, 4) reclaims big
	// (low, newer, is tried first but frees too little, and is given
	// back); b (qb, 2, priority 10) preempts low within qb (big, older,
	// is not needed). a goes first (it borrows nothing, b would borrow
	// 2) and preempts big; b, with big gone, would fit without
	// preempting, yet still fits with low gone (Kueue's fits check) and
	// issues low. Next cycle a (4), b (2) and low (2) fill the 8; big
	// waits.
	world := func() *qWorld {
		return new(qWorld).cohort("org", "", 0).cq("qa", "org", 4, "{reclaimWithinCohort: Any}").
			cq("qb", "org", 4, "{withinClusterQueue: LowerPriority}").
			admitted("big", "qb", 6, 0).admitted("low", "qb", 2, 1).
			pending("a", "qa", 4, 0).pendingPriority("b", "qb", 2, 1, 10)
	}
	want := []string{
		"b: Admitted (preempted default/low (InClusterQueue))",
		big,
		"low: Readmitted (preempted by default/b (InClusterQueue))",
		"a: Admitted (preempted default/big (InCohortReclamation))",
	}
	for _, c := range []struct {
		name  string
		extra string // appended to the world
		want  []string
	}{
		{"classical", "", want},
		// With fair sharing a goes first too (qa's share stays 0), a
		// reclaims big as it stays within nominal quota, and b's victim
		// within its ClusterQueue is taken regardless of shares.
		{"fair sharing", fairStrategies("LessThanOrEqualToFinalShare, LessThanInitialShare"), want},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, _ := admitAll(t, partialNodes+qFlavor+world().b.String()+c.extra)
			got := outcomeLines(outs)
			require.Equal(t, c.want, got)
		})
	}
}

// A head that fits only at smaller counts is nominated, as in Kueue's
// getInitialAssignments, the victims its whole count needs on the
// cycle's starting state, and issues them at its turn: the same world
// with low of 1 CPU (1 free) and b of two one-CPU pods, minCount 1. b
// fits 1 pod at the start but whole only with low gone; a goes first
// (b, to preempt, would borrow) and preempts big; b then issues low,
// though its whole count would fit without, rather than being admitted
// at 1 pod (a search on the state its turn finds preempts nothing, and
// its smaller count still fits). Next cycle b is admitted whole and low
// again. The real Kueue v0.17 did so
// (kueue-oracle/preemption/p19-nominated-victims-partial).
func TestAdmitKueueWorkloads_NominatedVictimsPartial(t *testing.T) {
	w := new(qWorld).cohort("org", "", 0).cq("qa", "org", 4, "{reclaimWithinCohort: Any}").
		cq("qb", "org", 4, "{withinClusterQueue: LowerPriority}").
		admitted("big", "qb", 6, 0).admitted("low", "qb", 1, 1).pending("a", "qa", 4, 0)
	w.b.WriteString("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: b, creationTimestamp: '2026-01-01T10:00:01Z'}\nspec:\n  queueName: lqb\n  priority: 10\n  podSets: [{name: main, count: 2, minCount: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n")
	outs, _ := admitAll(t, partialNodes+qFlavor+w.b.String())
	got := outcomeLines(outs)
	// Admitted whole: at 1 pod its message would say "partially
	// admitted".
	require.Equal(t, []string{
		"b: Admitted (preempted default/low (InClusterQueue))",
		"big: Preempted (preempted by default/a (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 5 more needed)",
		"low: Readmitted (preempted by default/b (InClusterQueue))",
		"a: Admitted (preempted default/big (InCohortReclamation))",
	}, got)
}
