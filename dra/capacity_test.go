package dra_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

const gi = int64(1) << 30

func ptr[T any](v T) *T { return &v }

// sharedGPUWorld: node n1 has one GPU of 40 GiB that allows multiple
// allocations, its memory taken in steps of 5 GiB from 5 GiB, 10 GiB when
// a request names no amount (KEP-5075: fractional GPUs); the template
// half asks for 12 GiB, the template plain for no amount.
func sharedGPUWorld(t *testing.T) (*dra.Ledger, *placement.Snapshot) {
	s := dra.ResourceSlice{Name: "n1", Driver: gpuDriver, Pool: "n1", NodeName: "n1", Devices: []dra.Device{{
		Name: "gpu0", AllowMultipleAllocations: true,
		Capacity: map[dra.QualifiedName]int64{"memory": 40 * gi},
		RequestPolicies: map[dra.QualifiedName]dra.CapacityRequestPolicy{"memory": {
			Default: ptr(10 * gi), ValidRange: &dra.CapacityRange{Min: 5 * gi, Step: ptr(5 * gi)}}},
	}}}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.NoError(t, err)
	asking := func(q int64) dra.ClaimSpec {
		r := &dra.ExactDeviceRequest{DeviceClassName: "gpu"}
		if q > 0 {
			r.Capacity = map[dra.QualifiedName]int64{"memory": q}
		}
		return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: r}}}
	}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("part", asking(12*gi)), tmpl("plain", asking(0))}, nil)
	require.NoError(t, err)
	snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 8000, nil)}, nil)
	require.NoError(t, err)
	return l, snap
}

func sharedResult(device string, consumed int64) []dra.DeviceResult {
	r := dev(gpuDriver, "n1", device, "gpu")
	r.ConsumedCapacity = map[dra.QualifiedName]int64{"memory": consumed}
	return []dra.DeviceResult{r}
}

// TestScenario_ConsumableCapacity: members share a device that allows multiple
// allocations (KEP-5075) up to its capacity, each consuming its request rounded up
// to the device's step, or the policy's default when it names no amount.
func TestScenario_ConsumableCapacity(t *testing.T) {
	m := func(name, template string) placement.Pod { return pod(name, "pg", 1000, byTemplate("gpu", template)) }

	// Two members asking 12 GiB each share the one GPU, each consuming
	// 15 GiB, the next step.
	t.Run("two members share one device", func(t *testing.T) {
		l, s := sharedGPUWorld(t)
		d, l, _ := cycle(t, l, s, podGroup("pg"), group("pg", 2, m("m1", "part"), m("m2", "part")))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, sharedResult("gpu0", 15*gi), devicesOf(t, l, "m1-gpu"))
		require.Equal(t, sharedResult("gpu0", 15*gi), devicesOf(t, l, "m2-gpu"))
		used, ok := l.Consumed(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"}, "memory")
		require.True(t, ok)
		require.Equal(t, 30*gi, used)
	})
	// A third 15 GiB share would make 45 of 40 GiB: the gang of three
	// waits, naming the claim.
	t.Run("a third share does not fit", func(t *testing.T) {
		l, s := sharedGPUWorld(t)
		d, _, _ := cycle(t, l, s, podGroup("pg"), group("pg", 3, m("m1", "part"), m("m2", "part"), m("m3", "part")))
		require.Equal(t, placement.Unschedulable, d.Status, d.Message)
		require.True(t, d.Proven)
		require.Equal(t, []placement.ReasonCount{{Reason: "ResourceClaim default/m3-gpu: devices taken by other members' claims", Nodes: 1}}, d.Reasons)
	})
	// A request naming no amount consumes the policy's default, 10 GiB:
	// two of 15 and one of 10 fit 40 GiB.
	t.Run("no amount takes the default", func(t *testing.T) {
		l, s := sharedGPUWorld(t)
		d, l, _ := cycle(t, l, s, podGroup("pg"), group("pg", 3, m("m1", "part"), m("m2", "part"), m("m3", "plain")))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, sharedResult("gpu0", 10*gi), devicesOf(t, l, "m3-gpu"))
		used, _ := l.Consumed(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"}, "memory")
		require.Equal(t, 40*gi, used)
	})
}

// TestLedger_ConsumableCapacity: the ledger admits shares of a device up
// to its capacity, refuses the one past it naming the capacity, gives the
// capacity back on release, and refuses a stated consumedCapacity that
// the policy does not give.
func TestLedger_ConsumableCapacity(t *testing.T) {
	l, _ := sharedGPUWorld(t)
	spec := func(q int64) dra.ClaimSpec {
		return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Capacity: map[dra.QualifiedName]int64{"memory": q}}}}}
	}
	var err error
	for _, c := range []string{"a", "b", "c"} {
		l, err = l.AddClaim(claim(c, spec(20*gi)))
		require.NoError(t, err)
	}
	gpu0 := []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "gpu")}
	l, err = l.Allocate(key("a"), gpu0)
	require.NoError(t, err)
	l, err = l.Allocate(key("b"), gpu0)
	require.NoError(t, err)
	_, err = l.Allocate(key("c"), gpu0)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.EqualError(t, err, `ResourceClaim "default/c": status.allocation.devices.results[0]: capacity memory of device gpu.example.com/n1/gpu0 would be exceeded: 42949672960 of 42949672960 consumed, 21474836480 more needed`)
	wrong := sharedResult("gpu0", 5*gi)
	_, err = l.Allocate(key("c"), wrong)
	require.ErrorContains(t, err, "status.allocation.devices.results[0].consumedCapacity: differs from what request \"gpu\" consumes")

	l, err = l.Reserve(key("a"), dra.PodRef("p", "uid-p"))
	require.NoError(t, err)
	l, err = l.Unreserve(key("a"), dra.PodRef("p", ""))
	require.NoError(t, err)
	l, err = l.Allocate(key("c"), gpu0)
	require.NoError(t, err, "a's release gave its 20 GiB back")
	h, ok := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"})
	require.True(t, ok)
	require.Equal(t, key("b"), h, "the first holder by name")
}

// TestNewInventory_ConsumableCapacityErrors: bad request policies are
// refused naming the field.
func TestNewInventory_ConsumableCapacityErrors(t *testing.T) {
	cases := []struct {
		policy dra.CapacityRequestPolicy
		want   string
	}{
		{dra.CapacityRequestPolicy{ValidValues: []int64{1}, ValidRange: &dra.CapacityRange{}}, "requestPolicy: at most one of validValues and validRange may be set"},
		{dra.CapacityRequestPolicy{ValidValues: []int64{4, 2}}, "requestPolicy.validValues[1]: must be greater than the value before it"},
		{dra.CapacityRequestPolicy{ValidValues: []int64{20}}, "requestPolicy.validValues[0]: 20 is outside 0..10, the capacity"},
		{dra.CapacityRequestPolicy{ValidRange: &dra.CapacityRange{Min: 2, Max: ptr(int64(1))}}, "requestPolicy.validRange.max: 1 is outside 2..10"},
		{dra.CapacityRequestPolicy{ValidRange: &dra.CapacityRange{Min: 0, Step: ptr(int64(0))}}, "requestPolicy.validRange.step: 0 is outside 1..10"},
		{dra.CapacityRequestPolicy{Default: ptr(int64(3)), ValidRange: &dra.CapacityRange{Min: 2, Step: ptr(int64(2))}}, "requestPolicy.default: 3 is not a valid amount"},
	}
	for _, c := range cases {
		s := dra.ResourceSlice{Name: "s", Driver: gpuDriver, Pool: "p", AllNodes: true, Devices: []dra.Device{{Name: "g",
			Capacity: map[dra.QualifiedName]int64{"memory": 10}, RequestPolicies: map[dra.QualifiedName]dra.CapacityRequestPolicy{"memory": c.policy}}}}
		_, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
		require.ErrorIs(t, err, placement.ErrInvalid)
		require.ErrorContains(t, err, `ResourceSlice "s": spec.devices[0].capacity[memory].`+c.want)
	}
	s := dra.ResourceSlice{Name: "s", Driver: gpuDriver, Pool: "p", AllNodes: true, Devices: []dra.Device{{Name: "g",
		RequestPolicies: map[dra.QualifiedName]dra.CapacityRequestPolicy{"memory": {}}}}}
	_, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.ErrorIs(t, err, placement.ErrNotFound)
	s = dra.ResourceSlice{Name: "s", Driver: gpuDriver, Pool: "p", AllNodes: true,
		SharedCounters: []dra.CounterSet{{Name: "c", Counters: map[string]int64{"u": 1}}},
		Devices:        []dra.Device{{Name: "g", AllowMultipleAllocations: true, ConsumesCounters: []dra.CounterConsumption{{CounterSet: "c", Counters: map[string]int64{"u": 1}}}}}}
	_, err = dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.EqualError(t, err, `ResourceSlice "s": spec.devices[0].consumesCounters: is not supported on a device that sets allowMultipleAllocations`)
}
