package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// strictCQ is cqDoc's ClusterQueue with spec.queueingStrategy strategy.
func strictCQ(strategy, name, cohort, quota string) string {
	return strings.Replace(cqDoc(name, cohort, quota), "spec: {", "spec: {queueingStrategy: "+strategy+", ", 1)
}

// withPreemption is ClusterQueue document cq with spec.preemption pre
// (flow style).
func withPreemption(cq, pre string) string {
	return strings.Replace(cq, "spec: {", "spec: {preemption: {"+pre+"}, ", 1)
}

// priorityWL is cohortWL's Workload with spec.priority pri.
func priorityWL(name, lq string, at int, count, pri int32) string {
	return strings.Replace(cohortWL(name, lq, at, count), "  queueName:", fmt.Sprintf("  priority: %d\n  queueName:", pri), 1)
}

// StrictFIFO over partialNodes (r1-h1, r1-h2, r2-h1: 4 CPUs each), as
// Kueue v0.17's queues requeue a head that does not fit (pkg/cache/queue
// RequeueIfNotPresent: at once under StrictFIFO): outcomes in queue order,
// worked by hand in each comment.
func TestAdmitKueueWorkloads_StrictFIFO(t *testing.T) {
	type want struct {
		action KueueAction
		msg    string
	}
	const (
		short   = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, "
		behind  = "waits behind default/w2, the head of StrictFIFO ClusterQueue a"
		noHost  = "in flavor tas: pod set \"main\" needs 5 pods in one kubernetes.io/hostname domain; the best, r1/r1-h1, holds 4"
		behind1 = "waits behind default/w1, the head of StrictFIFO ClusterQueue a"
		w2Host  = "in flavor tas: pod set \"main\" needs 4 pods in one kubernetes.io/hostname domain; the best, r2/r2-h1, holds 1"
	)
	for _, c := range []struct {
		name   string
		queues []string
		wls    []string
		want   []want
	}{
		// a (4): w1 (2) is admitted; w2 (4) finds 2 and stays a's head;
		// w3 (1), which would fit, is never tried.
		{"a head short of quota blocks the newer",
			[]string{strictCQ("StrictFIFO", "a", "ca", "nominalQuota: 4")},
			[]string{cohortWL("w1", "la", 0, 2), cohortWL("w2", "la", 1, 4), cohortWL("w3", "la", 2, 1)},
			[]want{{KueueAdmitted, ""}, {KueuePending, short + "2 more needed"}, {KueuePending, behind}}},
		// The same under BestEffortFIFO: w2 is set aside and w3 heads the
		// next cycle.
		{"BestEffortFIFO sets it aside",
			[]string{strictCQ("BestEffortFIFO", "a", "ca", "nominalQuota: 4")},
			[]string{cohortWL("w1", "la", 0, 2), cohortWL("w2", "la", 1, 4), cohortWL("w3", "la", 2, 1)},
			[]want{{KueueAdmitted, ""}, {KueuePending, short + "3 more needed"}, {KueueAdmitted, ""}}},
		// w1's 5 pods fit a's quota but no host: it blocks w2 all the same.
		{"a head that fits no node blocks the newer",
			[]string{strictCQ("StrictFIFO", "a", "ca", "nominalQuota: 12")},
			[]string{hostWL("w1", "la", 0, 5, ""), cohortWL("w2", "la", 1, 1)},
			[]want{{KueuePending, noHost}, {KueuePending, behind1}}},
		// Queue order is still priority first: hi (newer, priority 5) is
		// a's first head and admitted; then w1 (2) and w2 (4 of the 1 left).
		{"a newer Workload of a higher priority goes first",
			[]string{strictCQ("StrictFIFO", "a", "ca", "nominalQuota: 4")},
			[]string{cohortWL("w1", "la", 0, 2), cohortWL("w2", "la", 1, 4), cohortWL("w3", "la", 2, 1), priorityWL("hi", "la", 3, 1, 5)},
			[]want{{KueueAdmitted, ""}, {KueueAdmitted, ""}, {KueuePending, short + "3 more needed"}, {KueuePending, behind}}},
		// a (8) and b (0) in cohort c: a's blocked w1 (no host holds 5)
		// holds no quota, so b's bw borrows 6 of a's 8 in the same cycle;
		// w1's final reason is then a's quota (2 left).
		{"a blocked head holds no quota: the cohort borrows it",
			[]string{strictCQ("StrictFIFO", "a", "c", "nominalQuota: 8"), cqDoc("b", "c", "nominalQuota: 0")},
			[]string{hostWL("w1", "la", 0, 5, ""), cohortWL("w2", "la", 1, 1), cohortWL("bw", "lb", 2, 6)},
			[]want{{KueuePending, short + "3 more needed"}, {KueuePending, behind1}, {KueueAdmitted, "borrows from cohort c: cpu 6 in flavor tas"}}},
		// a (StrictFIFO, 8) and b (4) in cohorts of their own. Cycle 1:
		// w1 (3 pods on one host of rack r2) takes r2-h1, b0 r1-h1.
		// Cycle 2: w2 (4 on r2-h1, 1 left) would fit an empty cluster, so
		// Kueue would preempt for it; finding no candidates, it keeps its
		// quota and r2-h1×4 for the cycle, and bw (1 pod on r2-h1),
		// taken after it, no longer fits. Every cycle repeats this: bw
		// stays b's head and bz waits behind it.
		{"a blocked head that would preempt keeps its room every cycle",
			[]string{strictCQ("StrictFIFO", "a", "ca", "nominalQuota: 8"), cqDoc("b", "cb", "nominalQuota: 8")},
			[]string{hostWL("w1", "la", 0, 3, "rack: r2"), hostWL("w2", "la", 1, 4, "rack: r2"), hostWL("b0", "lb", 0, 4, "rack: r1"),
				hostWL("bw", "lb", 2, 1, "rack: r2"), cohortWL("bz", "lb", 3, 1)},
			[]want{{KueueAdmitted, ""}, {KueueAdmitted, ""}, {KueuePending, w2Host}, {KueuePending, noLongerFits},
				{KueuePending, "waits behind default/bw, the head of ClusterQueue b"}}},
		// The same with a's reclaimWithinCohort Any (Kueue's
		// CanAlwaysReclaim): w2 keeps nothing; bw and bz are admitted, and
		// w2's final reason names r2-h1 full.
		{"a blocked head keeps nothing under reclaimWithinCohort Any",
			[]string{withPreemption(strictCQ("StrictFIFO", "a", "ca", "nominalQuota: 8"), "reclaimWithinCohort: Any"), cqDoc("b", "cb", "nominalQuota: 8")},
			[]string{hostWL("w1", "la", 0, 3, "rack: r2"), hostWL("w2", "la", 1, 4, "rack: r2"), hostWL("b0", "lb", 0, 4, "rack: r1"),
				hostWL("bw", "lb", 2, 1, "rack: r2"), cohortWL("bz", "lb", 3, 1)},
			[]want{{KueueAdmitted, ""}, {KueueAdmitted, ""}, {KueuePending, strings.Replace(w2Host, "r2/r2-h1, holds 1", "r2/r2-h1, holds 0", 1)}, {KueueAdmitted, ""}, {KueueAdmitted, ""}}},
		// a (StrictFIFO, 3) and b (1) in cohort c, a0 holding 2 and b0 1:
		// 1 left. a1 (2 pods, within a's nominal 3) would preempt and
		// finds nothing; it would borrow 1 (2 + 2 > 3), as b1 (1 + 1 > 1)
		// does: both at height 1, so the older b1 goes first and takes
		// the last CPU; a1 then keeps its room, too late for b1.
		{"a head that would preempt is ordered by what it would borrow",
			[]string{strictCQ("StrictFIFO", "a", "c", "nominalQuota: 3"), cqDoc("b", "c", "nominalQuota: 1")},
			[]string{preemptWL("a0", "la", 0, 0, 2, "", "r1-h1:2", 0), preemptWL("b0", "lb", 0, 1, 1, "", "r1-h2:1", 0),
				cohortWL("b1", "lb", 2, 1), cohortWL("a1", "la", 3, 2)},
			[]want{{KueueKept, ""}, {KueueKept, ""}, {KueueAdmitted, "borrows from cohort c: cpu 1 in flavor tas"}, {KueuePending, short + "2 more needed"}}},
		// a (StrictFIFO, 4, within LowerPriority) holds 6 (a0, a3 at
		// priority 0; a1 at 10), borrowing 2 of b's 2. Cycle 1: n0 (b, 3
		// pods in one rack, priority 100) finds no victims it may take
		// (a0, a3 free only what a borrows, 2) and keeps b's quota; n1 (a,
		// 4 pods, priority 100), nominated to preempt a3 and a0, no longer
		// fits beside that and is skipped. Cycle 2, n0 set aside: n1
		// preempts them. Cycle 3: n1, retried before n0 comes back (as in
		// the real Kueue), is admitted; n0 then finds the cohort's quota
		// taken. a0, queued again, heads a and waits; a3 behind it is
		// never tried.
		{"a head nominated to preempt is skipped for room kept before it",
			[]string{withPreemption(strictCQ("StrictFIFO", "a", "c", "nominalQuota: 4"), "withinClusterQueue: LowerPriority, reclaimWithinCohort: LowerPriority, borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 10}"),
				withPreemption(cqDoc("b", "c", "nominalQuota: 2"), "reclaimWithinCohort: LowerPriority, borrowWithinCohort: {policy: LowerPriority}")},
			[]string{preemptWL("a0", "la", 0, 0, 2, "", "r1-h1:2", 0), preemptWL("a1", "la", 10, 1, 2, "", "r1-h2:2", 1),
				preemptWL("a3", "la", 0, 3, 2, "", "r2-h1:2", 3), preemptWL("n0", "lb", 100, 8, 3, "rack", "", 0), preemptWL("n1", "la", 100, 9, 4, "", "", 0)},
			[]want{{KueuePending, short + "3 more needed"}, {KueueAdmitted, "preempted default/a0 (InClusterQueue), default/a3 (InClusterQueue); borrows from cohort c: cpu 2 in flavor tas"},
				{KueueKept, ""}, {KueuePreempted, "preempted by default/n1 (InClusterQueue); queued again: " + short + "2 more needed"},
				{KueuePreempted, "preempted by default/n1 (InClusterQueue)"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, partialNodes+cohortQueues(c.queues...)+strings.Join(c.wls, ""))
			var got []want
			for _, o := range outs {
				got = append(got, want{o.Action, o.Message})
			}
			require.Equal(t, c.want, got)
			for _, o := range outs { // one waiting behind a head was never tried: no condition written
				if !strings.HasPrefix(o.Message, "waits behind") {
					continue
				}
				for _, w := range cl.KueueWorkloads {
					if w.Key() == o.Workload {
						require.Nil(t, apimeta.FindStatusCondition(w.Obj.Status.Conditions, kueue.WorkloadQuotaReserved), "%s", o.Workload)
					}
				}
			}
		})
	}
}

// A queueingStrategy outside Kueue's enum is refused, naming the
// ClusterQueue and the field.
func TestConvertClusterQueue_QueueingStrategy(t *testing.T) {
	objs, err := manifest.Decode("f.yaml", strings.NewReader(cohortQueues(strictCQ("FIFO", "a", "c", "nominalQuota: 4"))), manifest.Options{})
	require.NoError(t, err)
	_, err = Load(objs)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.Contains(t, err.Error(), `Kueue ClusterQueue "a": spec.queueingStrategy: "FIFO" is not StrictFIFO or BestEffortFIFO`)
}
