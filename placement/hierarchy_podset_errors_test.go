package placement_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/placement"
)

// TestHierarchy_PodSetLeafErrors: a pod-set leaf's input errors are
// reported by SolveHierarchy as Solve reports them, also where the search
// would never solve the leaf (its sets stand for no pod).
func TestHierarchy_PodSetLeafErrors(t *testing.T) {
	var nodes []placement.Node
	for i := range 4 {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"rack": fmt.Sprintf("r%d", i/2)},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 4000, placement.ResourcePods: 110}})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := placement.Pod{Namespace: "ns", Requests: placement.ResourceList{placement.ResourceCPU: 1000}}
	set := func(name string, count int32) placement.PodSet {
		return placement.PodSet{Name: name, Count: count, Template: tmpl}
	}
	leaf := func(name string, members []string, sets ...placement.PodSet) *placement.HierarchyNode {
		g := &placement.Group{Namespace: "ns", Name: name, MinCount: 1, PodSets: sets}
		for _, m := range members {
			p := tmpl
			p.Name, p.SchedulingGroup = m, name
			g.Members = append(g.Members, p)
		}
		return &placement.HierarchyNode{Name: name, Group: g}
	}
	root := func(ls ...*placement.HierarchyNode) *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: "root", MinGroupCount: int32(len(ls)), TopologyKey: "rack", Children: ls}
	}
	for _, c := range []struct {
		name string
		root *placement.HierarchyNode
		is   error
		msg  string
	}{
		{"a set of no pods", root(leaf("a", nil, set("x", 0))), placement.ErrInvalid,
			`pod set "x" of PodGroup "ns/a": count: 0 is outside 1..1048576`},
		{"a set of -1 pods", root(leaf("a", nil, set("x", -1))), placement.ErrInvalid,
			`pod set "x" of PodGroup "ns/a": count: -1 is outside 1..1048576`},
		{"a set of -1 beside a member", root(leaf("a", []string{"m"}, set("x", -1))), placement.ErrInvalid,
			`pod set "x" of PodGroup "ns/a": count: -1 is outside 1..1048576`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := placement.SolveHierarchy(s, c.root, placement.Options{})
			if !errors.Is(err, c.is) || err.Error() != c.msg {
				t.Fatalf("got %v (status %v), want %v: %s", err, d.Status, c.is, c.msg)
			}
		})
	}
}
