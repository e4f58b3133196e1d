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

// checkedHook is the hook hidden as a plain Reserver (the solver asks it
// about every member on every node) that, before each Filter, has the
// shortcuts answer in the state the solve reached and requires the full
// paths' answers of them: the slow path's verdict, the search's devices.
type checkedHook struct {
	placement.Reserver
	t        *rapid.T
	answered *[5]int // by the slow path's shortcut, by the search's, by nearOf's locals, by a node noted full, by the slow path's shortcut from that note
}

func (h checkedHook) Filter(p *placement.Pod, ni placement.NodeInfo) placement.Rejection {
	n, agree := dra.KnownFullAgrees(h.Reserver, p, ni)
	require.True(h.t, agree, "member %s on node %s: the node noted full has room for the search", p.Name, ni.Node().Name)
	h.answered[3] += n
	n, noted, agree := dra.SaturatedAgrees(h.Reserver, p, ni)
	require.True(h.t, agree, "member %s on node %s: the shortcut's verdict is not the slow path's", p.Name, ni.Node().Name)
	h.answered[0] += n
	h.answered[4] += noted
	n, agree = dra.PlainAgrees(h.Reserver, p, ni)
	require.True(h.t, agree, "member %s on node %s: the shortcut's devices are not the search's", p.Name, ni.Node().Name)
	h.answered[1] += n
	n, agree = dra.NearAgrees(h.Reserver, p, ni)
	require.True(h.t, agree, "member %s on node %s: the memoized devices near the node are not the list built afresh", p.Name, ni.Node().Name)
	h.answered[2] += n
	return h.Reserver.Filter(p, ni)
}

// runCheckedHook reserves a run member by member (ReserveRun of one),
// asking first, for each, whether a node noted full answers as the
// search (KnownFullAgrees) and whether the slow path's shortcut answers
// as the slow path (SaturatedAgrees): within a run the note is what plan
// and the shortcut read next.
type runCheckedHook struct {
	placement.ClassReserver
	t        *rapid.T
	answered *[5]int
}

func (h runCheckedHook) ReserveRun(pods []*placement.Pod, ni placement.NodeInfo) (int, placement.Rejection) {
	for k, p := range pods {
		n, agree := dra.KnownFullAgrees(h.ClassReserver, p, ni)
		require.True(h.t, agree, "member %s on node %s: the node noted full has room for the search", p.Name, ni.Node().Name)
		h.answered[3] += n
		n, noted, agree := dra.SaturatedAgrees(h.ClassReserver, p, ni)
		require.True(h.t, agree, "member %s on node %s: the shortcut's verdict is not the slow path's", p.Name, ni.Node().Name)
		h.answered[0] += n
		h.answered[4] += noted
		if c, rej := h.ClassReserver.ReserveRun(pods[k:k+1], ni); c == 0 {
			return k, rej
		}
	}
	return len(pods), placement.Rejection{}
}

func checked(t *rapid.T, nr placement.NewReserverFunc, answered *[5]int) placement.NewReserverFunc {
	return func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
		r, err := nr(s, g)
		if err != nil {
			return nil, err
		}
		return checkedHook{r, t, answered}, nil
	}
}

// genSaturatedWorld: up to 3 nodes with 0–5 GPUs of model x or y each
// (on some, sharing a counter of 1–3 units), a
// pool of 0–2 GPUs every node reaches, 0–2 of the GPUs already allocated
// in the ledger, and 1–5 members asking, through templates, for 1–3 GPUs
// of any model, of model x, of 2 GPUs of one model (a constraint: the
// shortcut stands aside), for the PodGroup's GPU claim, or for both one
// of their own and the PodGroup's.
func genSaturatedWorld(t *rapid.T) (*dra.Ledger, *placement.Snapshot, dra.PodGroup, *placement.Group) {
	model := dra.QualifiedName("model")
	gpu := func(name string) dra.Device {
		m := rapid.SampledFrom([]string{"x", "y"}).Draw(t, name)
		return dra.Device{Name: name, Attributes: map[dra.QualifiedName]dra.Attribute{model: dra.StringAttribute(m)}}
	}
	var sl []dra.ResourceSlice
	var nodes []placement.Node
	var devs []dra.DeviceID
	for i := range rapid.IntRange(1, 3).Draw(t, "nodes") {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, cpuNode(name, rapid.SampledFrom([]int64{1000, 2000, 4000}).Draw(t, name+"-cpu"), nil))
		s := dra.ResourceSlice{Name: name, Driver: gpuDriver, Pool: name, NodeName: name}
		// Some nodes' GPUs share a counter that holds fewer than all of
		// them: the shortcut must stand aside.
		units := rapid.IntRange(0, 3).Draw(t, name+"-units")
		if units > 0 {
			s.SharedCounters = []dra.CounterSet{{Name: "mem", Counters: map[string]int64{"units": int64(units)}}}
		}
		for j := range rapid.IntRange(0, 5).Draw(t, name+"-gpus") {
			s.Devices = append(s.Devices, gpu(fmt.Sprintf("%s-gpu%d", name, j)))
			if units > 0 {
				s.Devices[j].ConsumesCounters = []dra.CounterConsumption{{CounterSet: "mem", Counters: map[string]int64{"units": 1}}}
				continue // not taken by the ledger: two might overdraw the counter
			}
			devs = append(devs, dra.DeviceID{Driver: gpuDriver, Pool: name, Device: s.Devices[j].Name})
		}
		sl = append(sl, s)
	}
	shared := dra.ResourceSlice{Name: "shared", Driver: gpuDriver, Pool: "shared", AllNodes: true}
	for j := range rapid.IntRange(0, 2).Draw(t, "shared-gpus") {
		shared.Devices = append(shared.Devices, gpu(fmt.Sprintf("shared-gpu%d", j)))
		devs = append(devs, dra.DeviceID{Driver: gpuDriver, Pool: "shared", Device: shared.Devices[j].Name})
	}
	sl = append(sl, shared)
	inv, err := dra.NewInventory(classes, sl)
	require.NoError(t, err)
	gpus := func(n int64, sels ...dra.Selector) dra.ClaimSpec {
		return dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpus", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: n, Selectors: sels}}}}
	}
	same := gpus(2)
	same.Constraints = []dra.DeviceConstraint{{MatchAttribute: model}}
	templates := []dra.ResourceClaimTemplate{tmpl("one", gpus(1)), tmpl("two", gpus(2)), tmpl("three", gpus(3)),
		tmpl("x", gpus(1, dra.AttributeEquals(model, dra.StringAttribute("x")))), tmpl("same", same)}
	var busy []dra.ResourceClaim
	for k := range rapid.IntRange(0, min(2, len(devs))).Draw(t, "busy") {
		d := devs[rapid.IntRange(0, len(devs)-1).Draw(t, fmt.Sprintf("busy%d", k))]
		if slices.ContainsFunc(busy, func(c dra.ResourceClaim) bool { return c.Status.Allocation.Devices[0].DeviceID == d }) {
			continue
		}
		c := claim(fmt.Sprintf("busy%d", k), oneOf("gpu"))
		c.Status = dra.ClaimStatus{Allocation: &dra.AllocationResult{Devices: []dra.DeviceResult{{Request: "dev", DeviceID: d}}},
			ReservedFor: []dra.ConsumerRef{dra.PodRef(fmt.Sprintf("user%d", k), "")}}
		busy = append(busy, c)
	}
	l, err := dra.NewLedger(inv, templates, busy)
	require.NoError(t, err)
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	pg := podGroup("pg", byTemplate("grp", "two"))
	var members []placement.Pod
	for i := range rapid.IntRange(1, 5).Draw(t, "members") {
		name := fmt.Sprintf("m%d", i)
		entries := []placement.PodResourceClaim{byTemplate("gpus", rapid.SampledFrom([]string{"one", "two", "three", "x", "same"}).Draw(t, name+"-tmpl"))}
		switch rapid.IntRange(0, 4).Draw(t, name+"-group") {
		case 0:
			entries[0] = byTemplate("grp", "two")
		case 1: // a claim of its own and the PodGroup's
			entries = append(entries, byTemplate("grp", "two"))
		}
		members = append(members, pod(name, "pg", 1000, entries...))
	}
	return l, s, pg, group("pg", int32(rapid.IntRange(1, len(members)).Draw(t, "minCount")), members...)
}

// TestProp_ShortcutsAreTheFullPaths: in every state a solve passes
// through (each member on each node, one by one), the slow path's
// shortcut, when it answers, gives the full slow path's verdict (the same
// outcome, reason, claims and idle-cluster answer, worded or terse), in
// the solve's states and in runs', at once from a node noted full too; the
// search's shortcut, when it picks, picks the depth-first search's
// devices, and hands them back with the same alternatives; the devices
// near a node, memoized (a node's locals themselves when they are the
// list), are the list built afresh; a node that plan noted full after a
// plain pick leaves the search too few candidates. Each answers in many
// of them. And resolve, which skips the checks of a member whose entries
// are its predecessor's, gives every member the claims it gets alone.
func TestProp_ShortcutsAreTheFullPaths(t *testing.T) {
	var answered [5]int
	same := 0
	prop := func(t *rapid.T) {
		l, s, pg, g := genSaturatedWorld(t)
		// The members, and copies of them that often take their
		// predecessor's entries and ask for little CPU, so that runs of
		// them stop on a node for its devices.
		members, alike := make([]*placement.Pod, len(g.Members)), make([]placement.Pod, len(g.Members))
		for i := range g.Members {
			members[i], alike[i] = &g.Members[i], g.Members[i]
			alike[i].Requests = placement.ResourceList{placement.ResourceCPU: 100}
			if i > 0 && rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("alike%d", i)) > 0 {
				alike[i].ResourceClaims = alike[i-1].ResourceClaims
			}
		}
		for _, ms := range [][]*placement.Pod{members, {}} {
			if len(ms) == 0 {
				for i := range alike {
					ms = append(ms, &alike[i])
				}
			}
			n, agree := dra.ResolveAgrees(l, pg, ms)
			require.True(t, agree, "resolving the members together is not resolving each alone")
			same += n
		}
		_, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{checked(t, l.Reserver(pg, dra.Options{}), &answered)}})
		require.NoError(t, err)
		// The members alike, in runs.
		ga := *g
		ga.Members = alike
		nr := l.Reserver(pg, dra.Options{})
		runs := func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
			r, err := nr(s, g)
			if err != nil {
				return nil, err
			}
			return runCheckedHook{r.(placement.ClassReserver), t, &answered}, nil
		}
		_, err = placement.Solve(s, &ga, placement.Options{Reservers: []placement.NewReserverFunc{runs}})
		require.NoError(t, err)
	}
	// A node noted full answers in a few worlds of a hundred: several
	// rounds of the default checks, each from its own seed.
	for range 4 {
		rapid.Check(t, prop)
	}
	require.Greater(t, answered[0], 50)
	require.Greater(t, answered[1], 50)
	require.Greater(t, answered[2], 50)
	require.Greater(t, answered[3], 20)
	require.Greater(t, answered[4], 20)
	require.Greater(t, same, 50)
}
