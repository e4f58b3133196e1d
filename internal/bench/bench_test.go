package bench_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
)

// workload is one named benchmark: its decision and its floor, each
// prepared outside the timer. A prepare function checks that its result is
// non-trivial before anything is timed and returns the operation to time
// and the custom metrics to report (the same for every op).
type workload struct {
	name     string
	decision prepare
	floor    prepare
}

type prepare func(b *testing.B) (run func(), metrics []metric)

type metric struct {
	value float64
	unit  string
}

// sink keeps the compiler from dropping timed work.
var sink int64

// workloads lists every workload of the package, cheap to list: clusters
// and snapshots are built on first use and shared through [cached].
func workloads() []workload {
	ws := []workload{gang(5000, 3), gang(5000, 1000), snapshot(), apply(100), apply(1000)}
	ws = append(ws, matrix()...)
	ws = append(ws, podSetMatrix()...)
	ws = append(ws, planMatrix()...)
	ws = append(ws, trees()...)
	ws = append(ws, hierarchies()...)
	ws = append(ws, streams()...)
	ws = append(ws, preempt()...)
	ws = append(ws, hetero()...)
	ws = append(ws, affinity()...)
	ws = append(ws, scale()...)
	ws = append(ws, podSetUsage()...)
	ws = append(ws, elasticMatrix()...)
	return ws
}

// BenchmarkDecision times the library on every workload; BenchmarkFloor
// times the floor of the same workload under the same sub-benchmark name.
func BenchmarkDecision(b *testing.B) { runAll(b, func(w workload) prepare { return w.decision }) }

// BenchmarkFloor: see [BenchmarkDecision].
func BenchmarkFloor(b *testing.B) { runAll(b, func(w workload) prepare { return w.floor }) }

func runAll(b *testing.B, which func(workload) prepare) {
	for _, w := range workloads() {
		b.Run(w.name, func(b *testing.B) {
			run, metrics := which(w)(b)
			cputime.Loop(b, run)
			// After the loop: b.Loop's first call resets the timer, which
			// deletes metrics reported before it.
			for _, m := range metrics {
				b.ReportMetric(m.value, m.unit)
			}
		})
	}
}

// cached returns the value built by make under key, building it once per
// benchmark process: the clusters are shared by the decision and the floor
// and by every count of a run.
func cached[T any](key string, make func() T) T {
	cache.Lock()
	v, ok := cache.m[key]
	cache.Unlock()
	if ok {
		return v.(T)
	}
	// Built without the lock: make may itself call cached.
	t := make()
	cache.Lock()
	cache.m[key] = t
	cache.Unlock()
	return t
}

var cache = struct {
	sync.Mutex
	m map[string]any
}{m: map[string]any{}}

func mustSnapshot(tb testing.TB, nodes []placement.Node, pods []placement.Pod) *placement.Snapshot {
	tb.Helper()
	s, err := placement.NewSnapshot(nodes, pods)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// coreFloor is the core workloads' floor: [bench.Floor] over the nodes and
// the members (or pods).
func coreFloor(nodes func() []placement.Node, members func() []placement.Pod) prepare {
	return func(b *testing.B) (func(), []metric) {
		ns, ms := nodes(), members()
		if bench.Floor(ns, ms) == 0 {
			b.Fatal("empty floor")
		}
		return func() { sink += bench.Floor(ns, ms) }, nil
	}
}

func coreNodes(n int) func() []placement.Node {
	return func() []placement.Node {
		return cached(fmt.Sprint("core-nodes-", n), func() []placement.Node { return bench.Nodes(n) })
	}
}

// gang: one gang of size scheduler_perf pods on an empty snapshot of
// nodes, zero Options.
func gang(nodes, size int) workload {
	g := func() *placement.Group {
		return cached(fmt.Sprint("core-gang-", size), func() *placement.Group { return bench.Gang("pg", size) })
	}
	return workload{
		name: fmt.Sprintf("gang-%dpods-%dnodes", size, nodes),
		decision: func(b *testing.B) (func(), []metric) {
			s, g := mustSnapshot(b, coreNodes(nodes)(), nil), g()
			d, err := placement.Solve(s, g, placement.Options{})
			if err != nil || d.Status != placement.Scheduled || len(d.Assignments) != size {
				b.Fatalf("want %d members scheduled, got %v %s", size, err, d.Message)
			}
			return func() {
				d, _ := placement.Solve(s, g, placement.Options{})
				sink += int64(len(d.Assignments))
			}, nil
		},
		floor: coreFloor(coreNodes(nodes), func() []placement.Pod { return g().Members }),
	}
}

const bigNodes, podsPerNode = 10_000, 10

func bigPods() []placement.Pod {
	return cached("core-big-pods", func() []placement.Pod { return bench.Bound(coreNodes(bigNodes)(), podsPerNode) })
}

func bigSnapshot(tb testing.TB) *placement.Snapshot {
	return cached("core-big-snapshot", func() *placement.Snapshot { return mustSnapshot(tb, coreNodes(bigNodes)(), bigPods()) })
}

// snapshot builds 10,000 nodes and 100,000 bound pods (the target: under
// 10 ms and 100 MB).
func snapshot() workload {
	return workload{
		name: fmt.Sprintf("snapshot-%dnodes-%dpods", bigNodes, bigNodes*podsPerNode),
		decision: func(b *testing.B) (func(), []metric) {
			ns, pods := coreNodes(bigNodes)(), bigPods()
			s := mustSnapshot(b, ns, pods)
			if s.NumPods() != len(pods) {
				b.Fatalf("snapshot holds %d pods, want %d", s.NumPods(), len(pods))
			}
			return func() {
				s, _ := placement.NewSnapshot(ns, pods)
				sink += int64(s.NumPods())
			}, nil
		},
		floor: coreFloor(coreNodes(bigNodes), bigPods),
	}
}

// apply forks the big snapshot with a what-if of n pods bound one to a
// node, spread evenly: O(changes), so its allocations grow with n, not
// with the 100,000 pods.
func apply(n int) workload {
	ch := func() placement.Change {
		return cached(fmt.Sprint("core-whatif-", n), func() placement.Change {
			ns := coreNodes(bigNodes)()
			var ch placement.Change
			for i, p := range bench.Gang("whatif", n).Members {
				p.NodeName = ns[i*(bigNodes/n)].Name
				ch.Bind = append(ch.Bind, p)
			}
			return ch
		})
	}
	return workload{
		name: fmt.Sprintf("apply-%dpods-%dnodes-%dpods", n, bigNodes, bigNodes*podsPerNode),
		decision: func(b *testing.B) (func(), []metric) {
			s, ch := bigSnapshot(b), ch()
			f, err := s.Apply(ch)
			if err != nil || f.NumPods() != s.NumPods()+n || f.Free(0, placement.ResourceCPU) != s.Free(0, placement.ResourceCPU)-bench.PodCPU {
				b.Fatalf("apply: %v", err)
			}
			return func() {
				f, _ := s.Apply(ch)
				sink += int64(f.NumPods())
			}, nil
		},
		floor: coreFloor(coreNodes(bigNodes), func() []placement.Pod { return ch().Bind }),
	}
}
