package kube

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// KueueFairSharing is Kueue v0.17's fair sharing as its Configuration
// turns it on (config.kueue.x-k8s.io fairSharing): the scheduling cycle
// takes its heads in the order of the cohort tree's dominant resource
// shares instead of Kueue's classical order, and a head preempts by the
// shares and Strategies ([KueueQueues].FairSharing; docs/kueue.md, Fair
// sharing).
type KueueFairSharing struct {
	// Strategies are fairSharing.preemptionStrategies, in order: the
	// rules a fair-sharing preemption must satisfy, the second tried
	// only when the first does not make room.
	Strategies []configv1beta2.PreemptionStrategy
}

// kueueConfigObj names a Kueue Configuration in errors: it has no
// metadata, so its kind is its name, as for a KubeSchedulerConfiguration.
const kueueConfigObj = "Kueue Configuration"

// ConvertKueueConfiguration reads the fairSharing of a Kueue
// Configuration (cfg a *config.kueue.x-k8s.io/v1beta1 or v1beta2
// Configuration); nil when fair sharing stays off. Its other fields
// (admissionFairSharing, waitForPodsReady, feature gates, integrations,
// …) are not read: gangsim runs Kueue v0.17 with its defaults there.
//
// As Kueue reads them: v1beta2 turns fair sharing on by the presence of
// fairSharing, and its preemptionStrategies must be given; v1beta1 turns
// it on with fairSharing.enable, its preemptionStrategies defaulting to
// LessThanOrEqualToFinalShare then LessThanInitialShare.
//
// Errors (ErrInvalid naming the Configuration and
// fairSharing.preemptionStrategies): strategies missing (v1beta2), or
// other than one of Kueue's three lists — LessThanOrEqualToFinalShare,
// LessThanInitialShare, or both in that order; cfg of another type.
func ConvertKueueConfiguration(cfg any) (*KueueFairSharing, error) {
	var strategies []configv1beta2.PreemptionStrategy
	switch c := cfg.(type) {
	case *configv1beta2.Configuration:
		if c == nil || c.FairSharing == nil {
			return nil, nil
		}
		strategies = c.FairSharing.PreemptionStrategies
	case *configv1beta1.Configuration:
		if c == nil || c.FairSharing == nil || !c.FairSharing.Enable {
			return nil, nil
		}
		for _, s := range c.FairSharing.PreemptionStrategies {
			strategies = append(strategies, configv1beta2.PreemptionStrategy(s))
		}
		if len(strategies) == 0 {
			strategies = []configv1beta2.PreemptionStrategy{configv1beta2.LessThanOrEqualToFinalShare, configv1beta2.LessThanInitialShare}
		}
	default:
		return nil, placement.Errorf(placement.ErrInvalid, kueueConfigObj, "apiVersion", "%T is not a Kueue Configuration", cfg)
	}
	const field = "fairSharing.preemptionStrategies"
	if len(strategies) == 0 {
		return nil, placement.Errorf(placement.ErrInvalid, kueueConfigObj, field, "must be given when fairSharing is")
	}
	valid := [][]configv1beta2.PreemptionStrategy{
		{configv1beta2.LessThanOrEqualToFinalShare},
		{configv1beta2.LessThanInitialShare},
		{configv1beta2.LessThanOrEqualToFinalShare, configv1beta2.LessThanInitialShare},
	}
	if !slices.ContainsFunc(valid, func(v []configv1beta2.PreemptionStrategy) bool { return slices.Equal(v, strategies) }) {
		words := make([]string, len(strategies))
		for i, s := range strategies {
			words[i] = string(s)
		}
		return nil, placement.Errorf(placement.ErrInvalid, kueueConfigObj, field,
			"[%s] is not one of [LessThanOrEqualToFinalShare], [LessThanInitialShare], [LessThanOrEqualToFinalShare, LessThanInitialShare]", strings.Join(words, ", "))
	}
	return &KueueFairSharing{Strategies: strategies}, nil
}

// fairWeight reads spec.fairSharing.weight of ClusterQueue or Cohort obj:
// nil when unset (Kueue's default, 1). A weight of 0 is allowed: such a
// node, while it borrows, loses to every node of weight above 0.
//
// Errors (ErrInvalid naming obj and spec.fairSharing.weight), as Kueue's
// webhook refuses them: a negative weight, or one above 0 but no more
// than 10⁻⁹ (it would collapse to 0 in the share's division).
func fairWeight(obj string, fs *kueue.FairSharing) (*float64, error) {
	if fs == nil || fs.Weight == nil {
		return nil, nil
	}
	const field = "spec.fairSharing.weight"
	w := *fs.Weight
	switch {
	case w.Sign() < 0:
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "%s is negative", w.String())
	case w.Sign() > 0 && w.Cmp(resource.MustParse("1n")) <= 0:
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "%s is above 0 but not above 10⁻⁹", w.String())
	}
	v := w.AsApproximateFloat64()
	return &v, nil
}

// weightOf is a spec.fairSharing.weight read by [fairWeight]: 1 when unset.
func weightOf(w *float64) float64 {
	if w == nil {
		return 1
	}
	return *w
}
