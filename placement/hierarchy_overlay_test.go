package placement

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The overlay after pushes equals the snapshot Apply gives for the same
// pods — usage rows, sums and class index, and with pods indexed (as with
// the caller's hooks) the pods too — and each pop restores the one
// before, down to the snapshot it started from. A view taken at any point
// stays equal to the state it was taken in, whatever is pushed or popped
// after.
func TestProp_UsageOverlayFollowsApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []Node
		for i := range rapid.IntRange(1, 70).Draw(t, "nodes") { // past one page
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Allocatable: ResourceList{ResourceCPU: 8000, ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "gpu"))}})
		}
		s, err := NewSnapshot(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "classes") {
			s.classes()
		}
		pods := rapid.Bool().Draw(t, "pods")
		o := newUsageOverlay(s, pods)
		states := []*Snapshot{s}
		type frozen struct{ view, want *Snapshot }
		var views []frozen
		look := func() {
			if pods && rapid.Bool().Draw(t, "view") {
				views = append(views, frozen{o.view(), states[len(states)-1]})
			}
		}
		look()
		for k := range rapid.IntRange(1, 4).Draw(t, "leaves") {
			name := fmt.Sprintf("g%d", k)
			g := &Group{Namespace: "ns", Name: name}
			var d Decision
			var ch Change
			for i := range rapid.IntRange(0, 5).Draw(t, "pods") {
				p := Pod{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i), SchedulingGroup: name,
					Requests: ResourceList{ResourceCPU: int64(rapid.IntRange(0, 2000).Draw(t, "cpu"))}}
				g.Members = append(g.Members, p)
				id := NodeID(rapid.IntRange(0, len(nodes)-1).Draw(t, "node"))
				d.Assignments = append(d.Assignments, Assignment{Pod: p.Key(), Node: nodes[id].Name, NodeID: id})
				p.NodeName = nodes[id].Name
				ch.Bind = append(ch.Bind, p)
			}
			if rapid.Bool().Draw(t, "podset") {
				g.PodSets = []PodSet{{Name: name + "-w", Count: 3, Template: Pod{Requests: ResourceList{ResourceGPU: 1}}}}
				id := NodeID(rapid.IntRange(0, len(nodes)-1).Draw(t, "node"))
				d.PodSetAssignments = []PodSetAssignment{{PodSet: name + "-w", Node: nodes[id].Name, NodeID: id, Count: 2}}
				for j := range 2 {
					ch.Bind = append(ch.Bind, Pod{Namespace: "ns", Name: fmt.Sprintf("%s-w.%d", name, j), SchedulingGroup: name,
						NodeName: nodes[id].Name, Requests: ResourceList{ResourceGPU: 1}})
				}
			}
			n := &hnode{src: &HierarchyNode{Name: name, Group: g}, least: make([]int64, len(s.b.res))}
			n.leafRows(s.b, new([]int64))
			want, err := states[len(states)-1].Apply(ch)
			if err != nil {
				t.Fatal(err)
			}
			var bind []Pod
			if pods {
				bind = ch.Bind
			}
			if err := o.push(n, d, bind); err != nil {
				t.Fatal(err)
			}
			if rapid.Bool().Draw(t, "solve builds classes") {
				o.s.classes()
			}
			states = append(states, want)
			samePods(t, o.s, want, pods)
			look()
		}
		for len(o.frames) > 0 {
			o.pop()
			states = states[:len(states)-1]
			samePods(t, o.s, states[len(states)-1], pods)
			look()
		}
		for _, v := range views {
			samePods(t, v.view, v.want, true)
		}
	})
}

// samePods is sameUsage, and with pods the same pods: by key, per node
// and per group, and their count.
func samePods(t *rapid.T, a, b *Snapshot, pods bool) {
	sameUsage(t, a, b)
	if !pods {
		return
	}
	list := func(s *Snapshot) string {
		var out []string
		for p := range s.Pods() {
			id, _ := s.NodeOf(p)
			out = append(out, fmt.Sprintf("%s@%d", p.Key(), id))
		}
		slices.Sort(out)
		for id := range NodeID(s.NumNodes()) {
			for p := range s.PodsOn(id) {
				out = append(out, fmt.Sprintf("on %d: %s", id, p.Key()))
			}
		}
		for g := range 5 {
			for _, p := range s.GroupMembers(Key{Namespace: "ns", Name: fmt.Sprintf("g%d", g)}) {
				out = append(out, "member "+p.Key().String())
			}
		}
		return fmt.Sprint(s.NumPods(), out)
	}
	if la, lb := list(a), list(b); la != lb {
		t.Fatalf("pods %s, want %s", la, lb)
	}
}

// sameUsage fails unless a and b have equal usage rows and sums, and a's
// class index, if it has one, is the one b's usage makes.
func sameUsage(t *rapid.T, a, b *Snapshot) {
	for id := range NodeID(a.NumNodes()) {
		if !slices.Equal(a.usedRow(id), b.usedRow(id)) {
			t.Fatalf("node %d: usage %v, want %v", id, a.usedRow(id), b.usedRow(id))
		}
	}
	if !slices.Equal(a.usedSum, b.usedSum) {
		t.Fatalf("sums %v, want %v", a.usedSum, b.usedSum)
	}
	if ca := a.cls.Load(); ca != nil && fmt.Sprint(membership(ca)) != fmt.Sprint(membership(b.classes())) {
		t.Fatalf("classes differ")
	}
}

// The label index: values ascending, each node under its value in ID
// order, -1 without the label; the cache stops at maxLabelIndexes keys.
func TestLabelDomains(t *testing.T) {
	s, err := NewSnapshot([]Node{
		{Name: "a", Labels: map[string]string{"k": "z"}}, {Name: "b", Labels: map[string]string{"k": ""}},
		{Name: "c"}, {Name: "d", Labels: map[string]string{"k": "z"}}, {Name: "e", Labels: map[string]string{"k": "m"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ld := s.b.labelDomains("k")
	if got := fmt.Sprint(ld.values, ld.of, ld.nodes); got != `[ m z] [2 0 -1 2 1] [[1] [4] [0 3]]` {
		t.Fatalf("got %s", got)
	}
	if s.b.labelDomains("k") != ld {
		t.Fatal("index not kept")
	}
	for i := range maxLabelIndexes + 5 {
		s.b.labelDomains(fmt.Sprint("x", i))
	}
	if n := len(s.b.labels.keys); n != maxLabelIndexes {
		t.Fatalf("%d keys cached, want %d", n, maxLabelIndexes)
	}
}

// A nodeIndex emptied holds nothing, also when its stamp wraps around:
// an entry set 2^32 emptyings ago must not count again.
func TestNodeIndex_Empty(t *testing.T) {
	var x nodeIndex
	x.reset(4)
	x.set(1, 7)
	if !x.has(1) || x.of(1) != 7 || x.has(2) {
		t.Fatalf("after set: has(1) %v of(1) %d has(2) %v", x.has(1), x.of(1), x.has(2))
	}
	x.empty()
	if x.has(1) {
		t.Fatal("entry kept after empty")
	}
	x.cur = 1
	x.set(1, 7) // under the stamp a wrap starts again from
	x.cur = math.MaxUint32
	x.empty()
	if x.has(1) {
		t.Fatal("entry counts again after the stamp wrapped")
	}
	x.set(2, 3)
	x.reset(8) // grown
	if x.has(2) || x.has(7) {
		t.Fatal("entry kept after reset")
	}
}
