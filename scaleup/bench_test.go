package scaleup

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// benchCluster is racks × hosts 8-GPU hosts, every other rack with one
// host taken by a running 8-GPU pod.
func benchCluster(b *testing.B, racks, hosts int) *placement.Snapshot {
	var nodes []placement.Node
	var pods []placement.Pod
	for r := range racks {
		for h := range hosts {
			name := fmt.Sprintf("r%03d-h%d", r, h)
			nodes = append(nodes, node(name, fmt.Sprintf("r%03d", r), rl(8, 96000)))
			if r%2 == 1 && h == 0 {
				pods = append(pods, running("busy-"+name, name, rl(8, 8000)))
			}
		}
	}
	s, err := placement.NewSnapshot(nodes, pods)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSuggest: a rack-bound gang of 12 eight-GPU pods on 125 racks of
// 8 hosts (1,000 nodes), no rack large enough: 4 hosts more in the first
// free rack. The floor is one Solve of the gang on the cluster as it is.
func BenchmarkSuggest(b *testing.B) {
	s := benchCluster(b, 125, 8)
	g := gangOf(12, rl(8, 64000))
	shapes := ShapesOf(s, []string{rackKey})
	sug, err := Suggest(s, g, rackReq, shapes, Options{})
	if err != nil || !sug.Found || sug.Count != 4 || sug.Domain != "r000" || !sug.Proven {
		b.Fatalf("want 4 nodes in r000, got %+v, %v", sug, err)
	}
	b.Run("suggest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Suggest(s, g, rackReq, shapes, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(sug.Solves), "solves/op")
	})
	b.Run("floor-one-solve", func(b *testing.B) {
		tree, err := topology.NewTree(s, []string{rackKey})
		if err != nil {
			b.Fatal(err)
		}
		opts, err := tree.SolverOptions(rackReq, topology.MostAllocated)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := placement.Solve(s, g, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
