package kube

import (
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/gangsched/gangsched/gang"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
	"github.com/gangsched/gangsched/placement"
)

// refusesAsV138 reports whether profile p reads input as v1.38's API
// server would have admitted it ("" is the newest, v1.38).
func refusesAsV138(p gang.Profile) bool { return p == "" || p == gang.ProfileV138 }

// podGroupAs converts v as [ConvertPodGroupV1beta1] does, refusing first
// what profile p's API server refuses beyond it ([allNeedsGangV138]).
func podGroupAs(p gang.Profile, v *schedulingv1beta1.PodGroup, pcs *PriorityClasses) (*gang.PodGroup, error) {
	if refusesAsV138(p) {
		d := v.Spec.DisruptionMode
		if err := allNeedsGangV138(podGroupObj(v.Namespace, v.Name), v.Spec.SchedulingPolicy.Gang != nil, d != nil && d.All != nil); err != nil {
			return nil, err
		}
	}
	return ConvertPodGroupV1beta1(v, pcs)
}

// compositeV1alpha3As converts v as [ConvertCompositePodGroupV1alpha3]
// does, refusing first what profile p's API server refuses beyond it.
func compositeV1alpha3As(p gang.Profile, v *schedulingv1alpha3.CompositePodGroup, pcs *PriorityClasses) (*gang.CompositePodGroup, error) {
	if refusesAsV138(p) {
		d := v.Spec.DisruptionMode
		if err := allNeedsGangV138(compositeObj(v.Namespace, v.Name), v.Spec.SchedulingPolicy.Gang != nil, d != nil && d.All != nil); err != nil {
			return nil, err
		}
	}
	return ConvertCompositePodGroupV1alpha3(v, pcs)
}

// compositeV1beta1As converts v as [ConvertCompositePodGroupV1beta1]
// does, refusing first what profile p's API server refuses beyond it.
func compositeV1beta1As(p gang.Profile, v *kubev1beta1.CompositePodGroup, pcs *PriorityClasses) (*gang.CompositePodGroup, error) {
	if refusesAsV138(p) {
		d := v.Spec.DisruptionMode
		if err := allNeedsGangV138(compositeObj(v.Namespace, v.Name), v.Spec.SchedulingPolicy.Gang != nil, d != nil && d.All != nil); err != nil {
			return nil, err
		}
	}
	return ConvertCompositePodGroupV1beta1(v, pcs)
}

// allNeedsGangV138 is what v1.38's API server adds to v1.37's rules for a
// PodGroup or CompositePodGroup (v1.38.0-beta.0 ValidatePodGroup,
// ValidateCompositePodGroup): one whose schedulingPolicy is not a gang
// does not set disruptionMode all. It is checked before the object is
// converted, as upstream's hand-written rules come before its generated
// ones: an object with neither policy and all is refused at
// spec.disruptionMode there too. Error: a [*placement.FieldError].
func allNeedsGangV138(obj string, isGang, isAll bool) error {
	if isAll && !isGang {
		return placement.Errorf(placement.ErrInvalid, obj, "spec.disruptionMode", "all needs a gang schedulingPolicy (since v1.38)")
	}
	return nil
}
