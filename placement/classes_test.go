package placement

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// membership lists each class's nodes, keyed by class.
func membership(c *nodeClasses) map[string][]NodeID {
	out := map[string][]NodeID{}
	for k, set := range c.sets {
		set.nodes.ascend(0, math.MaxInt32, func(id NodeID) bool { out[k] = append(out[k], id); return true })
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

// TestProp_NodeSetMatchesMap: a nodeSet behaves as a set of IDs — across
// chunk boundaries, with chunks emptied and refilled — and its clones,
// which share chunks until they write, never change the set they copy
// (which, as in Apply, is not written once cloned).
func TestProp_NodeSetMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(1, 3*chunkNodes+7).Draw(t, "nodes")
		type copySet struct {
			s      *nodeSet
			want   map[NodeID]bool
			cloned bool
		}
		sets := []copySet{{s: newNodeSet(nodes), want: map[NodeID]bool{}}}
		// IDs near chunk edges, so that chunks fill, empty and refill.
		ids := rapid.SampledFrom([]int{0, 1, 63, 64, chunkNodes - 1, chunkNodes, chunkNodes + 1, 2*chunkNodes - 1, 2 * chunkNodes, 3*chunkNodes + 6})
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			i := rapid.IntRange(0, len(sets)-1).Draw(t, "set")
			id := NodeID(min(ids.Draw(t, "id"), nodes-1))
			op := rapid.IntRange(0, 2).Draw(t, "op")
			if sets[i].cloned {
				op = 2 // read-only once cloned
			}
			switch op {
			case 0:
				sets[i].s.insert(id)
				sets[i].want[id] = true
			case 1:
				sets[i].s.delete(id)
				delete(sets[i].want, id)
			default:
				sets[i].cloned = true
				sets = append(sets, copySet{s: sets[i].s.clone(), want: maps.Clone(sets[i].want)})
			}
			for _, c := range sets {
				want := slices.Sorted(maps.Keys(c.want))
				var got []NodeID
				c.s.ascend(0, math.MaxInt32, func(id NodeID) bool { got = append(got, id); return true })
				if !slices.Equal(got, want) || c.s.Len() != len(want) {
					t.Fatalf("set holds %v (Len %d), want %v", got, c.s.Len(), want)
				}
				from := NodeID(min(ids.Draw(t, "from"), nodes-1))
				var after []NodeID
				c.s.ascend(from, math.MaxInt32, func(id NodeID) bool { after = append(after, id); return len(after) < 2 })
				var wantAfter []NodeID
				for _, id := range want {
					if id >= from && len(wantAfter) < 2 {
						wantAfter = append(wantAfter, id)
					}
				}
				if !slices.Equal(after, wantAfter) {
					t.Fatalf("from %d: got %v, want %v", from, after, wantAfter)
				}
				if m, ok := c.s.Min(); ok != (len(want) > 0) || (ok && m != want[0]) {
					t.Fatalf("Min %d, %v; set %v", m, ok, want)
				}
				// count and a bounded ascend over [from, to).
				to := NodeID(min(ids.Draw(t, "to"), nodes))
				var in []NodeID
				for _, id := range want {
					if id >= from && id < to {
						in = append(in, id)
					}
				}
				if n := c.s.count(from, to); n != int64(len(in)) {
					t.Fatalf("count(%d, %d) = %d, want %d of %v", from, to, n, len(in), want)
				}
				var bounded []NodeID
				c.s.ascend(from, to, func(id NodeID) bool { bounded = append(bounded, id); return true })
				if !slices.Equal(bounded, in) {
					t.Fatalf("ascend(%d, %d): got %v, want %v", from, to, bounded, in)
				}
			}
		}
	})
}
