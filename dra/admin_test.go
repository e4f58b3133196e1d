package dra_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

func adminSpec(mode dra.AllocationMode, requests ...string) dra.ClaimSpec {
	var sp dra.ClaimSpec
	for _, r := range requests {
		sp.Requests = append(sp.Requests, dra.DeviceRequest{Name: r, Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: mode, AdminAccess: true}})
	}
	return sp
}

// adminWorld: node n1 with two GPUs, both held by claim "held"; claim
// "mon" asks with admin access for all GPUs, "new" for one GPU.
func adminWorld(t *testing.T) (*dra.Ledger, *placement.Node) {
	t.Helper()
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 2)})
	require.NoError(t, err)
	held := claim("held", dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 2}}}})
	held.Status = dra.ClaimStatus{Allocation: &dra.AllocationResult{Devices: []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev"), dev(gpuDriver, "n1", "gpu1", "dev")}},
		ReservedFor: []dra.ConsumerRef{dra.PodRef("worker", "uid-worker")}}
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{held, claim("mon", adminSpec(dra.AllocationModeAll, "all")), claim("new", oneOf("gpu"))})
	require.NoError(t, err)
	n := cpuNode("n1", 4000, nil)
	return l, &n
}

// A monitoring claim with admin access gets every GPU of n1 although
// another claim holds them, and takes none: the holder keeps them, and
// once it is released an ordinary claim gets gpu0 while the monitoring
// claim is still allocated.
func TestScenario_AdminAccessSharesHeldDevices(t *testing.T) {
	l, n1 := adminWorld(t)
	res, rej, err := l.Plan(n1, dra.Options{}, key("mon"))
	require.NoError(t, err)
	require.Empty(t, rej.Reason)
	want := []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "all"), dev(gpuDriver, "n1", "gpu1", "all")}
	want[0].AdminAccess, want[1].AdminAccess = true, true
	require.Equal(t, want, res[0].Devices)
	l, err = l.Allocate(key("mon"), res[0].Devices)
	require.NoError(t, err)
	h, _ := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"})
	require.Equal(t, key("held"), h, "admin access holds nothing")

	_, rej, err = l.Plan(n1, dra.Options{}, key("new"))
	require.NoError(t, err)
	require.NotEmpty(t, rej.Reason, "gpu0 and gpu1 are still held")

	l, err = l.Unreserve(key("held"), dra.PodRef("worker", ""))
	require.NoError(t, err)
	res, rej, err = l.Plan(n1, dra.Options{}, key("new"))
	require.NoError(t, err)
	require.Empty(t, rej.Reason)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")}, res[0].Devices)
	l, err = l.Allocate(key("new"), res[0].Devices)
	require.NoError(t, err)

	// Releasing the monitoring claim frees nothing it did not hold.
	l, err = l.Reserve(key("mon"), dra.PodRef("probe", "uid-probe"))
	require.NoError(t, err)
	l, err = l.Unreserve(key("mon"), dra.PodRef("probe", ""))
	require.NoError(t, err)
	h, ok := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"})
	require.True(t, ok)
	require.Equal(t, key("new"), h)
}

// Two admin requests of one claim on a node with one GPU do not fit: a
// claim lists a device at most once, admin access or not.
func TestScenario_AdminAccessOneDevicePerClaim(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 1)})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("two", adminSpec("", "a", "b")), claim("one", adminSpec("", "a"))})
	require.NoError(t, err)
	n1 := cpuNode("n1", 4000, nil)
	_, rej, err := l.Plan(&n1, dra.Options{}, key("two"))
	require.NoError(t, err)
	require.NotEmpty(t, rej.Reason)
	_, rej, err = l.Plan(&n1, dra.Options{}, key("one"))
	require.NoError(t, err)
	require.Empty(t, rej.Reason)
}

// A gang of three monitoring pods, each with a per-pod admin claim for
// n1's only GPU, all fit on n1 and all list n1/gpu0.
func TestScenario_AdminAccessGang(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 1)})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpu-tmpl", adminSpec("", "gpu"))}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000, nil), cpuNode("n2", 4000, nil)}, nil)
	require.NoError(t, err)
	d, l, _ := cycle(t, l, s, podGroup("pg"), gpuGang(3))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"p1": "n1", "p2": "n1", "p3": "n1"}, nodesOf(d))
	for _, p := range []string{"p1", "p2", "p3"} {
		want := dev(gpuDriver, "n1", "gpu0", "gpu")
		want.AdminAccess = true
		require.Equal(t, []dra.DeviceResult{want}, devicesOf(t, l, p+"-gpu"))
	}
	_, held := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: "gpu0"})
	require.False(t, held)
}

// An allocation whose adminAccess differs from its request's is refused,
// naming the field.
func TestAdminAccess_ResultMustAgree(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 1)})
	require.NoError(t, err)
	c := claim("mon", adminSpec("", "a"))
	c.Status.Allocation = &dra.AllocationResult{Devices: []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "a")}}
	_, err = dra.NewLedger(inv, nil, []dra.ResourceClaim{c})
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, `ResourceClaim "default/mon": status.allocation.devices.results[0].adminAccess`)
}
