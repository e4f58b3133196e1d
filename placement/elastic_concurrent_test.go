package placement_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Resizes that run at once, on one snapshot and one tree, each decide as
// they do alone: what a growth lends Solve (its delta group, the holding
// generator, the existing nodes) is its own for the call, whatever other
// resizes borrow and return meanwhile (run with -race, a lender that
// returns them early is a race as well as a wrong answer).
func TestSolveResize_ConcurrentAsAlone(t *testing.T) {
	s, tree := rackNodes(t)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	var reserve []PodSetUsage
	var cases []func() (Resized, error)
	for i, nodes := range [][]PodSetAssignment{{{Node: "y0", Count: 2}}, {{Node: "x1", Count: 1}, {Node: "y1", Count: 1}}, {{Node: "x0", Count: 1}}} {
		name := fmt.Sprint("pg", i)
		reserve = append(reserve, PodSetUsage{Group: Key{"default", name}, PodSet: "w", Requests: ResourceList{ResourceGPU: 1}, Nodes: nodes})
		for _, count := range []int32{1, 3, 7, 40} {
			g := elasticSet(count)
			g.Name = name
			for _, o := range []Options{{}, opts} {
				cases = append(cases, func() (Resized, error) {
					return SolveResize(s, g, Resize{PodSet: "w", Existing: nodes}, o)
				})
			}
		}
	}
	s, err = s.Apply(Change{Reserve: reserve})
	require.NoError(t, err)
	want := make([]Resized, len(cases))
	for i, c := range cases {
		r, err := c()
		require.NoError(t, err)
		want[i] = r
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 50 {
				for k := range cases {
					i := (k + w*7 + round) % len(cases)
					got, err := cases[i]()
					if err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want[i]) {
						errs <- fmt.Errorf("case %d: %v\n%#v\nwant %#v", i, err, got, want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
