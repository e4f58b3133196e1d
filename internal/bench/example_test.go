package bench_test

import (
	"fmt"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

// The workloads are plain inputs of the placement package.
func Example() {
	nodes := bench.Nodes(2)
	g := bench.Gang("pg", 3)
	s, err := placement.NewSnapshot(nodes, bench.Bound(nodes, 1))
	if err != nil {
		panic(err)
	}
	d, err := placement.Solve(s, g, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.NumNodes(), "nodes,", s.NumPods(), "bound pods;", d.Status, len(d.Assignments), "members")
	fmt.Println("floor:", bench.Floor(nodes, g.Members))
	// Output:
	// 2 nodes, 2 bound pods; Scheduled 3 members
	// floor: 8300
}

// The floor of the matrix: one pass sums each rack's free slots,
// picks the fullest rack that holds the gang and first-fits the members.
func ExampleGangFloor_Place() {
	c := bench.GPUCluster(1000, true)
	g := bench.GPUGang("pg", 64)
	out := make([]int32, len(g.Members))
	f := bench.NewGangFloor(c)
	placed := f.Place(c.Level(bench.RackKey), c.Requests(g.Members), out, false)
	fmt.Println(len(c.Nodes), "hosts,", len(c.Bound), "bound pods;", placed, "members placed, the first on", c.Nodes[out[0]].Name)
	fmt.Println("a rack holds 256:", f.Place(c.Level(bench.RackKey), c.Requests(bench.GPUGang("big", 257).Members), make([]int32, 257), false), "placed")
	// Output:
	// 1000 hosts, 4020 bound pods; 64 members placed, the first on host-00832
	// a rack holds 256: 0 placed
}
