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
	nodeIx    map[string]int32 // node name -> index in locals
	locals    [][]int32        // per node with local devices: those devices
	selective []int32          // devices reachable through a node selector
	everyNode []int32          // devices reachable from every node
	counters  []int64          // capacity per counter, dense
	ctrNames  []string         // "driver/pool/set/counter", for messages
	shared    []int64          // per capacity of a device that allows multiple allocations: its value
	sharedOf  []int32          // per such capacity: its device
	tainted   bool             // some device has a taint that blocks allocation
	pool      *reserverPool    // reservers that solves on the inventory released
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
	nodeIx int32 // node's index in Inventory.locals (node-local devices)
	sel    *placement.LabelSelector
	selID  int32 // identifies sel among the inventory's selectors
	uses   []counterUse
	caps   []devCap      // in name order
	multi  bool          // AllowMultipleAllocations
	taints []DeviceTaint // those that block allocation, the slice's and the rules'
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
// attribute or capacity name; an attribute without a kind; a taint with an
// empty key or effect; a negative capacity or counter; a duplicate counter set within a pool; a device
// that consumes from a counter set or counter its pool does not have.
func NewInventory(classes []DeviceClass, rslices []ResourceSlice) (*Inventory, error) {
	inv := &Inventory{classes: make(map[string]*DeviceClass, len(classes)), classMemo: make(map[string]*lazyMemo, len(classes)), byID: map[DeviceID]int32{}, nodeIx: map[string]int32{}, pool: &reserverPool{}}
	if err := inv.addClasses(classes); err != nil {
		return nil, err
	}
	sl := slices.Clone(rslices)
	for i := range sl {
		sl[i].Devices = slices.Clone(sl[i].Devices)
	}
	slices.SortFunc(sl, func(a, b ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
	// Counter sets first: any slice of a pool may hold them for the
	// devices of every other.
	ctrs, err := inv.addCounters(sl)
	if err != nil {
		return nil, err
	}
	if err := inv.addDevices(sl, ctrs); err != nil {
		return nil, err
	}
	inv.index()
	return inv, nil
}

func (inv *Inventory) addClasses(classes []DeviceClass) error {
	for i := range classes {
		c := &classes[i]
		obj := fmt.Sprintf("DeviceClass %q", c.Name)
		if c.Name == "" {
			return placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		if _, dup := inv.classes[c.Name]; dup {
			return placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		for j, sel := range c.Selectors {
			if sel == nil {
				return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("spec.selectors[%d]", j), "must not be nil")
			}
		}
		cc := *c
		inv.classes[c.Name] = &cc
		inv.classMemo[c.Name] = &lazyMemo{}
	}
	return nil
}

// ctrKey names one counter of one counter set of one pool.
type ctrKey struct {
	pool     poolKey
	set, ctr string
}

// poolCounters is what the counter pass hands the device pass: each
// pool's counter sets, and the dense index of each counter.
type poolCounters struct {
	sets map[poolKey]map[string]*CounterSet
	idx  map[ctrKey]int32
}

// addCounters checks the slices' own fields (sl sorted by name) and
// numbers their counters densely in driver, pool, set, counter order.
func (inv *Inventory) addCounters(sl []ResourceSlice) (poolCounters, error) {
	pc := poolCounters{sets: map[poolKey]map[string]*CounterSet{}}
	var keys []ctrKey
	for i := range sl {
		s := &sl[i]
		obj := sliceObj(s)
		if s.Name == "" {
			return pc, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
		}
		if i > 0 && sl[i-1].Name == s.Name {
			return pc, placement.Errorf(placement.ErrDuplicate, obj, "metadata.name", "appears twice")
		}
		if s.Driver == "" {
			return pc, placement.Errorf(placement.ErrInvalid, obj, "spec.driver", "must not be empty")
		}
		if s.Pool == "" {
			return pc, placement.Errorf(placement.ErrInvalid, obj, "spec.pool.name", "must not be empty")
		}
		if err := checkAccess(obj, "spec", s.NodeName, s.NodeSelector, s.AllNodes, s.PerDeviceNodeSelection, true); err != nil {
			return pc, err
		}
		pk := poolKey{s.Driver, s.Pool}
		for j := range s.SharedCounters {
			cs := &s.SharedCounters[j]
			f := fmt.Sprintf("spec.sharedCounters[%d]", j)
			if cs.Name == "" {
				return pc, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
			}
			if pc.sets[pk] == nil {
				pc.sets[pk] = map[string]*CounterSet{}
			}
			if _, dup := pc.sets[pk][cs.Name]; dup {
				return pc, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "counter set %q appears twice in pool %s/%s", cs.Name, s.Driver, s.Pool)
			}
			pc.sets[pk][cs.Name] = cs
			for name, v := range cs.Counters {
				if name == "" {
					return pc, placement.Errorf(placement.ErrInvalid, obj, f+".counters", "counter name must not be empty")
				}
				if v < 0 {
					return pc, placement.Errorf(placement.ErrInvalid, obj, f+".counters["+name+"]", "%d is negative", v)
				}
				keys = append(keys, ctrKey{pk, cs.Name, name})
			}
		}
	}
	slices.SortFunc(keys, func(a, b ctrKey) int {
		return cmp.Or(strings.Compare(a.pool.driver, b.pool.driver), strings.Compare(a.pool.pool, b.pool.pool),
			strings.Compare(a.set, b.set), strings.Compare(a.ctr, b.ctr))
	})
	pc.idx = make(map[ctrKey]int32, len(keys))
	for i, k := range keys {
		pc.idx[k] = int32(i)
		inv.counters = append(inv.counters, pc.sets[k.pool][k.set].Counters[k.ctr])
		inv.ctrNames = append(inv.ctrNames, k.pool.driver+"/"+k.pool.pool+"/"+k.set+"/"+k.ctr)
	}
	return pc, nil
}

// addDevices checks and adds the devices of every slice.
func (inv *Inventory) addDevices(sl []ResourceSlice, pc poolCounters) error {
	selIDs := map[*placement.LabelSelector]int32{}
	for i := range sl {
		s := &sl[i]
		for j := range s.Devices {
			dv, err := inv.newDevice(s, j, pc)
			if err != nil {
				return err
			}
			if dv.access == accessSelector {
				id, ok := selIDs[dv.sel]
				if !ok {
					id = int32(len(selIDs))
					selIDs[dv.sel] = id
				}
				dv.selID = id
			}
			inv.devs = append(inv.devs, dv)
		}
	}
	return nil
}

// newDevice checks device j of slice s.
func (inv *Inventory) newDevice(s *ResourceSlice, j int, pc poolCounters) (device, error) {
	obj := sliceObj(s)
	pk := poolKey{s.Driver, s.Pool}
	d := &s.Devices[j]
	f := fmt.Sprintf("spec.devices[%d]", j)
	if d.Name == "" {
		return device{}, placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
	}
	id := DeviceID{s.Driver, s.Pool, d.Name}
	if _, dup := inv.byID[id]; dup {
		return device{}, placement.Errorf(placement.ErrDuplicate, obj, f+".name", "device %s appears twice in its pool", id)
	}
	inv.byID[id] = -1
	if err := checkAccess(obj, f, d.NodeName, d.NodeSelector, d.AllNodes, false, s.PerDeviceNodeSelection); err != nil {
		return device{}, err
	}
	for _, name := range slices.Sorted(maps.Keys(d.Attributes)) {
		if name == "" {
			return device{}, placement.Errorf(placement.ErrInvalid, obj, f+".attributes", "attribute name must not be empty")
		}
		if err := checkAttribute(obj, f+".attributes["+string(name)+"]", d.Attributes[name]); err != nil {
			return device{}, err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.Capacity)) {
		if name == "" {
			return device{}, placement.Errorf(placement.ErrInvalid, obj, f+".capacity", "capacity name must not be empty")
		}
		if q := d.Capacity[name]; q < 0 {
			return device{}, placement.Errorf(placement.ErrInvalid, obj, f+".capacity["+string(name)+"]", "%d is negative", q)
		}
	}
	caps, err := deviceCaps(obj, f, d, 0)
	if err != nil {
		return device{}, err
	}
	taints, err := blockingTaints(obj, f, d.Taints)
	if err != nil {
		return device{}, err
	}
	dv := device{id: id, d: d, caps: caps, multi: d.AllowMultipleAllocations, taints: taints}
	if d.AllowMultipleAllocations && len(d.ConsumesCounters) > 0 {
		return device{}, placement.Errorf(placement.ErrInvalid, obj, f+".consumesCounters", "is not supported on a device that sets allowMultipleAllocations")
	}
	for k, cc := range d.ConsumesCounters {
		cf := fmt.Sprintf("%s.consumesCounters[%d]", f, k)
		cs := pc.sets[pk][cc.CounterSet]
		if cs == nil {
			return device{}, placement.Errorf(placement.ErrNotFound, obj, cf+".counterSet", "pool %s/%s has no counter set %q", s.Driver, s.Pool, cc.CounterSet)
		}
		for _, name := range slices.Sorted(maps.Keys(cc.Counters)) {
			v := cc.Counters[name]
			if _, ok := cs.Counters[name]; !ok {
				return device{}, placement.Errorf(placement.ErrNotFound, obj, cf+".counters["+name+"]", "counter set %q has no counter %q", cc.CounterSet, name)
			}
			if v < 0 {
				return device{}, placement.Errorf(placement.ErrInvalid, obj, cf+".counters["+name+"]", "%d is negative", v)
			}
			if v > 0 {
				dv.uses = append(dv.uses, counterUse{pc.idx[ctrKey{pk, cc.CounterSet, name}], v})
			}
		}
	}
	nodeName, sel := s.NodeName, s.NodeSelector
	if s.PerDeviceNodeSelection {
		nodeName, sel = d.NodeName, d.NodeSelector
	}
	switch {
	case nodeName != "":
		dv.access, dv.node = accessNode, nodeName
	case sel != nil:
		dv.access, dv.sel = accessSelector, sel
	default: // checkAccess guarantees allNodes is set
		dv.access = accessAll
	}
	return dv, nil
}

// index numbers the devices in driver, pool, device-name order (and the
// capacities of shared devices in that order, then by name) and lists
// them by how nodes reach them.
func (inv *Inventory) index() {
	slices.SortFunc(inv.devs, func(a, b device) int { return compareID(a.id, b.id) })
	for i := range inv.devs {
		dv := &inv.devs[i]
		inv.byID[dv.id] = int32(i)
		inv.tainted = inv.tainted || len(dv.taints) > 0
		for k := range dv.caps {
			if c := &dv.caps[k]; c.slot >= 0 {
				c.slot = int32(len(inv.shared))
				inv.shared = append(inv.shared, c.value)
				inv.sharedOf = append(inv.sharedOf, int32(i))
			}
		}
		switch dv.access {
		case accessNode:
			ix, ok := inv.nodeIx[dv.node]
			if !ok {
				ix = int32(len(inv.locals))
				inv.nodeIx[dv.node] = ix
				inv.locals = append(inv.locals, nil)
			}
			dv.nodeIx = ix
			inv.locals[ix] = append(inv.locals[ix], int32(i))
		case accessSelector:
			inv.selective = append(inv.selective, int32(i))
		case accessAll:
			inv.everyNode = append(inv.everyNode, int32(i))
		}
	}
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
	if ix, ok := inv.nodeIx[n.Name]; ok {
		for _, i := range inv.locals[ix] {
			if !f(i) {
				return
			}
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

// result derives the allocation of devices devs, each serving alts[k]:
// the capacity each consumes of a shared device and the node constraint
// (see [AllocationResult]); ok is false when two devices are local to
// different nodes, so that no node reaches them all.
func (inv *Inventory) result(devs []int32, alts []*calt) (r AllocationResult, ok bool) {
	r.Devices = make([]DeviceResult, len(devs))
	var sels []int32
	for k, i := range devs {
		dv := &inv.devs[i]
		r.Devices[k] = DeviceResult{Request: alts[k].name, DeviceID: dv.id, AdminAccess: alts[k].admin}
		if dv.multi && !alts[k].admin {
			r.Devices[k].ConsumedCapacity = alts[k].consumed(dv)
		}
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
