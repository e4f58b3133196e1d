package preemption_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
	"github.com/gangsched/gangsched/topology"
)

// workload is a named benchmark input.
type workload struct {
	s     *placement.Snapshot
	g     *placement.Group
	in    preemption.Input
	opts  placement.Options
	pods  int // bound pods
	nodes int
}

func wholeGroups(in *preemption.Input, names ...string) {
	if in.PodGroups == nil {
		in.PodGroups = map[placement.Key]preemption.PodGroupSpec{}
	}
	for _, n := range names {
		in.PodGroups[key(n)] = preemption.PodGroupSpec{DisruptionMode: preemption.DisruptionModePodGroup}
	}
}

func build(tb testing.TB, nodes []placement.Node, pods []placement.Pod, g *placement.Group, in preemption.Input) workload {
	s, err := placement.NewSnapshot(nodes, pods)
	require.NoError(tb, err)
	return workload{s: s, g: g, in: in, pods: len(pods), nodes: len(nodes)}
}

func nodeName(i int) string { return fmt.Sprintf("n%05d", i) }

// upstream1000: 100 nodes of 10 CPUs, each running 10 low pods of 1 CPU
// (1,000 in all, started one second apart); a high gang of 100 × 1 CPU.
func upstream1000(b testing.TB) workload {
	var nodes []placement.Node
	var pods []placement.Pod
	for i := range 100 {
		nodes = append(nodes, node(nodeName(i), cpu(10000)))
		for j := range 10 {
			p := bound(fmt.Sprintf("low-%03d-%d", i, j), nodeName(i), "", low, cpu(1000))
			p.StartTime = t0.Add(time.Duration((i*10+j)*7%1000) * time.Second)
			pods = append(pods, p)
		}
	}
	return build(b, nodes, pods, gang("hi", 100, 100, high, cpu(1000)), preemption.Input{})
}

// upstreamGroups: 100 nodes of 8 CPUs filled by 5 low PodGroups
// (disruptionMode PodGroup) of 160 pods, each on 20 nodes; a high gang of
// 200 × 1 CPU needs two of them gone.
func upstreamGroups(b testing.TB) workload {
	var nodes []placement.Node
	var pods []placement.Pod
	var in preemption.Input
	for i := range 100 {
		nodes = append(nodes, node(nodeName(i), cpu(8000)))
	}
	for gi := range 5 {
		name := fmt.Sprintf("low-%d", gi)
		wholeGroups(&in, name)
		for j := range 160 {
			p := bound(fmt.Sprintf("%s-%03d", name, j), nodeName(gi*20+j/8), name, low, cpu(1000))
			p.StartTime = t0.Add(time.Duration(gi) * time.Hour)
			pods = append(pods, p)
		}
	}
	return build(b, nodes, pods, gang("hi", 200, 200, high, cpu(1000)), in)
}

// packed5000: 5,000 nodes of 8 CPUs fully packed with 40,000 low pods of
// 1 CPU in 5,000 PodGroups of 8 (disruptionMode PodGroup), each group
// spread over 8 nodes; a high gang of 256 × 1 CPU.
func packed5000(b testing.TB) workload {
	const N = 5000
	var nodes []placement.Node
	var pods []placement.Pod
	var in preemption.Input
	in.PodGroups = make(map[placement.Key]preemption.PodGroupSpec, N)
	for i := range N {
		nodes = append(nodes, node(nodeName(i), cpu(8000)))
	}
	for gi := range N {
		name := fmt.Sprintf("low-%04d", gi)
		wholeGroups(&in, name)
		start := t0.Add(time.Duration(gi*7919%N) * time.Second)
		for j := range 8 {
			p := bound(fmt.Sprintf("%s-%d", name, j), nodeName((gi+j*625)%N), name, low, cpu(1000))
			p.StartTime = start
			pods = append(pods, p)
		}
	}
	return build(b, nodes, pods, gang("hi", 256, 256, high, cpu(1000)), in)
}

// groups700: 2,000 nodes of 8 GPUs; 700 low PodGroups (disruptionMode
// PodGroup) of 16–29 one-GPU pods fill 15,750 of the 16,000 slots in order,
// the rest run high pods; a high gang of 64 whole-node members (8 GPUs).
func groups700(b testing.TB) workload {
	const N = 2000
	var nodes []placement.Node
	var pods []placement.Pod
	var in preemption.Input
	for i := range N {
		nodes = append(nodes, node(nodeName(i), gpu(8)))
	}
	slot := 0
	for gi := range 700 {
		name := fmt.Sprintf("low-%03d", gi)
		wholeGroups(&in, name)
		start := t0.Add(time.Duration(gi*37%700) * time.Second)
		for j := range 16 + gi%14 {
			p := bound(fmt.Sprintf("%s-%02d", name, j), nodeName(slot/8), name, low, gpu(1))
			p.StartTime = start
			pods = append(pods, p)
			slot++
		}
	}
	for ; slot < N*8; slot++ {
		pods = append(pods, bound(fmt.Sprintf("keep-%05d", slot), nodeName(slot/8), "", high+1, gpu(1)))
	}
	return build(b, nodes, pods, gang("hi", 64, 64, high, gpu(8)), in)
}

// racks5000: packed5000 in 50 racks of 100 nodes, each group inside one
// rack (spread over 8 of its nodes); the gang of 256 requires one rack
// (the topology package's generator and scorer), so each rack is a
// candidate with its own victims.
func racks5000(b testing.TB) workload {
	const N, R = 5000, 50
	var nodes []placement.Node
	var pods []placement.Pod
	var in preemption.Input
	in.PodGroups = make(map[placement.Key]preemption.PodGroupSpec, N)
	for i := range N {
		nodes = append(nodes, node(nodeName(i), cpu(8000), rackKey, fmt.Sprintf("rack-%02d", i/(N/R))))
	}
	for gi := range N {
		name := fmt.Sprintf("low-%04d", gi)
		wholeGroups(&in, name)
		start := t0.Add(time.Duration(gi*7919%N) * time.Second)
		rack, k := gi%R, gi/R
		for j := range 8 {
			p := bound(fmt.Sprintf("%s-%d", name, j), nodeName(rack*(N/R)+(k+j*12)%(N/R)), name, low, cpu(1000))
			p.StartTime = start
			pods = append(pods, p)
		}
	}
	w := build(b, nodes, pods, gang("hi", 256, 256, high, cpu(1000)), in)
	tree, err := topology.NewTree(w.s, []string{rackKey})
	require.NoError(b, err)
	w.opts, err = tree.SolverOptions([]topology.Constraint{{Key: rackKey}}, topology.MostAllocated)
	require.NoError(b, err)
	return w
}

// exact20: internal/bench's exact case, 5 nodes of cpu 8 full with 20
// candidate pods of cpu 2 (priorities 1–19, a budget over node 0's) and a
// gang of 3 × cpu 4: the exact search runs and proves its set.
func exact20(b testing.TB) workload {
	w := bench.ExactCluster()
	return build(b, w.Nodes, w.Bound, w.Group, w.Input)
}

var workloads = []struct {
	name string
	make func(testing.TB) workload
}{
	{"Upstream_100Nodes_1000Pods_Gang100", upstream1000},
	{"Upstream_100Nodes_5Groups_Gang200", upstreamGroups},
	{"Packed_5000Nodes_40000Pods_Gang256", packed5000},
	{"Groups700_2000Nodes_Gang64", groups700},
	{"Racks_5000Nodes_40000Pods_Gang256", racks5000},
	{"Exact_5Nodes_20Units_Gang3", exact20},
}

func BenchmarkFind(b *testing.B) {
	for _, wl := range workloads {
		b.Run(wl.name, func(b *testing.B) {
			w := wl.make(b)
			plan, err := preemption.Find(w.s, w.g, w.in, w.opts)
			require.NoError(b, err)
			require.Equal(b, preemption.Preempt, plan.Outcome, plan.Message)
			require.NotEmpty(b, plan.Victims)
			require.NoError(b, placement.Verify(plan.After, w.g, plan.Decision))
			cputime.Loop(b, func() {
				if _, err := preemption.Find(w.s, w.g, w.in, w.opts); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(len(plan.Victims)), "victims")
			b.ReportMetric(float64(len(plan.EvictedPods())), "evicted")
			b.ReportMetric(float64(plan.Candidates), "candidates")
			b.ReportMetric(float64(plan.Solves), "solves")
			b.ReportMetric(float64(boolInt(plan.Proven)), "proven")
			b.ReportMetric(float64(plan.Steps), "steps")
		})
	}
}

// BenchmarkFloor is one plain pass touching every node and every bound
// pod once: the least any cluster-wide victim search could cost.
func BenchmarkFloor(b *testing.B) {
	for _, wl := range workloads {
		b.Run(wl.name, func(b *testing.B) {
			w := wl.make(b)
			var sink int64
			cputime.Loop(b, func() {
				var free, prio int64
				for id := range w.s.NumNodes() {
					free += w.s.Free(placement.NodeID(id), placement.ResourceCPU)
				}
				n := 0
				for p := range w.s.Pods() {
					prio += int64(p.Priority) + p.Requests[placement.ResourceCPU]
					n++
				}
				if n != w.pods {
					b.Fatal("pass missed pods")
				}
				sink += free + prio
			})
			require.NotZero(b, sink)
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkSolveAfter is one placement.Solve of the gang on the snapshot
// without the victims: what scheduling the group costs once preemption is
// done, the other yardstick for Find (which needs at least two solves: the
// one that fails and the one that places).
func BenchmarkSolveAfter(b *testing.B) {
	for _, wl := range workloads {
		b.Run(wl.name, func(b *testing.B) {
			w := wl.make(b)
			plan, err := preemption.Find(w.s, w.g, w.in, w.opts)
			require.NoError(b, err)
			require.Equal(b, preemption.Preempt, plan.Outcome)
			for b.Loop() {
				d, err := placement.Solve(plan.After, w.g, w.opts)
				if err != nil || d.Status != placement.Scheduled {
					b.Fatal(err, d.Message)
				}
			}
		})
	}
}
