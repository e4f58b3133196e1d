package kube

import (
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Words of the outcomes of Workloads that Kueue does not schedule.
const (
	// finishedWords: Kueue's IsAdmissible and HasActiveQuotaReservation
	// leave out a Workload whose Finished condition is True.
	finishedWords = "its Finished condition is True: Kueue admits it no more and counts no quota for it"
	// inactiveWords: nor does it queue one with spec.active false.
	inactiveWords = "spec.active is false: Kueue queues no inactive Workload and counts no quota for it"
	// deactivatedMessage is the message Kueue's workload controller gives
	// the eviction of an inactive Workload.
	deactivatedMessage = "The workload is deactivated"
)

// finished reports whether w's Finished condition is True.
func (w *KueueWorkload) finished() bool {
	return apimeta.IsStatusConditionTrue(w.Obj.Status.Conditions, kueue.WorkloadFinished)
}

// active reports whether w's spec.active is true or unset (Kueue's
// IsActive).
func (w *KueueWorkload) active() bool { return w.Obj.Spec.Active == nil || *w.Obj.Spec.Active }

// idle settles a Workload Kueue does not schedule — finished, or inactive
// (spec.active false) — in o and reports whether it did: such a Workload
// is never admitted, never preempts, holds no quota and no node, as
// Kueue's queue manager takes only admissible Workloads (IsAdmissible)
// and its cache counts only active reservations
// (HasActiveQuotaReservation). An inactive one gets what Kueue's workload
// controller writes on it, unless it is evicted already: Evicted True,
// reason Deactivated; one that held quota also loses its admission, as
// the job reconciler then clears it (QuotaReserved False, Admitted False
// if it was Admitted, Requeued False with reason Deactivated) — also when it was evicted
// already, with that eviction's reason and message (Requeued True after
// a preemption or node failures). A finished one is written
// back as it is.
func (a *admitter) idle(w *KueueWorkload, o *KueueOutcome) bool {
	switch {
	case w.finished():
		o.Action, o.Message = KueueFinished, finishedWords
		return true
	case w.active():
		return false
	}
	o.Action, o.Message = KueueInactive, inactiveWords
	obj := w.Obj
	reason, msg, requeued := kueue.WorkloadDeactivated, deactivatedMessage, metav1.ConditionFalse
	if ev := apimeta.FindStatusCondition(obj.Status.Conditions, kueue.WorkloadEvicted); ev != nil && ev.Status == metav1.ConditionTrue {
		// Evicted before (preempted, say): the workload controller adds
		// nothing, but the job reconciler still clears a reservation from
		// that eviction, Requeued True only after preemption or node
		// failures.
		reason, msg = ev.Reason, ev.Message
		if reason == kueue.WorkloadEvictedByPreemption || reason == kueue.WorkloadEvictedDueToNodeFailures {
			requeued = metav1.ConditionTrue
		}
	} else {
		setCondition(obj, kueue.WorkloadEvicted, metav1.ConditionTrue, reason, msg, a.opts.Now)
	}
	if !w.Admitted {
		return true
	}
	o.Message += "; evicted (" + reason + "), its quota released"
	setCondition(obj, kueue.WorkloadRequeued, requeued, reason, msg, a.opts.Now)
	unreserve(obj, msg, a.opts.Now)
	return true
}
