package placement_test

import (
	"fmt"
	"testing"

	. "github.com/gangsched/gangsched/placement"
)

// TestAdv6_ShortAttemptCutByBudget: a group of one class short of room is
// answered from the node classes (shortByClasses), spending a step per
// class as the greedy's run would. When the budget cannot pay for those
// steps nothing is placed, so the diagnosis must see the nodes empty, as
// the one-by-one path (a no-op Filter) and the greedy's own cut attempt
// do: the first waiting member fits on an empty node, and no node may be
// reported short of cpu.
func TestAdv6_ShortAttemptCutByBudget(t *testing.T) {
	noop := FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{} })
	for _, n := range []int{2, 5, 70, 130} {
		for _, kinds := range []int{2, 3} {
			var nodes []Node
			for i := range n {
				nodes = append(nodes, Node{Name: fmt.Sprintf("n%04d", i), Allocatable: ResourceList{ResourceCPU: int64(1000 * (i%kinds + 1))}})
			}
			s, err := NewSnapshot(nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := &Group{Namespace: "ns", Name: "pg", MinCount: 400}
			for i := range 400 {
				g.Members = append(g.Members, Pod{Namespace: "ns", Name: fmt.Sprintf("p%04d", i), SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 600}})
			}
			name := fmt.Sprintf("nodes=%d kinds=%d", n, kinds)
			d, err := Solve(s, g, Options{Budget: 1})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := Solve(s, g, Options{Budget: 1, Filters: []Filter{noop}})
			if err != nil {
				t.Fatal(err)
			}
			if d.MostFit != 0 || ref.MostFit != 0 {
				t.Fatalf("%s: MostFit %d and %d (one by one), want 0: the budget of 1 step cannot pay for a run", name, d.MostFit, ref.MostFit)
			}
			if len(ref.Reasons) != 0 {
				t.Fatalf("%s: one by one, Reasons %v on empty nodes", name, ref.Reasons)
			}
			if len(d.Reasons) != 0 {
				t.Errorf("%s: nothing placed, yet Reasons %v (the nodes are diagnosed as if filled); message %q", name, d.Reasons, d.Message)
			}
		}
	}
}
