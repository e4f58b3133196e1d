package placement_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// hPodSetCase is a drawn tree given twice: with each leaf's pods as pod
// sets (some kinds kept as members), and with every pod listed as a
// member. A leaf's pods are of up to two kinds, one and two CPUs; kind k
// of leaf L is pod set "L-s<k>", or members "L-s<k>-<i>" (the naming
// TestProp_PodSetsEqualExpandedMembers uses, prefixed by the leaf so that
// no two leaves list one pod).
type hPodSetCase struct {
	nodes        []placement.Node
	sets, listed *placement.HierarchyNode
	allSets      bool // every kind of every leaf is a pod set
}

func drawHPodSetCase(t *rapid.T) hPodSetCase {
	c := drawHCase(t)
	allSets := rapid.Bool().Draw(t, "allSets")
	var twice func(n *placement.HierarchyNode) (*placement.HierarchyNode, *placement.HierarchyNode)
	twice = func(n *placement.HierarchyNode) (*placement.HierarchyNode, *placement.HierarchyNode) {
		a, b := *n, *n
		if n.Group == nil {
			a.Children, b.Children = nil, nil
			for _, ch := range n.Children {
				x, y := twice(ch)
				a.Children, b.Children = append(a.Children, x), append(b.Children, y)
			}
			return &a, &b
		}
		g := n.Group
		sets := &placement.Group{Namespace: g.Namespace, Name: g.Name, MinCount: g.MinCount}
		listed := &placement.Group{Namespace: g.Namespace, Name: g.Name, MinCount: g.MinCount}
		left := len(g.Members)
		for k := 0; left > 0; k++ {
			count := left
			if k == 0 && left > 1 && rapid.Bool().Draw(t, "twoKinds") {
				count = rapid.IntRange(1, left-1).Draw(t, "firstKind")
			}
			left -= count
			name := fmt.Sprintf("%s-s%d", g.Name, k)
			tmpl := placement.Pod{Namespace: g.Namespace, SchedulingGroup: g.Name,
				Requests: placement.ResourceList{placement.ResourceCPU: int64(1000 * (k + 1))}}
			asSet := allSets || rapid.Bool().Draw(t, "asSet")
			for i := range count {
				p := tmpl
				p.Name = fmt.Sprintf("%s-%d", name, i)
				listed.Members = append(listed.Members, p)
				if !asSet {
					sets.Members = append(sets.Members, p)
				}
			}
			if asSet {
				sets.PodSets = append(sets.PodSets, placement.PodSet{Name: name, Count: int32(count), Template: tmpl})
			}
		}
		a.Group, b.Group = sets, listed
		return &a, &b
	}
	out := hPodSetCase{nodes: c.nodes, allSets: allSets}
	out.sets, out.listed = twice(c.root)
	return out
}

// kindCounts maps "leaf/kind/node" to the pods a decision places there,
// from either form (member "L-s1-4" and set "L-s1" are kind s1 of L).
func kindCounts(d placement.HierarchyDecision) map[string]int32 {
	out := map[string]int32{}
	kind := func(name string) string {
		i := strings.LastIndex(name, "-s")
		name = name[i+1:]
		if j := strings.IndexByte(name, '-'); j >= 0 {
			name = name[:j]
		}
		return name
	}
	for _, ld := range d.Decisions {
		for _, a := range ld.Assignments {
			out[ld.Group.Name+"/"+kind(a.Pod.Name)+"/"+a.Node]++
		}
		for _, a := range ld.PodSetAssignments {
			out[ld.Group.Name+"/"+kind(a.PodSet)+"/"+a.Node] += a.Count
		}
	}
	return out
}

// sameResults reports the first difference between two trees' results,
// messages and leaf decisions aside (they name pods).
func sameResults(a, b placement.NodeResult) error {
	if a.Name != b.Name || a.Status != b.Status || a.Domain != b.Domain || a.Min != b.Min ||
		a.Scheduled != b.Scheduled || a.Remaining != b.Remaining || a.Unschedulable != b.Unschedulable ||
		a.Unresolvable != b.Unresolvable || len(a.Children) != len(b.Children) || (a.Decision == nil) != (b.Decision == nil) {
		return fmt.Errorf("%+v vs %+v", a, b)
	}
	if a.Decision != nil && (a.Decision.Status != b.Decision.Status || a.Decision.Placement.Name != b.Decision.Placement.Name) {
		return fmt.Errorf("leaf %q: %v in %q vs %v in %q", a.Name, a.Decision.Status, a.Decision.Placement.Name, b.Decision.Status, b.Decision.Placement.Name)
	}
	for i := range a.Children {
		if err := sameResults(a.Children[i], b.Children[i]); err != nil {
			return err
		}
	}
	return nil
}

// A tree whose leaves give their pods as pod sets decides as the same
// tree with every pod listed: status, where it fails, proof, every node's
// result and domain, and each leaf's pods per node, kind by kind — on the
// usage overlay and applying each leaf alike. When every leaf gives all
// its pods as sets, the steps are equal too: a leaf of members and a leaf
// of sets are never twins (hierarchy_twins.go), so mixed trees may search
// in another order, to the same decision.
func TestHierarchy_PropPodSetsDecideAsListed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawHPodSetCase(t)
		s, err := placement.NewSnapshot(c.nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := placement.SolveHierarchy(s, c.listed, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		solve := placement.SolveHierarchy
		if rapid.Bool().Draw(t, "applied") {
			solve = placement.SolveHierarchyApplied
		}
		got, err := solve(s, c.sets, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != want.Status || got.FailedAt != want.FailedAt || got.Proven != want.Proven || (c.allSets && got.Steps != want.Steps) {
			t.Fatalf("pod sets %v at %q proven %v steps %d: %s\nlisted %v at %q proven %v steps %d: %s",
				got.Status, got.FailedAt, got.Proven, got.Steps, got.Message, want.Status, want.FailedAt, want.Proven, want.Steps, want.Message)
		}
		if err := sameResults(got.Root, want.Root); err != nil {
			t.Fatal(err)
		}
		if g, w := kindCounts(got), kindCounts(want); !maps.Equal(g, w) {
			t.Fatalf("pods per node: pod sets %v, listed %v", g, w)
		}
	})
}

// The benchmark's shape in small: pod-set leaves of one template, twins
// but for their names, place as the same pods listed.
func TestHierarchy_PodSetTwinsAsListed(t *testing.T) {
	s := hSnap(t, hNode("n1", "b1", "r1", 3), hNode("n2", "b1", "r2", 2), hNode("n3", "b2", "r3", 4), hNode("n4", "b2", "r4", 4))
	leaf := func(name string, sets bool) *placement.HierarchyNode {
		tmpl := placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}
		g := &placement.Group{Namespace: "ns", Name: name, MinCount: 4}
		if sets {
			g.PodSets = []placement.PodSet{{Name: name + "-s0", Count: 4, Template: tmpl}}
		} else {
			for i := range 4 {
				p := tmpl
				p.Namespace, p.Name, p.SchedulingGroup = "ns", fmt.Sprintf("%s-s0-%d", name, i), name
				g.Members = append(g.Members, p)
			}
		}
		return &placement.HierarchyNode{Name: name, TopologyKey: hRack, Group: g}
	}
	tree := func(sets bool) *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
			Children: []*placement.HierarchyNode{leaf("a", sets), leaf("b", sets)}}
	}
	want, got := hSolve(t, s, tree(false)), hSolve(t, s, tree(true))
	if got.Status != placement.Scheduled || got.Root.Domain != "b2" || got.Steps != want.Steps ||
		fmt.Sprint(kindCounts(got)) != "map[a/s0/n3:4 b/s0/n4:4]" || !maps.Equal(kindCounts(got), kindCounts(want)) {
		t.Fatalf("pod sets %v %q steps %d %v, listed steps %d %v", got.Status, got.Root.Domain, got.Steps, kindCounts(got), want.Steps, kindCounts(want))
	}
}

// A leaf cut to its minimum takes its first pods by name, a set's pods
// under the set's name: set "a-s0" (one CPU a pod) before member "a-s1-0"
// (two), as the pods listed "a-s0-0", "a-s0-1", "a-s1-0" would be cut. The
// whole leaf (4 CPUs) would leave no room to its sibling.
func TestHierarchy_PodSetLeafCutByName(t *testing.T) {
	s := hSnap(t, hNode("n0", "b0", "r0", 4))
	cpu := func(n int64) placement.ResourceList { return placement.ResourceList{placement.ResourceCPU: n * 1000} }
	a := &placement.Group{Namespace: "ns", Name: "a", MinCount: 1,
		Members: []placement.Pod{{Namespace: "ns", Name: "a-s1-0", SchedulingGroup: "a", Requests: cpu(2)}},
		PodSets: []placement.PodSet{{Name: "a-s0", Count: 2, Template: placement.Pod{Requests: cpu(1)}}}}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2,
		Children: []*placement.HierarchyNode{{Name: "a", Group: a}, hLeaf("b", "", 1, 1)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || len(d.Decisions) != 2 || len(d.Decisions[0].Assignments) != 0 ||
		len(d.Decisions[0].PodSetAssignments) != 1 || d.Decisions[0].PodSetAssignments[0].Count != 1 {
		t.Fatalf("%v %+v: %s", d.Status, d.Decisions, d.Message)
	}
}
