package dra_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

const rackKey = "topology.kubernetes.io/rack"

// rackWorld is racks × nodes nodes of perNode node-local GPUs each (node
// r<i>-n<j> in rack r<i>), and a gang of members each with a per-pod claim
// for gpus GPUs from template "gpus", all required in one rack.
func rackWorld(t testing.TB, racks, nodes, perNode, members, gpus int) (*dra.Ledger, *placement.Snapshot, *placement.Group, placement.Options) {
	var ns []placement.Node
	var sl []dra.ResourceSlice
	for i := range racks {
		for j := range nodes {
			name := fmt.Sprintf("r%d-n%02d", i, j)
			ns = append(ns, cpuNode(name, 64000, map[string]string{rackKey: fmt.Sprintf("r%d", i)}))
			sl = append(sl, gpuSlice(name, perNode))
		}
	}
	inv, err := dra.NewInventory(classes, sl)
	require.NoError(t, err)
	spec := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: int64(gpus)}}}}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("gpus", spec)}, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot(ns, nil)
	require.NoError(t, err)
	var ms []placement.Pod
	for i := range members {
		ms = append(ms, pod(fmt.Sprintf("w%02d", i), "pg", 1000, byTemplate("gpu", "gpus")))
	}
	tree, err := topology.NewTree(s, []string{rackKey})
	require.NoError(t, err)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: rackKey}}, topology.MostAllocated)
	require.NoError(t, err)
	return l, s, group("pg", int32(members), ms...), opts
}

// withoutCheck hides the hook's CheckPlacement, as before it existed.
func withoutCheck(nr placement.NewReserverFunc) placement.NewReserverFunc {
	return func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
		r, err := nr(s, g)
		return struct{ placement.Reserver }{r}, err
	}
}

// TestScenario_RackCannotServeTheGang: 16 members × 8 GPUs need 128 GPUs
// in one rack; each of two racks of 12 nodes × 8 GPUs reaches 96. Every
// rack is excluded before the member search: the decision is Unresolvable,
// proven, and names the claims and the counts, in a few steps.
func TestScenario_RackCannotServeTheGang(t *testing.T) {
	l, s, g, opts := rackWorld(t, 2, 12, 8, 16, 8)
	opts.Reservers = []placement.NewReserverFunc{l.Reserver(podGroup("pg"), dra.Options{})}
	d, err := placement.Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, placement.Unresolvable, d.Status, d.Message)
	require.True(t, d.Proven)
	why := "ResourceClaims default/w00-gpu, default/w01-gpu, … default/w15-gpu (16 claims) need 128 devices; the placement's 12 nodes reach 96 matching"
	require.Equal(t, []placement.ReasonCount{{Reason: why, Nodes: 24}}, d.Reasons)
	require.True(t, dra.WaitsOnDevices(d))
	require.Zero(t, d.Steps)
}

// TestScenario_RackExcludedOthersTried: with 12 members (96 GPUs) rack r0,
// whose node r0-n00 already lends 4 GPUs to another claim, has 92 free and
// is excluded, though not Unresolvable; rack r1 takes the gang.
func TestScenario_RackExcludedOthersTried(t *testing.T) {
	l, s, g, opts := rackWorld(t, 2, 12, 8, 12, 8)
	other := claim("other", dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 4}}}})
	l, err := l.AddClaim(other)
	require.NoError(t, err)
	var held []dra.DeviceResult
	for i := range 4 {
		held = append(held, dev(gpuDriver, "r0-n00", fmt.Sprintf("gpu%d", i), "gpu"))
	}
	l, err = l.Allocate(key("other"), held)
	require.NoError(t, err)
	l, err = l.Reserve(key("other"), dra.PodRef("x", "uid-x"))
	require.NoError(t, err)

	nr := l.Reserver(podGroup("pg"), dra.Options{})
	r, err := nr(s, placement.GroupView{Group: g})
	require.NoError(t, err)
	rack := func(i int) *placement.Placement {
		p := &placement.Placement{Name: fmt.Sprintf("r%d", i)}
		for j := range 12 {
			id, _ := s.NodeID(fmt.Sprintf("r%d-n%02d", i, j))
			p.Nodes = append(p.Nodes, id)
		}
		return p
	}
	require.Equal(t, placement.Rejection{Reason: "ResourceClaims default/w00-gpu, default/w01-gpu, … default/w11-gpu (12 claims) need 96 devices; the placement's 12 nodes reach 96 matching, 92 free"},
		r.(placement.PlacementChecker).CheckPlacement(rack(0)))
	require.True(t, r.(placement.PlacementChecker).CheckPlacement(rack(1)).OK())

	opts.Reservers = []placement.NewReserverFunc{nr}
	d, err := placement.Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "r1", d.Placement.Name)
}

// TestScenario_NetworkDevicesCountForEveryNode: NICs reached through a
// node selector count toward each rack they serve, once: rack a's pool of
// one NIC serves both its nodes, too few for two members' NIC claims;
// rack b's two serve them, and the gang goes there.
func TestScenario_NetworkDevicesCountForEveryNode(t *testing.T) {
	inv, err := dra.NewInventory(classes, []dra.ResourceSlice{
		netSlice("rack-a", &placement.LabelSelector{MatchLabels: map[string]string{rackKey: "a"}}, "nic0"),
		netSlice("rack-b", &placement.LabelSelector{MatchLabels: map[string]string{rackKey: "b"}}, "nic0", "nic1"),
	})
	require.NoError(t, err)
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("nic", oneOf("net"))}, nil)
	require.NoError(t, err)
	var ns []placement.Node
	for _, n := range []string{"a1", "a2", "b1", "b2"} {
		ns = append(ns, cpuNode(n, 1000, map[string]string{rackKey: n[:1]}))
	}
	s, err := placement.NewSnapshot(ns, nil)
	require.NoError(t, err)
	g := group("pg", 2, pod("m1", "pg", 1000, byTemplate("nic", "nic")), pod("m2", "pg", 1000, byTemplate("nic", "nic")))
	tree, err := topology.NewTree(s, []string{rackKey})
	require.NoError(t, err)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: rackKey}}, topology.MostAllocated)
	require.NoError(t, err)

	r, err := l.Reserver(podGroup("pg"), dra.Options{})(s, placement.GroupView{Group: g})
	require.NoError(t, err)
	require.Equal(t, placement.Rejection{Reason: "ResourceClaims default/m1-nic, default/m2-nic need 2 devices; the placement's 2 nodes reach 1 matching", Unresolvable: true},
		r.(placement.PlacementChecker).CheckPlacement(&placement.Placement{Name: "a", Nodes: []placement.NodeID{0, 1}}))

	opts.Reservers = []placement.NewReserverFunc{l.Reserver(podGroup("pg"), dra.Options{})}
	d, err := placement.Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"m1": "b1", "m2": "b2"}, nodesOf(d))
}

// TestProp_CheckPlacementIsNecessary: on random racks (1-3 nodes of 0-3
// GPUs, some held by another claim, and a NIC pool per rack), a gang of
// 1-3 members with per-pod claims of 1-2 GPUs and maybe a NIC: whenever
// CheckPlacement excludes a rack, the solver without the check cannot
// place the gang there, and an Unresolvable exclusion stays so on an idle
// ledger.
func TestProp_CheckPlacementIsNecessary(t *testing.T) {
	excluded := 0
	rapid.Check(t, func(t *rapid.T) {
		var ns []placement.Node
		var sl []dra.ResourceSlice
		var held []dra.DeviceResult
		for r := range 2 {
			rack := fmt.Sprintf("r%d", r)
			for j := range rapid.IntRange(1, 3).Draw(t, rack+"-nodes") {
				name := fmt.Sprintf("%s-n%d", rack, j)
				ns = append(ns, cpuNode(name, 4000, map[string]string{rackKey: rack}))
				s := gpuSlice(name, rapid.IntRange(0, 3).Draw(t, name+"-gpus"))
				sl = append(sl, s)
				for _, d := range s.Devices {
					if rapid.IntRange(0, 4).Draw(t, name+"-"+d.Name+"-held") == 0 {
						held = append(held, dev(gpuDriver, name, d.Name, "dev"))
					}
				}
			}
			var nics []string
			for k := range rapid.IntRange(0, 2).Draw(t, rack+"-nics") {
				nics = append(nics, fmt.Sprintf("nic%d", k))
			}
			sl = append(sl, netSlice(rack, &placement.LabelSelector{MatchLabels: map[string]string{rackKey: rack}}, nics...))
		}
		inv, err := dra.NewInventory(classes, sl)
		require.NoError(t, err)
		two := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "dev", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 2}}}}
		templates := []dra.ResourceClaimTemplate{tmpl("gpu1", oneOf("gpu")), tmpl("gpu2", two), tmpl("nic", oneOf("net"))}
		idle, err := dra.NewLedger(inv, templates, nil)
		require.NoError(t, err)
		var others []dra.ResourceClaim
		for i, h := range held {
			other := claim(fmt.Sprintf("other%d", i), oneOf("gpu"))
			other.Status = dra.ClaimStatus{Allocation: &dra.AllocationResult{Devices: []dra.DeviceResult{h}}, ReservedFor: []dra.ConsumerRef{dra.PodRef("x", "uid-x")}}
			others = append(others, other)
		}
		l, err := dra.NewLedger(inv, templates, others)
		require.NoError(t, err)
		var ms []placement.Pod
		for i := range rapid.IntRange(1, 3).Draw(t, "members") {
			name := fmt.Sprintf("m%d", i)
			claims := []placement.PodResourceClaim{byTemplate("gpu", rapid.SampledFrom([]string{"gpu1", "gpu2"}).Draw(t, name+"-gpu"))}
			if rapid.Bool().Draw(t, name+"-nic") {
				claims = append(claims, byTemplate("nic", "nic"))
			}
			ms = append(ms, pod(name, "pg", 1000, claims...))
		}
		s, err := placement.NewSnapshot(ns, nil)
		require.NoError(t, err)
		g := group("pg", int32(len(ms)), ms...)
		tree, err := topology.NewTree(s, []string{rackKey})
		require.NoError(t, err)
		opts, err := tree.SolverOptions([]topology.Constraint{{Key: rackKey}}, topology.MostAllocated)
		require.NoError(t, err)
		racks, err := opts.Generator.Generate(s, placement.GroupView{Group: g})
		require.NoError(t, err)
		for _, p := range racks {
			r, err := l.Reserver(podGroup("pg"), dra.Options{})(s, placement.GroupView{Group: g})
			require.NoError(t, err)
			rej := r.(placement.PlacementChecker).CheckPlacement(&p)
			if rej.OK() {
				continue
			}
			excluded++
			only := opts
			only.Generator = placement.PlacementGeneratorFunc(func(*placement.Snapshot, placement.GroupView) ([]placement.Placement, error) {
				return []placement.Placement{p}, nil
			})
			only.Reservers = []placement.NewReserverFunc{withoutCheck(l.Reserver(podGroup("pg"), dra.Options{}))}
			d, err := placement.Solve(s, g, only)
			require.NoError(t, err)
			require.NotEqual(t, placement.Scheduled, d.Status, "%s excluded: %s", p.Name, rej.Reason)
			if rej.Unresolvable {
				ri, err := idle.Reserver(podGroup("pg"), dra.Options{})(s, placement.GroupView{Group: g})
				require.NoError(t, err)
				require.False(t, ri.(placement.PlacementChecker).CheckPlacement(&p).OK())
			}
		}
	})
	require.Positive(t, excluded)
}
