package dra

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// spec is a validated ClaimSpec with its classes resolved.
type spec struct {
	reqs []creq
	cons []ccons
}

type creq struct {
	name string
	alts []calt // one for Exactly; the subrequests, in order, for FirstAvailable
}

// calt is one way to satisfy a request: the exact request or one
// subrequest.
type calt struct {
	name      string // the result's request name: "req" or "req/sub"
	className string
	class     *DeviceClass // nil when the inventory has no such class
	sels      []Selector
	classMemo *lazyMemo // the inventory's, for the class's selectors
	selMemo   *lazyMemo // this request's, for sels; nil without sels
	useMemo   *lazyMemo // this alternative's, for usable
	near      *nearMemo // this alternative's, for localNear
	all       bool
	count     int                     // devices for ExactCount; 1 (the minimum) for All
	capReq    map[QualifiedName]int64 // KEP-5075 capacity requests
	capNames  []QualifiedName         // capReq's names, sorted
	tols      []DeviceToleration
	admin     bool // KEP-5018 admin access: takes nothing
	// self is count pointers to this alternative (nil above
	// maxSelfCount): the alts of an assign whose devices all serve it,
	// shared by every such assign rather than allocated by each.
	self []*calt
}

// maxSelfCount bounds the counts that get calt.self: larger requests are
// rare, and pay for their alts in the search's slab.
const maxSelfCount = 128

type ccons struct {
	attr     QualifiedName
	distinct bool     // DistinctAttribute, else MatchAttribute
	names    []string // request or subrequest names; empty means all
}

func (c *ccons) covers(r *creq, a *calt) bool {
	return len(c.names) == 0 || slices.Contains(c.names, r.name) || slices.Contains(c.names, a.name)
}

// MaxRequestCount bounds a device request's count (ExactCount): no
// cluster has more devices, and it keeps counts in int on every platform.
// A larger count is an [placement.ErrInvalid] error.
const MaxRequestCount = 1 << 30

// compileSpec validates cs; obj and field name it in errors.
func compileSpec(inv *Inventory, obj, field string, cs *ClaimSpec) (*spec, error) {
	sp := &spec{}
	if len(cs.Requests) == 0 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field+".devices.requests", "must not be empty")
	}
	names := map[string]bool{}
	for i := range cs.Requests {
		r := &cs.Requests[i]
		f := fmt.Sprintf("%s.devices.requests[%d]", field, i)
		if r.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
		}
		if names[r.Name] {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "request %q appears twice", r.Name)
		}
		names[r.Name] = true
		cr := creq{name: r.Name}
		switch {
		case (r.Exactly == nil) == (len(r.FirstAvailable) == 0):
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "exactly one of exactly and firstAvailable must be set")
		case r.Exactly != nil:
			a, err := compileAlt(inv, obj, f+".exactly", r.Name, r.Exactly)
			if err != nil {
				return nil, err
			}
			cr.alts = append(cr.alts, a)
		default:
			subs := map[string]bool{}
			for j := range r.FirstAvailable {
				sr := &r.FirstAvailable[j]
				sf := fmt.Sprintf("%s.firstAvailable[%d]", f, j)
				if sr.Name == "" {
					return nil, placement.Errorf(placement.ErrInvalid, obj, sf+".name", "must not be empty")
				}
				if subs[sr.Name] {
					return nil, placement.Errorf(placement.ErrDuplicate, obj, sf+".name", "subrequest %q appears twice", sr.Name)
				}
				subs[sr.Name] = true
				a, err := compileAlt(inv, obj, sf, r.Name+"/"+sr.Name, &sr.ExactDeviceRequest)
				if err != nil {
					return nil, err
				}
				cr.alts = append(cr.alts, a)
			}
		}
		sp.reqs = append(sp.reqs, cr)
	}
	for i, c := range cs.Constraints {
		f := fmt.Sprintf("%s.devices.constraints[%d]", field, i)
		if (c.MatchAttribute == "") == (c.DistinctAttribute == "") {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "exactly one of matchAttribute and distinctAttribute must be set")
		}
		for j, n := range c.Requests {
			if sp.findAlt(n) == nil && !names[n] {
				return nil, placement.Errorf(placement.ErrNotFound, obj, fmt.Sprintf("%s.requests[%d]", f, j), "no request or subrequest %q", n)
			}
		}
		sp.cons = append(sp.cons, ccons{attr: c.MatchAttribute + c.DistinctAttribute, distinct: c.DistinctAttribute != "", names: slices.Clone(c.Requests)})
	}
	for q := range sp.reqs { // the alternatives stay where they are from here on
		for a := range sp.reqs[q].alts {
			if alt := &sp.reqs[q].alts[a]; !alt.all && alt.count <= maxSelfCount {
				alt.self = slices.Repeat([]*calt{alt}, alt.count)
			}
		}
	}
	return sp, nil
}

func compileAlt(inv *Inventory, obj, f, name string, r *ExactDeviceRequest) (calt, error) {
	a := calt{name: name, className: r.DeviceClassName, sels: r.Selectors, count: 1}
	if r.DeviceClassName == "" {
		return a, placement.Errorf(placement.ErrInvalid, obj, f+".deviceClassName", "must not be empty")
	}
	a.class, a.classMemo = inv.classes[r.DeviceClassName], inv.classMemo[r.DeviceClassName]
	a.useMemo, a.near = &lazyMemo{}, &nearMemo{}
	for i, s := range r.Selectors {
		if s == nil {
			return a, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.selectors[%d]", f, i), "must not be nil")
		}
	}
	if len(r.Selectors) > 0 {
		a.selMemo = &lazyMemo{}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Capacity)) {
		cf := fmt.Sprintf("%s.capacity.requests[%s]", f, name)
		if name == "" {
			return a, placement.Errorf(placement.ErrInvalid, obj, f+".capacity.requests", "capacity name must not be empty")
		}
		if q := r.Capacity[name]; q < 0 {
			return a, placement.Errorf(placement.ErrInvalid, obj, cf, "%d is negative", q)
		}
		a.capNames = append(a.capNames, name)
	}
	a.capReq = r.Capacity
	if err := checkTolerations(obj, f, r.Tolerations); err != nil {
		return a, err
	}
	a.tols = slices.Clone(r.Tolerations)
	a.admin = r.AdminAccess
	switch r.AllocationMode {
	case "", AllocationModeExactCount:
		if r.Count < 0 || r.Count > MaxRequestCount {
			return a, placement.Errorf(placement.ErrInvalid, obj, f+".count", "%d is outside 0..%d", r.Count, MaxRequestCount)
		}
		if r.Count > 0 {
			a.count = int(r.Count)
		}
	case AllocationModeAll:
		if r.Count != 0 {
			return a, placement.Errorf(placement.ErrInvalid, obj, f+".count", "must not be set for allocationMode All")
		}
		a.all = true
	default:
		return a, placement.Errorf(placement.ErrInvalid, obj, f+".allocationMode", "unknown mode %q (want ExactCount or All)", r.AllocationMode)
	}
	return a, nil
}

// findAlt returns the alternative whose result name is n.
func (sp *spec) findAlt(n string) *calt {
	for i := range sp.reqs {
		for j := range sp.reqs[i].alts {
			if sp.reqs[i].alts[j].name == n {
				return &sp.reqs[i].alts[j]
			}
		}
	}
	return nil
}

// matches reports whether device i of inv is of a's class and passes its
// selectors. Each selector list is evaluated once per device for as long
// as the inventory and this spec live (see matchMemo).
func (a *calt) matches(inv *Inventory, i int32) bool {
	if a.class == nil {
		return false
	}
	dv := &inv.devs[i]
	if len(a.class.Selectors) > 0 && !a.classMemo.get(len(inv.devs)).accepts(a.class.Selectors, i, dv) {
		return false
	}
	return len(a.sels) == 0 || a.selMemo.get(len(inv.devs)).accepts(a.sels, i, dv)
}

// usable reports whether device i may serve a from a node that reaches
// it on an idle cluster: it matches a's class and selectors, its taints
// are tolerated, and it can provide the capacity a asks for. None of that
// changes while the inventory lives, so each device is asked about once
// per alternative, like its selectors (see matchMemo), however many
// solves and nodes ask.
func (a *calt) usable(inv *Inventory, i int32) bool {
	return a.useMemo.get(len(inv.devs)).answer(i, func() bool {
		dv := &inv.devs[i]
		if !a.matches(inv, i) || !a.tolerates(dv) {
			return false
		}
		var buf [4]capUse
		_, ok := a.consumption(dv, buf[:0])
		return ok
	})
}

// missingClass returns the first class the spec names that the inventory
// lacks, or "".
func (sp *spec) missingClass() string {
	for i := range sp.reqs {
		for j := range sp.reqs[i].alts {
			if a := &sp.reqs[i].alts[j]; a.class == nil {
				return a.className
			}
		}
	}
	return ""
}

// checkDevices validates an allocation of the claim with spec sp to the
// given devices: each device exists once, serves a known request or
// subrequest (one alternative per request), every request is served with
// its count, each device matches its class and selectors, constraints
// hold, and node-local devices share one node. It returns the devices'
// indices and the allocation result.
func checkDevices(inv *Inventory, obj, field string, sp *spec, devs []DeviceResult) ([]int32, AllocationResult, error) {
	idx := make([]int32, len(devs))
	reqOf := make([]int, len(devs))
	altOf := make([]*calt, len(devs))
	chosen := make([]*calt, len(sp.reqs))
	served := make([]int, len(sp.reqs))
	seen := map[int32]bool{}
	for k, dr := range devs {
		f := fmt.Sprintf("%s.devices.results[%d]", field, k)
		i, ok := inv.byID[dr.DeviceID]
		if !ok {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrNotFound, obj, f, "no device %s in the inventory", dr.DeviceID)
		}
		if seen[i] {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrDuplicate, obj, f, "device %s listed twice", dr.DeviceID)
		}
		seen[i] = true
		idx[k] = i
		ri, a := -1, (*calt)(nil)
		for r := range sp.reqs {
			for j := range sp.reqs[r].alts {
				if sp.reqs[r].alts[j].name == dr.Request {
					ri, a = r, &sp.reqs[r].alts[j]
				}
			}
		}
		if a == nil {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrNotFound, obj, f+".request", "%q names no request (a prioritized request is named request/subrequest)", dr.Request)
		}
		if chosen[ri] != nil && chosen[ri] != a {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, f+".request", "request %q is served by two subrequests", sp.reqs[ri].name)
		}
		if a.class == nil {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrNotFound, obj, f+".request", "device class %q does not exist", a.className)
		}
		if !a.matches(inv, i) {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, f, "device %s does not match %q's class and selectors", dr.DeviceID, dr.Request)
		}
		chosen[ri], reqOf[k], altOf[k] = a, ri, a
		served[ri]++
	}
	for r := range sp.reqs {
		a := chosen[r]
		switch {
		case a == nil:
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, field+".devices.results", "request %q has no device", sp.reqs[r].name)
		case !a.all && served[r] != a.count:
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, field+".devices.results", "request %q has %d devices, wants %d", a.name, served[r], a.count)
		}
	}
	for ci := range sp.cons {
		c := &sp.cons[ci]
		var cs consState
		for k, i := range idx {
			if !c.covers(&sp.reqs[reqOf[k]], altOf[k]) {
				continue
			}
			v, ok := Attr(inv.devs[i].id.Driver, inv.devs[i].d, c.attr)
			if !ok || !cs.admits(c.distinct, v) {
				kind := "matchAttribute"
				if c.distinct {
					kind = "distinctAttribute"
				}
				return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, field+".devices.results", "device %s breaks constraint %s %q", inv.devs[i].id, kind, c.attr)
			}
			cs.add(c.distinct, v)
		}
	}
	for k, i := range idx {
		dv := &inv.devs[i]
		f := fmt.Sprintf("%s.devices.results[%d]", field, k)
		if _, ok := altOf[k].consumption(dv, nil); !ok {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, f, "device %s cannot provide the capacity %q asks for", dv.id, devs[k].Request)
		}
		if devs[k].AdminAccess != altOf[k].admin {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, f+".adminAccess", "is %t, but request %q has admin access %t", devs[k].AdminAccess, devs[k].Request, altOf[k].admin)
		}
		if cc := devs[k].ConsumedCapacity; cc != nil && (!dv.multi || altOf[k].admin || !maps.Equal(cc, altOf[k].consumed(dv))) {
			return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, f+".consumedCapacity", "differs from what request %q consumes of device %s by its policies", devs[k].Request, dv.id)
		}
	}
	res, ok := inv.result(idx, altOf)
	if !ok {
		return nil, AllocationResult{}, placement.Errorf(placement.ErrInvalid, obj, field+".devices.results", "devices are local to different nodes")
	}
	return idx, res, nil
}
