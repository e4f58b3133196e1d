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
