package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// drainWorld is three hosts of 4 CPUs (partialNodes) under ClusterQueues
// a (12 CPUs) and b (4, running check ac when checks), reached from
// LocalQueues la and lb, with stop policies lbStop and bStop ("" for
// none); d holds 4 pods on r1-h1 in b with status st (conditions and
// checks), and p (la) asks for 12: it fits only on nodes d no longer
// holds.
func drainWorld(lbStop, bStop string, checks bool, st string) string {
	stop := func(p string) string {
		if p == "" {
			return ""
		}
		return "stopPolicy: " + p + ", "
	}
	b := strings.Replace(preemptCQ("b", "", 4, ""), "spec: {", "spec: {"+stop(bStop), 1)
	y := partialNodes + "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: tas}\nspec: {nodeLabels: {pool: tas}, topologyName: t}\n" +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: la}\nspec: {clusterQueue: a}\n" +
		fmt.Sprintf("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lb}\nspec: {%sclusterQueue: b}\n", stop(lbStop)) +
		"---\napiVersion: kueue.x-k8s.io/v1beta2\n" + preemptCQ("a", "", 12, "") + "\n"
	if checks {
		b = strings.Replace(b, "spec: {", "spec: {admissionChecksStrategy: {admissionChecks: [{name: ac}]}, ", 1)
		y += "---\napiVersion: kueue.x-k8s.io/v1beta2\n" + acDoc("ac", true) + "\n"
	}
	y += "---\napiVersion: kueue.x-k8s.io/v1beta2\n" + b + "\n"
	held := preemptWL("d", "lb", 0, 0, 4, "", "r1-h1:4", 0)
	i := strings.Index(held, "status:\n")
	return y + held[:i] + st + held[strings.Index(held, "  admission:"):] + preemptWL("p", "la", 0, 9, 12, "", "", 0)
}

// Conditions of d's status in drainWorld.
const (
	drainAdmitted = "status:\n  conditions: [{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}," +
		" {type: Admitted, status: 'True', reason: Admitted, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}]\n"
	drainAwaiting = "status:\n  conditions: [{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}," +
		" {type: Admitted, status: 'False', reason: UnsatisfiedChecks, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}]\n"
)

// drainChecks is d's status.admissionChecks with ac in state.
func drainChecks(state string) string {
	return "  admissionChecks: [{name: ac, state: " + state + ", message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}]\n"
}

// A stopped queue's Workloads holding quota, as Kueue v0.17's workload
// controller settles them: an admitted one is evicted under HoldAndDrain
// of its LocalQueue (LocalQueueStopped) or else of its ClusterQueue
// (ClusterQueueStopped) and runs on under Hold; one awaiting its checks
// loses its reservation under either (Inadmissible; its Admitted
// condition, never True, left as it was), and one whose checks are all
// Ready counts as admitted. Whatever d releases, p (12 pods on
// the 12 CPUs) takes; d then waits, as its queue is held.
func TestAdmitKueueWorkloads_StoppedQueueDrains(t *testing.T) {
	const (
		lqWaits = "LocalQueue lb is inactive: spec.stopPolicy is "
		cqWaits = "ClusterQueue b is inactive: spec.stopPolicy is "
	)
	for _, c := range []struct {
		name, lbStop, bStop string
		checks              bool
		st                  string
		d                   KueueAction
		dMsg                string
		p                   KueueAction
		// conds are d's Evicted, Requeued, QuotaReserved and Admitted
		// conditions, "status/reason: message" ("" when absent).
		conds [4]string
	}{
		{"ClusterQueue HoldAndDrain", "", "HoldAndDrain", false, drainAdmitted,
			KueueEvicted, "evicted (ClusterQueueStopped): The ClusterQueue is stopped; queued again: " + cqWaits + "HoldAndDrain", KueueAdmitted,
			[4]string{"True/ClusterQueueStopped: The ClusterQueue is stopped", "False/ClusterQueueStopped: The ClusterQueue is stopped",
				"False/Pending: " + cqWaits + "HoldAndDrain", "False/NoReservation: The workload has no reservation"}},
		{"LocalQueue HoldAndDrain", "HoldAndDrain", "", false, drainAdmitted,
			KueueEvicted, "evicted (LocalQueueStopped): The LocalQueue is stopped; queued again: " + lqWaits + "HoldAndDrain", KueueAdmitted,
			[4]string{"True/LocalQueueStopped: The LocalQueue is stopped", "False/LocalQueueStopped: The LocalQueue is stopped",
				"False/Pending: " + lqWaits + "HoldAndDrain", "False/NoReservation: The workload has no reservation"}},
		// A stopped LocalQueue hides its ClusterQueue from Kueue's
		// workload controller: under its Hold, the ClusterQueue's
		// HoldAndDrain evicts nothing (as the real Kueue did, seed 16).
		{"LocalQueue Hold, ClusterQueue HoldAndDrain", "Hold", "HoldAndDrain", false, drainAdmitted,
			KueueKept, "", KueuePending,
			[4]string{"", "", "True/QuotaReserved: m", "True/Admitted: m"}},
		// Kueue's workload controller skips an admitted Workload whose
		// status.unhealthyNodes names a node; gangsim clears the node,
		// healthy, and drains it in the next run.
		{"HoldAndDrain, a node to replace: left as it is", "", "HoldAndDrain", false, drainAdmitted + "  unhealthyNodes: [{name: r1-h1}]\n",
			KueueKept, "", KueuePending,
			[4]string{"", "", "True/QuotaReserved: m", "True/Admitted: m"}},
		{"ClusterQueue Hold: an admitted Workload runs on", "", "Hold", false, drainAdmitted,
			KueueKept, "", KueuePending,
			[4]string{"", "", "True/QuotaReserved: m", "True/Admitted: m"}},
		// Without an Admitted condition and without checks, Kueue's
		// SyncAdmittedCondition admits it first.
		{"no Admitted condition, no checks: admitted, drained", "", "HoldAndDrain", false, kueueReserved,
			KueueEvicted, "evicted (ClusterQueueStopped): The ClusterQueue is stopped; queued again: " + cqWaits + "HoldAndDrain", KueueAdmitted,
			[4]string{"True/ClusterQueueStopped: The ClusterQueue is stopped", "False/ClusterQueueStopped: The ClusterQueue is stopped",
				"False/Pending: " + cqWaits + "HoldAndDrain", "False/NoReservation: The workload has no reservation"}},
		{"awaiting checks under Hold: reservation cancelled", "", "Hold", true, drainAwaiting + drainChecks("Pending"),
			KueuePending, "quota reservation cancelled (Inadmissible): ClusterQueue b is stopped; " + cqWaits + "Hold", KueueAdmitted,
			[4]string{"", "", "False/Pending: " + cqWaits + "Hold", "False/UnsatisfiedChecks: m"}},
		{"awaiting checks, LocalQueue HoldAndDrain: reservation cancelled", "HoldAndDrain", "", true, drainAwaiting + drainChecks("Pending"),
			KueuePending, "quota reservation cancelled (Inadmissible): LocalQueue lb is stopped; " + lqWaits + "HoldAndDrain", KueueAdmitted,
			[4]string{"", "", "False/Pending: " + lqWaits + "HoldAndDrain", "False/UnsatisfiedChecks: m"}},
		// Its checks all Ready, Kueue admits it before it looks at the
		// queue's stop.
		{"checks Ready under Hold: admitted, runs on", "", "Hold", true, drainAwaiting + drainChecks("Ready"),
			KueueAdmitted, "its admission checks are all Ready", KueuePending,
			[4]string{"", "", "True/QuotaReserved: m", "True/Admitted: The workload is admitted"}},
		// Admitted, then evicted: its check reset to Pending, Kueue's
		// SyncAdmittedCondition names both what it lacks.
		{"checks Ready under HoldAndDrain: admitted, drained", "", "HoldAndDrain", true, drainAwaiting + drainChecks("Ready"),
			KueueEvicted, "evicted (ClusterQueueStopped): The ClusterQueue is stopped; queued again: " + cqWaits + "HoldAndDrain", KueueAdmitted,
			[4]string{"True/ClusterQueueStopped: The ClusterQueue is stopped", "False/ClusterQueueStopped: The ClusterQueue is stopped",
				"False/Pending: " + cqWaits + "HoldAndDrain", "False/NoReservationUnsatisfiedChecks: The workload has no reservation and not all checks ready"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, cl := admitAll(t, drainWorld(c.lbStop, c.bStop, c.checks, c.st))
			require.Len(t, outs, 2)
			require.Equal(t, "default/d", outs[0].Workload.String())
			require.Equal(t, [2]KueueAction{c.d, c.p}, [2]KueueAction{outs[0].Action, outs[1].Action}, outs[1].Message)
			require.Equal(t, c.dMsg, outs[0].Message)
			requireNoOverlap(t, cl)
			d := cl.KueueWorkloads[0].Obj
			require.Equal(t, "d", d.Name)
			var got [4]string
			for k, typ := range []string{kueue.WorkloadEvicted, kueue.WorkloadRequeued, kueue.WorkloadQuotaReserved, kueue.WorkloadAdmitted} {
				if cond := apimeta.FindStatusCondition(d.Status.Conditions, typ); cond != nil {
					got[k] = fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message)
				}
			}
			require.Equal(t, c.conds, got)
			require.Equal(t, c.d == KueueKept || c.d == KueueAdmitted, d.Status.Admission != nil)
			if c.d == KueueEvicted && c.checks {
				require.Equal(t, kueue.CheckStatePending, d.Status.AdmissionChecks[0].State, "an eviction resets the checks")
			}
		})
	}
}

// A Workload a stopped queue drained waits with Requeued False; once the
// queue runs again Kueue's workload controller turns it True (reason
// LocalQueueRestarted or ClusterQueueRestarted), and it is admitted as
// any other. Still stopped, it stays False.
func TestAdmitKueueWorkloads_StoppedQueueRestarted(t *testing.T) {
	drained := func(reason, msg string) string {
		return "status:\n  conditions:\n" +
			"  - {type: QuotaReserved, status: 'False', reason: Pending, message: m, lastTransitionTime: '2026-01-01T09:00:00Z'}\n" +
			"  - {type: Evicted, status: 'True', reason: " + reason + ", message: " + msg + ", lastTransitionTime: '2026-01-01T09:00:00Z'}\n" +
			"  - {type: Requeued, status: 'False', reason: " + reason + ", message: " + msg + ", lastTransitionTime: '2026-01-01T09:00:00Z'}\n"
	}
	for _, c := range []struct {
		name, lbStop, bStop, st string
		action                  KueueAction
		requeued                string
	}{
		{"ClusterQueue restarted", "", "", drained("ClusterQueueStopped", "The ClusterQueue is stopped"),
			KueueAdmitted, "True/ClusterQueueRestarted: The ClusterQueue was restarted after being stopped"},
		{"LocalQueue restarted", "", "", drained("LocalQueueStopped", "The LocalQueue is stopped"),
			KueueAdmitted, "True/LocalQueueRestarted: The LocalQueue was restarted after being stopped"},
		{"ClusterQueue still stopped", "", "Hold", drained("ClusterQueueStopped", "The ClusterQueue is stopped"),
			KueuePending, "False/ClusterQueueStopped: The ClusterQueue is stopped"},
		// The LocalQueue runs again, but the eviction was the
		// ClusterQueue's, which is still stopped.
		{"LocalQueue runs, ClusterQueue stopped", "", "HoldAndDrain", drained("ClusterQueueStopped", "The ClusterQueue is stopped"),
			KueuePending, "False/ClusterQueueStopped: The ClusterQueue is stopped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := drainWorld(c.lbStop, c.bStop, false, kueueReserved)
			y = y[:strings.Index(y, "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: d,")] // the queues, without d and p
			y += preemptWL("d", "lb", 0, 0, 4, "", "", 0) + c.st
			outs, cl := admitAll(t, y)
			require.Len(t, outs, 1)
			require.Equal(t, c.action, outs[0].Action, outs[0].Message)
			cond := apimeta.FindStatusCondition(cl.KueueWorkloads[0].Obj.Status.Conditions, kueue.WorkloadRequeued)
			require.Equal(t, c.requeued, fmt.Sprintf("%s/%s: %s", cond.Status, cond.Reason, cond.Message))
		})
	}
}

// A Workload awaiting its checks whose LocalQueue is gone loses its
// reservation too (Kueue: "terminating or missing"), its quota and host
// going to p; admitted, it runs on, as Kueue evicts only for a stop.
func TestAdmitKueueWorkloads_MissingLocalQueueCancels(t *testing.T) {
	for _, c := range []struct {
		name, st string
		d, p     KueueAction
		msg      string
	}{
		{"awaiting checks", drainAwaiting + drainChecks("Pending"), KueuePending, KueueAdmitted,
			`quota reservation cancelled (Inadmissible): LocalQueue gone is terminating or missing; LocalQueue "gone" doesn't exist in namespace "default"`},
		{"admitted", drainAdmitted, KueueKept, KueuePending, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := strings.Replace(drainWorld("", "", true, c.st), "queueName: lb", "queueName: gone", 1)
			outs, cl := admitAll(t, y)
			require.Len(t, outs, 2)
			require.Equal(t, [2]KueueAction{c.d, c.p}, [2]KueueAction{outs[0].Action, outs[1].Action}, outs[1].Message)
			if c.msg != "" {
				require.Equal(t, c.msg, outs[0].Message)
			}
			requireNoOverlap(t, cl)
		})
	}
}
