package kube

import (
	"encoding/json"
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/gangsched/gangsched/gang"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
)

// A v1beta1 CompositePodGroup (Kubernetes v1.38; k8s.io/api
// v0.38.0-beta.0 scheduling/v1beta1) has the same fields and JSON keys as
// the v1alpha3 one of v0.37 (a diff of the two types.go files shows only
// comments and the nested types' package), so the adapter converts it
// through its JSON form rather than repeating the v1alpha3 conversion
// field by field.

// ConvertCompositePodGroupV1beta1 converts a scheduling.k8s.io/v1beta1
// CompositePodGroup ([kubev1beta1.CompositePodGroup], the adapter's mirror)
// into the [gang] model as [ConvertCompositePodGroupV1alpha3] does, with
// the same errors.
func ConvertCompositePodGroupV1beta1(c *kubev1beta1.CompositePodGroup, pcs *PriorityClasses) (*gang.CompositePodGroup, error) {
	if c == nil {
		return nil, errNil("CompositePodGroup")
	}
	var alpha schedulingv1alpha3.CompositePodGroup
	if err := bridge(c, &alpha); err != nil {
		return nil, fmt.Errorf("%s: %w", compositeObj(c.Namespace, c.Name), err)
	}
	return ConvertCompositePodGroupV1alpha3(&alpha, pcs)
}

// CompositePodGroupV1beta1 writes a [gang.CompositePodGroup] as a
// scheduling.k8s.io/v1beta1 CompositePodGroup, the inverse of
// [ConvertCompositePodGroupV1beta1].
func CompositePodGroupV1beta1(c *gang.CompositePodGroup) *kubev1beta1.CompositePodGroup {
	if c == nil {
		return nil
	}
	var out kubev1beta1.CompositePodGroup
	if err := bridge(CompositePodGroupV1alpha3(c), &out); err != nil {
		panic(err) // the two shapes are the same: unreachable
	}
	out.APIVersion = kubev1beta1.GroupVersion
	return &out
}

// SetConditionCompositePodGroupV1beta1 writes a condition from a cycle
// ([gang.CompositePodGroupScheduled]) into a v1beta1 CompositePodGroup's
// status.conditions, replacing the one of the same type.
func SetConditionCompositePodGroupV1beta1(c *kubev1beta1.CompositePodGroup, cond gang.Condition) {
	if c == nil {
		return
	}
	meta.SetStatusCondition(&c.Status.Conditions, apiCondition(cond, cond.Type, c.Generation))
}

// bridge copies in into out through JSON, for two types of one shape.
func bridge(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
