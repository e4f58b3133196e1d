package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// pendingPartial adds pending Workload name of count one-CPU pods,
// minCount min and priority prio in cq, created at 10:00:<at>.
func (w *qWorld) pendingPartial(name, cq string, count, min, at, prio int) *qWorld {
	fmt.Fprintf(&w.b, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, creationTimestamp: '2026-01-01T10:00:%02dZ'}\nspec:\n  queueName: l%s\n  priority: %d\n  podSets: [{name: main, count: %d, minCount: %d, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n", name, at, cq, prio, count, min)
	return w
}

// A Workload that may be admitted partially and finds no victims for its
// whole count is admitted at the count Kueue's partial admission search
// ends on, preempting for it: the search (counts 4 down to 1, the middle
// first) takes a count that fits, or one for which preemption finds
// targets, as Kueue's getInitialAssignments does. p is four one-CPU pods,
// minCount 1, priority 10, in q (4 CPUs, preempting lower priorities
// within), whose high (priority 100) is never a victim. Each outcome is
// "name: action (message)", in queue order.
func TestAdmitKueueWorkloads_PartialPreempt(t *testing.T) {
	const queued = "queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 1 more needed"
	within := "{withinClusterQueue: LowerPriority}"
	for _, c := range []struct {
		name  string
		world *qWorld
		want  []string
	}{{
		// Nothing free, high of 2: no count fits without preemption;
		// the whole count does not with low1 and low2 gone either.
		// 2 pods do (both victims), 3 do not: admitted at 2. The real
		// Kueue v0.17 did so (kueue-oracle/preemption/p21-partial-preempt).
		name: "fits at no count",
		world: new(qWorld).cohort("org", "", 0).cq("q", "org", 4, within).
			admittedPriority("high", "q", 2, 0, 100).admitted("low1", "q", 1, 1).admitted("low2", "q", 1, 2).
			pendingPartial("p", "q", 4, 1, 0, 10),
		want: []string{
			"p: Admitted (preempted default/low1 (InClusterQueue), default/low2 (InClusterQueue); partially admitted: pod set \"main\" with 2 of 4 pods (minCount 1))",
			"low1: Preempted (preempted by default/p (InClusterQueue); " + queued + ")",
			"low2: Preempted (preempted by default/p (InClusterQueue); " + queued + ")",
		},
	}, {
		// 1 CPU free: 1 pod fits without preemption, but the search
		// tries 2 first, which low's preemption makes room for, and
		// takes it (3 does not fit even so). The real Kueue v0.17 did
		// so (p22-partial-preempt-more).
		name: "more pods by preemption than without",
		world: new(qWorld).cohort("org", "", 0).cq("q", "org", 4, within).
			admittedPriority("high", "q", 2, 0, 100).admitted("low", "q", 1, 1).
			pendingPartial("p", "q", 4, 1, 0, 10),
		want: []string{
			"p: Admitted (preempted default/low (InClusterQueue); partially admitted: pod set \"main\" with 2 of 4 pods (minCount 1))",
			"low: Preempted (preempted by default/p (InClusterQueue); " + queued + ")",
		},
	}, {
		// high of 1 and three victims of 1: 2 pods are found (two
		// victims), then 3 (all three), then not 4: the victims are 3
		// pods' — the search's last count that found targets.
		name: "the last count found",
		world: new(qWorld).cohort("org", "", 0).cq("q", "org", 4, within).
			admittedPriority("high", "q", 1, 0, 100).admitted("low1", "q", 1, 1).admitted("low2", "q", 1, 2).admitted("low3", "q", 1, 3).
			pendingPartial("p", "q", 4, 1, 0, 10),
		want: []string{
			"p: Admitted (preempted default/low1 (InClusterQueue), default/low2 (InClusterQueue), default/low3 (InClusterQueue); partially admitted: pod set \"main\" with 3 of 4 pods (minCount 1))",
			"low1: Preempted (preempted by default/p (InClusterQueue); " + queued + ")",
			"low2: Preempted (preempted by default/p (InClusterQueue); " + queued + ")",
			"low3: Preempted (preempted by default/p (InClusterQueue); " + queued + ")",
		},
	}, {
		// Reclaim in a cohort (6 CPUs, all used): qa (3, holding a1 of
		// 1) reclaims only what it then takes within its nominal quota,
		// so not for 3 or 4 pods; qb borrows 2 for bb2 (the newer),
		// which 2 pods reclaim.
		name: "reclaim at a smaller count",
		world: new(qWorld).cohort("org", "", 0).cq("qa", "org", 3, "{reclaimWithinCohort: Any}").cq("qb", "org", 3, "").
			admitted("bb1", "qb", 3, 0).admitted("bb2", "qb", 2, 1).admitted("a1", "qa", 1, 2).
			pendingPartial("p", "qa", 4, 1, 0, 0),
		want: []string{
			"bb2: Preempted (preempted by default/p (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 2 more needed)",
			"p: Admitted (preempted default/bb2 (InCohortReclamation); partially admitted: pod set \"main\" with 2 of 4 pods (minCount 1))",
		},
	}, {
		// The room a preemptor keeps for the rest of its cycle is its
		// smaller count's: p0 (q1, 2 CPUs, empty) reclaims bb for 2
		// pods (4 would borrow), and p1 (q0, at its nominal quota), which
		// fits 1 pod, is admitted at 1 in the same cycle beside p0's 2
		// (p0's whole count, which fits with bb gone, would leave it
		// nothing); next cycle p0 is admitted at 3. The real Kueue v0.17
		// did so (p26-random-partial-88).
		name: "keeps the smaller count's room",
		world: new(qWorld).cohort("org", "", 0).cq("q0", "org", 4, "{reclaimWithinCohort: Any}").
			cq("q1", "org", 2, "{reclaimWithinCohort: Any}").cq("q2", "org", 2, "").
			admittedPriority("a0", "q0", 3, 0, 10).admitted("a1", "q0", 1, 1).admitted("bb", "q2", 3, 2).
			pendingPartial("p0", "q1", 4, 1, 0, 10).pendingPartial("p1", "q0", 2, 1, 1, 0),
		want: []string{
			"p0: Admitted (preempted default/bb (InCohortReclamation); partially admitted: pod set \"main\" with 3 of 4 pods (minCount 1); borrows from cohort org: cpu 1 in flavor q)",
			"bb: Preempted (preempted by default/p0 (InCohortReclamation); queued again: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 3 more needed)",
			"p1: Admitted (partially admitted: pod set \"main\" with 1 of 2 pods (minCount 1); borrows from cohort org: cpu 1 in flavor q)",
		},
	}, {
		// Without a preemption policy nothing is preempted and p waits.
		name: "no policy",
		world: new(qWorld).cohort("org", "", 0).cq("q", "org", 4, "").
			admittedPriority("high", "q", 2, 0, 100).admitted("low1", "q", 1, 1).admitted("low2", "q", 1, 2).
			pendingPartial("p", "q", 4, 1, 0, 10),
		want: []string{
			"p: Pending (couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor q, 4 more needed)",
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			outs, _ := admitAll(t, partialNodes+qFlavor+c.world.b.String())
			var got []string
			for _, o := range outs {
				if o.Action == KueueKept {
					continue
				}
				s := o.Workload.Name + ": " + string(o.Action)
				if o.Message != "" {
					s += " (" + o.Message + ")"
				}
				got = append(got, s)
			}
			require.Equal(t, c.want, got)
		})
	}
}
