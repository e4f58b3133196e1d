package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

const netDriver = "net.example.com"

// fabricLedger has one network device per rack, each reachable from the
// nodes of its rack, and a template asking for one such device.
func fabricLedger(t *testing.T, racks ...string) *dra.Ledger {
	classes := []dra.DeviceClass{{Name: "net", Selectors: []dra.Selector{func(d string, _ *dra.Device) bool { return d == netDriver }}}}
	var slices []dra.ResourceSlice
	for _, r := range racks {
		slices = append(slices, dra.ResourceSlice{Name: "net-" + r, Driver: netDriver, Pool: r,
			NodeSelector: &placement.LabelSelector{MatchLabels: map[string]string{rackKey: r}}, Devices: []dra.Device{{Name: "fabric"}}})
	}
	inv, err := dra.NewInventory(classes, slices)
	require.NoError(t, err)
	spec := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "net"}}}}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{{Namespace: "default", Name: "fabric-tmpl", Spec: spec}}, nil)
	require.NoError(t, err)
	return l
}

func fabricPG(name string, min int32) *PodGroup {
	pg := gangPG(name, min)
	pg.UID = "uid-" + name
	pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: "fabric-tmpl"}}
	return pg
}

func fabricMember(name, group string, queued int) placement.Pod {
	p := member(name, group, placement.ResourceList{gpu: 4}, queued)
	p.ResourceClaims = []placement.PodResourceClaim{{Name: "fabric", ResourceClaimTemplateName: "fabric-tmpl"}}
	return p
}

// D9 through the cycle: 17 members sharing the PodGroup's claim on a
// rack-wide device all bind, the claim is generated and allocated once and
// reserved for the PodGroup, and the scheduler keeps the new ledger.
func TestCycle_SharedClaim(t *testing.T) {
	var nodes []placement.Node
	for i := range 18 {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{rackKey: "r1"}, Allocatable: placement.ResourceList{gpu: 4}})
	}
	h := newHarness(t, Options{}, nodes)
	h.s.SetClaims(fabricLedger(t, "r1"))
	h.setPG(fabricPG("train", 17))
	for i := range 17 {
		h.addPods(fabricMember(fmt.Sprintf("w%02d", i), "train", i))
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Decision.Message)
	require.Len(t, r.Bind, 17)
	require.Len(t, r.ClaimUpdates, 1, "one claim for the whole group")
	c := r.ClaimUpdates[0].Claim
	require.True(t, r.ClaimUpdates[0].Created)
	require.Equal(t, "train-fabric", c.Name)
	require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("train", "uid-train")}, c.Status.ReservedFor)
	got, ok := h.s.Claims().Claim(placement.Key{Namespace: "default", Name: "train-fabric"})
	require.True(t, ok, "the scheduler keeps the committed ledger")
	require.NotNil(t, got.Status.Allocation)

	// Deleting the PodGroup releases its claim.
	require.True(t, h.s.DeletePodGroup(key("train")))
	_, ok = h.s.Claims().Claim(placement.Key{Namespace: "default", Name: "train-fabric"})
	require.False(t, ok)
}

// The shared device reaches only rack r2, so the group lands there although
// r1 comes first; a second group finds the device taken and waits, and the
// reason names the claim.
func TestCycle_SharedClaimPinsRack(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{
		{Name: "a1", Labels: map[string]string{rackKey: "r1"}, Allocatable: placement.ResourceList{gpu: 8}},
		{Name: "b1", Labels: map[string]string{rackKey: "r2"}, Allocatable: placement.ResourceList{gpu: 8}},
	})
	h.s.SetClaims(fabricLedger(t, "r2"))
	h.setPG(fabricPG("one", 2))
	h.setPG(fabricPG("two", 1))
	h.addPods(fabricMember("one-0", "one", 0), fabricMember("one-1", "one", 1), fabricMember("two-0", "two", 2))
	rs := h.drain()
	require.Len(t, rs, 2)
	require.Equal(t, []string{"one-0@b1", "one-1@b1"}, bindNames(rs[0]))
	require.Equal(t, placement.Unschedulable, rs[1].Decision.Status)
	require.True(t, dra.WaitsOnDevices(rs[1].Decision), rs[1].Decision.Message)
}

// Members that name claims while the scheduler has no ledger fail the
// cycle with an error that says what is missing.
func TestCycle_ClaimsWithoutLedger(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{gpuNode("n1", 8)})
	h.setPG(fabricPG("train", 1))
	h.addPods(fabricMember("w0", "train", 0))
	r, ok := h.s.Cycle(h.snap, h.now)
	require.True(t, ok)
	require.ErrorIs(t, r.Err, placement.ErrInvalid)
	require.Contains(t, r.Err.Error(), "no claim ledger")
}
