package kube

import (
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// deviceTaints converts a device's taints (KEP-5055): key, value and
// effect; timeAdded only times eviction and is dropped.
func deviceTaints(in []resourcev1.DeviceTaint) []dra.DeviceTaint {
	var out []dra.DeviceTaint
	for _, t := range in {
		out = append(out, dra.DeviceTaint{Key: t.Key, Value: t.Value, Effect: dra.DeviceTaintEffect(t.Effect)})
	}
	return out
}

// deviceTolerations converts a request's tolerations (KEP-5055);
// tolerationSeconds only bounds how long a NoExecute taint is tolerated
// before eviction, the host's concern, and is dropped.
func deviceTolerations(in []resourcev1.DeviceToleration) []dra.DeviceToleration {
	var out []dra.DeviceToleration
	for _, t := range in {
		out = append(out, dra.DeviceToleration{Key: t.Key, Operator: dra.TolerationOperator(t.Operator), Value: t.Value, Effect: dra.DeviceTaintEffect(t.Effect)})
	}
	return out
}

// ConvertDeviceTaintRule converts a resource.k8s.io/v1 DeviceTaintRule
// (KEP-5055, GA in v1.37): its device selector (driver, pool, device; a
// missing selector selects no device) and its taint, which
// [dra.Inventory.WithTaintRules] adds to the devices it selects, as
// upstream's ResourceSlice tracker patches slices for the scheduler. Its
// status only reports eviction progress and is not read.
//
// Errors: a nil rule; a selector field set to the empty string, which the
// API server refuses ([placement.ErrInvalid], naming the field).
func ConvertDeviceTaintRule(r *resourcev1.DeviceTaintRule) (dra.DeviceTaintRule, error) {
	if r == nil {
		return dra.DeviceTaintRule{}, errNil("DeviceTaintRule")
	}
	obj := objName("DeviceTaintRule", "", r.Name)
	out := dra.DeviceTaintRule{Name: r.Name, Taint: dra.DeviceTaint{Key: r.Spec.Taint.Key, Value: r.Spec.Taint.Value, Effect: dra.DeviceTaintEffect(r.Spec.Taint.Effect)}}
	if s := r.Spec.DeviceSelector; s != nil {
		out.DeviceSelector = &dra.DeviceTaintSelector{}
		for _, f := range []struct {
			name string
			in   *string
			out  *string
		}{{"driver", s.Driver, &out.DeviceSelector.Driver}, {"pool", s.Pool, &out.DeviceSelector.Pool}, {"device", s.Device, &out.DeviceSelector.Device}} {
			if f.in == nil {
				continue
			}
			if *f.in == "" {
				return dra.DeviceTaintRule{}, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("spec.deviceSelector.%s", f.name), "must not be empty when set")
			}
			*f.out = *f.in
		}
	}
	return out, nil
}
