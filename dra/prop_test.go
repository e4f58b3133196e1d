package dra_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// hookWorld is a small random cluster: 1-4 nodes in racks a and b, each
// with 0-2 GPUs (a GPU may be a partitionable device offered whole or as
// two halves), a network pool reachable from rack a, and a PodGroup of
// 1-4 members that use the group's network claim, a GPU claim of their
// own (first choice a whole GPU, else a half), or both.
type hookWorld struct {
	l     *dra.Ledger
	s     *placement.Snapshot
	pg    dra.PodGroup
	g     *placement.Group
	viaPG map[string]bool // members using the group's claim
	// mirror is the same world built from every input list reversed.
	mirror *dra.Ledger
	mg     *placement.Group
}

func genHookWorld(t *rapid.T) hookWorld {
	kind := dra.QualifiedName("kind")
	var sl []dra.ResourceSlice
	var nodes []placement.Node
	for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
		name := fmt.Sprintf("n%d", i)
		rack := rapid.SampledFrom([]string{"a", "b"}).Draw(t, name+"-rack")
		nodes = append(nodes, cpuNode(name, rapid.SampledFrom([]int64{1000, 2000, 4000}).Draw(t, name+"-cpu"), map[string]string{"rack": rack}))
		s := dra.ResourceSlice{Name: name, Driver: gpuDriver, Pool: name, NodeName: name}
		for j := range rapid.IntRange(0, 2).Draw(t, name+"-gpus") {
			set := fmt.Sprintf("phys%d", j)
			attr := func(k string) map[dra.QualifiedName]dra.Attribute {
				return map[dra.QualifiedName]dra.Attribute{kind: dra.StringAttribute(k)}
			}
			use := func(n int64) []dra.CounterConsumption {
				return []dra.CounterConsumption{{CounterSet: set, Counters: map[string]int64{"units": n}}}
			}
			s.SharedCounters = append(s.SharedCounters, dra.CounterSet{Name: set, Counters: map[string]int64{"units": 2}})
			s.Devices = append(s.Devices, dra.Device{Name: fmt.Sprintf("whole%d", j), Attributes: attr("whole"), ConsumesCounters: use(2)})
			if rapid.Bool().Draw(t, fmt.Sprintf("%s-gpu%d-split", name, j)) {
				s.Devices = append(s.Devices,
					dra.Device{Name: fmt.Sprintf("half%d-0", j), Attributes: attr("half"), ConsumesCounters: use(1)},
					dra.Device{Name: fmt.Sprintf("half%d-1", j), Attributes: attr("half"), ConsumesCounters: use(1)})
			}
		}
		sl = append(sl, s)
	}
	var nics []string
	for i := range rapid.IntRange(0, 2).Draw(t, "nics") {
		nics = append(nics, fmt.Sprintf("nic%d", i))
	}
	sl = append(sl, netSlice("rack-a", &placement.LabelSelector{MatchLabels: map[string]string{"rack": "a"}}, nics...))
	inv, err := dra.NewInventory(classes, sl)
	require.NoError(t, err)
	sub := func(name string) dra.DeviceSubRequest {
		return dra.DeviceSubRequest{Name: name, ExactDeviceRequest: dra.ExactDeviceRequest{DeviceClassName: "gpu",
			Selectors: []dra.Selector{dra.AttributeEquals(kind, dra.StringAttribute(name))}}}
	}
	gpuSpec := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu", FirstAvailable: []dra.DeviceSubRequest{sub("whole"), sub("half")}}}}
	templates := []dra.ResourceClaimTemplate{tmpl("gpu-tmpl", gpuSpec), tmpl("net-tmpl", oneOf("net"))}
	l, err := dra.NewLedger(inv, templates, nil)
	require.NoError(t, err)
	slices.Reverse(sl)
	for i := range sl {
		slices.Reverse(sl[i].Devices)
	}
	rclasses := slices.Clone(classes)
	slices.Reverse(rclasses)
	minv, err := dra.NewInventory(rclasses, sl)
	require.NoError(t, err)
	slices.Reverse(templates)
	mirror, err := dra.NewLedger(minv, templates, nil)
	require.NoError(t, err)
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)

	w := hookWorld{l: l, s: s, mirror: mirror, pg: podGroup("pg", byTemplate("net", "net-tmpl")), viaPG: map[string]bool{}}
	var members []placement.Pod
	for i := range rapid.IntRange(1, 4).Draw(t, "members") {
		name := fmt.Sprintf("m%d", i)
		var claims []placement.PodResourceClaim
		switch rapid.IntRange(0, 2).Draw(t, name+"-claims") {
		case 0:
			claims = append(claims, byTemplate("net", "net-tmpl"))
			w.viaPG[name] = true
		case 1:
			claims = append(claims, byTemplate("gpu", "gpu-tmpl"))
		case 2:
			claims = append(claims, byTemplate("net", "net-tmpl"), byTemplate("gpu", "gpu-tmpl"))
			w.viaPG[name] = true
		}
		members = append(members, pod(name, "pg", 1000, claims...))
	}
	minCount := rapid.IntRange(1, len(members)).Draw(t, "minCount")
	w.g = group("pg", int32(minCount), members...)
	w.mg = group("pg", int32(minCount), slices.Clone(members)...)
	slices.Reverse(w.mg.Members)
	return w
}

// hookProp solves and commits a random world and checks DESIGN.md
// invariant 8 on the result: no device in two claims, every placed member
// reaches the allocations of its claims, the group's claim is generated
// once and reserved for exactly the PodGroup, each pod's own claim for
// exactly that pod, and no claim is allocated without being reserved.
func hookProp(outcomes map[placement.Status]int) func(*rapid.T) {
	return func(t *rapid.T) {
		w := genHookWorld(t)
		d, err := placement.Solve(w.s, w.g, placement.Options{Reservers: []placement.NewReserverFunc{w.l.Reserver(w.pg, dra.Options{})}})
		require.NoError(t, err)
		outcomes[d.Status]++
		require.NoError(t, placement.Verify(w.s, w.g, d))
		n, ups, err := w.l.Commit(w.s, w.pg, w.g, d, dra.Options{})
		require.NoError(t, err)

		// Invariant 6: the input order changes nothing.
		md, err := placement.Solve(w.s, w.mg, placement.Options{Reservers: []placement.NewReserverFunc{w.mirror.Reserver(w.pg, dra.Options{})}})
		require.NoError(t, err)
		require.Equal(t, d.Assignments, md.Assignments)
		require.Equal(t, d.Message, md.Message)
		_, mups, err := w.mirror.Commit(w.s, w.pg, w.mg, md, dra.Options{})
		require.NoError(t, err)
		require.Equal(t, ups, mups)
		if d.Status != placement.Scheduled {
			require.Same(t, w.l, n)
			require.Empty(t, ups)
			return
		}
		checkAllocations(t, n, w.s, w.pg, w.g, d)
		groupUsed := slices.ContainsFunc(d.Assignments, func(a placement.Assignment) bool { return w.viaPG[a.Pod.Name] })
		gk, ok := n.Generated(dra.OwnerPodGroup, w.g.Key(), "net")
		require.Equal(t, groupUsed, ok, "the group claim exists exactly when a placed member uses it")
		if ok {
			require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("pg", "uid-pg")}, reservedFor(t, n, gk.Name))
		}
		for _, a := range d.Assignments {
			if k, own := n.Generated(dra.OwnerPod, a.Pod, "gpu"); own {
				require.Equal(t, []dra.ConsumerRef{dra.PodRef(a.Pod.Name, "uid-"+a.Pod.Name)}, reservedFor(t, n, k.Name))
			}
		}
		count := 0
		for c := range n.Claims() {
			count++
			require.Equal(t, c.Status.Allocation != nil, len(c.Status.ReservedFor) > 0, "claim %s", c.Key())
		}
		require.Len(t, ups, count, "every claim was created by this commit")
	}
}

func TestProp_HookInvariants(t *testing.T) {
	rapid.Check(t, hookProp(map[placement.Status]int{}))
}

// TestProp_HookGenerator shows that the random worlds are sometimes
// placed and sometimes not.
func TestProp_HookGenerator(t *testing.T) {
	outcomes := map[placement.Status]int{}
	rapid.Check(t, hookProp(outcomes))
	require.Positive(t, outcomes[placement.Scheduled])
	require.Positive(t, outcomes[placement.Unschedulable]+outcomes[placement.Unresolvable])
}
