package kube

import (
	"time"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// KueuePreemption is a ClusterQueue's spec.preemption as gangsim reads it
// (Kueue v0.17's classical preemption, without fair sharing): which
// admitted Workloads a pending Workload of the ClusterQueue may preempt
// when it does not fit. Unset fields are Never, Kueue's defaults.
type KueuePreemption struct {
	// WithinClusterQueue is Never, LowerPriority or
	// LowerOrNewerEqualPriority: the Workloads of the same ClusterQueue
	// that may be preempted.
	WithinClusterQueue kueue.PreemptionPolicy
	// ReclaimWithinCohort is Never, LowerPriority or Any: the Workloads of
	// the other ClusterQueues of the cohort tree, while those borrow, that
	// may be preempted to reclaim quota.
	ReclaimWithinCohort kueue.PreemptionPolicy
	// BorrowWithinCohort is borrowWithinCohort.policy, Never or
	// LowerPriority: under LowerPriority a Workload that borrows (before
	// and after preempting) may still preempt, in the other ClusterQueues
	// of the cohort tree, those of a lower priority that
	// ReclaimWithinCohort allows (Kueue's ReclaimWhileBorrowing, reason
	// InCohortReclaimWhileBorrowing); under Never only a preemptor that
	// then borrows nothing may (or one with the nearer claim to the quota).
	BorrowWithinCohort kueue.BorrowWithinCohortPolicy
	// MaxPriorityThreshold is borrowWithinCohort.maxPriorityThreshold:
	// when set, a Workload preempted while borrowing must also have a
	// priority at most this; those above it are preempted only as under
	// Never. nil: no bound.
	MaxPriorityThreshold *int32
}

// convertPreemption reads spec.preemption of ClusterQueue obj.
//
// Errors (ErrInvalid, each naming obj and the field), as Kueue's CRD and
// webhook refuse them: a withinClusterQueue, reclaimWithinCohort or
// borrowWithinCohort.policy outside its enum; a borrowWithinCohort policy
// other than Never while reclaimWithinCohort is Never.
func convertPreemption(obj string, p *kueue.ClusterQueuePreemption) (KueuePreemption, error) {
	out := KueuePreemption{WithinClusterQueue: kueue.PreemptionPolicyNever, ReclaimWithinCohort: kueue.PreemptionPolicyNever,
		BorrowWithinCohort: kueue.BorrowWithinCohortPolicyNever}
	if p == nil {
		return out, nil
	}
	switch p.WithinClusterQueue {
	case "":
	case kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority:
		out.WithinClusterQueue = p.WithinClusterQueue
	default:
		return out, placement.Errorf(placement.ErrInvalid, obj, "spec.preemption.withinClusterQueue", "%q is not Never, LowerPriority or LowerOrNewerEqualPriority", p.WithinClusterQueue)
	}
	switch p.ReclaimWithinCohort {
	case "":
	case kueue.PreemptionPolicyNever, kueue.PreemptionPolicyLowerPriority, kueue.PreemptionPolicyAny:
		out.ReclaimWithinCohort = p.ReclaimWithinCohort
	default:
		return out, placement.Errorf(placement.ErrInvalid, obj, "spec.preemption.reclaimWithinCohort", "%q is not Never, LowerPriority or Any", p.ReclaimWithinCohort)
	}
	if b := p.BorrowWithinCohort; b != nil {
		const f = "spec.preemption.borrowWithinCohort.policy"
		switch b.Policy {
		case "", kueue.BorrowWithinCohortPolicyNever:
		case kueue.BorrowWithinCohortPolicyLowerPriority:
			if out.ReclaimWithinCohort == kueue.PreemptionPolicyNever {
				return out, placement.Errorf(placement.ErrInvalid, obj, f, "is LowerPriority while reclaimWithinCohort is Never")
			}
			out.BorrowWithinCohort = b.Policy
		default:
			return out, placement.Errorf(placement.ErrInvalid, obj, f, "%q is not Never or LowerPriority", b.Policy)
		}
		// Kueue reads the threshold under LowerPriority only; under
		// Never it is kept but means nothing.
		if t := b.MaxPriorityThreshold; t != nil && out.BorrowWithinCohort == kueue.BorrowWithinCohortPolicyLowerPriority {
			out.MaxPriorityThreshold = new(*t)
		}
	}
	return out, nil
}

// whileBorrowing reports whether p lets a preemptor of priority pri that
// borrows preempt a cohort candidate of priority cpri that it has no
// nearer claim over (Kueue's classifyPreemptionVariant: a lower priority,
// at most maxPriorityThreshold when set).
func (p KueuePreemption) whileBorrowing(pri, cpri int32) bool {
	if p.BorrowWithinCohort != kueue.BorrowWithinCohortPolicyLowerPriority || cpri >= pri {
		return false
	}
	return p.MaxPriorityThreshold == nil || cpri <= *p.MaxPriorityThreshold
}

// any reports whether p lets some Workload be preempted: within the
// ClusterQueue, or, in a cohort, to reclaim.
func (p KueuePreemption) any(inCohort bool) bool {
	return p.WithinClusterQueue != kueue.PreemptionPolicyNever || (inCohort && p.ReclaimWithinCohort != kueue.PreemptionPolicyNever)
}

// allows reports whether policy lets a preemptor of priority pri created
// at created preempt a candidate of priority cpri created at ccreated, as
// Kueue's SatisfiesPreemptionPolicy decides: LowerPriority wants a lower
// priority; LowerOrNewerEqualPriority also an equal priority created
// strictly later (Kueue's queue-order timestamp; its 5-minute buffer gate
// is off by default in v0.17); Any allows all; Never none.
func allows(policy kueue.PreemptionPolicy, pri int32, created time.Time, cpri int32, ccreated time.Time) bool {
	lower := cpri < pri
	switch policy {
	case kueue.PreemptionPolicyLowerPriority:
		return lower
	case kueue.PreemptionPolicyLowerOrNewerEqualPriority:
		return lower || (cpri == pri && created.Before(ccreated))
	case kueue.PreemptionPolicyAny:
		return true
	}
	return false
}
