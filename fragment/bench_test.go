package fragment_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/fragment"
	"github.com/gangsched/gangsched/placement"
)

// openbShape is a cluster of the openb trace's size: 1,523 nodes of 96
// cores, the first 777 with 8 GPUs each (6,216 GPUs; openb has 6,212).
const openbNodes, openbGPUNodes = 1523, 777

func openbNode(i int) (placement.Node, int) {
	n := placement.Node{Name: fmt.Sprintf("openb-node-%04d", i), Allocatable: placement.ResourceList{placement.ResourceCPU: 96000}}
	if i >= openbGPUNodes {
		return n, 0
	}
	n.Allocatable[fragment.ResourceGPUMilli] = 8 * fragment.MilliGPU
	return n, 8
}

func sharePod(i int) placement.Pod {
	return placement.Pod{Namespace: "default", Name: fmt.Sprintf("share-%04d", i), SchedulingGroup: fmt.Sprintf("share-%04d", i),
		Requests: placement.ResourceList{placement.ResourceCPU: 4000, fragment.ResourceGPUMilli: 500}}
}

// BenchmarkDRASharedGPU: the dra package's consumable capacity as the GPU
// model (each device shared, 1,000 milli of capacity "milli"; each pod a
// claim of 500 from a template): one 500-milli pod solved and committed
// on the empty openb-sized cluster, per iteration.
func BenchmarkDRASharedGPU(b *testing.B) {
	const driver = "gpu.example.com"
	var nodes []placement.Node
	var slices []dra.ResourceSlice
	for i := range openbNodes {
		n, gpus := openbNode(i)
		delete(n.Allocatable, fragment.ResourceGPUMilli)
		nodes = append(nodes, n)
		if gpus == 0 {
			continue
		}
		sl := dra.ResourceSlice{Name: "gpus-" + n.Name, Driver: driver, Pool: n.Name, NodeName: n.Name}
		for d := range gpus {
			sl.Devices = append(sl.Devices, dra.Device{Name: fmt.Sprintf("gpu%d", d), AllowMultipleAllocations: true,
				Capacity: map[dra.QualifiedName]int64{"milli": fragment.MilliGPU}})
		}
		slices = append(slices, sl)
	}
	classes := []dra.DeviceClass{{Name: "gpu", Selectors: []dra.Selector{func(d string, _ *dra.Device) bool { return d == driver }}}}
	inv, err := dra.NewInventory(classes, slices)
	require.NoError(b, err)
	share := dra.ResourceClaimTemplate{Namespace: "default", Name: "share", Spec: dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpu",
		Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Capacity: map[dra.QualifiedName]int64{"milli": 500}}}}}}
	l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{share}, nil)
	require.NoError(b, err)
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(b, err)
	p := sharePod(0)
	delete(p.Requests, fragment.ResourceGPUMilli)
	p.UID = "uid-share-0000"
	p.ResourceClaims = []placement.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: "share"}}
	g := &placement.Group{Namespace: "default", Name: p.SchedulingGroup, MinCount: 1, Members: []placement.Pod{p}}
	pg := dra.PodGroup{Namespace: "default", Name: g.Name, UID: "uid-" + g.Name}
	opts := placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}}
	d, err := placement.Solve(s, g, opts)
	require.NoError(b, err)
	require.Equal(b, placement.Scheduled, d.Status, d.Message)
	b.ReportAllocs()
	for b.Loop() {
		d, _ = placement.Solve(s, g, opts)
		_, _, err = l.Commit(s, pg, g, d, dra.Options{})
	}
	require.NoError(b, err)
}

// BenchmarkPluginSolve: the same pod on the same cluster through a Plugin
// (the Reserver's per-device filter and the policy as the node scorer),
// per policy, solved and its devices allocated.
func BenchmarkPluginSolve(b *testing.B) {
	var nodes []placement.Node
	var gpus []fragment.NodeGPUs
	for i := range openbNodes {
		n, c := openbNode(i)
		nodes = append(nodes, n)
		model := ""
		if c > 0 {
			model = "G2"
		}
		gpus = append(gpus, fragment.NodeGPUs{Name: n.Name, Model: model, Count: c})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(b, err)
	p := sharePod(0)
	g := &placement.Group{Namespace: "default", Name: p.SchedulingGroup, MinCount: 1, Members: []placement.Pod{p}}
	w, err := fragment.NewWorkload(openbLikeShapes(), 95)
	require.NoError(b, err)
	for _, c := range policies(w) {
		b.Run(c.name, func(b *testing.B) {
			devs, err := fragment.NewDevices(gpus)
			require.NoError(b, err)
			pl := fragment.NewPlugin(devs, c.p)
			d, err := placement.Solve(s, g, pl.Options())
			require.NoError(b, err)
			require.Equal(b, placement.Scheduled, d.Status, d.Message)
			b.ReportAllocs()
			for b.Loop() {
				d, _ = placement.Solve(s, g, pl.Options())
				a, err := devs.Allocate(p.Key().String(), fragment.Request{CPU: 4000, GPUMilli: 500, GPUs: 1}, d.Assignments[0].Node, 96000, c.p)
				if err == nil {
					err = devs.Release(a)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type namedPolicy struct {
	name string
	p    fragment.Policy
}

func policies(w *fragment.Workload) []namedPolicy {
	return []namedPolicy{
		{"random", fragment.Random{Seed: 42}}, {"bestfit", fragment.BestFit{}}, {"dotprod", fragment.DotProduct{}},
		{"gpupacking", fragment.GPUPacking{}}, {"fgd", fragment.NewFGD(w)},
	}
}

// openbLikeShapes is a made-up pod mix of the trace's kinds: CPU-only,
// shares of one GPU, one, two and eight whole GPUs.
func openbLikeShapes() []fragment.Request {
	var out []fragment.Request
	add := func(n int, r fragment.Request) {
		for range n {
			out = append(out, r)
		}
	}
	add(13, fragment.Request{CPU: 8000})
	add(20, fragment.Request{CPU: 4000, GPUMilli: 500, GPUs: 1})
	add(10, fragment.Request{CPU: 6000, GPUMilli: 250, GPUs: 1})
	add(45, fragment.Request{CPU: 12000, GPUMilli: 1000, GPUs: 1})
	add(6, fragment.Request{CPU: 24000, GPUMilli: 1000, GPUs: 2})
	add(6, fragment.Request{CPU: 64000, GPUMilli: 1000, GPUs: 8})
	return out
}
