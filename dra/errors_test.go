package dra_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

func TestNewInventoryErrors(t *testing.T) {
	withUse := gpuSlice("n1", 1)
	withUse.Devices[0].ConsumesCounters = []dra.CounterConsumption{{CounterSet: "phys", Counters: map[string]int64{"units": 1}}}
	twoWays := gpuSlice("n1", 1)
	twoWays.AllNodes = true
	perDevice := gpuSlice("n1", 1)
	perDevice.Devices[0].AllNodes = true
	for _, tc := range []struct {
		name    string
		classes []dra.DeviceClass
		slices  []dra.ResourceSlice
		err     string
		is      error
	}{
		{"duplicate class", []dra.DeviceClass{{Name: "gpu"}, {Name: "gpu"}}, nil, `DeviceClass "gpu": metadata.name: appears twice`, placement.ErrDuplicate},
		{"nil class selector", []dra.DeviceClass{{Name: "gpu", Selectors: []dra.Selector{nil}}}, nil, `DeviceClass "gpu": spec.selectors[0]: must not be nil`, placement.ErrInvalid},
		{"two ways to reach nodes", classes, []dra.ResourceSlice{twoWays}, `ResourceSlice "gpus-n1": spec: exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set, found 2`, placement.ErrInvalid},
		{"device access without perDeviceNodeSelection", classes, []dra.ResourceSlice{perDevice}, `ResourceSlice "gpus-n1": spec.devices[0]: nodeName, nodeSelector and allNodes may only be set when the slice sets perDeviceNodeSelection`, placement.ErrInvalid},
		{"unknown counter set", classes, []dra.ResourceSlice{withUse}, `ResourceSlice "gpus-n1": spec.devices[0].consumesCounters[0].counterSet: pool gpu.example.com/n1 has no counter set "phys"`, placement.ErrNotFound},
		{"device twice in a pool", classes, []dra.ResourceSlice{gpuSlice("n1", 1), {Name: "more", Driver: gpuDriver, Pool: "n1", NodeName: "n1", Devices: []dra.Device{{Name: "gpu0"}}}}, `ResourceSlice "more": spec.devices[0].name: device gpu.example.com/n1/gpu0 appears twice in its pool`, placement.ErrDuplicate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dra.NewInventory(tc.classes, tc.slices)
			require.EqualError(t, err, tc.err)
			require.ErrorIs(t, err, tc.is)
		})
	}
}

func TestNewLedgerErrors(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 2)})
	require.NoError(t, err)
	allocated := func(name string, devices ...string) dra.ResourceClaim {
		c := claim(name, oneOf("gpu"))
		c.Status.Allocation = &dra.AllocationResult{}
		for _, d := range devices {
			c.Status.Allocation.Devices = append(c.Status.Allocation.Devices, dev(gpuDriver, "n1", d, "dev"))
		}
		c.Status.ReservedFor = []dra.ConsumerRef{dra.PodRef("p-"+name, "")}
		return c
	}
	noAlloc := claim("c", oneOf("gpu"))
	noAlloc.Status.ReservedFor = []dra.ConsumerRef{dra.PodRef("p", "")}
	for _, tc := range []struct {
		name   string
		claims []dra.ResourceClaim
		err    string
		is     error
	}{
		{"no requests", []dra.ResourceClaim{claim("c", dra.ClaimSpec{})}, `ResourceClaim "default/c": spec.devices.requests: must not be empty`, placement.ErrInvalid},
		{"count for All", []dra.ResourceClaim{claim("c", dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "r", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: dra.AllocationModeAll, Count: 2}}}})},
			`ResourceClaim "default/c": spec.devices.requests[0].exactly.count: must not be set for allocationMode All`, placement.ErrInvalid},
		{"unknown device", []dra.ResourceClaim{allocated("c", "gpu7")}, `ResourceClaim "default/c": status.allocation.devices.results[0]: no device gpu.example.com/n1/gpu7 in the inventory`, placement.ErrNotFound},
		{"wrong count", []dra.ResourceClaim{allocated("c", "gpu0", "gpu1")}, `ResourceClaim "default/c": status.allocation.devices.results: request "dev" has 2 devices, wants 1`, placement.ErrInvalid},
		{"one device, two claims", []dra.ResourceClaim{allocated("a", "gpu0"), allocated("b", "gpu0")}, `ResourceClaim "default/b": status.allocation.devices.results[0]: device gpu.example.com/n1/gpu0 is already allocated to claim default/a`, placement.ErrDuplicate},
		{"reserved but not allocated", []dra.ResourceClaim{noAlloc}, `ResourceClaim "default/c": status.reservedFor: has entries but the claim is not allocated`, placement.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dra.NewLedger(inv, nil, tc.claims)
			require.EqualError(t, err, tc.err)
			require.ErrorIs(t, err, tc.is)
		})
	}
}

func TestReserverErrors(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 2)})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpu-tmpl", oneOf("gpu")), tmpl("tpu-tmpl", oneOf("tpu"))}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000, nil)}, nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		pg   dra.PodGroup
		pod  placement.Pod
		err  string
		is   error
	}{
		{"missing claim", podGroup("pg"), pod("p", "pg", 100, byName("x", "nope")), `pod "default/p": spec.resourceClaims[0].resourceClaimName: ResourceClaim "default/nope" does not exist`, placement.ErrNotFound},
		{"missing group template", podGroup("pg", byTemplate("x", "nope")), pod("p", "pg", 100, byTemplate("x", "nope")), `PodGroup "default/pg": spec.resourceClaims[0].resourceClaimTemplateName: ResourceClaimTemplate "default/nope" does not exist`, placement.ErrNotFound},
		{"missing class", podGroup("pg"), pod("p", "pg", 100, byTemplate("x", "tpu-tmpl")), `ResourceClaim "default/p-x": spec.devices.requests: device class "tpu" does not exist`, placement.ErrNotFound},
		{"both sources", podGroup("pg"), pod("p", "pg", 100, placement.PodResourceClaim{Name: "x", ResourceClaimName: "a", ResourceClaimTemplateName: "b"}), `pod "default/p": spec.resourceClaims[0]: exactly one of resourceClaimName and resourceClaimTemplateName must be set`, placement.ErrInvalid},
		{"other group", podGroup("other"), pod("p", "pg", 100), `PodGroup "default/other": metadata.name: does not match the solved group "default/pg"`, placement.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := group("pg", 1, tc.pod)
			_, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(tc.pg, dra.Options{})}})
			require.EqualError(t, err, tc.err)
			require.ErrorIs(t, err, tc.is)
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe))
		})
	}
}

func TestCommitRejectsStaleDecision(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 1)})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("mine", oneOf("gpu")), claim("theirs", oneOf("gpu"))})
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000, nil)}, nil)
	require.NoError(t, err)
	pg, g := podGroup("pg"), group("pg", 1, pod("p", "pg", 100, byName("gpu", "mine")))
	d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}})
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status)

	// Someone else takes the only GPU before the commit.
	taken, err := l.Allocate(key("theirs"), []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")})
	require.NoError(t, err)
	_, _, err = taken.Commit(s, pg, g, d, dra.Options{})
	require.EqualError(t, err, `PodGroup "default/pg": decision: claims do not fit the decision's nodes: ResourceClaim default/mine: not enough free matching devices`)
	require.ErrorIs(t, err, placement.ErrInvalid)

	n, ups, err := l.Commit(s, pg, g, d, dra.Options{})
	require.NoError(t, err)
	require.Len(t, ups, 1)
	_, held := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"})
	require.False(t, held, "the old ledger is untouched")
	h, _ := n.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"})
	require.Equal(t, key("mine"), h)
}

func TestSearchBudget(t *testing.T) {
	// Eight devices of two models, a claim asking for eight of one model
	// in two requests: counting cannot see that it is impossible, only a
	// search can, and the budget stops it.
	sl := gpuSlice("n1", 8)
	for i := range sl.Devices {
		sl.Devices[i].Attributes = map[dra.QualifiedName]dra.Attribute{"model": dra.StringAttribute([]string{"x", "y"}[i%2])}
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{sl})
	require.NoError(t, err)
	spec := dra.ClaimSpec{Requests: []dra.DeviceRequest{
		{Name: "a", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 4}},
		{Name: "b", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 4}},
	}, Constraints: []dra.DeviceConstraint{{MatchAttribute: "gpu.example.com/model"}}}
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("c", spec)})
	require.NoError(t, err)
	n1 := cpuNode("n1", 1000, nil)
	_, rej, err := l.Plan(&n1, dra.Options{SearchBudget: 10}, key("c"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/c: device search budget exhausted", Cut: true}, rej)
	_, rej, err = l.Plan(&n1, dra.Options{}, key("c"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/c: not enough free matching devices", Unresolvable: true}, rej)
}

func TestPlanAllModeAndMatchAttribute(t *testing.T) {
	sl := gpuSlice("n1", 4)
	for i := range sl.Devices {
		sl.Devices[i].Attributes = map[dra.QualifiedName]dra.Attribute{"model": dra.StringAttribute([]string{"x", "y", "y", "x"}[i])}
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{sl})
	require.NoError(t, err)
	all := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "all", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: dra.AllocationModeAll}}}}
	pair := dra.ClaimSpec{Requests: []dra.DeviceRequest{
		{Name: "a", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu"}},
		{Name: "b", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu"}},
	}, Constraints: []dra.DeviceConstraint{{Requests: []string{"a", "b"}, MatchAttribute: "gpu.example.com/model"}}}
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("all", all), claim("pair", pair), claim("one", oneOf("gpu"))})
	require.NoError(t, err)
	n1 := cpuNode("n1", 1000, nil)

	res, rej, err := l.Plan(&n1, dra.Options{}, key("all"))
	require.NoError(t, err)
	require.True(t, rej.OK())
	require.Len(t, res[0].Devices, 4, "All takes every matching device")

	// matchAttribute: gpu0 is model x, so b skips gpu1 and gpu2 (model y).
	res, rej, err = l.Plan(&n1, dra.Options{}, key("pair"))
	require.NoError(t, err)
	require.True(t, rej.OK())
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "a"), dev(gpuDriver, "n1", "gpu3", "b")}, res[0].Devices)

	// With gpu0 taken, All fails and the pair moves to model y.
	one, err := l.Allocate(key("one"), []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")})
	require.NoError(t, err)
	_, rej, err = one.Plan(&n1, dra.Options{}, key("all"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/all: not enough free matching devices"}, rej)
	res, rej, err = one.Plan(&n1, dra.Options{}, key("pair"))
	require.NoError(t, err)
	require.True(t, rej.OK())
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu1", "a"), dev(gpuDriver, "n1", "gpu2", "b")}, res[0].Devices)

	// Both claims of one pod at once: they may not share a device.
	res, rej, err = l.Plan(&n1, dra.Options{}, key("one"), key("pair"))
	require.NoError(t, err)
	require.True(t, rej.OK())
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")}, res[0].Devices)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu1", "a"), dev(gpuDriver, "n1", "gpu2", "b")}, res[1].Devices)
}

// TestCountersNearMaxInt64 holds invariant 8 where counters are as large
// as int64 allows: two partitions that each take more than half of a
// math.MaxInt64 counter must never both be allocated. Sums of such
// quantities used to wrap negative and pass the check.
func TestCountersNearMaxInt64(t *testing.T) {
	half := int64(math.MaxInt64/2 + 1)
	sl := gpuSlice("n1", 2)
	sl.SharedCounters = []dra.CounterSet{{Name: "phys", Counters: map[string]int64{"mem": math.MaxInt64}}}
	for i := range sl.Devices {
		sl.Devices[i].ConsumesCounters = []dra.CounterConsumption{{CounterSet: "phys", Counters: map[string]int64{"mem": half}}}
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{sl})
	require.NoError(t, err)
	gpu0 := []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")}
	gpu1 := []dra.DeviceResult{dev(gpuDriver, "n1", "gpu1", "dev")}
	a, b := claim("a", oneOf("gpu")), claim("b", oneOf("gpu"))
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{a, b})
	require.NoError(t, err)
	l, err = l.Allocate(key("a"), gpu0)
	require.NoError(t, err)

	_, err = l.Allocate(key("b"), gpu1)
	require.ErrorIs(t, err, placement.ErrInvalid, "Allocate")
	require.ErrorContains(t, err, "counter gpu.example.com/n1/phys/mem would be exceeded")

	a.Status.Allocation, b.Status.Allocation = &dra.AllocationResult{Devices: gpu0}, &dra.AllocationResult{Devices: gpu1}
	_, err = dra.NewLedger(inv, nil, []dra.ResourceClaim{a, b})
	require.ErrorIs(t, err, placement.ErrInvalid, "NewLedger")

	n1 := cpuNode("n1", 1000, nil)
	_, rej, err := l.Plan(&n1, dra.Options{}, key("b"))
	require.NoError(t, err)
	require.False(t, rej.OK(), "Plan offers gpu1 although gpu0 holds the counter")

	both := claim("both", dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 2}}}})
	l2, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{both})
	require.NoError(t, err)
	_, rej, err = l2.Plan(&n1, dra.Options{}, key("both"))
	require.NoError(t, err)
	require.False(t, rej.OK(), "one claim takes both partitions")
	_, err = l2.Allocate(key("both"), append(slices.Clone(gpu0), gpu1...))
	require.ErrorIs(t, err, placement.ErrInvalid, "Allocate of both partitions in one claim")
}
