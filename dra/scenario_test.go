package dra_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// d1World: two nodes with two GPUs each and a pool of network devices
// reachable from every node; the PodGroup pg shares the claim pg-claim;
// p1 has its own named claim p1-own, p2 a claim from the gpu template.
func d1World(t *testing.T) (*dra.Ledger, []placement.Node, dra.PodGroup) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n1", 2), gpuSlice("n2", 2), netSlice("fabric", nil, "nic0", "nic1")})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpu-tmpl", oneOf("gpu"))},
		[]dra.ResourceClaim{claim("pg-claim", oneOf("net")), claim("p1-own", oneOf("gpu"))})
	require.NoError(t, err)
	nodes := []placement.Node{cpuNode("n1", 4000, nil), cpuNode("n2", 4000, nil)}
	return l, nodes, podGroup("pg", byName("shared", "pg-claim"))
}

// D1: A PodGroup lists claim `pg-claim` (an existing ResourceClaim); a member pod lists the same
// entry plus a per-pod claim.
func TestScenario_D1(t *testing.T) {
	l, nodes, pg := d1World(t)
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	p1 := pod("p1", "pg", 1000, byName("shared", "pg-claim"), byName("own", "p1-own"))
	d, l, ups := cycle(t, l, s, pg, group("pg", 1, p1))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"p1": "n1"}, nodesOf(d))

	require.Equal(t, []dra.ConsumerRef{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "pg", UID: "uid-pg"}}, reservedFor(t, l, "pg-claim"))
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fabric", "nic0", "dev")}, devicesOf(t, l, "pg-claim"))
	require.Equal(t, []dra.ConsumerRef{{Resource: "pods", Name: "p1", UID: "uid-p1"}}, reservedFor(t, l, "p1-own"))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu0", "dev")}, devicesOf(t, l, "p1-own"))
	c, _ := l.Claim(key("p1-own"))
	require.Equal(t, "n1", c.Status.Allocation.NodeName, "a node-local device pins the claim")
	require.Len(t, ups, 2)
	require.Equal(t, "p1-own", ups[0].Claim.Name)
	require.Equal(t, "pg-claim", ups[1].Claim.Name)
	require.False(t, ups[0].Created || ups[1].Created)
}

// d2 runs D1, binds p1 and places the second member p2.
func d2(t *testing.T) (*dra.Ledger, *placement.Snapshot, dra.PodGroup) {
	l, nodes, pg := d1World(t)
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	p1 := pod("p1", "pg", 1000, byName("shared", "pg-claim"), byName("own", "p1-own"))
	_, l, _ = cycle(t, l, s, pg, group("pg", 1, p1))

	p1.NodeName = "n1"
	s, err = s.Apply(placement.Change{Bind: []placement.Pod{p1}})
	require.NoError(t, err)
	p2 := pod("p2", "pg", 1000, byName("shared", "pg-claim"), byTemplate("own", "gpu-tmpl"))
	d, l, ups := cycle(t, l, s, pg, group("pg", 2, p2))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"p2": "n1"}, nodesOf(d))
	require.Len(t, ups, 1, "the group claim is not touched again")
	require.Equal(t, "p2-own", ups[0].Claim.Name)
	require.True(t, ups[0].Created)
	p2.NodeName = "n1"
	s, err = s.Apply(placement.Change{Bind: []placement.Pod{p2}})
	require.NoError(t, err)
	return l, s, pg
}

// D2: A second member of the same group is placed: the per-pod claim lists only its own pod, the
// group claim still lists only the PodGroup; no device is allocated twice.
func TestScenario_D2(t *testing.T) {
	l, _, _ := d2(t)
	require.Equal(t, []dra.ConsumerRef{{Resource: "pods", Name: "p2", UID: "uid-p2"}}, reservedFor(t, l, "p2-own"))
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "gpu1", "dev")}, devicesOf(t, l, "p2-own"))
	require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("pg", "uid-pg")}, reservedFor(t, l, "pg-claim"))
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fabric", "nic0", "dev")}, devicesOf(t, l, "pg-claim"))
	k, ok := l.Generated(dra.OwnerPod, key("p2"), "own")
	require.True(t, ok)
	require.Equal(t, key("p2-own"), k)
}

// D3: Both pods leave: the per-pod claims' reservedFor become empty and they are released; the
// group claim keeps the PodGroup entry and stays allocated. When the PodGroup is deleted, its
// claim is released.
func TestScenario_D3(t *testing.T) {
	l, _, _ := d2(t)
	l = l.DeletePod(key("p1")).DeletePod(key("p2"))

	own, ok := l.Claim(key("p1-own"))
	require.True(t, ok, "a named claim outlives its pod")
	require.Nil(t, own.Status.Allocation, "released when reservedFor became empty")
	require.Empty(t, own.Status.ReservedFor)
	_, ok = l.Claim(key("p2-own"))
	require.False(t, ok, "a claim generated for a pod is deleted with it")
	for _, d := range []string{"gpu0", "gpu1"} {
		_, held := l.Holder(dra.DeviceID{Driver: gpuDriver, Pool: "n1", Device: d})
		require.False(t, held, d)
	}

	require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("pg", "uid-pg")}, reservedFor(t, l, "pg-claim"), "the group claim stays while its PodGroup exists")
	require.NotEmpty(t, devicesOf(t, l, "pg-claim"))

	l = l.DeletePodGroup(key("pg"))
	c, _ := l.Claim(key("pg-claim"))
	require.Nil(t, c.Status.Allocation, "released with its PodGroup")
	require.Empty(t, c.Status.ReservedFor)
	_, held := l.Holder(dra.DeviceID{Driver: netDriver, Pool: "fabric", Device: "nic0"})
	require.False(t, held)
}

// D4: Template claims: exactly one ResourceClaim is generated per PodGroup and shared by all its
// members whose entry names the same template; two PodGroups using the same template get two
// claims. A pod entry whose name matches but whose template differs is a per-pod claim.
func TestScenario_D4(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{netSlice("fabric", nil, "nic0", "nic1", "nic2", "nic3")})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("net-tmpl", oneOf("net")), tmpl("other-tmpl", oneOf("net"))}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 8000, nil)}, nil)
	require.NoError(t, err)

	pgA := podGroup("pg-a", byTemplate("net", "net-tmpl"))
	a1 := pod("a1", "pg-a", 1000, byTemplate("net", "net-tmpl"))
	a2 := pod("a2", "pg-a", 1000, byTemplate("net", "net-tmpl"))
	a3 := pod("a3", "pg-a", 1000, byTemplate("net", "other-tmpl")) // same name, other template: its own claim
	d, l, ups := cycle(t, l, s, pgA, group("pg-a", 3, a1, a2, a3))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Len(t, ups, 2)
	require.Equal(t, "a3-net", ups[0].Claim.Name)
	require.Equal(t, &dra.Owner{Kind: dra.OwnerPod, Name: "a3", UID: "uid-a3", ClaimName: "net"}, ups[0].Claim.Owner)
	require.Equal(t, []dra.ConsumerRef{dra.PodRef("a3", "uid-a3")}, ups[0].Claim.Status.ReservedFor)
	require.Equal(t, "pg-a-net", ups[1].Claim.Name)
	require.Equal(t, &dra.Owner{Kind: dra.OwnerPodGroup, Name: "pg-a", UID: "uid-pg-a", ClaimName: "net"}, ups[1].Claim.Owner)
	require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("pg-a", "uid-pg-a")}, ups[1].Claim.Status.ReservedFor)
	require.True(t, ups[0].Created && ups[1].Created)
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fabric", "nic0", "dev")}, devicesOf(t, l, "pg-a-net"))
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fabric", "nic1", "dev")}, devicesOf(t, l, "a3-net"))

	pgB := podGroup("pg-b", byTemplate("net", "net-tmpl"))
	b1 := pod("b1", "pg-b", 1000, byTemplate("net", "net-tmpl"))
	b2 := pod("b2", "pg-b", 1000, byTemplate("net", "net-tmpl"))
	d, l, ups = cycle(t, l, s, pgB, group("pg-b", 2, b1, b2))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Len(t, ups, 1, "one claim for the second PodGroup")
	require.Equal(t, "pg-b-net", ups[0].Claim.Name)
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "fabric", "nic2", "dev")}, devicesOf(t, l, "pg-b-net"))

	var names []string
	for c := range l.Claims() {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"a3-net", "pg-a-net", "pg-b-net"}, names)
}

func d5World(t *testing.T) (*dra.Ledger, *placement.Snapshot) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{netSlice("fabric", nil, "nic0")})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("shared", oneOf("net"))})
	require.NoError(t, err)
	var nodes []placement.Node
	for i := range 10 {
		nodes = append(nodes, cpuNode(fmt.Sprintf("n%02d", i), 300_000, nil))
	}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	return l, s
}

// D5: 300 pods share one claim through their PodGroup: reservedFor has one entry. 300 pods that
// share one claim without a group: the first 256 are accepted, the rest wait with a clear reason
// (the 256 limit), and nothing errors.
func TestScenario_D5(t *testing.T) {
	t.Run("through the PodGroup", func(t *testing.T) {
		l, s := d5World(t)
		pg := podGroup("big", byName("net", "shared"))
		var members []placement.Pod
		for i := range 300 {
			members = append(members, pod(fmt.Sprintf("p%03d", i), "big", 1000, byName("net", "shared")))
		}
		d, l, _ := cycle(t, l, s, pg, group("big", 300, members...))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Len(t, d.Assignments, 300)
		require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("big", "uid-big")}, reservedFor(t, l, "shared"))
	})
	t.Run("pod by pod", func(t *testing.T) {
		l, s := d5World(t)
		pg := podGroup("loose") // lists no claims: each pod reserves for itself
		var members []placement.Pod
		for i := range 300 {
			members = append(members, pod(fmt.Sprintf("p%03d", i), "loose", 1000, byName("net", "shared")))
		}
		g := &placement.Group{Namespace: ns, Name: "loose", Policy: placement.PolicyBasic, Members: members}
		d, l, _ := cycle(t, l, s, pg, g)
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Len(t, d.Assignments, dra.MaxReservedFor)
		require.Len(t, d.Waiting, 300-dra.MaxReservedFor)
		require.Equal(t, "p256", d.Waiting[0].Name)
		require.Len(t, reservedFor(t, l, "shared"), dra.MaxReservedFor)
		require.Equal(t, dra.PodRef("p000", "uid-p000"), reservedFor(t, l, "shared")[0])

		// The next cycle, with the first 256 bound, says why the rest wait.
		var bound []placement.Pod
		for _, a := range d.Assignments {
			p := members[slices.IndexFunc(members, func(p placement.Pod) bool { return p.Name == a.Pod.Name })]
			p.NodeName = a.Node
			bound = append(bound, p)
		}
		s, err := s.Apply(placement.Change{Bind: bound})
		require.NoError(t, err)
		g = &placement.Group{Namespace: ns, Name: "loose", Policy: placement.PolicyBasic, Members: members[dra.MaxReservedFor:]}
		d, _, _ = cycle(t, l, s, pg, g)
		require.Equal(t, placement.Unschedulable, d.Status)
		require.Equal(t, []placement.ReasonCount{{Reason: "ResourceClaim default/shared: reservedFor is full (256 entries)", Nodes: 10}}, d.Reasons)
		require.Equal(t, "256 of min 257 members fit (256 bound); default/p256 fits on none of 10 nodes: 10 ResourceClaim default/shared: reservedFor is full (256 entries)", d.Message)
		require.True(t, dra.WaitsOnDevices(d))
	})
}

// D6: A node-local device pins every pod that shares its claim to that node; a network-attached
// device whose slice is reachable from nodes labelled rack=a lets the group's pods spread over all
// rack=a nodes and no others.
func TestScenario_D6(t *testing.T) {
	t.Run("node-local device pins the group", func(t *testing.T) {
		inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n2", 1)})
		require.NoError(t, err)
		l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("local", oneOf("gpu"))})
		require.NoError(t, err)
		s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 8000, nil), cpuNode("n2", 8000, nil), cpuNode("n3", 8000, nil)}, nil)
		require.NoError(t, err)
		pg := podGroup("pg", byName("gpu", "local"))
		g := group("pg", 3, pod("m1", "pg", 1000, byName("gpu", "local")), pod("m2", "pg", 1000, byName("gpu", "local")), pod("m3", "pg", 1000, byName("gpu", "local")))
		d, l, _ := cycle(t, l, s, pg, g)
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, map[string]string{"m1": "n2", "m2": "n2", "m3": "n2"}, nodesOf(d))
		c, _ := l.Claim(key("local"))
		require.Equal(t, "n2", c.Status.Allocation.NodeName)
	})
	rackA := &placement.LabelSelector{MatchLabels: map[string]string{"rack": "a"}}
	world := func(t *testing.T) (*dra.Ledger, *placement.Snapshot) {
		inv, err := dra.NewInventory(classes, []dra.ResourceSlice{netSlice("rack-a", rackA, "switch")})
		require.NoError(t, err)
		l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("net-tmpl", oneOf("net"))}, nil)
		require.NoError(t, err)
		var nodes []placement.Node
		for _, n := range []string{"a1", "a2", "a3", "b1", "b2"} {
			nodes = append(nodes, cpuNode(n, 1000, map[string]string{"rack": n[:1]}))
		}
		s, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		return l, s
	}
	members := func(n int) []placement.Pod {
		var out []placement.Pod
		for i := range n {
			out = append(out, pod(fmt.Sprintf("m%d", i+1), "pg", 1000, byTemplate("net", "net-tmpl")))
		}
		return out
	}
	pg := podGroup("pg", byTemplate("net", "net-tmpl"))
	t.Run("network device spreads over rack a", func(t *testing.T) {
		l, s := world(t)
		d, l, _ := cycle(t, l, s, pg, group("pg", 3, members(3)...))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, map[string]string{"m1": "a1", "m2": "a2", "m3": "a3"}, nodesOf(d))
		c, _ := l.Claim(key("pg-net"))
		require.Equal(t, []placement.LabelSelector{*rackA}, c.Status.Allocation.NodeSelectors)
		require.Empty(t, c.Status.Allocation.NodeName)
	})
	t.Run("and no others", func(t *testing.T) {
		l, s := world(t)
		d, _, _ := cycle(t, l, s, pg, group("pg", 4, members(4)...))
		require.Equal(t, placement.Unschedulable, d.Status, d.Message)
		require.Equal(t, 3, d.MostFit)
		require.Equal(t, []placement.ReasonCount{
			{Reason: "Insufficient cpu", Nodes: 3},
			{Reason: "ResourceClaim default/pg-net: no free devices reachable from every member's node", Nodes: 2},
		}, d.Reasons)
		require.True(t, dra.WaitsOnDevices(d))
	})
}

// D7: Devices: one device, one claim: allocated and pinned to the device's node. Two requests, one
// device: not allocated. A device already allocated to another claim is not offered.
func TestScenario_D7(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{gpuSlice("n2", 1)})
	require.NoError(t, err)
	two := dra.ClaimSpec{Requests: []dra.DeviceRequest{
		{Name: "a", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu"}},
		{Name: "b", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu"}},
	}}
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("one", oneOf("gpu")), claim("two", two), claim("other", oneOf("gpu"))})
	require.NoError(t, err)
	n1, n2 := cpuNode("n1", 1000, nil), cpuNode("n2", 1000, nil)

	res, rej, err := l.Plan(&n2, dra.Options{}, key("one"))
	require.NoError(t, err)
	require.True(t, rej.OK(), rej.Reason)
	require.Equal(t, []dra.AllocationResult{{Devices: []dra.DeviceResult{dev(gpuDriver, "n2", "gpu0", "dev")}, NodeName: "n2"}}, res)
	_, rej, err = l.Plan(&n1, dra.Options{}, key("one"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/one: not enough free matching devices", Unresolvable: true}, rej)

	_, rej, err = l.Plan(&n2, dra.Options{}, key("two"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/two: not enough free matching devices", Unresolvable: true}, rej, "two requests, one device")

	taken, err := l.Allocate(key("other"), res[0].Devices)
	require.NoError(t, err)
	taken, err = taken.Reserve(key("other"), dra.PodRef("x", ""))
	require.NoError(t, err)
	_, rej, err = taken.Plan(&n2, dra.Options{}, key("one"))
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaim default/one: not enough free matching devices"}, rej, "an allocated device is not offered")

	// The same through a solve: the pod goes where the device is.
	s, err := placement.NewSnapshot([]placement.Node{n1, n2}, nil)
	require.NoError(t, err)
	d, l, _ := cycle(t, l, s, podGroup("pg"), group("pg", 1, pod("p", "pg", 1000, byName("gpu", "one"))))
	require.Equal(t, map[string]string{"p": "n2"}, nodesOf(d))
	d, _, _ = cycle(t, l, s, podGroup("pg2"), group("pg2", 1, pod("q", "pg2", 1000, byName("gpu", "two"))))
	require.Equal(t, placement.Unresolvable, d.Status, d.Message)
}

// D8: Backtracking inside a claim: devices of 2Gi and 1Gi memory; request A needs ≥ 1Gi, request B
// needs ≥ 2Gi: A gets the 1Gi device and B the 2Gi device.
func TestScenario_D8(t *testing.T) {
	const mem = dra.QualifiedName("memory")
	s := gpuSlice("n1", 0)
	s.Devices = []dra.Device{
		{Name: "big", Capacity: map[dra.QualifiedName]int64{mem: 2 << 30}},
		{Name: "small", Capacity: map[dra.QualifiedName]int64{mem: 1 << 30}},
	}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.NoError(t, err)
	spec := dra.ClaimSpec{Requests: []dra.DeviceRequest{
		{Name: "a", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: []dra.Selector{dra.CapacityAtLeast(mem, 1<<30)}}},
		{Name: "b", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: []dra.Selector{dra.CapacityAtLeast("gpu.example.com/memory", 2<<30)}}},
	}}
	l, err := dra.NewLedger(inv, nil, []dra.ResourceClaim{claim("c", spec)})
	require.NoError(t, err)
	n1 := cpuNode("n1", 1000, nil)
	res, rej, err := l.Plan(&n1, dra.Options{}, key("c"))
	require.NoError(t, err)
	require.True(t, rej.OK(), rej.Reason)
	require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "small", "a"), dev(gpuDriver, "n1", "big", "b")}, res[0].Devices)
}

// D9: 18 nodes × gpu:4 in one rack; a group of 17 members × gpu:4, each also naming the group's
// shared claim on a rack-wide network device: all 17 are placed (the shared claim is allocated
// once, not once per pod).
func TestScenario_D9(t *testing.T) {
	rack := &placement.LabelSelector{MatchLabels: map[string]string{"rack": "r1"}}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{netSlice("r1", rack, "fabric")})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("fabric-tmpl", oneOf("net"))}, nil)
	require.NoError(t, err)
	var nodes []placement.Node
	for i := range 18 {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{"rack": "r1"},
			Allocatable: placement.ResourceList{placement.ResourceGPU: 4}})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	pg := podGroup("train", byTemplate("fabric", "fabric-tmpl"))
	var members []placement.Pod
	for i := range 17 {
		p := pod(fmt.Sprintf("w%02d", i), "train", 0, byTemplate("fabric", "fabric-tmpl"))
		p.Requests = placement.ResourceList{placement.ResourceGPU: 4}
		members = append(members, p)
	}
	d, l, ups := cycle(t, l, s, pg, group("train", 17, members...))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	want := map[string]string{}
	for i := range 17 {
		want[fmt.Sprintf("w%02d", i)] = fmt.Sprintf("n%02d", i)
	}
	require.Equal(t, want, nodesOf(d))
	require.Len(t, ups, 1, "the shared claim is allocated once")
	require.Equal(t, "train-fabric", ups[0].Claim.Name)
	require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("train", "uid-train")}, ups[0].Claim.Status.ReservedFor)
	require.Equal(t, []dra.DeviceResult{dev(netDriver, "r1", "fabric", "dev")}, devicesOf(t, l, "train-fabric"))
}

// partitionable is one physical device on n1 offered as one whole or two
// halves (KEP-4815), and a template asking first for a whole, else a half.
func partitionable(t *testing.T) *dra.Ledger {
	kind := dra.QualifiedName("kind")
	use := func(n int64) []dra.CounterConsumption {
		return []dra.CounterConsumption{{CounterSet: "phys0", Counters: map[string]int64{"units": n}}}
	}
	s := dra.ResourceSlice{Name: "n1", Driver: gpuDriver, Pool: "n1", NodeName: "n1",
		SharedCounters: []dra.CounterSet{{Name: "phys0", Counters: map[string]int64{"units": 2}}},
		Devices: []dra.Device{
			{Name: "half-0", Attributes: map[dra.QualifiedName]dra.Attribute{kind: dra.StringAttribute("half")}, ConsumesCounters: use(1)},
			{Name: "half-1", Attributes: map[dra.QualifiedName]dra.Attribute{kind: dra.StringAttribute("half")}, ConsumesCounters: use(1)},
			{Name: "whole", Attributes: map[dra.QualifiedName]dra.Attribute{kind: dra.StringAttribute("whole")}, ConsumesCounters: use(2)},
		}}
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{s})
	require.NoError(t, err)
	sub := func(name string) dra.DeviceSubRequest {
		return dra.DeviceSubRequest{Name: name, ExactDeviceRequest: dra.ExactDeviceRequest{DeviceClassName: "gpu",
			Selectors: []dra.Selector{dra.AttributeEquals("gpu.example.com/kind", dra.StringAttribute(name))}}}
	}
	spec := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", FirstAvailable: []dra.DeviceSubRequest{sub("whole"), sub("half")}}}}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("part", spec)}, nil)
	require.NoError(t, err)
	return l
}

// D10: Backtracking across members: each member has its own claim asking first for a `whole`
// device (2 units of a shared counter) and otherwise a `half` (1 unit); one physical device offers
// either one whole or two halves; a gang of 2: each member gets a half and the gang is placed.
func TestScenario_D10(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000, nil), cpuNode("n2", 4000, nil)}, nil)
	require.NoError(t, err)
	m1 := pod("m1", "pg", 1000, byTemplate("gpu", "part"))
	m2 := pod("m2", "pg", 1000, byTemplate("gpu", "part"))

	t.Run("alone, a member gets its first choice", func(t *testing.T) {
		d, l, _ := cycle(t, partitionable(t), s, podGroup("pg"), group("pg", 1, m1))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "whole", "gpu/whole")}, devicesOf(t, l, "m1-gpu"))
	})
	t.Run("a gang of two gets two halves", func(t *testing.T) {
		d, l, _ := cycle(t, partitionable(t), s, podGroup("pg"), group("pg", 2, m1, m2))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, map[string]string{"m1": "n1", "m2": "n1"}, nodesOf(d))
		require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "half-0", "gpu/half")}, devicesOf(t, l, "m1-gpu"))
		require.Equal(t, []dra.DeviceResult{dev(gpuDriver, "n1", "half-1", "gpu/half")}, devicesOf(t, l, "m2-gpu"))
	})
	t.Run("a third member does not fit", func(t *testing.T) {
		m3 := pod("m3", "pg", 1000, byTemplate("gpu", "part"))
		d, _, _ := cycle(t, partitionable(t), s, podGroup("pg"), group("pg", 3, m1, m2, m3))
		require.Equal(t, placement.Unschedulable, d.Status, d.Message)
		require.Equal(t, 2, d.MostFit)
		require.Equal(t, []placement.ReasonCount{
			{Reason: "ResourceClaim default/m3-gpu: devices taken by other members' claims", Nodes: 1},
			{Reason: "ResourceClaim default/m3-gpu: not enough free matching devices", Nodes: 1},
		}, d.Reasons)
	})
}
