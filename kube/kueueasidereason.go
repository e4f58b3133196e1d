package kube

import (
	"maps"
	"slices"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// A Workload set aside as inadmissible in a BestEffortFIFO ClusterQueue is
// tried again by Kueue v0.17 only on an event that may free room: a
// Workload of its cohort evicted, finished or deleted, its reclaimable
// pods changed (pkg/controller/core workload_controller.go calls
// QueueAssociatedInadmissibleWorkloadsAfter; pkg/cache/queue moves the
// inadmissible Workloads back). Another Workload's admission is no such
// event, so its QuotaReserved message stays the one of the attempt that
// set it aside: "1 more needed" on the quota it saw then, however much
// the Workloads admitted after it took since.
//
// gangsim's scheduling cycles ([admitter.admitInCycles]) try every
// set-aside Workload again in a new round once a round admitted anything,
// so that each reason is that of the final state. Under
// [KueueOptions].KueueWords, which words a pending Workload's message as
// Kueue's own, such a retry keeps the message of the attempt that set the
// Workload aside when it waits again, as a pending Workload's status in
// Kueue keeps it; a preemption's requeue (the round's requeueNow) makes
// the retries real again.
//
// A Workload that comes in pending, with the QuotaReserved False
// condition of an attempt before the run, is read as one Kueue set aside
// before: its first attempt in the run is unprompted too, so that a run
// on its own output keeps the messages it wrote (DESIGN.md's fixed point),
// as Kueue keeps a status it does not retry. Not one whose condition is
// an eviction's (Kueue requeues an evicted Workload at once) or "no
// longer fits" (a skipped head, Kueue's head again next cycle).

// asideReason is what a set-aside Workload's outcome and QuotaReserved
// condition said when a new round tried it again unprompted.
type asideReason struct {
	out  KueueOutcome
	cond metav1.Condition
}

// freezeAside keeps, for each Workload in aside (indexes in a.queue) that
// waits plainly (Pending, not held) and whose reason is not kept yet, its
// outcome's message and its QuotaReserved condition, before a new round
// tries it again; only under [KueueOptions].KueueWords.
func (a *admitter) freezeAside(frozen map[int]asideReason, aside map[int]bool, out []KueueOutcome) {
	if a.opts.Queues == nil || !a.opts.Queues.idx.kueueWords {
		return
	}
	for _, i := range slices.Sorted(maps.Keys(aside)) {
		if _, ok := frozen[i]; ok || out[i].Action != KueuePending || out[i].Held {
			continue
		}
		c := apimeta.FindStatusCondition(a.queue[i].Obj.Status.Conditions, kueue.WorkloadQuotaReserved)
		if c == nil || c.Status != metav1.ConditionFalse {
			continue
		}
		frozen[i] = asideReason{out: out[i], cond: *c}
	}
}

// frozenInput keeps, for each Workload of pending (indexes in a.queue)
// untouched so far in the run whose input holds a QuotaReserved False
// condition of reason Pending, no status.admission, and a condition
// neither an eviction's nor "no longer fits", that condition as the reason of an attempt before the
// run; only under [KueueOptions].KueueWords.
func (a *admitter) frozenInput(frozen map[int]asideReason, pending []int, out []KueueOutcome) {
	if a.opts.Queues == nil || !a.opts.Queues.idx.kueueWords {
		return
	}
	for _, i := range pending {
		conds := a.queue[i].Obj.Status.Conditions
		c := apimeta.FindStatusCondition(conds, kueue.WorkloadQuotaReserved)
		if out[i].Action != "" || a.queue[i].Obj.Status.Admission != nil || c == nil || c.Status != metav1.ConditionFalse || c.Reason != kueueReasonPending || c.Message == "" || c.Message == noLongerFits {
			continue
		}
		if e := apimeta.FindStatusCondition(conds, kueue.WorkloadEvicted); e != nil && e.Status == metav1.ConditionTrue && e.Message == c.Message {
			continue
		}
		frozen[i] = asideReason{out: KueueOutcome{Workload: out[i].Workload, Action: KueuePending, Message: c.Message}, cond: *c}
	}
}

// thawAside gives each Workload kept by [admitter.freezeAside] or
// [admitter.frozenInput] that the last round set aside again (aside) and
// that still waits plainly, in the same action, the message and
// QuotaReserved condition of the attempt that set it aside first.
func (a *admitter) thawAside(frozen map[int]asideReason, aside map[int]bool, out []KueueOutcome) {
	for _, i := range slices.Sorted(maps.Keys(frozen)) {
		f := frozen[i]
		if !aside[i] || out[i].Action != f.out.Action || out[i].Held || out[i].PreemptedBy != f.out.PreemptedBy {
			continue
		}
		out[i].Message = f.out.Message
		apimeta.SetStatusCondition(&a.queue[i].Obj.Status.Conditions, f.cond)
	}
}
