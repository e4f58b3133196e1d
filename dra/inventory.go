package dra

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// Inventory is the immutable set of devices of a cluster: the device
// classes and the devices of every resource slice, with the counter sets
// that partitionable devices share. Build one with [NewInventory]; a
// [Ledger] records which devices are allocated.
//
// Devices are numbered densely in driver, pool, device-name order, so
// everything derived from an inventory is independent of input order.
type Inventory struct {
	classes   map[string]*DeviceClass
	classMemo map[string]*lazyMemo // per class: which devices its selectors accept
	devs      []device
	byID      map[DeviceID]int32
	local     map[string][]int32 // node name -> node-local devices
	selective []int32            // devices reachable through a node selector
	everyNode []int32            // devices reachable from every node
	counters  []int64            // capacity per counter, dense
	ctrNames  []string           // "driver/pool/set/counter", for messages
}

type access uint8

const (
	accessNode access = iota
	accessSelector
	accessAll
)

type device struct {
	id     DeviceID
	d      *Device
	access access
	node   string
	sel    *placement.LabelSelector
	selID  int32 // identifies sel among the inventory's selectors
	uses   []counterUse
}

type counterUse struct {
	c int32
	n int64
}

func sliceObj(s *ResourceSlice) string { return fmt.Sprintf("ResourceSlice %q", s.Name) }

type poolKey struct{ driver, pool string }

// NewInventory validates device classes and resource slices and builds an
// inventory. The result does not depend on the order of either slice.
// The inventory copies the lists it is given; the maps inside devices,
// counter sets and selectors become owned by it and must not be modified
// afterwards.
//
// Errors (a [*placement.FieldError]; nothing is built): an empty or
// duplicate class or slice name; a nil class selector; an empty driver or pool; not exactly one
// of nodeName, nodeSelector, allNodes and perDeviceNodeSelection on a
// slice (or, with perDeviceNodeSelection, on each device); an invalid node
// selector; an empty or duplicate device name within a pool; an empty
// attribute or capacity name; an attribute without a kind; a negative
// capacity or counter; a duplicate counter set within a pool; a device
// that consumes from a counter set or counter its pool does not have.
func NewInventory(classes []DeviceClass, rslices []ResourceSlice) (*Inventory, error) {
	inv := &Inventory{classes: make(map[string]*DeviceClass, len(classes)), classMemo: make(map[string]*lazyMemo, len(classes)), byID: map[DeviceID]int32{}, local: map[string][]int32{}}
	for i := range classes {
		c := &classes[i]
		obj := fmt.Sprintf("DeviceClass %q", c.Name)
		if c.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		if _, dup := inv.classes[c.Name]; dup {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		for j, sel := range c.Selectors {
			if sel == nil {
				return nil, placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("spec.selectors[%d]", j), "must not be nil")
			}
		}
		cc := *c
		inv.classes[c.Name] = &cc
		inv.classMemo[c.Name] = &lazyMemo{}
	}
	sl := slices.Clone(rslices)
	for i := range sl {
		sl[i].Devices = slices.Clone(sl[i].Devices)
	}
	slices.SortFunc(sl, func(a, b ResourceSlice) int { return strings.Compare(a.Name, b.Name) })

	// Pass 1: slice fields and counter sets, which any slice of a pool may
	// hold for the devices of every other.
	type ctrKey struct {
		pool     poolKey
		set, ctr string
	}
	sets := map[poolKey]map[string]*CounterSet{}
	var ctrKeys []ctrKey
	for i := range sl {
		s := &sl[i]
		obj := sliceObj(s)
		if s.Name == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		if i > 0 && sl[i-1].Name == s.Name {
			return nil, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		if s.Driver == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.driver", "must not be empty")
		}
		if s.Pool == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.pool.name", "must not be empty")
		}
		if err := checkAccess(obj, "spec", s.NodeName, s.NodeSelector, s.AllNodes, s.PerDeviceNodeSelection, true); err != nil {
			return nil, err
		}
		pk := poolKey{s.Driver, s.Pool}
		for j := range s.SharedCounters {
			cs := &s.SharedCounters[j]
			f := fmt.Sprintf("spec.sharedCounters[%d]", j)
			if cs.Name == "" {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
			}
			if sets[pk] == nil {
				sets[pk] = map[string]*CounterSet{}
			}
			if _, dup := sets[pk][cs.Name]; dup {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "counter set %q appears twice in pool %s/%s", cs.Name, s.Driver, s.Pool)
			}
			sets[pk][cs.Name] = cs
			for name, v := range cs.Counters {
				if name == "" {
					return nil, placement.Errorf(placement.ErrInvalid, obj, f+".counters", "counter name must not be empty")
				}
				if v < 0 {
					return nil, placement.Errorf(placement.ErrInvalid, obj, f+".counters["+name+"]", "%d is negative", v)
				}
				ctrKeys = append(ctrKeys, ctrKey{pk, cs.Name, name})
			}
		}
	}
	slices.SortFunc(ctrKeys, func(a, b ctrKey) int {
		return cmp.Or(strings.Compare(a.pool.driver, b.pool.driver), strings.Compare(a.pool.pool, b.pool.pool),
			strings.Compare(a.set, b.set), strings.Compare(a.ctr, b.ctr))
	})
	ctrIdx := make(map[ctrKey]int32, len(ctrKeys))
	for i, k := range ctrKeys {
		ctrIdx[k] = int32(i)
		inv.counters = append(inv.counters, sets[k.pool][k.set].Counters[k.ctr])
		inv.ctrNames = append(inv.ctrNames, k.pool.driver+"/"+k.pool.pool+"/"+k.set+"/"+k.ctr)
	}

	// Pass 2: devices.
	selIDs := map[*placement.LabelSelector]int32{}
	for i := range sl {
		s := &sl[i]
		obj := sliceObj(s)
		pk := poolKey{s.Driver, s.Pool}
		for j := range s.Devices {
			d := &s.Devices[j]
			f := fmt.Sprintf("spec.devices[%d]", j)
			if d.Name == "" {
				return nil, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
			}
			id := DeviceID{s.Driver, s.Pool, d.Name}
			if _, dup := inv.byID[id]; dup {
				return nil, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "device %s appears twice in its pool", id)
			}
			inv.byID[id] = -1
			if err := checkAccess(obj, f, d.NodeName, d.NodeSelector, d.AllNodes, false, s.PerDeviceNodeSelection); err != nil {
				return nil, err
			}
			for _, name := range slices.Sorted(maps.Keys(d.Attributes)) {
				if name == "" {
					return nil, placement.Errorf(placement.ErrInvalid, obj, f+".attributes", "attribute name must not be empty")
				}
				if k := d.Attributes[name].Kind; k < AttributeInt || k > AttributeVersion {
					return nil, placement.Errorf(placement.ErrInvalid, obj, f+".attributes["+string(name)+"]", "no value set (kind %d)", k)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(d.Capacity)) {
				if name == "" {
					return nil, placement.Errorf(placement.ErrInvalid, obj, f+".capacity", "capacity name must not be empty")
				}
				if q := d.Capacity[name]; q < 0 {
					return nil, placement.Errorf(placement.ErrInvalid, obj, f+".capacity["+string(name)+"]", "%d is negative", q)
				}
			}
			dv := device{id: id, d: d}
			for k, cc := range d.ConsumesCounters {
				cf := fmt.Sprintf("%s.consumesCounters[%d]", f, k)
				cs := sets[pk][cc.CounterSet]
				if cs == nil {
					return nil, placement.Errorf(placement.ErrNotFound, obj, cf+".counterSet", "pool %s/%s has no counter set %q", s.Driver, s.Pool, cc.CounterSet)
				}
				for _, name := range slices.Sorted(maps.Keys(cc.Counters)) {
					v := cc.Counters[name]
					if _, ok := cs.Counters[name]; !ok {
						return nil, placement.Errorf(placement.ErrNotFound, obj, cf+".counters["+name+"]", "counter set %q has no counter %q", cc.CounterSet, name)
					}
					if v < 0 {
						return nil, placement.Errorf(placement.ErrInvalid, obj, cf+".counters["+name+"]", "%d is negative", v)
					}
					if v > 0 {
						dv.uses = append(dv.uses, counterUse{ctrIdx[ctrKey{pk, cc.CounterSet, name}], v})
					}
				}
			}
			nodeName, sel, all := s.NodeName, s.NodeSelector, s.AllNodes
			if s.PerDeviceNodeSelection {
				nodeName, sel, all = d.NodeName, d.NodeSelector, d.AllNodes
			}
			switch {
			case nodeName != "":
				dv.access, dv.node = accessNode, nodeName
			case sel != nil:
				dv.access, dv.sel = accessSelector, sel
				id, ok := selIDs[sel]
				if !ok {
					id = int32(len(selIDs))
					selIDs[sel] = id
				}
				dv.selID = id
			default:
				_ = all // checkAccess guarantees it is set
				dv.access = accessAll
			}
			inv.devs = append(inv.devs, dv)
		}
	}
	slices.SortFunc(inv.devs, func(a, b device) int { return compareID(a.id, b.id) })
	for i := range inv.devs {
		dv := &inv.devs[i]
		inv.byID[dv.id] = int32(i)
		switch dv.access {
		case accessNode:
			inv.local[dv.node] = append(inv.local[dv.node], int32(i))
		case accessSelector:
			inv.selective = append(inv.selective, int32(i))
		case accessAll:
			inv.everyNode = append(inv.everyNode, int32(i))
		}
	}
	return inv, nil
}

func compareID(a, b DeviceID) int {
	return cmp.Or(strings.Compare(a.Driver, b.Driver), strings.Compare(a.Pool, b.Pool), strings.Compare(a.Device, b.Device))
}

// checkAccess checks that exactly one way of reaching nodes is set (when
// want is true), or none (when want is false).
func checkAccess(obj, field, nodeName string, sel *placement.LabelSelector, all, perDevice, want bool) error {
	n := 0
	for _, set := range []bool{nodeName != "", sel != nil, all, perDevice} {
		if set {
			n++
		}
	}
	switch {
	case want && n != 1:
		return placement.Errorf(placement.ErrInvalid, obj, field, "exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set, found %d", n)
	case !want && n != 0:
		return placement.Errorf(placement.ErrInvalid, obj, field, "nodeName, nodeSelector and allNodes may only be set when the slice sets perDeviceNodeSelection")
	}
	if sel != nil {
		return sel.Validate(obj, field+".nodeSelector")
	}
	return nil
}

// NumDevices returns the number of devices.
func (inv *Inventory) NumDevices() int { return len(inv.devs) }

// Device returns the device with the given ID. The result must not be
// modified.
func (inv *Inventory) Device(id DeviceID) (*Device, bool) {
	i, ok := inv.byID[id]
	if !ok {
		return nil, false
	}
	return inv.devs[i].d, true
}

// Class returns the named device class.
func (inv *Inventory) Class(name string) (*DeviceClass, bool) {
	c, ok := inv.classes[name]
	return c, ok
}

// reachable reports whether device i can be used from node n.
func (inv *Inventory) reachable(i int32, n *placement.Node) bool {
	dv := &inv.devs[i]
	switch dv.access {
	case accessNode:
		return dv.node == n.Name
	case accessSelector:
		return dv.sel.Matches(n.Labels)
	}
	return true
}

// eachReachable calls f for each device usable from node n, in candidate
// order: node-local devices first, then network-attached ones whose
// selector matches n, then those reachable from every node, each group in
// driver, pool, device-name order. It stops when f returns false.
func (inv *Inventory) eachReachable(n *placement.Node, f func(int32) bool) {
	for _, i := range inv.local[n.Name] {
		if !f(i) {
			return
		}
	}
	for _, i := range inv.selective {
		if inv.devs[i].sel.Matches(n.Labels) && !f(i) {
			return
		}
	}
	for _, i := range inv.everyNode {
		if !f(i) {
			return
		}
	}
}

// result derives the node constraint of an allocation of devices devs
// (see [AllocationResult]); ok is false when two devices are local to
// different nodes, so that no node reaches them all.
func (inv *Inventory) result(devs []int32, reqs []string) (r AllocationResult, ok bool) {
	r.Devices = make([]DeviceResult, len(devs))
	var sels []int32
	for k, i := range devs {
		dv := &inv.devs[i]
		r.Devices[k] = DeviceResult{Request: reqs[k], DeviceID: dv.id}
		switch dv.access {
		case accessNode:
			if r.NodeName != "" && r.NodeName != dv.node {
				return r, false
			}
			r.NodeName = dv.node
		case accessSelector:
			if !slices.Contains(sels, dv.selID) {
				sels = append(sels, dv.selID)
				r.NodeSelectors = append(r.NodeSelectors, *dv.sel)
			}
		}
	}
	return r, true
}
