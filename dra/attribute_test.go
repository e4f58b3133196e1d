package dra_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

const numaNode = dra.QualifiedName("resource.kubernetes.io/numaNode")

func numa(ns ...int64) dra.Attribute {
	var es []dra.Attribute
	for _, n := range ns {
		es = append(es, dra.IntAttribute(n))
	}
	return dra.ListAttribute(es...)
}

// numaWorld is node n1 with GPUs and NICs whose numaNode attributes are
// given, in name order gpu0.., nic0...
func numaWorld(t *testing.T, gpus, nics []dra.Attribute, claims ...dra.ResourceClaim) *dra.Ledger {
	return numaWorldWith(t, gpus, nics, nil, claims...)
}

func numaWorldWith(t *testing.T, gpus, nics []dra.Attribute, templates []dra.ResourceClaimTemplate, claims ...dra.ResourceClaim) *dra.Ledger {
	g := dra.ResourceSlice{Name: "gpus", Driver: gpuDriver, Pool: "n1", NodeName: "n1"}
	for i, a := range gpus {
		g.Devices = append(g.Devices, dra.Device{Name: "gpu" + string(rune('0'+i)), Attributes: map[dra.QualifiedName]dra.Attribute{numaNode: a}})
	}
	n := dra.ResourceSlice{Name: "nics", Driver: netDriver, Pool: "n1", NodeName: "n1"}
	for i, a := range nics {
		n.Devices = append(n.Devices, dra.Device{Name: "nic" + string(rune('0'+i)), Attributes: map[dra.QualifiedName]dra.Attribute{numaNode: a}})
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{g, n})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, templates, claims)
	require.NoError(t, err)
	return l
}

func req(name, class string, count int64) dra.DeviceRequest {
	return dra.DeviceRequest{Name: name, Exactly: &dra.ExactDeviceRequest{DeviceClassName: class, Count: count}}
}

func plan(t *testing.T, l *dra.Ledger, name string) []dra.DeviceResult {
	n1 := cpuNode("n1", 1000, nil)
	res, rej, err := l.Plan(&n1, dra.Options{}, key(name))
	require.NoError(t, err)
	require.True(t, rej.OK(), rej.Reason)
	return res[0].Devices
}

// TestScenario_NumaNodeListMatch: a GPU and a NIC on one NUMA node by the
// standard list-valued attribute; gpu0 is on node 1, where no NIC is, so
// the claim takes gpu1 (node 0) and nic0, whose scalar 0 is a set of one;
// the ledger refuses gpu0 with nic0.
func TestScenario_NumaNodeListMatch(t *testing.T) {
	c := claim("pair", dra.ClaimSpec{Requests: []dra.DeviceRequest{req("gpu", "gpu", 1), req("nic", "net", 1)},
		Constraints: []dra.DeviceConstraint{{MatchAttribute: numaNode}}})
	l := numaWorld(t, []dra.Attribute{numa(1), numa(0)}, []dra.Attribute{dra.IntAttribute(0), numa(2, 3)}, c)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu1", "gpu"), dev(netDriver, "n1", "nic0", "nic")}, plan(t, l, "pair"))

	_, err := l.Allocate(key("pair"), []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "gpu"), dev(netDriver, "n1", "nic0", "nic")})
	require.EqualError(t, err, `ResourceClaim "default/pair": status.allocation.devices.results: device net.example.com/n1/nic0 breaks constraint matchAttribute "resource.kubernetes.io/numaNode"`)
}

// TestScenario_NumaNodeIntersectionNarrows: sets must share an element
// across all devices, not pairwise: gpu0 {0,1} and gpu1 {1,2} share 1, so
// the NIC must have 1: nic0 {0} shares an element with gpu0 alone and is
// passed over for nic1 {1,3}.
func TestScenario_NumaNodeIntersectionNarrows(t *testing.T) {
	c := claim("three", dra.ClaimSpec{Requests: []dra.DeviceRequest{req("gpu", "gpu", 2), req("nic", "net", 1)},
		Constraints: []dra.DeviceConstraint{{MatchAttribute: numaNode}}})
	l := numaWorld(t, []dra.Attribute{numa(0, 1), numa(2, 1)}, []dra.Attribute{numa(0), numa(3, 1)}, c)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "gpu"), dev(gpuDriver, "n1", "gpu1", "gpu"), dev(netDriver, "n1", "nic1", "nic")}, plan(t, l, "three"))
}

// TestScenario_NumaNodeListDistinct: distinct sets must be pairwise
// disjoint: gpu0 {0,1} excludes gpu1 {1,2}, and gpu2 {3} is taken.
func TestScenario_NumaNodeListDistinct(t *testing.T) {
	c := claim("two", dra.ClaimSpec{Requests: []dra.DeviceRequest{req("gpu", "gpu", 2)},
		Constraints: []dra.DeviceConstraint{{DistinctAttribute: numaNode}}})
	l := numaWorld(t, []dra.Attribute{numa(0, 1), numa(1, 2), numa(3)}, nil, c)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "gpu"), dev(gpuDriver, "n1", "gpu2", "gpu")}, plan(t, l, "two"))
}

// TestScenario_GroupNumaList: the PodGroup's match constraint reads lists
// as sets too: m1's GPU and m2's GPU must share a NUMA node; gpu0 {0} and
// gpu1 {1} do not, gpu2 {1,0} shares 0 with gpu0.
func TestScenario_GroupNumaList(t *testing.T) {
	l := numaWorldWith(t, []dra.Attribute{numa(0), numa(1), numa(1, 0)}, nil, []dra.ResourceClaimTemplate{tmpl("gpu", oneOf("gpu"))})
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 2000, nil)}, nil)
	require.NoError(t, err)
	pg := podGroup("pg")
	pg.DeviceConstraints = []dra.GroupDeviceConstraint{{MatchAttribute: numaNode}}
	d, n, _ := cycle(t, l, s, pg, group("pg", 2, pod("m1", "pg", 1000, byTemplate("gpu", "gpu")), pod("m2", "pg", 1000, byTemplate("gpu", "gpu"))))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")}, devicesOf(t, n, "m1-gpu"))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu2", "dev")}, devicesOf(t, n, "m2-gpu"))
}

func TestListAttributeErrors(t *testing.T) {
	for _, tc := range []struct {
		a    dra.Attribute
		want string
	}{
		{dra.Attribute{Kind: dra.AttributeInt, List: []dra.Attribute{}}, `ResourceSlice "s": spec.devices[0].attributes[numa]: a list must not be empty`},
		{dra.ListAttribute(dra.IntAttribute(1), dra.StringAttribute("x")), `ResourceSlice "s": spec.devices[0].attributes[numa][1]: must be a scalar of the list's kind 1`},
		{dra.ListAttribute(), `ResourceSlice "s": spec.devices[0].attributes[numa]: no value set (kind 0)`},
	} {
		_, err := dra.NewInventory(classes, []dra.ResourceSlice{{Name: "s", Driver: gpuDriver, Pool: "p", AllNodes: true,
			Devices: []dra.Device{{Name: "d", Attributes: map[dra.QualifiedName]dra.Attribute{"numa": tc.a}}}}})
		require.EqualError(t, err, tc.want)
	}
	require.True(t, numa(0, 1).Overlaps(dra.IntAttribute(1)))
	require.False(t, numa(0, 1).Overlaps(dra.StringAttribute("1")))
	require.True(t, numa(0, 1).Equal(numa(0, 1)))
	require.False(t, numa(0, 1).Equal(numa(1, 0)), "Equal is CEL's list ==, in order")
}
