package placementtest_test

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// A property test of one's own scheduler is one line in a test function:
//
//	rapid.Check(t, placementtest.Property(mySolve))
//
// Outside a test, a generator's Example draws one value per seed.
func Example() {
	c := placementtest.Clusters().Example(7)
	s, err := c.Snapshot()
	if err != nil {
		panic(err)
	}
	g := placementtest.Groups(s).Example(7)
	d, err := placement.Solve(s, g, placement.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("nodes named like", c.Nodes[0].Name, "members like", g.Members[0].Name)
	fmt.Println("invariants hold:", placementtest.CheckDecision(s, g, d) == nil)
	// Output:
	// nodes named like n00 members like m00
	// invariants hold: true
}
