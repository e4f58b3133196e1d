package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Workloads Kueue does not schedule — spec.active false, or Finished
// True — are never admitted, never preempt and hold no quota nor node
// (Kueue's IsAdmissible, HasActiveQuotaReservation); an inactive one that
// held quota is evicted with reason Deactivated. ClusterQueue a holds 4
// CPUs (withinClusterQueue LowerPriority) and r1-h1 4 CPUs of the three
// hosts: "held" holds all four of r1-h1, "w" asks for 4 on r1-h1.
func TestAdmitKueueWorkloads_InactiveAndFinished(t *testing.T) {
	const (
		finished = "{type: Finished, status: 'True', reason: Succeeded, message: m, lastTransitionTime: '2026-01-01T09:30:00Z'}, "
		noQuota  = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, 4 more needed"
	)
	inactive := func(y string) string { return strings.Replace(y, "spec:\n", "spec:\n  active: false\n", 1) }
	withFinished := func(y string) string {
		if strings.Contains(y, "conditions: [") {
			return strings.Replace(y, "conditions: [", "conditions: ["+finished, 1)
		}
		return y + "status:\n  conditions: [" + strings.TrimSuffix(finished, ", ") + "]\n"
	}
	held := preemptWL("held", "la", 0, 0, 4, "", "r1-h1:4", 0)
	w := preemptWL("w", "la", 5, 9, 4, "", "", 0)
	w = strings.Replace(w, "queueName: la\n", "queueName: la\n  podSets: [{name: main, count: 4, template: {spec: {nodeSelector: {kubernetes.io/hostname: r1-h1}, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n", 1)
	w = w[:strings.LastIndex(w, "  podSets:")] // the set above, pinned to r1-h1
	type want struct {
		action KueueAction
		msg    string
	}
	preempted := func(y string) string { // evicted by a preemption whose reservation is not cleared yet
		return strings.Replace(y, "conditions: [", "conditions: [{type: Evicted, status: 'True', reason: Preempted, message: by x, lastTransitionTime: '2026-01-01T09:30:00Z'}, ", 1)
	}
	for _, c := range []struct {
		name    string
		wls     string
		want    []want // in queue order: w (priority 5), held
		evicted string // the Evicted reason on the inactive Workload, when not Deactivated
	}{
		{"active: w preempts held", held + w, []want{{KueueAdmitted, "preempted default/held (InClusterQueue)"}, {KueuePreempted, "preempted by default/w (InClusterQueue); queued again: " + noQuota}}, ""},
		{"an inactive w neither admitted nor preempts", held + inactive(w), []want{{KueueInactive, inactiveWords}, {KueueKept, ""}}, ""},
		{"a finished pending w is not admitted", held + withFinished(w), []want{{KueueFinished, finishedWords}, {KueueKept, ""}}, ""},
		{"a deactivated held is evicted and frees its quota and node", inactive(held) + w,
			[]want{{KueueAdmitted, ""}, {KueueInactive, inactiveWords + "; evicted (Deactivated), its quota released"}}, ""},
		{"an inactive held preempted earlier loses its admission too", inactive(preempted(held)) + w,
			[]want{{KueueAdmitted, ""}, {KueueInactive, inactiveWords + "; evicted (Preempted), its quota released"}}, kueue.WorkloadEvictedByPreemption},
		{"a finished held frees its quota and node", withFinished(held) + w, []want{{KueueAdmitted, ""}, {KueueFinished, finishedWords}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := partialNodes + cohortQueues(preemptCQ("a", "", 4, "withinClusterQueue: LowerPriority")) + c.wls
			outs, cl := admitAll(t, y)
			var got []want
			for _, o := range outs {
				got = append(got, want{o.Action, o.Message})
			}
			require.Equal(t, c.want, got)
			requireNoOverlap(t, cl)
			for _, kw := range cl.KueueWorkloads {
				conds := kw.Obj.Status.Conditions
				switch {
				case kw.finished():
					require.Nil(t, apimeta.FindStatusCondition(conds, kueue.WorkloadEvicted), kw.Key().String()) // written back as it is
				case !kw.active():
					ev := apimeta.FindStatusCondition(conds, kueue.WorkloadEvicted)
					require.NotNil(t, ev, kw.Key().String())
					wantEv := [2]string{kueue.WorkloadDeactivated, "The workload is deactivated"}
					if c.evicted != "" {
						wantEv = [2]string{c.evicted, "by x"}
					}
					require.Equal(t, wantEv, [2]string{ev.Reason, ev.Message})
					require.Nil(t, kw.Obj.Status.Admission)
					require.False(t, apimeta.IsStatusConditionTrue(conds, kueue.WorkloadQuotaReserved))
					require.False(t, apimeta.IsStatusConditionTrue(conds, kueue.WorkloadAdmitted))
					if rq := apimeta.FindStatusCondition(conds, kueue.WorkloadRequeued); rq != nil || c.evicted != "" {
						require.NotNil(t, rq, kw.Key().String())
						require.Equal(t, c.evicted == kueue.WorkloadEvictedByPreemption, rq.Status == "True", "Requeued")
					}
				}
			}
		})
	}
}
