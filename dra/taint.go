package dra

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// DeviceTaintEffect is what a device taint does to claims that do not
// tolerate it (resource.k8s.io/v1 DeviceTaintEffect, KEP-5055).
// Effects other than NoSchedule and NoExecute — None and any effect a
// later release adds — change nothing here, as the API asks consumers to
// treat unknown effects.
type DeviceTaintEffect string

// Device taint effects of Kubernetes v1.37.
const (
	// TaintEffectNone is informational only.
	TaintEffectNone DeviceTaintEffect = "None"
	// TaintEffectNoSchedule keeps new allocations off the device unless
	// the request tolerates the taint; existing allocations stay.
	TaintEffectNoSchedule DeviceTaintEffect = "NoSchedule"
	// TaintEffectNoExecute also evicts the pods of claims already
	// allocated the device. Eviction is the host's concern (upstream's
	// device taint eviction controller); for allocation it acts as
	// NoSchedule.
	TaintEffectNoExecute DeviceTaintEffect = "NoExecute"
)

// blocks reports whether the effect keeps untolerating requests off a
// device.
func (e DeviceTaintEffect) blocks() bool {
	return e == TaintEffectNoSchedule || e == TaintEffectNoExecute
}

// DeviceTaint is a taint on a device (resource.k8s.io/v1 DeviceTaint),
// published in its ResourceSlice or added by a [DeviceTaintRule]. Key
// must not be empty, nor Effect; timeAdded only matters for eviction and
// is not modelled.
type DeviceTaint struct {
	Key    string
	Value  string
	Effect DeviceTaintEffect
}

// TolerationOperator is how a toleration compares a taint's value
// (resource.k8s.io/v1 DeviceTolerationOperator). The empty operator
// means Equal, the API's default.
type TolerationOperator string

// Toleration operators.
const (
	TolerationOpEqual  TolerationOperator = "Equal"
	TolerationOpExists TolerationOperator = "Exists"
)

// DeviceToleration lets a request be allocated devices that carry a
// matching taint (resource.k8s.io/v1 DeviceToleration): it matches a
// taint when Effect is empty or equal to the taint's, Key is empty or
// equal, and, for Equal, Value equals the taint's value. An empty Key
// needs operator Exists (tolerate everything); Exists needs an empty
// Value; Effect is empty, NoSchedule or NoExecute. tolerationSeconds only
// bounds how long a NoExecute taint is tolerated before eviction, the
// host's concern, and is not modelled.
type DeviceToleration struct {
	Key      string
	Operator TolerationOperator
	Value    string
	Effect   DeviceTaintEffect
}

// Tolerates reports whether t tolerates taint (as upstream's
// resourceclaim.ToleratesTaint). It does not look at the taint's effect
// beyond matching it: whether a taint matters at all is the effect's.
func (t DeviceToleration) Tolerates(taint DeviceTaint) bool {
	if t.Effect != "" && t.Effect != taint.Effect || t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	}
	return false
}

// DeviceTaintSelector says which devices a [DeviceTaintRule] taints
// (resource.k8s.io/v1 DeviceTaintSelector): those of driver Driver, pool
// Pool, named Device, each field empty for any. The empty selector
// selects every device.
type DeviceTaintSelector struct {
	Driver string
	Pool   string
	Device string
}

func (s *DeviceTaintSelector) selects(id DeviceID) bool {
	return (s.Driver == "" || s.Driver == id.Driver) && (s.Pool == "" || s.Pool == id.Pool) && (s.Device == "" || s.Device == id.Device)
}

// DeviceTaintRule adds one taint to the devices its selector selects, as
// if their ResourceSlices carried it (resource.k8s.io/v1 DeviceTaintRule,
// KEP-5055, GA in v1.37). A nil DeviceSelector selects no device, as the
// API defines.
type DeviceTaintRule struct {
	// Name is the rule's metadata.name, unique among rules.
	Name           string
	DeviceSelector *DeviceTaintSelector
	Taint          DeviceTaint
}

// WithTaintRules returns an inventory whose devices carry, beside the
// taints of their slices, the taint of every rule that selects them; the
// receiver is unchanged. Ledgers built on the result see the rules in
// every search; allocations loaded or already made stay valid under a
// NoSchedule or NoExecute taint, since a taint only keeps new allocations
// off a device. It costs O(devices × rules) and shares the classes and
// their selector memos with the receiver. The result does not depend on
// the order of rules.
//
// Errors (a [*placement.FieldError]; nothing is built): an empty or
// duplicate rule name; an empty taint key or effect.
func (inv *Inventory) WithTaintRules(rules []DeviceTaintRule) (*Inventory, error) {
	names := map[string]bool{}
	for i := range rules {
		r := &rules[i]
		obj := fmt.Sprintf("DeviceTaintRule %q", r.Name)
		if r.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		if names[r.Name] {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		names[r.Name] = true
		if err := checkTaint(obj, "spec.taint", r.Taint); err != nil {
			return nil, err
		}
	}
	sorted := slices.Clone(rules)
	slices.SortFunc(sorted, func(a, b DeviceTaintRule) int { return strings.Compare(a.Name, b.Name) })
	n := *inv
	n.devs = slices.Clone(inv.devs)
	n.pool = &reserverPool{} // its reservers read the devices' taints of their own inventory
	for i := range n.devs {
		dv := &n.devs[i]
		for k := range sorted {
			r := &sorted[k]
			if r.DeviceSelector != nil && r.DeviceSelector.selects(dv.id) && r.Taint.Effect.blocks() {
				dv.taints = append(slices.Clip(dv.taints), r.Taint)
				n.tainted = true
			}
		}
	}
	return &n, nil
}

// checkTaint checks a taint's own fields.
func checkTaint(obj, field string, t DeviceTaint) error {
	if t.Key == "" {
		return placement.Errorf(placement.ErrInvalid, obj, field+".key", "must not be empty")
	}
	if t.Effect == "" {
		return placement.Errorf(placement.ErrInvalid, obj, field+".effect", "must be set (None, NoSchedule or NoExecute)")
	}
	return nil
}

// blockingTaints checks a device's taints and returns those that keep
// untolerating requests off it.
func blockingTaints(obj, field string, ts []DeviceTaint) ([]DeviceTaint, error) {
	var out []DeviceTaint
	for k, t := range ts {
		if err := checkTaint(obj, fmt.Sprintf("%s.taints[%d]", field, k), t); err != nil {
			return nil, err
		}
		if t.Effect.blocks() {
			out = append(out, t)
		}
	}
	return out, nil
}

// checkTolerations checks a request's tolerations as the API server
// validates them.
func checkTolerations(obj, field string, ts []DeviceToleration) error {
	for k, t := range ts {
		f := fmt.Sprintf("%s.tolerations[%d]", field, k)
		switch t.Operator {
		case "", TolerationOpEqual:
			if t.Key == "" {
				return placement.Errorf(placement.ErrInvalid, obj, f+".operator", "must be Exists when key is empty")
			}
		case TolerationOpExists:
			if t.Value != "" {
				return placement.Errorf(placement.ErrInvalid, obj, f+".value", "must be empty when operator is Exists")
			}
		default:
			return placement.Errorf(placement.ErrInvalid, obj, f+".operator", "unknown operator %q (want Equal or Exists)", t.Operator)
		}
		switch t.Effect {
		case "", TaintEffectNoSchedule, TaintEffectNoExecute:
		default:
			return placement.Errorf(placement.ErrInvalid, obj, f+".effect", "unknown effect %q (want NoSchedule or NoExecute, or empty for any)", t.Effect)
		}
	}
	return nil
}

// tolerates reports whether alternative a tolerates every taint of dv
// that keeps untolerating requests off it (KEP-5055: the allocator skips
// such a device).
func (a *calt) tolerates(dv *device) bool {
	_, bad := a.untolerated(dv)
	return !bad
}

// untolerated returns the first taint of dv that a does not tolerate.
func (a *calt) untolerated(dv *device) (DeviceTaint, bool) {
	for _, t := range dv.taints {
		if !slices.ContainsFunc(a.tols, func(tol DeviceToleration) bool { return tol.Tolerates(t) }) {
			return t, true
		}
	}
	return DeviceTaint{}, false
}

// taintBlocks reports whether a device that some request of vars matches,
// reachable from the var's first node, carries a taint the request does
// not tolerate: a rejection then says so, since removing the taint or
// tolerating it is what a person can do. It costs O(reachable devices ×
// requests) and runs only for rejections on an inventory with taints.
func (r *reserver) taintBlocks(vars []svar) bool {
	found := false
	for _, v := range vars {
		for q := range v.spec.reqs {
			for a := range v.spec.reqs[q].alts {
				alt := &v.spec.reqs[q].alts[a]
				r.inv.eachReachable(v.reach[0], func(d int32) bool {
					found = alt.matches(r.inv, d) && !alt.tolerates(&r.inv.devs[d])
					return !found
				})
				if found {
					return true
				}
			}
		}
	}
	return false
}
