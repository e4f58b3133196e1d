package placement

import "testing"

// noneBoundIn answers "none" only when no pod of the range is bound, and
// "maybe" whenever it cannot show that with one search: its ends are
// inclusive, other namespaces do not count, base pods out of key order
// or removed since, and added pods are looked at.
func TestSnapshot_NoneBoundIn(t *testing.T) {
	nodes := []Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 100}}}
	pod := func(ns, name string) Pod { return Pod{Namespace: ns, Name: name, NodeName: "n0"} }
	ordered := []Pod{pod("a", "x-5"), pod("b", "m-1"), pod("b", "m-4"), pod("b", "m-7"), pod("c", "m-2")}
	unordered := []Pod{pod("b", "m-7"), pod("b", "m-1")}
	type rng struct{ ns, lo, hi string }
	for _, tc := range []struct {
		name   string
		pods   []Pod
		change *Change
		rng    rng
		want   bool
	}{
		{"no pod", nil, nil, rng{"b", "m-0", "m-9"}, true},
		{"between", ordered, nil, rng{"b", "m-2", "m-3"}, true},
		{"holds one", ordered, nil, rng{"b", "m-2", "m-5"}, false},
		{"lo is bound", ordered, nil, rng{"b", "m-4", "m-5"}, false},
		{"hi is bound", ordered, nil, rng{"b", "m-5", "m-7"}, false},
		{"after every pod of the namespace", ordered, nil, rng{"b", "m-8", "m-9"}, true},
		{"before every pod", ordered, nil, rng{"a", "a", "b"}, true},
		{"past every pod", ordered, nil, rng{"d", "a", "z"}, true},
		{"same names, other namespace", ordered, nil, rng{"c", "m-3", "m-9"}, true},
		{"base out of key order: maybe", unordered, nil, rng{"b", "m-2", "m-3"}, false},
		{"removed since: maybe", ordered, &Change{Remove: []Key{{"b", "m-4"}}}, rng{"b", "m-2", "m-5"}, false},
		{"added in range", ordered, &Change{Bind: []Pod{pod("b", "m-3")}}, rng{"b", "m-2", "m-3"}, false},
		{"added at lo", nil, &Change{Bind: []Pod{pod("b", "m-2")}}, rng{"b", "m-2", "m-3"}, false},
		{"added past hi", ordered, &Change{Bind: []Pod{pod("b", "m-9")}}, rng{"b", "m-2", "m-3"}, true},
		{"added before lo", ordered, &Change{Bind: []Pod{pod("b", "m-0")}}, rng{"b", "m-2", "m-3"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSnapshot(nodes, tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			if tc.change != nil {
				if s, err = s.Apply(*tc.change); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.noneBoundIn(tc.rng.ns, tc.rng.lo, tc.rng.hi); got != tc.want {
				t.Fatalf("noneBoundIn(%v) = %v, want %v", tc.rng, got, tc.want)
			}
			if !tc.want {
				return
			}
			// "none" must be true: no key of the range is bound.
			for _, p := range append(append([]Pod{}, tc.pods...), pod("b", "m-3"), pod("b", "m-2")) {
				k := p.Key()
				in := k.Namespace == tc.rng.ns && k.Name >= tc.rng.lo && k.Name <= tc.rng.hi
				if _, bound := s.Pod(k); in && bound {
					t.Fatalf("%s is bound", k)
				}
			}
		})
	}
}
