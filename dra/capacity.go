package dra

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// devCap is one capacity of a device, in name order.
type devCap struct {
	name   QualifiedName
	value  int64
	policy *CapacityRequestPolicy
	slot   int32 // index into the inventory's shared capacities; -1 on an exclusive device
}

// consume returns what a request takes of capacity c: amount when asked,
// else the policy's default or the whole capacity, rounded up as the
// policy says (KEP-5075, as k8s.io/dynamic-resource-allocation's
// structured allocator computes it). ok is false when the result breaks
// the policy or exceeds the capacity itself.
func (c *devCap) consume(amount int64, asked bool) (int64, bool) {
	p := c.policy
	v := amount
	switch {
	case !asked && p != nil && p.Default != nil:
		v = *p.Default
	case !asked:
		v = c.value
	case p == nil:
	case p.ValidRange != nil:
		r := p.ValidRange
		if v < r.Min {
			v = r.Min
		} else if r.Step != nil {
			n := (v - r.Min) / *r.Step
			if (v-r.Min)%*r.Step != 0 {
				n++
			}
			if n > (c.value-r.Min) / *r.Step {
				return 0, false // past the capacity, and maybe past int64
			}
			v = r.Min + n**r.Step
		}
	case len(p.ValidValues) > 0:
		if i, _ := slices.BinarySearch(p.ValidValues, v); i < len(p.ValidValues) {
			v = p.ValidValues[i]
		}
	}
	return v, v <= c.value && c.valid(v)
}

// valid reports whether v is an amount the policy admits.
func (c *devCap) valid(v int64) bool {
	p := c.policy
	switch {
	case p == nil:
		return true
	case p.Default != nil && v == *p.Default:
		return true
	case p.ValidRange != nil:
		r := p.ValidRange
		return v >= r.Min && (r.Max == nil || v <= *r.Max) && (r.Step == nil || (v-r.Min)%*r.Step == 0)
	case len(p.ValidValues) > 0:
		_, ok := slices.BinarySearch(p.ValidValues, v)
		return ok
	}
	return true
}

// capUse is what one allocation consumes of one shared capacity.
type capUse struct {
	slot int32
	n    int64
}

// consumption returns what alternative a takes of device dv: ok is false
// when dv lacks a capacity a asks for, or one of its capacities cannot
// serve a (above, the amounts rounded by policy). uses is appended to out
// and lists the shared capacities consumed; it is empty for an exclusive
// device, which a checks but does not consume.
func (a *calt) consumption(dv *device, out []capUse) ([]capUse, bool) {
	if len(a.capReq) == 0 && len(dv.caps) == 0 {
		return out, true
	}
	for _, name := range a.capNames {
		if !slices.ContainsFunc(dv.caps, func(c devCap) bool { return c.name == name }) {
			return out, false
		}
	}
	for i := range dv.caps {
		c := &dv.caps[i]
		amount, asked := a.capReq[c.name]
		n, ok := c.consume(amount, asked)
		if !ok {
			return out, false
		}
		if c.slot >= 0 {
			out = append(out, capUse{c.slot, n})
		}
	}
	return out, true
}

// checkPolicy validates the request policy of capacity name of a device
// (f names the device in errors), as resource.k8s.io/v1 validation does
// for the parts that decide allocation.
func checkPolicy(obj, f string, name QualifiedName, value int64, p *CapacityRequestPolicy) error {
	pf := fmt.Sprintf("%s.capacity[%s].requestPolicy", f, name)
	if p.ValidRange != nil && len(p.ValidValues) > 0 {
		return placement.Errorf(placement.ErrInvalid, obj, pf, "at most one of validValues and validRange may be set")
	}
	if r := p.ValidRange; r != nil {
		switch {
		case r.Min < 0 || r.Min > value:
			return placement.Errorf(placement.ErrInvalid, obj, pf+".validRange.min", "%d is outside 0..%d, the capacity", r.Min, value)
		case r.Max != nil && (*r.Max < r.Min || *r.Max > value):
			return placement.Errorf(placement.ErrInvalid, obj, pf+".validRange.max", "%d is outside %d..%d (min..the capacity)", *r.Max, r.Min, value)
		case r.Step != nil && (*r.Step <= 0 || *r.Step > value):
			return placement.Errorf(placement.ErrInvalid, obj, pf+".validRange.step", "%d is outside 1..%d, the capacity", *r.Step, value)
		}
	}
	for i, v := range p.ValidValues {
		if v < 0 || v > value {
			return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.validValues[%d]", pf, i), "%d is outside 0..%d, the capacity", v, value)
		}
		if i > 0 && v <= p.ValidValues[i-1] {
			return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.validValues[%d]", pf, i), "must be greater than the value before it")
		}
	}
	if d := p.Default; d != nil {
		c := devCap{value: value, policy: &CapacityRequestPolicy{ValidValues: p.ValidValues, ValidRange: p.ValidRange}}
		if *d < 0 || *d > value || !c.valid(*d) {
			return placement.Errorf(placement.ErrInvalid, obj, pf+".default", "%d is not a valid amount of the capacity", *d)
		}
	}
	return nil
}

// deviceCaps checks device d's capacities and policies and lists them in
// name order; a shared device's take slots from next on.
func deviceCaps(obj, f string, d *Device, next int32) ([]devCap, error) {
	for _, name := range slices.Sorted(maps.Keys(d.RequestPolicies)) {
		if _, ok := d.Capacity[name]; !ok {
			return nil, placement.Errorf(placement.ErrNotFound, obj, fmt.Sprintf("%s.capacity[%s].requestPolicy", f, name), "the device has no capacity %q", name)
		}
	}
	var out []devCap
	for _, name := range slices.Sorted(maps.Keys(d.Capacity)) {
		c := devCap{name: name, value: d.Capacity[name], slot: -1}
		if p, ok := d.RequestPolicies[name]; ok {
			c.policy = &p
			if err := checkPolicy(obj, f, name, c.value, c.policy); err != nil {
				return nil, err
			}
		}
		if d.AllowMultipleAllocations {
			c.slot = next
			next++
		}
		out = append(out, c)
	}
	return out, nil
}

// consumed returns what a takes of each capacity of the shared device dv,
// by name, for the allocation result.
func (a *calt) consumed(dv *device) map[QualifiedName]int64 {
	out := make(map[QualifiedName]int64, len(dv.caps))
	for i := range dv.caps {
		c := &dv.caps[i]
		amount, asked := a.capReq[c.name]
		out[c.name], _ = c.consume(amount, asked)
	}
	return out
}

// capName names shared capacity slot of device dv.
func capName(dv *device, slot int32) QualifiedName {
	for _, c := range dv.caps {
		if c.slot == slot {
			return c.name
		}
	}
	return ""
}
