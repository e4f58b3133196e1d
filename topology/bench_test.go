package topology_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// workload is a named benchmark: a cluster, the tree keys, and gangs placed
// one after the other (solve, then bind the decision into the snapshot the
// next gang sees), as the gang cycle does.
type workload struct {
	nodes   []placement.Node
	keys    []string
	cs      []topology.Constraint
	scoring topology.Scoring
	gangs   []*placement.Group
	// exhaustive replaces the generator by one that proposes every domain
	// of the required key in one tier, scored by placement.DefaultScorer:
	// the cost of trying every domain, for comparison.
	exhaustive bool
}

// tasRacks is upstream's scheduler_perf node shape (cpu:4, memory 32Gi,
// pods:110) in racks of 100.
func tasRacks(nodes int) []placement.Node {
	out := make([]placement.Node, nodes)
	for i := range out {
		out[i] = node(fmt.Sprintf("node-%05d", i), 4000, rackKey, fmt.Sprintf("rack-%03d", i/100), hostKey, fmt.Sprintf("node-%05d", i))
		out[i].Allocatable[placement.ResourceMemory] = 32 << 30
		out[i].Allocatable[placement.ResourcePods] = 110
	}
	return out
}

// gangsOf makes gangs of upstream's scheduler_perf pods (cpu 100m, memory
// 100Mi); minCount is the size.
func gangsOf(count, size int) []*placement.Group {
	out := make([]*placement.Group, count)
	for i := range out {
		name := fmt.Sprintf("pg-%04d", i)
		ms := make([]placement.Pod, size)
		for j := range ms {
			ms[j] = member(fmt.Sprintf("%s-%04d", name, j), name, 100)
			ms[j].Requests[placement.ResourceMemory] = 100 << 20
		}
		out[i] = gang(name, int32(size), ms)
	}
	return out
}

// gpuTree is 3 blocks of 40 racks, 1,000 hosts of 8 GPUs spread over the
// racks, and gangs of 1–64 one-GPU pods in a fixed pseudo-random order.
func gpuTree(gangs int, scoring topology.Scoring) workload {
	w := workload{keys: []string{blockKey, rackKey, hostKey},
		cs: []topology.Constraint{required(blockKey), preferred(rackKey)}, scoring: scoring}
	for i := range 1000 {
		rack := i % 120
		n := node(fmt.Sprintf("host-%04d", i), 64000, blockKey, fmt.Sprintf("block-%d", rack/40), rackKey, fmt.Sprintf("rack-%03d", rack), hostKey, fmt.Sprintf("host-%04d", i))
		n.Allocatable[gpu] = 8
		w.nodes = append(w.nodes, n)
	}
	sizes := []int{1, 2, 4, 8, 16, 32, 64}
	x := uint32(12345)
	for i := range gangs {
		x = x*1664525 + 1013904223 // fixed LCG: the same sequence every run
		size := sizes[int(x>>16)%len(sizes)]
		name := fmt.Sprintf("pg-%04d", i)
		ms := make([]placement.Pod, size)
		for j := range ms {
			ms[j] = placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-%02d", name, j), SchedulingGroup: name,
				Requests: placement.ResourceList{cpu: 1000, gpu: 1}}
		}
		w.gangs = append(w.gangs, gang(name, int32(size), ms))
	}
	return w
}

// run places every gang of w on s, returns the final snapshot and the
// number scheduled.
func (w workload) run(b testing.TB, s *placement.Snapshot, tr *topology.Tree) (*placement.Snapshot, int) {
	opts, err := tr.SolverOptions(w.cs, w.scoring)
	require.NoError(b, err)
	if w.exhaustive {
		level, _ := tr.Level(w.cs[0].Key)
		opts = placement.Options{Generator: exhaustive(tr, level)}
	}
	scheduled := 0
	for _, g := range w.gangs {
		d, err := placement.Solve(s, g, opts)
		require.NoError(b, err)
		if d.Status == placement.Scheduled {
			scheduled++
			s = commit(b, s, g, d)
		}
	}
	return s, scheduled
}

// bench times the whole sequence per op and, right after each, with the
// timer stopped, the floor: one plain pass per decision that touches every
// node (its free quantity of each resource the gangs request, through the
// Snapshot API) and every member once — what any placement that looked at
// the whole cluster would pay at least. x-floor is the fastest sequence over
// the fastest floor pass of the run (the machine is shared; minimums keep
// the ratio steadier than means).
func (w workload) bench(b *testing.B, wantScheduled int) {
	s0 := snapshot(b, w.nodes)
	tr := tree(b, s0, w.keys...)
	// Check the result is non-trivial before timing: every gang (or the
	// expected number) placed.
	_, n := w.run(b, s0, tr)
	require.Equal(b, wantScheduled, n)
	res := []placement.ResourceName{cpu, placement.ResourceMemory}
	if _, ok := w.nodes[0].Allocatable[gpu]; ok {
		res = []placement.ResourceName{cpu, gpu}
	}
	var sink int64
	var floorTotal time.Duration
	minRun, minFloor := time.Duration(1<<63-1), time.Duration(1<<63-1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		w.run(b, s0, tr)
		minRun = min(minRun, time.Since(start))
		b.StopTimer()
		start = time.Now()
		for _, g := range w.gangs {
			for id := range placement.NodeID(s0.NumNodes()) {
				for _, r := range res {
					sink += s0.Free(id, r)
				}
			}
			for i := range g.Members {
				sink += g.Members[i].Requests[cpu]
			}
		}
		f := time.Since(start)
		floorTotal += f
		minFloor = min(minFloor, f)
		b.StartTimer()
	}
	require.NotZero(b, sink)
	decisions := float64(b.N * len(w.gangs))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/decisions, "ns/decision")
	b.ReportMetric(float64(floorTotal.Nanoseconds())/decisions, "floor-ns/decision")
	b.ReportMetric(float64(minRun)/float64(minFloor), "x-floor")
}

// BenchmarkTASRack: upstream's TAS perf sizes — 5,000 nodes in 50 racks of
// 100, gangs of 4 pods with a required rack, 750 and 2,250 gangs placed one
// after the other — plus 10,000 nodes (100 racks) to show that a decision
// does not grow with the nodes outside the rack it uses, and the 750 gangs
// with every rack tried (exhaustive) for comparison.
func BenchmarkTASRack(b *testing.B) {
	for _, c := range []struct {
		nodes, gangs int
		exhaustive   bool
	}{{5000, 750, false}, {5000, 750, true}, {5000, 2250, false}, {10000, 750, false}} {
		w := workload{nodes: tasRacks(c.nodes), keys: []string{rackKey, hostKey},
			cs: []topology.Constraint{required(rackKey)}, gangs: gangsOf(c.gangs, 4), exhaustive: c.exhaustive}
		name := fmt.Sprintf("nodes=%d/gangs=%d", c.nodes, c.gangs)
		if c.exhaustive {
			name += "/exhaustive"
		}
		b.Run(name, func(b *testing.B) { w.bench(b, c.gangs) })
	}
}

// BenchmarkTASLargeGangs: upstream's 3 gangs of 1,000 pods on the same
// 5,000 nodes, each requiring a rack.
func BenchmarkTASLargeGangs(b *testing.B) {
	w := workload{nodes: tasRacks(5000), keys: []string{rackKey, hostKey},
		cs: []topology.Constraint{required(rackKey)}, gangs: gangsOf(3, 1000)}
	b.Run("gangs=3x1000", func(b *testing.B) { w.bench(b, 3) })
}

// BenchmarkGPUTree: 3 blocks, 120 racks, 1,000 hosts of 8 GPUs; 300 gangs of
// 1–64 one-GPU pods, each requiring a block and preferring a rack, with
// either scorer.
func BenchmarkGPUTree(b *testing.B) {
	for _, sc := range []topology.Scoring{topology.MostAllocated, topology.BestFit} {
		w := gpuTree(300, sc)
		want := expectedGPU(b, w)
		b.Run("scoring="+sc.String(), func(b *testing.B) { w.bench(b, want) })
	}
}

// expectedGPU counts the gangs that fit, by a first run, and checks that
// most do: the workload is non-trivial and does not saturate early.
func expectedGPU(b *testing.B, w workload) int {
	s0 := snapshot(b, w.nodes)
	_, n := w.run(b, s0, tree(b, s0, w.keys...))
	require.Greater(b, n, len(w.gangs)*9/10)
	return n
}
