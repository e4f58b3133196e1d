package kube

import (
	"fmt"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Stopped queues and the Workloads that hold quota in them, as Kueue
// v0.17's workload controller treats them (reconcileOnLocalQueueActiveState,
// then reconcileOnClusterQueueActiveState, for a Workload with a quota
// reservation; read, not copied). A pending Workload of a stopped queue
// only waits ([KueueQueues.route]); one holding quota there is drained:
//
//   - admitted (its Admitted condition True, or every check that runs for
//     it Ready, as Kueue's SyncAdmittedCondition makes it first), under
//     HoldAndDrain of its LocalQueue, or of its ClusterQueue while its
//     LocalQueue is not stopped (Kueue finds the ClusterQueue through the
//     LocalQueues its queue manager holds, which a stopped one leaves):
//     evicted, reason LocalQueueStopped or ClusterQueueStopped, and its quota
//     released as the job reconciler then releases it (Requeued False
//     with the eviction's reason). Under Hold it keeps running.
//   - holding quota but not admitted (awaiting admission checks), under
//     either policy, or with its LocalQueue or ClusterQueue missing: its
//     reservation is cancelled, without an eviction (QuotaReserved False,
//     reason Inadmissible).
//
// Either way it then waits like any pending Workload of its queue.

// Kueue's words for a drained Workload: the eviction reasons are the
// Workload API's (WorkloadEvictedByLocalQueueStopped,
// WorkloadEvictedByClusterQueueStopped).
const (
	kueueReasonLocalQueueStopped   = kueue.WorkloadEvictedByLocalQueueStopped
	kueueReasonClusterQueueStopped = kueue.WorkloadEvictedByClusterQueueStopped
	kueueReasonInadmissible        = kueue.WorkloadInadmissible
	localQueueStoppedMessage       = "The LocalQueue is stopped"
	clusterQueueStoppedMessage     = "The ClusterQueue is stopped"
)

// drain settles Workload w, which holds quota and was not evicted by a
// check, when its LocalQueue or ClusterQueue is stopped or missing (see
// above), and reports whether it no longer holds quota: its admission is
// then cleared and its outcome set (Evicted, or Pending with the
// cancellation), and the caller queues it again. It holds nothing in the
// snapshot yet (the caller holds only what stays admitted). A Workload
// already evicted (Evicted True, its eviction not finished) is left as it
// is, as Kueue leaves it, and so is an admitted one whose
// status.unhealthyNodes names a node (Kueue's workload controller skips it
// until its node is replaced or cleared, kueue-oracle/preemption/d3; when
// gangsim clears a node healthy again, the drain comes in its next run).
// Without queues nothing is drained.
func (a *admitter) drain(w *KueueWorkload, o *KueueOutcome) bool {
	q, obj := a.opts.Queues, w.Obj
	if q == nil || !w.Admitted || w.finished() || !w.active() || apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadEvicted) {
		return false
	}
	lq := placement.Key{Namespace: obj.Namespace, Name: string(obj.Spec.QueueName)}
	cqName, lqExists := q.LocalQueues[lq]
	cq := q.ClusterQueues[cqName]
	lqStop := q.StoppedLocalQueues[lq]
	var cqStop kueue.StopPolicy
	if cq != nil {
		cqStop = cq.Stop
	}
	if lqExists && lqStop == "" && cq != nil && cqStop == "" {
		return false
	}
	if apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadAdmitted) && len(obj.Status.UnhealthyNodes) > 0 {
		// Kueue's workload controller skips an admitted Workload while
		// status.unhealthyNodes names a node to replace.
		return false
	}
	if a.drainedAdmitted(w, cq) {
		switch {
		case lqStop == kueue.HoldAndDrain:
			a.evictStopped(w, o, kueueReasonLocalQueueStopped, localQueueStoppedMessage)
		case cqStop == kueue.HoldAndDrain && lqStop == "":
			// Kueue's queue manager drops a stopped LocalQueue, and the
			// workload controller, finding no ClusterQueue through it,
			// leaves the ClusterQueue's drain undone
			// (kueue-oracle/preemption/r6-random-drain-16).
			a.evictStopped(w, o, kueueReasonClusterQueueStopped, clusterQueueStoppedMessage)
		default:
			return false // Hold, or a queue missing: an admitted Workload runs on
		}
		return true
	}
	var why string
	switch {
	case !lqExists:
		why = fmt.Sprintf("LocalQueue %s is terminating or missing", lq.Name)
	case lqStop != "":
		why = fmt.Sprintf("LocalQueue %s is stopped", lq.Name)
	case cq == nil:
		why = fmt.Sprintf("ClusterQueue %s is terminating or missing", cqName)
	case cqStop != "":
		why = fmt.Sprintf("ClusterQueue %s is stopped", cqName)
	default:
		return false
	}
	obj.Status.Admission = nil
	setCondition(obj, kueue.WorkloadQuotaReserved, metav1.ConditionFalse, kueueReasonInadmissible, why, a.opts.Now)
	syncAdmitted(obj, a.opts.Now)
	words := "quota reservation cancelled (" + kueueReasonInadmissible + "): " + why
	a.evictedFor[w.Key()] = words
	o.Action, o.Message = KueuePending, words
	return true
}

// drainedAdmitted reports whether w counts as admitted for the drain: its
// Admitted condition is True, or, as Kueue's SyncAdmittedCondition makes
// it before a queue's stop is looked at, every check that runs for it in
// cq is Ready (checks synced as [KueueQueues.syncChecks] does; with no
// ClusterQueue, the condition alone).
func (a *admitter) drainedAdmitted(w *KueueWorkload, cq *KueueClusterQueue) bool {
	obj := w.Obj
	if apimeta.IsStatusConditionTrue(obj.Status.Conditions, kueue.WorkloadAdmitted) {
		return true
	}
	if cq == nil {
		return false
	}
	if len(cq.Checks) == 0 && len(obj.Status.AdmissionChecks) == 0 {
		return true
	}
	return len(a.opts.Queues.syncChecks(obj, cq, metav1.NewTime(a.opts.Now))) == 0
}

// evictStopped writes the eviction of admitted Workload w by a stopped
// queue: Admitted True first where its condition does not say so yet (its
// checks all Ready: Kueue's SyncAdmittedCondition admits it before the
// queue's stop is looked at), Evicted True (reason, msg), its checks
// reset to Pending as every eviction resets them, then its quota released
// as Kueue's job reconciler releases it (Requeued False with the
// eviction's reason: Kueue requeues it only when the queue restarts;
// QuotaReserved and Admitted False).
func (a *admitter) evictStopped(w *KueueWorkload, o *KueueOutcome, reason, msg string) {
	obj := w.Obj
	syncAdmitted(obj, a.opts.Now)
	setCondition(obj, kueue.WorkloadEvicted, metav1.ConditionTrue, reason, msg, a.opts.Now)
	resetChecks(obj, a.opts.Now)
	setCondition(obj, kueue.WorkloadRequeued, metav1.ConditionFalse, reason, msg, a.opts.Now)
	unreserve(obj, msg, a.opts.Now)
	words := "evicted (" + reason + "): " + msg
	a.evictedFor[w.Key()] = words
	o.Action, o.Message = KueueEvicted, words
}

// restarted writes Requeued True on Workload w whose drain by a stopped
// queue (Requeued False, reason LocalQueueStopped or ClusterQueueStopped)
// is over because that queue runs again, as Kueue's workload controller
// writes it for an active Workload: reason LocalQueueRestarted once its
// LocalQueue exists with no stop policy, ClusterQueueRestarted once its
// ClusterQueue does, found through such a LocalQueue. Nothing else depends on it (Kueue queues such a
// Workload either way); it keeps a second run's objects as Kueue's.
func (a *admitter) restarted(w *KueueWorkload) {
	q, obj := a.opts.Queues, w.Obj
	c := apimeta.FindStatusCondition(obj.Status.Conditions, kueue.WorkloadRequeued)
	if q == nil || c == nil || c.Status != metav1.ConditionFalse {
		return
	}
	lq := placement.Key{Namespace: obj.Namespace, Name: string(obj.Spec.QueueName)}
	cqName, lqExists := q.LocalQueues[lq]
	_, lqStopped := q.StoppedLocalQueues[lq]
	switch cq := q.ClusterQueues[cqName]; {
	case c.Reason == kueueReasonLocalQueueStopped && lqExists && !lqStopped:
		setCondition(obj, kueue.WorkloadRequeued, metav1.ConditionTrue, kueue.WorkloadLocalQueueRestarted, "The LocalQueue was restarted after being stopped", a.opts.Now)
	case c.Reason == kueueReasonClusterQueueStopped && lqExists && !lqStopped && cq != nil && cq.Stop == "":
		setCondition(obj, kueue.WorkloadRequeued, metav1.ConditionTrue, kueue.WorkloadClusterQueueRestarted, "The ClusterQueue was restarted after being stopped", a.opts.Now)
	}
}
