package kube

import (
	"math"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// ConvertPodDisruptionBudget converts a policy/v1 PodDisruptionBudget into
// the budget workload-aware preemption honours. status.disruptionsAllowed
// is taken as written when the object has a status (observedGeneration
// set); otherwise it is computed as the disruption controller would, from
// the bound pods the selector matches (all taken as healthy and expected):
// maxUnavailable, or healthy minus minAvailable, percentages rounded up,
// never below 0. ok is false for a budget with no selector, which guards
// no pod. Errors: a selector that does not validate; a percentage that
// does not parse.
func ConvertPodDisruptionBudget(pdb *policyv1.PodDisruptionBudget, bound []placement.Pod) (b preemption.DisruptionBudget, ok bool, err error) {
	if pdb == nil {
		return preemption.DisruptionBudget{}, false, errNil("PodDisruptionBudget")
	}
	obj := objName("PodDisruptionBudget", pdb.Namespace, pdb.Name)
	if pdb.Spec.Selector == nil {
		return preemption.DisruptionBudget{}, false, nil
	}
	sel, err := LabelSelector(obj, "spec.selector", pdb.Spec.Selector)
	if err != nil {
		return preemption.DisruptionBudget{}, false, err
	}
	b = preemption.DisruptionBudget{Namespace: pdb.Namespace, Name: pdb.Name, Selector: sel}
	if pdb.Status.ObservedGeneration > 0 {
		b.DisruptionsAllowed = max(pdb.Status.DisruptionsAllowed, 0)
		return b, true, nil
	}
	healthy := 0
	for i := range bound {
		if bound[i].Namespace == pdb.Namespace && sel.Matches(bound[i].Labels) {
			healthy++
		}
	}
	scaled := func(field string, v *intstr.IntOrString) (int, error) {
		n, err := intstr.GetScaledValueFromIntOrPercent(v, healthy, true)
		if err != nil {
			return 0, placement.Errorf(placement.ErrInvalid, obj, field, "%v", err)
		}
		return n, nil
	}
	allowed := 0
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		if allowed, err = scaled("spec.maxUnavailable", pdb.Spec.MaxUnavailable); err != nil {
			return preemption.DisruptionBudget{}, false, err
		}
	case pdb.Spec.MinAvailable != nil:
		minAvail, err := scaled("spec.minAvailable", pdb.Spec.MinAvailable)
		if err != nil {
			return preemption.DisruptionBudget{}, false, err
		}
		allowed = healthy - minAvail
	}
	b.DisruptionsAllowed = int32(min(max(allowed, 0), math.MaxInt32))
	return b, true, nil
}
