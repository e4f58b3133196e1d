package kube

import (
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// KueueFungibility is a ClusterQueue's spec.flavorFungibility as Kueue
// v0.17's flavor assigner reads it (pkg/scheduler/flavorassigner): when a
// pod set, flavor by flavor in its resource group's order, stops at a
// flavor that fits only by borrowing or by preempting, and which of the
// flavors tried it takes when it goes on past them all. The zero value
// is Kueue's default: stop at a flavor that fits, borrowing or not; go on
// past one that needs preemption.
type KueueFungibility struct {
	// BorrowTryNext is whenCanBorrow TryNextFlavor: a flavor that fits
	// only by borrowing is not taken at once; a later one that fits
	// within the ClusterQueue's nominal quota is. false: MayStopSearch,
	// Kueue's default.
	BorrowTryNext bool
	// PreemptStop is whenCanPreempt MayStopSearch: a flavor where
	// preemption finds victims (on quota alone, as Kueue's
	// SimulatePreemption looks) is taken at once, before a later flavor
	// that fits. false: TryNextFlavor, Kueue's default.
	PreemptStop bool
	// PreemptionOverBorrowing is preference PreemptionOverBorrowing
	// (allowed only with both policies TryNextFlavor): among the flavors
	// tried, the one borrowing from the lowest cohort wins, the mode
	// (fit, reclaim, preempt, preemption without victims) breaking ties.
	// false: BorrowingOverPreemption, Kueue's default, which compares the
	// mode first and the borrowing height second.
	PreemptionOverBorrowing bool
	// graded runs the policies above, Kueue's defaults included, through
	// the search that grades every flavor tried ([KueueQueues.pickFlavor]),
	// as Kueue's pending message needs (kueuequotashort.go); never set on
	// a ClusterQueue's own.
	graded bool
}

// isDefault reports whether f behaves as Kueue's default fungibility, on
// which gangsim's flavor choice was built first: every fitting flavor
// stops the search, every preempting one lets it go on (the preference
// then plays no part in a flavor that fits).
func (f KueueFungibility) isDefault() bool {
	return !f.BorrowTryNext && !f.PreemptStop && !f.graded
}

// convertFungibility reads spec.flavorFungibility of ClusterQueue obj.
// Unset policies take Kueue's defaults (whenCanBorrow MayStopSearch,
// whenCanPreempt TryNextFlavor), as its CRD defaults them.
//
// Errors (ErrInvalid, naming obj and the field), as Kueue v0.17's
// v1beta2 CRD and webhook refuse them: a policy other than MayStopSearch
// or TryNextFlavor (v1beta1's deprecated Borrow and Preempt, which Kueue
// converts to MayStopSearch, are not v1beta2 values); a preference other
// than BorrowingOverPreemption or PreemptionOverBorrowing; a preference
// set while either policy, defaults included, is not TryNextFlavor.
func convertFungibility(obj string, ff *kueue.FlavorFungibility) (KueueFungibility, error) {
	var out KueueFungibility
	if ff == nil {
		return out, nil
	}
	policy := func(field string, v kueue.FlavorFungibilityPolicy, def kueue.FlavorFungibilityPolicy) (bool, error) {
		if v == "" {
			v = def
		}
		switch v {
		case kueue.TryNextFlavor:
			return true, nil
		case kueue.MayStopSearch:
			return false, nil
		case "Borrow", "Preempt":
			return false, placement.Errorf(placement.ErrInvalid, obj, field, "%q is v1beta1's deprecated name of MayStopSearch: kueue.x-k8s.io/v1beta2 accepts MayStopSearch or TryNextFlavor", v)
		}
		return false, placement.Errorf(placement.ErrInvalid, obj, field, "%q is not MayStopSearch or TryNextFlavor", v)
	}
	var err error
	if out.BorrowTryNext, err = policy("spec.flavorFungibility.whenCanBorrow", ff.WhenCanBorrow, kueue.MayStopSearch); err != nil {
		return out, err
	}
	preemptNext, err := policy("spec.flavorFungibility.whenCanPreempt", ff.WhenCanPreempt, kueue.TryNextFlavor)
	if err != nil {
		return out, err
	}
	out.PreemptStop = !preemptNext
	if ff.Preference == nil {
		return out, nil
	}
	const field = "spec.flavorFungibility.preference"
	switch *ff.Preference {
	case kueue.BorrowingOverPreemption:
	case kueue.PreemptionOverBorrowing:
		out.PreemptionOverBorrowing = true
	default:
		return out, placement.Errorf(placement.ErrInvalid, obj, field, "%q is not BorrowingOverPreemption or PreemptionOverBorrowing", *ff.Preference)
	}
	if !out.BorrowTryNext || out.PreemptStop {
		return out, placement.Errorf(placement.ErrInvalid, obj, field, "%q is set while whenCanBorrow or whenCanPreempt is not TryNextFlavor (unset, they default to MayStopSearch and TryNextFlavor): Kueue allows a preference only when both are", *ff.Preference)
	}
	return out, nil
}
