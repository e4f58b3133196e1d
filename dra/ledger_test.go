package dra_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// smWorld has eight GPUs reachable from every node; g4 and g5 are two
// partitions of one physical device whose counter admits only one of
// them at a time; g6 and g7 allow multiple allocations of their 4 units
// of memory (KEP-5075), g7 in amounts of 2 or 4.
func smWorld(t require.TestingT) *dra.Inventory {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{smSlice()})
	require.NoError(t, err)
	return inv
}

// smSlice is smWorld's one slice.
func smSlice() dra.ResourceSlice {
	s := dra.ResourceSlice{Name: "s", Driver: gpuDriver, Pool: "p", AllNodes: true,
		SharedCounters: []dra.CounterSet{{Name: "phys", Counters: map[string]int64{"units": 1}}}}
	for i := range 6 {
		d := dra.Device{Name: fmt.Sprintf("g%d", i)}
		if i >= 4 {
			d.ConsumesCounters = []dra.CounterConsumption{{CounterSet: "phys", Counters: map[string]int64{"units": 1}}}
		}
		s.Devices = append(s.Devices, d)
	}
	for i := 6; i < 8; i++ {
		d := dra.Device{Name: fmt.Sprintf("g%d", i), AllowMultipleAllocations: true, Capacity: map[dra.QualifiedName]int64{"memory": smMemory}}
		if i == 7 {
			d.RequestPolicies = map[dra.QualifiedName]dra.CapacityRequestPolicy{"memory": {ValidValues: []int64{2, 4}}}
		}
		s.Devices = append(s.Devices, d)
	}
	return s
}

// mclaim is the plain model of one claim.
type mclaim struct {
	count    int
	memory   int64 // requested; 0 for none
	owner    *dra.Owner
	devices  []string // allocated device names, nil while unallocated
	reserved []dra.ConsumerRef
}

type ledgerModel struct {
	claims map[string]*mclaim
}

func (m *ledgerModel) holder(dev string) (string, bool) {
	for _, name := range slices.Sorted(maps.Keys(m.claims)) {
		if slices.Contains(m.claims[name].devices, dev) {
			return name, true
		}
	}
	return "", false
}

func (m *ledgerModel) clone() *ledgerModel {
	n := &ledgerModel{claims: map[string]*mclaim{}}
	for k, c := range m.claims {
		cc := *c
		cc.devices = slices.Clone(c.devices)
		cc.reserved = slices.Clone(c.reserved)
		n.claims[k] = &cc
	}
	return n
}

// unreserve removes ref from c and releases c when nobody is left.
func (c *mclaim) unreserve(ref dra.ConsumerRef) {
	c.reserved = slices.DeleteFunc(c.reserved, func(r dra.ConsumerRef) bool {
		return r.APIGroup == ref.APIGroup && r.Resource == ref.Resource && r.Name == ref.Name
	})
	if len(c.reserved) == 0 {
		c.reserved, c.devices = nil, nil
	}
}

const smMemory = 4

// consumes is what a claim asking memory (0: no amount) takes of the
// shared device dev, or false when it cannot use dev.
func consumes(dev string, memory int64) (int64, bool) {
	switch {
	case dev != "g6" && dev != "g7":
		return 0, memory == 0 // an exclusive device has no capacity to ask for
	case memory == 0:
		return smMemory, true
	case dev == "g7" && memory <= 2:
		return 2, true
	case dev == "g7":
		return 4, true
	}
	return memory, true
}

// consumed is what the model's claims take of the shared device dev.
func (m *ledgerModel) consumed(dev string) int64 {
	var n int64
	for _, c := range m.claims {
		if slices.Contains(c.devices, dev) {
			q, _ := consumes(dev, c.memory)
			n += q
		}
	}
	return n
}

var (
	smClaims    = []string{"c0", "c1", "c2"}
	smConsumers = []dra.ConsumerRef{dra.PodRef("a", "ua"), dra.PodRef("b", "ub"), dra.PodGroupRef("g", "ug")}
	smOwners    = []*dra.Owner{nil, {Kind: dra.OwnerPod, Name: "a", ClaimName: "e"}, {Kind: dra.OwnerPodGroup, Name: "g", ClaimName: "e"}}
)

// checkLedger compares the ledger with the model: the same claims, the
// same devices and reservedFor, each device held by at most one claim,
// and no allocated claim in the model without devices.
func checkLedger(t require.TestingT, l *dra.Ledger, m *ledgerModel) {
	var names []string
	for c := range l.Claims() {
		names = append(names, c.Name)
		mc, ok := m.claims[c.Name]
		require.True(t, ok, "ledger has %s, the model does not", c.Name)
		var devs []string
		if c.Status.Allocation != nil {
			for _, d := range c.Status.Allocation.Devices {
				devs = append(devs, d.Device)
			}
			require.NotEmpty(t, devs)
		}
		require.Equal(t, mc.devices, devs, "devices of %s", c.Name)
		require.Equal(t, mc.reserved, c.Status.ReservedFor, "reservedFor of %s", c.Name)
	}
	require.Equal(t, slices.Sorted(maps.Keys(m.claims)), names)
	for i := range 8 {
		dev := fmt.Sprintf("g%d", i)
		if i >= 6 {
			used, ok := l.Consumed(dra.DeviceID{Driver: gpuDriver, Pool: "p", Device: dev}, "memory")
			require.True(t, ok)
			require.Equal(t, m.consumed(dev), used, "memory of %s consumed", dev)
			require.LessOrEqual(t, used, int64(smMemory), "no device over its capacity")
		}
		want, held := m.holder(dev)
		got, ok := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "p", Device: dev})
		require.Equal(t, held, ok, "device %s held", dev)
		if held {
			require.Equal(t, key(want), got, "holder of %s", dev)
		}
	}
}

// smStats counts, per operation, how often it succeeded and failed, so
// that a companion test can show the generator reaches both.
type smStats map[string][2]int

func (s smStats) add(op string, err error) {
	c := s[op]
	if err == nil {
		c[0]++
	} else {
		c[1]++
	}
	s[op] = c
}

func ledgerMachine(st smStats) func(*rapid.T) {
	return func(t *rapid.T) {
		inv := smWorld(t)
		l, err := dra.NewLedger(inv, nil, nil)
		require.NoError(t, err)
		m := &ledgerModel{claims: map[string]*mclaim{}}
		// step applies op to the ledger, checks that it succeeds exactly
		// when the model says so and that the old ledger is unchanged.
		step := func(op string, n *dra.Ledger, err error, ok bool, next *ledgerModel) {
			st.add(op, err)
			if ok {
				require.NoError(t, err, op)
			} else {
				require.Error(t, err, op)
				var fe *placement.FieldError
				require.True(t, errors.As(err, &fe), "%s: %v is a FieldError", op, err)
				require.True(t, errors.Is(err, placement.ErrInvalid) || errors.Is(err, placement.ErrDuplicate) || errors.Is(err, placement.ErrNotFound))
			}
			checkLedger(t, l, m) // the receiver is untouched
			if ok {
				l, m = n, next
			}
		}
		t.Repeat(map[string]func(*rapid.T){
			"AddClaim": func(t *rapid.T) {
				name := rapid.SampledFrom(smClaims).Draw(t, "claim")
				count := rapid.IntRange(1, 2).Draw(t, "count")
				memory := rapid.Int64Range(0, 3).Draw(t, "memory")
				owner := rapid.SampledFrom(smOwners).Draw(t, "owner")
				r := &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: int64(count)}
				if memory > 0 {
					r.Capacity = map[dra.QualifiedName]int64{"memory": memory}
				}
				c := claim(name, dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "r", Exactly: r}}})
				c.Owner = owner
				_, exists := m.claims[name]
				ok := !exists
				if owner != nil {
					for _, o := range m.claims {
						if o.owner == owner {
							ok = false // one generated claim per owner entry
						}
					}
				}
				next := m.clone()
				next.claims[name] = &mclaim{count: count, memory: memory, owner: owner}
				n, err := l.AddClaim(c)
				step("AddClaim", n, err, ok, next)
			},
			"Allocate": func(t *rapid.T) {
				name := rapid.SampledFrom(smClaims).Draw(t, "claim")
				size := rapid.IntRange(1, 2).Draw(t, "size")
				if mc := m.claims[name]; mc != nil && rapid.IntRange(0, 3).Draw(t, "fit") > 0 {
					size = mc.count // mostly the right count, so that allocations happen
				}
				devs := rapid.SliceOfN(rapid.IntRange(0, 7), size, size).Draw(t, "devices")
				var res []dra.DeviceResult
				var names []string
				for _, d := range devs {
					names = append(names, fmt.Sprintf("g%d", d))
					res = append(res, dev(gpuDriver, "p", names[len(names)-1], "r"))
				}
				mc := m.claims[name]
				ok := mc != nil && mc.devices == nil && len(names) == mc.count && len(slices.Compact(slices.Sorted(slices.Values(names)))) == len(names)
				partitions := 0
				for _, d := range names {
					q, usable := consumes(d, 0)
					if mc != nil {
						q, usable = consumes(d, mc.memory)
					}
					switch {
					case !usable:
						ok = false
					case d == "g6" || d == "g7":
						ok = ok && m.consumed(d)+q <= smMemory // shared within its capacity
					default:
						if _, held := m.holder(d); held {
							ok = false // an exclusive device is never shared
						}
					}
					if d == "g4" || d == "g5" {
						partitions++
					}
				}
				_, h4 := m.holder("g4")
				_, h5 := m.holder("g5")
				if h4 || h5 {
					partitions++
				}
				ok = ok && partitions <= 1
				next := m.clone()
				if ok {
					next.claims[name].devices = names
				}
				n, err := l.Allocate(key(name), res)
				if slices.Contains(names, "g6") || slices.Contains(names, "g7") {
					st.add("AllocateShared", err)
				}
				step("Allocate", n, err, ok, next)
			},
			"Reserve": func(t *rapid.T) {
				name := rapid.SampledFrom(smClaims).Draw(t, "claim")
				var allocated []string
				for _, n := range smClaims {
					if mc := m.claims[n]; mc != nil && mc.devices != nil {
						allocated = append(allocated, n)
					}
				}
				if len(allocated) > 0 && rapid.IntRange(0, 3).Draw(t, "allocated") > 0 {
					name = rapid.SampledFrom(allocated).Draw(t, "allocated-claim") // mostly one that can be reserved
				}
				ref := rapid.SampledFrom(smConsumers).Draw(t, "consumer")
				mc := m.claims[name]
				ok := mc != nil && mc.devices != nil && !slices.Contains(mc.reserved, ref)
				next := m.clone()
				if ok {
					next.claims[name].reserved = append(next.claims[name].reserved, ref)
				}
				n, err := l.Reserve(key(name), ref)
				step("Reserve", n, err, ok, next)
			},
			"Unreserve": func(t *rapid.T) {
				name := rapid.SampledFrom(smClaims).Draw(t, "claim")
				ref := rapid.SampledFrom(smConsumers).Draw(t, "consumer")
				if mc := m.claims[name]; mc != nil && len(mc.reserved) > 0 && rapid.IntRange(0, 3).Draw(t, "listed") > 0 {
					ref = rapid.SampledFrom(mc.reserved).Draw(t, "listed-consumer") // mostly one that is there
				}
				mc := m.claims[name]
				ok := mc != nil && slices.Contains(mc.reserved, ref)
				next := m.clone()
				if ok {
					next.claims[name].unreserve(ref)
				}
				n, err := l.Unreserve(key(name), ref)
				step("Unreserve", n, err, ok, next)
			},
			"Release": func(t *rapid.T) {
				name := rapid.SampledFrom(smClaims).Draw(t, "claim")
				mc := m.claims[name]
				ok := mc != nil && mc.devices != nil && len(mc.reserved) == 0
				next := m.clone()
				if ok {
					next.claims[name].devices = nil
				}
				n, err := l.Release(key(name))
				step("Release", n, err, ok, next)
			},
			"DeleteClaim": func(t *rapid.T) {
				name := rapid.SampledFrom(smClaims).Draw(t, "claim")
				mc := m.claims[name]
				ok := mc != nil && mc.devices == nil
				next := m.clone()
				delete(next.claims, name)
				n, err := l.DeleteClaim(key(name))
				step("DeleteClaim", n, err, ok, next)
			},
			"DeleteOwner": func(t *rapid.T) {
				ref := rapid.SampledFrom(smConsumers).Draw(t, "owner")
				kind := dra.OwnerPod
				if !ref.IsPod() {
					kind = dra.OwnerPodGroup
				}
				next := m.clone()
				for name, c := range next.claims {
					if slices.Contains(c.reserved, ref) {
						c.unreserve(ref)
					}
					if c.owner != nil && c.owner.Kind == kind && c.owner.Name == ref.Name && len(c.reserved) == 0 {
						delete(next.claims, name)
					}
				}
				var n *dra.Ledger
				if kind == dra.OwnerPod {
					n = l.DeletePod(key(ref.Name))
				} else {
					n = l.DeletePodGroup(key(ref.Name))
				}
				step("DeleteOwner", n, nil, true, next)
			},
			"": func(t *rapid.T) { checkLedger(t, l, m) },
		})
	}
}

// TestSM_Ledger runs random operation sequences against the ledger and a
// plain map model: an operation succeeds exactly when the model allows
// it, no exclusive device is in two claims, no shared device is consumed
// past its capacity, reservedFor matches, a claim whose
// reservedFor empties is released, and a ledger never changes once built.
func TestSM_Ledger(t *testing.T) {
	rapid.Check(t, ledgerMachine(smStats{}))
}

// TestSM_LedgerGenerator shows that the generator drives every operation
// both into success and into rejection.
func TestSM_LedgerGenerator(t *testing.T) {
	st := smStats{}
	ops := []string{"AddClaim", "Allocate", "AllocateShared", "Reserve", "Unreserve", "Release", "DeleteClaim"}
	covered := func() bool {
		for _, op := range ops {
			if st[op][0] == 0 || st[op][1] == 0 {
				return false
			}
		}
		return st["DeleteOwner"][0] > 0
	}
	// One run of 100 sequences has about 10 successful Unreserves and 10
	// Releases, in clumps (sd 4 over 25 runs), so it misses one about once
	// in 1,500; run again (at most 20 rounds) until every outcome was seen.
	for round := 0; round < 20 && !covered(); round++ {
		rapid.Check(t, ledgerMachine(st))
	}
	for _, op := range ops {
		require.Positive(t, st[op][0], "%s never succeeded", op)
		require.Positive(t, st[op][1], "%s never failed", op)
	}
	require.Positive(t, st["DeleteOwner"][0])
}
