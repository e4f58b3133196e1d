package dra_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

const fabricAttr = dra.QualifiedName("fabric")

// fabricSlice is a pool of NICs on fabric f, reachable from the nodes
// labelled f=yes.
func fabricSlice(f string, n int) dra.ResourceSlice {
	s := netSlice("fab-"+f, &placement.LabelSelector{MatchLabels: map[string]string{f: "yes"}})
	for i := range n {
		s.Devices = append(s.Devices, dra.Device{Name: fmt.Sprintf("nic%s%d", f, i), Attributes: map[dra.QualifiedName]dra.Attribute{fabricAttr: dra.StringAttribute(f)}})
	}
	return s
}

// fabricWorld has nodes n1..n3 with room for one member each; n1 and n2
// reach fabrics a and b, n3 only b. Fabric a has two NICs, b three. Each
// of the gang's members m1..m<k> has a NIC claim of its own (entry "nic").
func fabricWorld(t *testing.T, k, nicsB int) (*dra.Ledger, *placement.Snapshot, *placement.Group) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{fabricSlice("a", 2), fabricSlice("b", nicsB)})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("nic", oneOf("net"))}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{
		cpuNode("n1", 1000, map[string]string{"a": "yes", "b": "yes"}),
		cpuNode("n2", 1000, map[string]string{"a": "yes", "b": "yes"}),
		cpuNode("n3", 1000, map[string]string{"b": "yes"}),
	}, nil)
	require.NoError(t, err)
	var members []placement.Pod
	for i := 1; i <= k; i++ {
		members = append(members, pod(fmt.Sprintf("m%d", i), "pg", 1000, byTemplate("nic", "nic")))
	}
	return l, s, group("pg", int32(k), members...)
}

func onOneFabric() dra.PodGroup {
	pg := podGroup("pg")
	pg.DeviceConstraints = []dra.GroupDeviceConstraint{{Claims: []string{"nic"}, MatchAttribute: fabricAttr}}
	return pg
}

// TestScenario_GroupFabric: without the constraint m1 and m2 take the NICs
// of fabric a (first in candidate order) and m3, on n3, one of b; with
// matchAttribute fabric across the group, m3's re-search moves m1 and m2
// onto fabric b, and all three NICs are on b.
func TestScenario_GroupFabric(t *testing.T) {
	l, s, g := fabricWorld(t, 3, 3)
	d, n, _ := cycle(t, l, s, podGroup("pg"), g)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fab-a", "nica0", "dev")}, devicesOf(t, n, "m1-nic"))
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fab-b", "nicb0", "dev")}, devicesOf(t, n, "m3-nic"))

	d, n, _ = cycle(t, l, s, onOneFabric(), g)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.True(t, d.Proven)
	require.Equal(t, map[string]string{"m1": "n1", "m2": "n2", "m3": "n3"}, nodesOf(d))
	for i, want := range []string{"nicb0", "nicb1", "nicb2"} {
		require.Equal(t, []dra.DeviceResult{dev(netDriver, "fab-b", want, "dev")}, devicesOf(t, n, fmt.Sprintf("m%d-nic", i+1)))
	}
}

// TestScenario_GroupFabricSplit: with only two NICs on fabric b, no single
// fabric reaches all three members' nodes with a NIC each; the gang waits,
// proven, and the reason names the constraint.
func TestScenario_GroupFabricSplit(t *testing.T) {
	l, s, g := fabricWorld(t, 3, 2)
	d, _, _ := cycle(t, l, s, podGroup("pg"), g)
	require.Equal(t, placement.Scheduled, d.Status, "without the constraint the fabrics mix")

	d, _, ups := cycle(t, l, s, onOneFabric(), g)
	require.Equal(t, placement.Unschedulable, d.Status, d.Message)
	require.True(t, d.Proven)
	require.Empty(t, ups)
	require.Equal(t, `2 of min 3 members fit; default/m3 fits on none of 3 nodes: 3 ResourceClaim default/m3-nic: no free devices keep the PodGroup's deviceConstraints[0] (matchAttribute fabric), 2 Insufficient cpu`, d.Message)
}

// TestScenario_GroupDistinct: one node with GPUs gpu0, gpu1 on switch s0
// and gpu2, gpu3 on s1; two members with a GPU each, distinct switches
// across the group: m1 takes gpu0, m2 passes over gpu1 for gpu2. A third
// member finds no third switch.
func TestScenario_GroupDistinct(t *testing.T) {
	sl := gpuSlice("n1", 4)
	for i, sw := range []string{"s0", "s0", "s1", "s1"} {
		sl.Devices[i].Attributes = map[dra.QualifiedName]dra.Attribute{"switch": dra.StringAttribute(sw)}
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{sl})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpu", oneOf("gpu"))}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000, nil)}, nil)
	require.NoError(t, err)
	pg := podGroup("pg")
	pg.DeviceConstraints = []dra.GroupDeviceConstraint{{Requests: []string{"dev"}, DistinctAttribute: "switch"}}
	m := func(name string) placement.Pod { return pod(name, "pg", 1000, byTemplate("gpu", "gpu")) }

	d, n, _ := cycle(t, l, s, pg, group("pg", 2, m("m1"), m("m2")))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")}, devicesOf(t, n, "m1-gpu"))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu2", "dev")}, devicesOf(t, n, "m2-gpu"))

	d, _, _ = cycle(t, l, s, pg, group("pg", 3, m("m1"), m("m2"), m("m3")))
	require.Equal(t, placement.Unschedulable, d.Status, d.Message)
	require.Equal(t, []placement.ReasonCount{{Reason: "ResourceClaim default/m3-gpu: no free devices keep the PodGroup's deviceConstraints[0] (distinctAttribute switch)", Nodes: 1}}, d.Reasons)
}

// TestScenario_GroupSeededByLedger: claim held, already allocated nicb1
// and used by member m1 through entry "nic", sets the group's fabric: m2
// gets a NIC on b though a comes first.
func TestScenario_GroupSeededByLedger(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{fabricSlice("a", 2), fabricSlice("b", 3)})
	require.NoError(t, err)
	held := claim("held", oneOf("net"))
	held.Status.Allocation = &dra.AllocationResult{Devices: []dra.DeviceResult{dev(netDriver, "fab-b", "nicb1", "dev")}}
	held.Status.ReservedFor = []dra.ConsumerRef{dra.PodRef("other", "uid-other")}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("nic", oneOf("net"))}, []dra.ResourceClaim{held})
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 2000, map[string]string{"a": "yes", "b": "yes"})}, nil)
	require.NoError(t, err)
	g := group("pg", 2, pod("m1", "pg", 1000, byName("nic", "held")), pod("m2", "pg", 1000, byTemplate("nic", "nic")))
	d, n, _ := cycle(t, l, s, onOneFabric(), g)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fab-b", "nicb0", "dev")}, devicesOf(t, n, "m2-nic"))
}

func TestGroupDeviceConstraintErrors(t *testing.T) {
	l, s, g := fabricWorld(t, 1, 1)
	many := make([]dra.GroupDeviceConstraint, dra.MaxGroupDeviceConstraints+1)
	for i := range many {
		many[i].MatchAttribute = fabricAttr
	}
	for _, tc := range []struct {
		cs   []dra.GroupDeviceConstraint
		want string
	}{
		{[]dra.GroupDeviceConstraint{{}}, `PodGroup "default/pg": deviceConstraints[0]: exactly one of matchAttribute and distinctAttribute must be set`},
		{[]dra.GroupDeviceConstraint{{MatchAttribute: "a", DistinctAttribute: "b"}}, `PodGroup "default/pg": deviceConstraints[0]: exactly one of matchAttribute and distinctAttribute must be set`},
		{[]dra.GroupDeviceConstraint{{MatchAttribute: "a", Claims: []string{""}}}, `PodGroup "default/pg": deviceConstraints[0].claims[0]: must not be empty`},
		{[]dra.GroupDeviceConstraint{{MatchAttribute: "a"}, {DistinctAttribute: "b", Requests: []string{"x", "x"}}}, `PodGroup "default/pg": deviceConstraints[1].requests[1]: "x" appears twice`},
		{many, `PodGroup "default/pg": deviceConstraints: 33 entries exceed the limit of 32`},
	} {
		pg := podGroup("pg")
		pg.DeviceConstraints = tc.cs
		_, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}})
		require.EqualError(t, err, tc.want)
		var fe *placement.FieldError
		require.ErrorAs(t, err, &fe)
	}
}
