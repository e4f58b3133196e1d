package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// workload is one named benchmark: the input of its floor (nodes and
// members) and the decision to time, prepared outside the timer. prepare
// checks that the result is non-trivial before anything is timed.
type workload struct {
	name    string
	nodes   []placement.Node
	members []placement.Pod
	prepare func(b *testing.B) func()
}

var sink int64

func gang(nodes, size int) workload {
	ns := bench.Nodes(nodes)
	g := bench.Gang("pg", size)
	return workload{
		name:    fmt.Sprintf("gang-%dpods-%dnodes", size, nodes),
		nodes:   ns,
		members: g.Members,
		prepare: func(b *testing.B) func() {
			s, err := placement.NewSnapshot(ns, nil)
			if err != nil {
				b.Fatal(err)
			}
			d, err := placement.Solve(s, g, placement.Options{})
			if err != nil || d.Status != placement.Scheduled || len(d.Assignments) != size {
				b.Fatalf("want %d members scheduled, got %v %s", size, err, d.Message)
			}
			return func() {
				d, _ := placement.Solve(s, g, placement.Options{})
				sink += int64(len(d.Assignments))
			}
		},
	}
}

const bigNodes, podsPerNode = 10_000, 10

func snapshot() workload {
	ns := bench.Nodes(bigNodes)
	pods := bench.Bound(ns, podsPerNode)
	return workload{
		name:    fmt.Sprintf("snapshot-%dnodes-%dpods", bigNodes, len(pods)),
		nodes:   ns,
		members: pods,
		prepare: func(b *testing.B) func() {
			s, err := placement.NewSnapshot(ns, pods)
			if err != nil || s.NumPods() != len(pods) {
				b.Fatalf("snapshot: %v", err)
			}
			return func() {
				s, _ := placement.NewSnapshot(ns, pods)
				sink += int64(s.NumPods())
			}
		},
	}
}

// apply binds a 100-pod what-if, one pod on every 100th node, to the big
// snapshot.
func apply() workload {
	const what = 100
	ns := bench.Nodes(bigNodes)
	g := bench.Gang("whatif", what)
	var ch placement.Change
	for i, p := range g.Members {
		p.NodeName = ns[i*(bigNodes/what)].Name
		ch.Bind = append(ch.Bind, p)
	}
	return workload{
		name:    fmt.Sprintf("apply-%dpods-%dnodes-%dpods", what, bigNodes, bigNodes*podsPerNode),
		nodes:   ns,
		members: ch.Bind,
		prepare: func(b *testing.B) func() {
			s, err := placement.NewSnapshot(ns, bench.Bound(ns, podsPerNode))
			if err != nil {
				b.Fatal(err)
			}
			n, err := s.Apply(ch)
			if err != nil || n.NumPods() != s.NumPods()+what || n.Free(0, placement.ResourceCPU) != s.Free(0, placement.ResourceCPU)-bench.PodCPU {
				b.Fatalf("apply: %v", err)
			}
			return func() {
				n, _ := s.Apply(ch)
				sink += int64(n.NumPods())
			}
		},
	}
}

func workloads() []workload {
	return []workload{gang(5000, 3), gang(5000, 1000), snapshot(), apply()}
}

func BenchmarkDecision(b *testing.B) {
	for _, w := range workloads() {
		b.Run(w.name, func(b *testing.B) {
			run := w.prepare(b)
			b.ResetTimer()
			for b.Loop() {
				run()
			}
		})
	}
}

func BenchmarkFloor(b *testing.B) {
	for _, w := range workloads() {
		b.Run(w.name, func(b *testing.B) {
			if bench.Floor(w.nodes, w.members) == 0 {
				b.Fatal("empty floor")
			}
			for b.Loop() {
				sink += bench.Floor(w.nodes, w.members)
			}
		})
	}
}
