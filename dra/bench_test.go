package dra_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
)

// benchWorld is the workload: 1,000 nodes with 8 node-local GPUs
// each and one network device reachable from every node. When busy, GPU
// gpu0 of every node but the last is held by a claim of its own.
func benchWorld(b *testing.B, busy bool) (*dra.Ledger, *placement.Snapshot, []placement.Node) {
	const nodes = 1000
	var sl []dra.ResourceSlice
	var ns []placement.Node
	for i := range nodes {
		name := fmt.Sprintf("n%04d", i)
		sl = append(sl, gpuSlice(name, 8))
		ns = append(ns, cpuNode(name, 8000, nil))
	}
	sl = append(sl, netSlice("fabric", nil, "nic0"))
	inv, err := dra.NewInventory(classes, sl)
	require.NoError(b, err)
	eight := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpus", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 8}}}}
	claims := []dra.ResourceClaim{claim("one", oneOf("gpu")), claim("eight", eight), claim("fabric", oneOf("net"))}
	if busy {
		for i := range nodes - 1 {
			c := claim(fmt.Sprintf("busy%04d", i), oneOf("gpu"))
			c.Status = dra.ClaimStatus{
				Allocation:  &dra.AllocationResult{Devices: []dra.DeviceResult{dev(gpuDriver, fmt.Sprintf("n%04d", i), "gpu0", "dev")}},
				ReservedFor: []dra.ConsumerRef{dra.PodRef(fmt.Sprintf("user%04d", i), "")},
			}
			claims = append(claims, c)
		}
	}
	l, err := dra.NewLedger(inv, nil, claims)
	require.NoError(b, err)
	s, err := placement.NewSnapshot(ns, nil)
	require.NoError(b, err)
	return l, s, ns
}

func members(n int, claims ...placement.PodResourceClaim) []placement.Pod {
	out := make([]placement.Pod, n)
	for i := range out {
		out[i] = pod(fmt.Sprintf("m%04d", i), "pg", 1000, claims...)
	}
	return out
}

// floor is one plain pass that touches every node and every member once.
func floor(s *placement.Snapshot, g *placement.Group) int64 {
	var sum int64
	for id := range s.NumNodes() {
		sum += s.Free(placement.NodeID(id), placement.ResourceCPU)
	}
	for i := range g.Members {
		sum += g.Members[i].Requests[placement.ResourceCPU] + int64(len(g.Members[i].ResourceClaims))
	}
	return sum
}

func solveBench(b *testing.B, l *dra.Ledger, s *placement.Snapshot, pg dra.PodGroup, g *placement.Group, want int) {
	opts := placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}}
	d, err := placement.Solve(s, g, opts)
	require.NoError(b, err)
	require.Equal(b, placement.Scheduled, d.Status, d.Message)
	require.Len(b, d.Assignments, want)
	b.Run("floor", func(b *testing.B) {
		var sink int64
		cputime.Loop(b, func() { sink += floor(s, g) })
		require.Positive(b, sink)
	})
	b.Run("solve", func(b *testing.B) {
		cputime.Loop(b, func() { d, _ = placement.Solve(s, g, opts) })
	})
	b.Run("solve+commit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, _ = placement.Solve(s, g, opts)
			_, _, _ = l.Commit(s, pg, g, d, dra.Options{})
		}
	})
	noop := func(*placement.Snapshot, placement.GroupView) (placement.Reserver, error) { return noopReserver{}, nil }
	b.Run("solve-noop-hook", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, _ = placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{noop}})
		}
	})
	noopRuns := func(*placement.Snapshot, placement.GroupView) (placement.Reserver, error) {
		return noopClassReserver{}, nil
	}
	b.Run("solve-noop-class-hook", func(b *testing.B) {
		cputime.Loop(b, func() {
			d, _ = placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{noopRuns}})
		})
	})
	b.Run("solve-without-dra", func(b *testing.B) {
		cputime.Loop(b, func() { d, _ = placement.Solve(s, g, placement.Options{}) })
	})
}

// BenchmarkPlan1GPU allocates a 1-GPU claim on one given node (upstream's
// structured allocator: about 23 µs here).
func BenchmarkPlan1GPU(b *testing.B) {
	l, _, ns := benchWorld(b, false)
	res, rej, err := l.Plan(&ns[500], dra.Options{}, key("one"))
	require.NoError(b, err)
	require.True(b, rej.OK())
	require.Equal(b, "n0500", res[0].NodeName)
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = l.Plan(&ns[500], dra.Options{}, key("one"))
	}
}

// BenchmarkSolve1GPU places one pod with a 1-GPU claim, any node.
func BenchmarkSolve1GPU(b *testing.B) {
	l, s, _ := benchWorld(b, false)
	solveBench(b, l, s, podGroup("pg"), group("pg", 1, members(1, byName("gpu", "one"))...), 1)
}

// BenchmarkSolve8GPUOneBusy places one pod with an 8-GPU claim when one
// GPU is busy on 999 of the 1,000 nodes (upstream: about 128k search steps
// and 180 ms).
func BenchmarkSolve8GPUOneBusy(b *testing.B) {
	l, s, _ := benchWorld(b, true)
	g := group("pg", 1, members(1, byName("gpu", "eight"))...)
	d, err := placement.Solve(s, g, placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(podGroup("pg"), dra.Options{})}})
	require.NoError(b, err)
	require.Equal(b, "n0999", d.Assignments[0].Node)
	solveBench(b, l, s, podGroup("pg"), g, 1)
}

// BenchmarkSolve512SharedClaim places a gang of 512 members that all use
// the group's network claim (allocated once, reserved for the PodGroup).
func BenchmarkSolve512SharedClaim(b *testing.B) {
	l, s, _ := benchWorld(b, false)
	pg := podGroup("pg", byName("net", "fabric"))
	solveBench(b, l, s, pg, group("pg", 512, members(512, byName("net", "fabric"))...), 512)
}

// noopReserver accepts everything: it measures what the solver itself
// spends once any Reserver is present.
type noopReserver struct{}

func (noopReserver) Filter(*placement.Pod, placement.NodeInfo) placement.Rejection {
	return placement.Rejection{}
}
func (noopReserver) Reserve(*placement.Pod, placement.NodeInfo)   {}
func (noopReserver) Unreserve(*placement.Pod, placement.NodeInfo) {}

// noopClassReserver accepts everything and every member alike: it
// measures what the solver spends on runs of members under a Reserver.
type noopClassReserver struct{ noopReserver }

func (noopClassReserver) ClassKey(*placement.Pod) string { return "-" }
func (noopClassReserver) ReserveRun(pods []*placement.Pod, _ placement.NodeInfo) (int, placement.Rejection) {
	return len(pods), placement.Rejection{}
}

// BenchmarkSolve64x8GPU places a gang of 64 members, each with a per-pod
// claim for 8 GPUs from one template, on 1,000 nodes of 8 GPUs: every
// member takes a whole node's GPUs.
func BenchmarkSolve64x8GPU(b *testing.B) {
	l, s, _ := benchWorld(b, false)
	eight := dra.ClaimSpec{Requests: []dra.DeviceRequest{{Name: "gpus", Exactly: &dra.ExactDeviceRequest{DeviceClassName: "gpu", Count: 8}}}}
	l, err := dra.NewLedger(l.Inventory(), []dra.ResourceClaimTemplate{tmpl("eight", eight)}, nil)
	require.NoError(b, err)
	solveBench(b, l, s, podGroup("pg"), group("pg", 64, members(64, byTemplate("gpus", "eight"))...), 64)
}

// BenchmarkGreedyTrap solves the greedy trap of length k (see trapWorld):
// the last member fits only once every earlier claim has moved off its
// first choice, so each member's re-search reaches back through the whole
// chain.
func BenchmarkGreedyTrap(b *testing.B) {
	for _, k := range []int{3, 6, 12, 24, 48} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			l, s, g := trapWorld(b, k)
			opts := placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(podGroup("pg"), dra.Options{})}}
			d, err := placement.Solve(s, g, opts)
			require.NoError(b, err)
			require.Equal(b, placement.Scheduled, d.Status, d.Message)
			require.True(b, d.Proven)
			b.ReportAllocs()
			for b.Loop() {
				_, _ = placement.Solve(s, g, opts)
			}
		})
	}
}

// BenchmarkRackCannotServe: 16 members × 8 GPUs, required in one rack,
// on two racks of 12 nodes × 8 GPUs (96 GPUs each, 128 needed). With the
// hook's CheckPlacement every rack is excluded before its member search
// and the decision is proven Unresolvable; without it (unchecked) the
// solver searches each rack until its budget runs out.
func BenchmarkRackCannotServe(b *testing.B) {
	for _, check := range []bool{true, false} {
		name := "checked"
		if !check {
			name = "unchecked"
		}
		b.Run(name, func(b *testing.B) {
			l, s, g, opts := rackWorld(b, 2, 12, 8, 16, 8)
			nr := l.Reserver(podGroup("pg"), dra.Options{})
			if !check {
				nr = withoutCheck(nr)
			}
			opts.Reservers = []placement.NewReserverFunc{nr}
			var d placement.Decision
			cputime.Loop(b, func() {
				var err error
				d, err = placement.Solve(s, g, opts)
				require.NoError(b, err)
			})
			proven := 0.0
			if d.Proven {
				proven = 1
			}
			b.ReportMetric(proven, "proven")
			b.ReportMetric(float64(d.Steps), "steps")
			b.Logf("%s: %s", d.Status, d.Message)
		})
	}
}

// BenchmarkGroupFabric: 64 members on 64 nodes, each with a NIC claim of
// its own; every node reaches fabric a (32 NICs, first in candidate order)
// and fabric b (64). With the PodGroup's matchAttribute fabric the 33rd
// member moves the first 32 onto b in one re-search; without it they mix.
func BenchmarkGroupFabric(b *testing.B) {
	for _, match := range []bool{false, true} {
		name := "free"
		if match {
			name = "one-fabric"
		}
		b.Run(name, func(b *testing.B) {
			sel := &placement.LabelSelector{MatchLabels: map[string]string{"zone": "z"}}
			var sl []dra.ResourceSlice
			for _, f := range []struct {
				name string
				n    int
			}{{"a", 32}, {"b", 64}} {
				s := netSlice("fab-"+f.name, sel)
				for i := range f.n {
					s.Devices = append(s.Devices, dra.Device{Name: fmt.Sprintf("nic%02d", i), Attributes: map[dra.QualifiedName]dra.Attribute{"fabric": dra.StringAttribute(f.name)}})
				}
				sl = append(sl, s)
			}
			inv, err := dra.NewInventory(classes, sl)
			require.NoError(b, err)
			l, err := dra.NewLedger(inv, []dra.ResourceClaimTemplate{tmpl("nic", oneOf("net"))}, nil)
			require.NoError(b, err)
			var ns []placement.Node
			for i := range 64 {
				ns = append(ns, cpuNode(fmt.Sprintf("n%02d", i), 1000, map[string]string{"zone": "z"}))
			}
			s, err := placement.NewSnapshot(ns, nil)
			require.NoError(b, err)
			g := group("pg", 64, members(64, byTemplate("nic", "nic"))...)
			pg := podGroup("pg")
			if match {
				pg.DeviceConstraints = []dra.GroupDeviceConstraint{{MatchAttribute: "fabric"}}
			}
			opts := placement.Options{Reservers: []placement.NewReserverFunc{l.Reserver(pg, dra.Options{})}}
			var d placement.Decision
			cputime.Loop(b, func() {
				d, err = placement.Solve(s, g, opts)
				require.NoError(b, err)
			})
			require.Equal(b, placement.Scheduled, d.Status, d.Message)
		})
	}
}
