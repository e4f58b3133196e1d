package preemption

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestHCapacity_NeverRefusesAFit: the capacity bound is a necessary
// condition. On drawn clusters (CPU, GPUs, some nodes with a pod limit)
// with drawn trees (gang and basic inner nodes and leaves, some confined
// to a rack, some with bound members of their own) and drawn lower-
// priority pods, every subset of the candidates that the bound refuses
// leaves the tree unplaced when SolveHierarchy is asked.
func TestHCapacity_NeverRefusesAFit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gpu := placement.ResourceName("nvidia.com/gpu")
		var nodes []placement.Node
		var pods []placement.Pod
		nn := rapid.IntRange(1, 4).Draw(t, "nodes")
		for i := range nn {
			alloc := placement.ResourceList{placement.ResourceCPU: int64(rapid.IntRange(1, 4).Draw(t, "cpu")) * 1000,
				gpu: int64(rapid.IntRange(0, 2).Draw(t, "gpu"))}
			if rapid.Bool().Draw(t, "pod limit") {
				alloc[placement.ResourcePods] = int64(rapid.IntRange(1, 3).Draw(t, "pods"))
			}
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"rack": fmt.Sprintf("r%d", i%2)}, Allocatable: alloc})
		}
		req := func(label string) placement.ResourceList {
			return placement.ResourceList{placement.ResourceCPU: int64(rapid.IntRange(0, 2).Draw(t, label+" cpu")) * 500,
				gpu: int64(rapid.IntRange(0, 1).Draw(t, label+" gpu"))}
		}
		for i := range rapid.IntRange(0, 6).Draw(t, "victims") {
			pods = append(pods, placement.Pod{Namespace: "default", Name: fmt.Sprintf("v%d", i), Priority: int32(rapid.IntRange(1, 9).Draw(t, "prio")),
				NodeName: fmt.Sprintf("n%d", rapid.IntRange(0, nn-1).Draw(t, "on")), Requests: req("victim")})
		}
		var leaves []*placement.HierarchyNode
		for l := range rapid.IntRange(1, 3).Draw(t, "leaves") {
			g := &placement.Group{Namespace: "default", Name: fmt.Sprintf("l%d", l), MinCount: int32(rapid.IntRange(1, 3).Draw(t, "min"))}
			if rapid.Bool().Draw(t, "basic leaf") {
				g.Policy = placement.PolicyBasic
			}
			for m := range rapid.IntRange(0, 3).Draw(t, "members") {
				g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("l%d-%d", l, m), SchedulingGroup: g.Name, Priority: 100, Requests: req("member")})
			}
			for b := range rapid.IntRange(0, 1).Draw(t, "own bound") {
				pods = append(pods, placement.Pod{Namespace: "default", Name: fmt.Sprintf("l%d-b%d", l, b), SchedulingGroup: g.Name, Priority: 100,
					NodeName: fmt.Sprintf("n%d", rapid.IntRange(0, nn-1).Draw(t, "own on")), Requests: req("own")})
			}
			leaf := &placement.HierarchyNode{Name: g.Name, Group: g}
			if rapid.Bool().Draw(t, "in rack") {
				leaf.TopologyKey = "rack"
			}
			leaves = append(leaves, leaf)
		}
		root := &placement.HierarchyNode{Name: "root", Children: leaves, MinGroupCount: int32(rapid.IntRange(1, len(leaves)).Draw(t, "minGroupCount"))}
		if rapid.Bool().Draw(t, "basic root") {
			root.Policy, root.MinGroupCount = placement.PolicyBasic, 0
		}
		s, err := placement.NewSnapshot(nodes, pods)
		if err != nil {
			t.Skip(err) // a bound pod beyond its node: not a cluster
		}
		own := map[placement.Key]bool{}
		walkLeaves(root, func(g *placement.Group) { own[g.Key()] = true })
		units := hierarchyUnits(s, 100, &HierarchyInput{}, own)
		capa := newHCapacity(s, root, units)
		if capa == nil {
			return
		}
		n := len(units)
		for mask := range uint32(1 << n) {
			if capa.enough(mask) {
				continue
			}
			var ch placement.Change
			for i, u := range units {
				if mask&(1<<(n-1-i)) != 0 {
					ch.Remove = append(ch.Remove, u.v.Pods...)
				}
			}
			after, err := s.Apply(ch)
			if err != nil {
				t.Fatal(err)
			}
			d, err := placement.SolveHierarchy(after, root, placement.Options{})
			if err == nil && d.Status == placement.Scheduled {
				t.Fatalf("mask %b refused (need %d), but the tree fits: %s", mask, capa.need, d.Message)
			}
		}
	})
}
