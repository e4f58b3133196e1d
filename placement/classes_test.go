package placement

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// membership lists each class's nodes, keyed by class.
func membership(c *nodeClasses) map[string][]NodeID {
	out := map[string][]NodeID{}
	for k, set := range c.sets {
		set.nodes.Ascend(func(id NodeID) bool { out[k] = append(out[k], id); return true })
	}
	return out
}

// TestProp_ClassesFollowApply: the class index a derived snapshot inherits
// through Apply equals the one built from scratch, and the parent's index is
// left as it was.
func TestProp_ClassesFollowApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []Node
		for i := range rapid.IntRange(1, 12).Draw(t, "nodes") {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Allocatable: ResourceList{ResourceCPU: 4000, ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "gpu"))}})
		}
		s, err := NewSnapshot(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.classes()
		bound := map[string]bool{}
		for step := range rapid.IntRange(1, 6).Draw(t, "steps") {
			before := membership(s.classes())
			var ch Change
			for i := range rapid.IntRange(0, 4).Draw(t, "binds") {
				ch.Bind = append(ch.Bind, Pod{Namespace: "d", Name: fmt.Sprintf("p%d-%d", step, i),
					NodeName: rapid.SampledFrom(nodes).Draw(t, "node").Name, Requests: ResourceList{ResourceCPU: int64(rapid.IntRange(0, 2).Draw(t, "cpu")) * 500}})
			}
			for _, k := range slices.Sorted(maps.Keys(bound)) {
				if rapid.Bool().Draw(t, "remove "+k) {
					ch.Remove = append(ch.Remove, Key{"d", k})
				}
			}
			n, err := s.Apply(ch)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range ch.Remove {
				delete(bound, k.Name)
			}
			for _, p := range ch.Bind {
				bound[p.Name] = true
			}
			derived := n.cls.Load()
			if derived == nil {
				t.Fatal("Apply dropped the class index")
			}
			fresh := &Snapshot{b: n.b, used: n.used}
			if got, want := membership(derived), membership(fresh.classes()); !maps.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("derived classes %v, built %v", got, want)
			}
			if after := membership(s.classes()); !maps.EqualFunc(after, before, slices.Equal) {
				t.Fatalf("Apply changed the parent's classes: %v then %v", before, after)
			}
			s = n
		}
	})
}

// TestNodeTypes_TaintBytesDoNotCollide: taints whose fields hold NUL bytes
// do not give two different nodes one type.
func TestNodeTypes_TaintBytesDoNotCollide(t *testing.T) {
	alloc := ResourceList{ResourceCPU: 1000}
	s, err := NewSnapshot([]Node{
		{Name: "a", Allocatable: alloc, Taints: []Taint{{Key: "k\x00v", Value: "", Effect: TaintEffectNoSchedule}}},
		{Name: "b", Allocatable: alloc, Taints: []Taint{{Key: "k", Value: "v\x00", Effect: TaintEffectNoSchedule}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.b.typeOf[0] == s.b.typeOf[1] {
		t.Fatalf("nodes with different taints share type %d", s.b.typeOf[0])
	}
}
