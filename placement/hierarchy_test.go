package placement_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

const (
	hBlock = "example.com/block"
	hRack  = "example.com/rack"
)

// hNode is a node with slots one-CPU slots.
func hNode(name, block, rack string, slots int64) placement.Node {
	l := map[string]string{}
	if block != "" {
		l[hBlock] = block
	}
	if rack != "" {
		l[hRack] = rack
	}
	return placement.Node{Name: name, Labels: l, Allocatable: placement.ResourceList{placement.ResourceCPU: slots * 1000}}
}

// hLeaf is a gang leaf of pending one-CPU pods.
func hLeaf(name, key string, min, pods int) *placement.HierarchyNode {
	g := &placement.Group{Namespace: "ns", Name: name, MinCount: int32(min)}
	for i := range pods {
		g.Members = append(g.Members, placement.Pod{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i),
			SchedulingGroup: name, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
	}
	return &placement.HierarchyNode{Name: name, TopologyKey: key, Group: g}
}

func hSnap(t testing.TB, nodes ...placement.Node) *placement.Snapshot {
	s, err := placement.NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hBoundSnap is a snapshot of nodes with n one-slot pods of group bound to
// node, named prefix0, prefix1, …: a leaf scheduled in an earlier cycle.
func hBoundSnap(t testing.TB, group, prefix, node string, n int, nodes ...placement.Node) *placement.Snapshot {
	var bound []placement.Pod
	for i := range n {
		bound = append(bound, placement.Pod{Namespace: "ns", Name: fmt.Sprintf("%s%d", prefix, i), SchedulingGroup: group, NodeName: node,
			Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
	}
	s, err := placement.NewSnapshot(nodes, bound)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hSolve is SolveHierarchy of root on s with default options; an error
// fails the test.
func hSolve(t testing.TB, s *placement.Snapshot, root *placement.HierarchyNode) placement.HierarchyDecision {
	t.Helper()
	d, err := placement.SolveHierarchy(s, root, placement.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// leafNodes maps each placed leaf to the nodes of its assignments.
func leafNodes(d placement.HierarchyDecision) map[string][]string {
	m := map[string][]string{}
	for _, ld := range d.Decisions {
		for _, a := range ld.Assignments {
			if !slices.Contains(m[ld.Group.Name], a.Node) {
				m[ld.Group.Name] = append(m[ld.Group.Name], a.Node)
			}
		}
		for _, a := range ld.PodSetAssignments {
			if !slices.Contains(m[ld.Group.Name], a.Node) {
				m[ld.Group.Name] = append(m[ld.Group.Name], a.Node)
			}
		}
		slices.Sort(m[ld.Group.Name])
	}
	return m
}

// KEP-6012's worked example: block-A offers racks of 3 and 5 slots,
// block-B two of 5; a root gang of two children by block, each child a
// gang of 5 by rack, fits only in block-B, one child per rack.
func TestHierarchy_KEPWorkedExample(t *testing.T) {
	s := hSnap(t,
		hNode("a1", "block-A", "rack-A1", 3), hNode("a2", "block-A", "rack-A2", 5),
		hNode("b1", "block-B", "rack-B1", 5), hNode("b2", "block-B", "rack-B2", 5))
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{hLeaf("child-1", hRack, 5, 5), hLeaf("child-2", hRack, 5, 5)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || !d.Proven {
		t.Fatalf("status %v proven %v: %s", d.Status, d.Proven, d.Message)
	}
	if d.Root.Domain != "block-B" || d.Root.Scheduled != 2 {
		t.Fatalf("root %+v", d.Root)
	}
	got := leafNodes(d)
	if !slices.Equal(got["child-1"], []string{"b1"}) || !slices.Equal(got["child-2"], []string{"b2"}) {
		t.Fatalf("leaves on %v", got)
	}
}

// The answer owns its leaves' nodes and assignments: a caller writing
// over the nodes, or appending to one leaf's nodes or assignments (which
// share one array with the other leaves'), changes neither another
// leaf's nor a later solve (a rack taken whole is the snapshot's label index, shared by
// every snapshot of the base). Its messages are as documented.
func TestHierarchy_AnswerOwnsItsNodes(t *testing.T) {
	s := hSnap(t,
		hNode("a1", "block-A", "rack-A1", 3), hNode("a2", "block-A", "rack-A2", 5),
		hNode("b1", "block-B", "rack-B1", 5), hNode("b2", "block-B", "rack-B2", 5))
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{hLeaf("child-1", hRack, 5, 5), hLeaf("child-2", hRack, 5, 5)}}
	want := hSolve(t, s, root)
	if want.Message != `2 of min 2 children of "root" scheduled` || want.Root.Message != "2 of min 2 children scheduled" {
		t.Fatalf("messages %q, %q", want.Message, want.Root.Message)
	}
	d := hSolve(t, s, root)
	second, secondAs := slices.Clone(d.Decisions[1].Placement.Nodes), slices.Clone(d.Decisions[1].Assignments)
	_ = append(d.Decisions[0].Placement.Nodes, 0)
	_ = append(d.Decisions[0].Assignments, placement.Assignment{Node: "x"})
	if !slices.Equal(d.Decisions[1].Placement.Nodes, second) {
		t.Fatalf("appending to the first leaf's nodes changed the second's: %v, was %v", d.Decisions[1].Placement.Nodes, second)
	}
	if !slices.Equal(d.Decisions[1].Assignments, secondAs) {
		t.Fatalf("appending to the first leaf's assignments changed the second's: %v, was %v", d.Decisions[1].Assignments, secondAs)
	}
	for _, ld := range d.Decisions {
		for i := range ld.Placement.Nodes {
			ld.Placement.Nodes[i] = 0
		}
	}
	if again := hSolve(t, s, root); !reflect.DeepEqual(again, want) {
		t.Fatalf("after the caller wrote over an answer's nodes:\n%+v\nwant\n%+v", again, want)
	}
}

// Resource stealing (KEP-6012): the first child, a gang of min 2 with 6
// pods, would take every slot and starve its sibling, which needs a whole
// rack of 4. Upstream's greedy order fails; the search backtracks and
// places the first child at its minimum.
func TestHierarchy_ResourceStealing(t *testing.T) {
	s := hSnap(t, hNode("n1", "b", "r1", 4), hNode("n2", "b", "r2", 2))
	a, b := hLeaf("a", "", 2, 6), hLeaf("b", hRack, 4, 4)
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, Children: []*placement.HierarchyNode{a, b}}

	// Greedy: a as many as fit, then b on what is left.
	da, err := placement.Solve(s, a.Group, placement.Options{})
	if err != nil || da.Status != placement.Scheduled || len(da.Assignments) != 6 {
		t.Fatalf("greedy a: %v %v %d", err, da.Status, len(da.Assignments))
	}

	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled {
		t.Fatalf("%v: %s", d.Status, d.Message)
	}
	got := leafNodes(d)
	if !slices.Equal(got["b"], []string{"n1"}) || len(d.Decisions[0].Assignments) != 2 {
		t.Fatalf("leaves on %v, a placed %d", got, len(d.Decisions[0].Assignments))
	}
}

// A basic root places as many children as fit; the rest are reported
// unschedulable beside their siblings.
func TestHierarchy_BasicTakesWhatFits(t *testing.T) {
	s := hSnap(t, hNode("n1", "b", "r1", 4))
	root := &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic,
		Children: []*placement.HierarchyNode{hLeaf("a", "", 3, 3), hLeaf("b", "", 3, 3), hLeaf("c", "", 1, 1)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || d.Root.Scheduled != 2 || d.Root.Unschedulable != 1 || d.Root.Children[1].Status != placement.Unschedulable {
		t.Fatalf("%v %+v", d.Status, d.Root)
	}
}

// Failure reports the level: children that each fit alone but not
// together are a joint failure at their parent, and a child that can never
// fit is unresolvable.
func TestHierarchy_FailureLevels(t *testing.T) {
	s := hSnap(t, hNode("n1", "b1", "r1", 4), hNode("n2", "b2", "r2", 4))
	inner := &placement.HierarchyNode{Name: "inner", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{hLeaf("x", "", 3, 3), hLeaf("y", "", 3, 3)}}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{inner}}
	d := hSolve(t, s, root)
	if d.Status != placement.Unschedulable || d.FailedAt != "inner" || !d.Proven {
		t.Fatalf("%v at %q proven %v: %s", d.Status, d.FailedAt, d.Proven, d.Message)
	}
	in := d.Root.Children[0]
	if in.Scheduled != 2 || in.Min != 2 || in.Status != placement.Unschedulable {
		t.Fatalf("inner %+v", in)
	}

	big := &placement.HierarchyNode{Name: "root", MinGroupCount: 2,
		Children: []*placement.HierarchyNode{hLeaf("x", "", 3, 3), hLeaf("huge", hRack, 5, 5)}}
	d = hSolve(t, s, big)
	if d.Status != placement.Unresolvable || d.FailedAt != "huge" || d.Root.Unresolvable != 1 || d.Root.Scheduled != 1 {
		t.Fatalf("%v at %q: %+v", d.Status, d.FailedAt, d.Root)
	}
}

// Bound members pin their subtree's domain.
func TestHierarchy_BoundPins(t *testing.T) {
	bound := placement.Pod{Namespace: "ns", Name: "x-bound", SchedulingGroup: "x", NodeName: "n2",
		Requests: placement.ResourceList{placement.ResourceCPU: 1000}}
	s, err := placement.NewSnapshot([]placement.Node{hNode("n1", "b1", "r1", 4), hNode("n2", "b2", "r2", 4)}, []placement.Pod{bound})
	if err != nil {
		t.Fatal(err)
	}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{hLeaf("x", "", 2, 1), hLeaf("y", "", 2, 2)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || d.Root.Domain != "b2" {
		t.Fatalf("%v %q: %s", d.Status, d.Root.Domain, d.Message)
	}
}

// stray is leaf name with one member named pod: a key another leaf may
// list too.
func stray(name, pod string) *placement.HierarchyNode {
	l := hLeaf(name, "", 1, 1)
	l.Group.Members[0].Name = pod
	return l
}

func TestHierarchy_Errors(t *testing.T) {
	s := hSnap(t, hNode("n1", "b1", "r1", 4))
	cyc := &placement.HierarchyNode{Name: "c", MinGroupCount: 1}
	cyc.Children = []*placement.HierarchyNode{cyc}
	deep := hLeaf("leaf", "", 1, 1)
	for i := range 4 {
		deep = &placement.HierarchyNode{Name: fmt.Sprintf("d%d", i), MinGroupCount: 1, Children: []*placement.HierarchyNode{deep}}
	}
	twice := hLeaf("twice", "", 1, 3)
	twice.Group.Members[2].Name = "twice-1" // after twice-1: not ascending
	for _, tc := range []struct {
		root        *placement.HierarchyNode
		object, fld string
	}{
		{cyc, `hierarchy node "c"`, "children"},
		{deep, `hierarchy node "leaf"`, "depth"},
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 2, Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1)}}, `hierarchy node "r"`, "minGroupCount"},
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, TopologyKey: "nope", Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1)}}, `hierarchy node "r"`, "topologyKey"},
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", "zz", 1, 1)}}, `hierarchy node "a"`, "topologyKey"},
		{&placement.HierarchyNode{Name: "r"}, `hierarchy node "r"`, "children"},
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1),
			{Name: "b", Group: hLeaf("a", "", 1, 1).Group}}}, `hierarchy node "b"`, "group"},
		{&placement.HierarchyNode{Name: "r", Policy: "Odd", Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1)}}, `hierarchy node "r"`, "policy"},
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 2), stray("b", "a-1")}},
			`hierarchy node "b"`, "group.members"},
		// One leaf lists a pod twice: its Solve refuses it.
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{twice}}, `pod "ns/twice-1"`, "metadata.name"},
	} {
		_, err := placement.SolveHierarchy(s, tc.root, placement.Options{})
		var fe *placement.FieldError
		if !errors.As(err, &fe) || fe.Object != tc.object || fe.Field != tc.fld {
			t.Errorf("%s: got %v, want %s %s", tc.root.Name, err, tc.object, tc.fld)
		}
	}
	// A cycle is invalid; a node under two parents is a duplicate.
	shared := hLeaf("shared", "", 1, 1)
	twoParents := &placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{
		{Name: "p1", MinGroupCount: 1, Children: []*placement.HierarchyNode{shared}},
		{Name: "p2", MinGroupCount: 1, Children: []*placement.HierarchyNode{shared}}}}
	for _, tc := range []struct {
		root *placement.HierarchyNode
		want error
		msg  string
	}{{cyc, placement.ErrInvalid, "cycle"}, {twoParents, placement.ErrDuplicate, "reached twice"},
		// Two nodes of one name, the second under a child of the first's
		// parent: a duplicate name, not a node reached twice.
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1),
			{Name: "p", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1)}}}}, placement.ErrDuplicate, `two nodes are named "a"`},
		// A node whose child is named as the node: a duplicate name, not a cycle.
		{&placement.HierarchyNode{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{
			{Name: "r", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1)}}}}, placement.ErrDuplicate, `two nodes are named "r"`},
	} {
		_, err := placement.SolveHierarchy(s, tc.root, placement.Options{})
		if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
			t.Errorf("%s: got %v, want %v saying %q", tc.root.Name, err, tc.want, tc.msg)
		}
	}
}

// --- property: completeness against a brute-force oracle ---

var hKeys = []string{"", hBlock, hRack}

type hCase struct {
	nodes []placement.Node
	root  *placement.HierarchyNode
}

// drawHCase draws up to 6 nodes, each its own rack, in blocks b0/b1, and a
// tree of at most 3 levels and 6 leaves; every leaf is a gang of one-CPU
// pods confined to one rack, so any assignment of a leaf is one node and
// the search's choices cover every placement.
func drawHCase(t *rapid.T) hCase {
	nn := rapid.IntRange(1, 6).Draw(t, "nodes")
	var c hCase
	for i := range nn {
		blk := rapid.SampledFrom([]string{"b0", "b1"}).Draw(t, "block")
		c.nodes = append(c.nodes, hNode(fmt.Sprintf("n%d", i), blk, fmt.Sprintf("r%d", i), int64(rapid.IntRange(0, 4).Draw(t, "slots"))))
	}
	leaves := 0
	var draw func(depth int, name string) *placement.HierarchyNode
	draw = func(depth int, name string) *placement.HierarchyNode {
		if depth > 1 && (depth == 3 || leaves >= 5 || rapid.Bool().Draw(t, "leaf")) {
			leaves++
			min := rapid.IntRange(1, 3).Draw(t, "min")
			return hLeaf(name, hRack, min, min+rapid.IntRange(0, 2).Draw(t, "extra"))
		}
		n := &placement.HierarchyNode{Name: name, TopologyKey: rapid.SampledFrom(hKeys[:2]).Draw(t, "key")}
		k := rapid.IntRange(1, 3).Draw(t, "children")
		for i := range k {
			if leaves >= 6 {
				break
			}
			n.Children = append(n.Children, draw(depth+1, fmt.Sprintf("%s%d", name, i)))
		}
		if rapid.Bool().Draw(t, "basic") {
			n.Policy = placement.PolicyBasic
		} else {
			n.MinGroupCount = int32(rapid.IntRange(1, len(n.Children)).Draw(t, "minGroupCount"))
		}
		return n
	}
	c.root = draw(1, "g")
	return c
}

// hOracle: is there a choice of children (at least each node's minimum:
// MinGroupCount, 1 for basic), of one domain per keyed node and of one rack
// per leaf such that the leaves' minimums fit the slots? By brute force.
func hOracle(c hCase) bool {
	free := map[string]int64{}
	for _, n := range c.nodes {
		free[n.Name] = n.Allocatable[placement.ResourceCPU] / 1000
	}
	var try func(n *placement.HierarchyNode, allowed []placement.Node, k func() bool) bool
	var children func(n *placement.HierarchyNode, i, sat, need int, allowed []placement.Node, k func() bool) bool
	try = func(n *placement.HierarchyNode, allowed []placement.Node, k func() bool) bool {
		if n.Group != nil {
			need := int64(n.Group.MinCount)
			for _, nd := range allowed { // a leaf takes one rack = one node
				if free[nd.Name] >= need {
					free[nd.Name] -= need
					ok := k()
					free[nd.Name] += need
					if ok {
						return true
					}
				}
			}
			return false
		}
		need := 1
		if n.Policy != placement.PolicyBasic {
			need = int(n.MinGroupCount)
		}
		var doms []string
		if n.TopologyKey == "" {
			doms = []string{"*"}
		} else {
			for _, nd := range allowed {
				if v, ok := nd.Labels[n.TopologyKey]; ok && !slices.Contains(doms, v) {
					doms = append(doms, v)
				}
			}
		}
		for _, v := range doms {
			var sub []placement.Node
			for _, nd := range allowed {
				if v == "*" || nd.Labels[n.TopologyKey] == v {
					sub = append(sub, nd)
				}
			}
			if children(n, 0, 0, need, sub, k) {
				return true
			}
		}
		return false
	}
	children = func(n *placement.HierarchyNode, i, sat, need int, allowed []placement.Node, k func() bool) bool {
		if sat >= need {
			return k()
		}
		if i == len(n.Children) {
			return false
		}
		if try(n.Children[i], allowed, func() bool { return children(n, i+1, sat+1, need, allowed, k) }) {
			return true
		}
		return children(n, i+1, sat, need, allowed, k)
	}
	return try(c.root, c.nodes, func() bool { return true })
}

// checkTree verifies a Scheduled decision: each placed node has at least
// its minimum of placed children, each leaf its minimum of pods, and each
// keyed subtree lies in one domain.
func checkTree(t *rapid.T, s *placement.Snapshot, n *placement.HierarchyNode, r placement.NodeResult, dec map[string]placement.Decision) []string {
	if r.Name != n.Name || r.Status != placement.Scheduled {
		t.Fatalf("result %q status %v for node %q", r.Name, r.Status, n.Name)
	}
	var nodes []string
	if n.Group != nil {
		d, ok := dec[n.Name]
		if !ok || len(d.Assignments) < int(n.Group.MinCount) {
			t.Fatalf("leaf %q placed %d of min %d", n.Name, len(d.Assignments), n.Group.MinCount)
		}
		for _, a := range d.Assignments {
			nodes = append(nodes, a.Node)
		}
	} else {
		need := 1
		if n.Policy != placement.PolicyBasic {
			need = int(n.MinGroupCount)
		}
		placed := 0
		for _, cr := range r.Children {
			if cr.Status != placement.Scheduled {
				continue
			}
			placed++
			i := slices.IndexFunc(n.Children, func(c *placement.HierarchyNode) bool { return c.Name == cr.Name })
			nodes = append(nodes, checkTree(t, s, n.Children[i], cr, dec)...)
		}
		if placed < need || placed != r.Scheduled {
			t.Fatalf("node %q: %d placed children (result says %d) of min %d", n.Name, placed, r.Scheduled, need)
		}
	}
	if n.TopologyKey != "" {
		for _, nd := range nodes {
			id, _ := s.NodeID(nd)
			if v := s.Node(id).Labels[n.TopologyKey]; v != r.Domain {
				t.Fatalf("node %q in domain %q, but a pod is on %q (%q)", n.Name, r.Domain, nd, v)
			}
		}
	}
	return nodes
}

func TestHierarchy_PropCompleteAgainstOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawHCase(t)
		s, err := placement.NewSnapshot(c.nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := placement.SolveHierarchy(s, c.root, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := hOracle(c)
		if (d.Status == placement.Scheduled) != want || !d.Proven {
			t.Fatalf("status %v proven %v, oracle feasible %v: %s", d.Status, d.Proven, want, d.Message)
		}
		if !want {
			if len(d.Decisions) != 0 || d.FailedAt == "" {
				t.Fatalf("failed decision with %d leaf decisions, failed at %q", len(d.Decisions), d.FailedAt)
			}
			return
		}
		dec := map[string]placement.Decision{}
		cur := s
		for _, ld := range d.Decisions {
			if ld.Status != placement.Scheduled {
				t.Fatalf("leaf %v %v", ld.Group, ld.Status)
			}
			dec[ld.Group.Name] = ld
			var ch placement.Change
			for _, a := range ld.Assignments {
				ch.Bind = append(ch.Bind, placement.Pod{Namespace: "ns", Name: a.Pod.Name, SchedulingGroup: ld.Group.Name,
					NodeName: a.Node, Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
			}
			if cur, err = cur.Apply(ch); err != nil {
				t.Fatalf("committing %v: %v", ld.Group, err)
			}
		}
		for i := range cur.NumNodes() {
			if cur.Free(placement.NodeID(i), placement.ResourceCPU) < 0 {
				t.Fatalf("node %d overcommitted", i)
			}
		}
		checkTree(t, s, c.root, d.Root, dec)
	})
}

// The decision does not depend on the order of children or of nodes.
func TestHierarchy_PropPermutationInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawHCase(t)
		s, err := placement.NewSnapshot(c.nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		d1, err := placement.SolveHierarchy(s, c.root, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var shuffle func(n *placement.HierarchyNode) *placement.HierarchyNode
		shuffle = func(n *placement.HierarchyNode) *placement.HierarchyNode {
			m := *n
			m.Children = nil
			for _, c := range n.Children {
				m.Children = append(m.Children, shuffle(c))
			}
			m.Children = rapid.Permutation(m.Children).Draw(t, "children")
			return &m
		}
		s2, err := placement.NewSnapshot(rapid.Permutation(c.nodes).Draw(t, "nodes"), nil)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := placement.SolveHierarchy(s2, shuffle(c.root), placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d1.Status != d2.Status || d1.Message != d2.Message || d1.FailedAt != d2.FailedAt ||
			fmt.Sprint(leafNodes(d1)) != fmt.Sprint(leafNodes(d2)) {
			t.Fatalf("%v %s %v vs %v %s %v", d1.Status, d1.Message, leafNodes(d1), d2.Status, d2.Message, leafNodes(d2))
		}
	})
}

// A budget too small to finish says so and is not proven.
func TestHierarchy_Budget(t *testing.T) {
	s := hSnap(t,
		hNode("a1", "block-A", "rack-A1", 3), hNode("a2", "block-A", "rack-A2", 5),
		hNode("b1", "block-B", "rack-B1", 5), hNode("b2", "block-B", "rack-B2", 5))
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{hLeaf("child-1", hRack, 5, 5), hLeaf("child-2", hRack, 5, 5)}}
	d, err := placement.SolveHierarchy(s, root, placement.Options{Budget: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != placement.BudgetExhausted || d.Proven || len(d.Decisions) != 0 {
		t.Fatalf("%v proven %v: %s", d.Status, d.Proven, d.Message)
	}
}

// Leaves given as pod sets are placed and bound like members.
func TestHierarchy_PodSets(t *testing.T) {
	s := hSnap(t, hNode("n1", "b1", "r1", 4), hNode("n2", "b1", "r2", 4), hNode("n3", "b2", "r3", 2))
	leaf := func(name string, min, count int32) *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: name, TopologyKey: hRack, Group: &placement.Group{Namespace: "ns", Name: name, MinCount: min,
			PodSets: []placement.PodSet{{Name: name + "-w", Count: count,
				Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}}
	}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{leaf("p", 3, 4), leaf("q", 4, 4)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || d.Root.Domain != "b1" || fmt.Sprint(leafNodes(d)) != "map[p:[n1] q:[n2]]" {
		t.Fatalf("%v %q %v: %s", d.Status, d.Root.Domain, leafNodes(d), d.Message)
	}
}

// A keyless leaf that [Solve] would pack into the rack its sibling needs
// is retried confined to each rack, and leaves it.
func TestHierarchy_LeafYieldsRack(t *testing.T) {
	s := hSnap(t, hNode("n2", "b0", "x", 1), hNode("n3", "b0", "y", 1), hNode("n4", "b0", "x", 2))
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2,
		Children: []*placement.HierarchyNode{hLeaf("a", "", 1, 1), hLeaf("b", hRack, 3, 3)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || fmt.Sprint(leafNodes(d)) != "map[a:[n3] b:[n2 n4]]" {
		t.Fatalf("%v %v: %s", d.Status, leafNodes(d), d.Message)
	}
}

// Three levels (block > rack > leaves) with a bound member: the bound pod
// pins both its rack and its block, though block b1 sorts first and fits.
func TestHierarchy_ThreeLevelsBound(t *testing.T) {
	bound := placement.Pod{Namespace: "ns", Name: "x-bound", SchedulingGroup: "x", NodeName: "n3",
		Requests: placement.ResourceList{placement.ResourceCPU: 1000}}
	s, err := placement.NewSnapshot([]placement.Node{hNode("n0", "b1", "r0", 4), hNode("n1", "b1", "r1", 4),
		hNode("n2", "b2", "r2", 4), hNode("n3", "b2", "r3", 4)}, []placement.Pod{bound})
	if err != nil {
		t.Fatal(err)
	}
	inner := &placement.HierarchyNode{Name: "i1", MinGroupCount: 2, TopologyKey: hRack,
		Children: []*placement.HierarchyNode{hLeaf("x", "", 2, 1), hLeaf("y", "", 2, 2)}}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{inner, hLeaf("z", hRack, 2, 2)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || d.Root.Domain != "b2" || d.Root.Children[0].Domain != "r3" ||
		fmt.Sprint(leafNodes(d)) != "map[x:[n3] y:[n3] z:[n2]]" {
		t.Fatalf("%v %+v %v: %s", d.Status, d.Root, leafNodes(d), d.Message)
	}
}

// A leaf scheduled in an earlier cycle (no pending members, its minimum
// bound) counts as a satisfied child without a solve and pins the block;
// a leaf with no members at all is never satisfied (Unresolvable, judged
// alone).
func TestHierarchy_LeafScheduledBefore(t *testing.T) {
	s := hBoundSnap(t, "x", "x-", "n2", 2, hNode("n1", "b1", "r1", 4), hNode("n2", "b2", "r2", 4))
	x := &placement.HierarchyNode{Name: "x", Group: &placement.Group{Namespace: "ns", Name: "x", MinCount: 2}}
	empty := &placement.HierarchyNode{Name: "e", Group: &placement.Group{Namespace: "ns", Name: "e", MinCount: 1}}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{x, hLeaf("y", "", 2, 2), empty}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || d.Root.Domain != "b2" || len(d.Decisions) != 1 ||
		fmt.Sprint(leafNodes(d)) != "map[y:[n2]]" || d.Root.Scheduled != 2 || d.Root.Children[0].Status != placement.Unresolvable {
		t.Fatalf("%v %q %v %+v: %s", d.Status, d.Root.Domain, leafNodes(d), d.Root, d.Message)
	}
	root.MinGroupCount = 3
	if d, err := placement.SolveHierarchy(s, root, placement.Options{}); err != nil || d.Status != placement.Unresolvable || d.FailedAt != "e" {
		t.Fatalf("%v %v at %q: %s", err, d.Status, d.FailedAt, d.Message)
	}
}

// With EmptyValueIsNoDomain (Kubernetes v1.38), nodes labelled rack=""
// are in no rack: the rack-bound leaf no longer fits on them.
func TestHierarchy_EmptyValueIsNoDomain(t *testing.T) {
	s2, err := placement.NewSnapshot([]placement.Node{
		{Name: "e1", Labels: map[string]string{hRack: ""}, Allocatable: placement.ResourceList{placement.ResourceCPU: 2000}},
		{Name: "n2", Labels: map[string]string{hRack: "r2"}, Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", hRack, 2, 2)}}
	d, err := placement.SolveHierarchy(s2, root, placement.Options{})
	if err != nil || d.Status != placement.Scheduled || fmt.Sprint(leafNodes(d)) != "map[a:[e1]]" {
		t.Fatalf("%v %v %v: %s", err, d.Status, leafNodes(d), d.Message)
	}
	d, err = placement.SolveHierarchyWith(s2, root, placement.Options{}, placement.HierarchyOptions{EmptyValueIsNoDomain: true})
	if err != nil || d.Status != placement.Unresolvable {
		t.Fatalf("%v %v: %s", err, d.Status, d.Message)
	}
	// The same under a block: its nodes are split by rack, a key with one
	// node a domain, and e1's empty rack is still no domain.
	cpu := func(m int64) placement.ResourceList { return placement.ResourceList{placement.ResourceCPU: m} }
	s3, err := placement.NewSnapshot([]placement.Node{
		{Name: "e1", Labels: map[string]string{hBlock: "b", hRack: ""}, Allocatable: cpu(2000)},
		{Name: "n2", Labels: map[string]string{hBlock: "b", hRack: "r2"}, Allocatable: cpu(1000)},
		{Name: "n3", Labels: map[string]string{hBlock: "c", hRack: "r3"}, Allocatable: cpu(1000)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	root = &placement.HierarchyNode{Name: "root", TopologyKey: hBlock, MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("a", hRack, 2, 2)}}
	d, err = placement.SolveHierarchy(s3, root, placement.Options{})
	if err != nil || d.Status != placement.Scheduled || fmt.Sprint(leafNodes(d)) != "map[a:[e1]]" {
		t.Fatalf("%v %v %v: %s", err, d.Status, leafNodes(d), d.Message)
	}
	d, err = placement.SolveHierarchyWith(s3, root, placement.Options{}, placement.HierarchyOptions{EmptyValueIsNoDomain: true})
	if err != nil || d.Status != placement.Unresolvable || d.Message != `0 of min 1 children could ever fit (1 unresolvable); fails at "a"` {
		t.Fatalf("%v %v %v: %s", err, d.Status, leafNodes(d), d.Message)
	}
}

// A leaf scheduled in an earlier cycle whose extra pending members do not
// fit stays a satisfied child: the tree is Scheduled with nothing new for
// it.
func TestHierarchy_ExtrasOfScheduledLeaf(t *testing.T) {
	s := hBoundSnap(t, "a", "a-b", "n1", 2, hNode("n1", "b", "r1", 2), hNode("n2", "b", "r2", 1))
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2, Children: []*placement.HierarchyNode{hLeaf("a", "", 2, 3), hLeaf("b", "", 1, 1)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || fmt.Sprint(leafNodes(d)) != "map[b:[n2]]" || d.Root.Children[0].Decision != nil {
		t.Fatalf("%v %v %+v: %s", d.Status, leafNodes(d), d.Root.Children[0], d.Message)
	}
}

// A keyless leaf that must split across two racks to leave the third to
// its sibling: no single rack holds it, so it is retried on every node
// outside each rack in turn.
func TestHierarchy_LeafSplitsAcrossRacks(t *testing.T) {
	other := placement.Pod{Namespace: "ns", Name: "other", NodeName: "n1", Requests: placement.ResourceList{placement.ResourceCPU: 1000}}
	s, err := placement.NewSnapshot([]placement.Node{hNode("n1", "b0", "r1", 3), hNode("n2", "b0", "r2", 1), hNode("n3", "b0", "r3", 1)},
		[]placement.Pod{other}) // n1, the most allocated, is where Solve packs a
	if err != nil {
		t.Fatal(err)
	}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 2,
		Children: []*placement.HierarchyNode{hLeaf("a", "", 2, 2), hLeaf("b", hRack, 2, 2)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || fmt.Sprint(leafNodes(d)) != "map[a:[n2 n3] b:[n1]]" {
		t.Fatalf("%v %v: %s", d.Status, leafNodes(d), d.Message)
	}
}

// Placing leaves on the usage overlay gives the decision that applying
// each to the snapshot gives (as with hooks), steps included, with or
// without the snapshot's class index built beforehand.
func TestHierarchy_PropOverlayMatchesApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawHCase(t)
		s, err := placement.NewSnapshot(c.nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "classes") {
			// A Solve over every node builds the snapshot's class index,
			// which each placed leaf then moves.
			if _, err := placement.Solve(s, hLeaf("warm", "", 1, 1).Group, placement.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		d1, err := placement.SolveHierarchy(s, c.root, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d2, err := placement.SolveHierarchyApplied(s, c.root, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d1, d2) {
			t.Fatalf("overlay %v %s %v, applied %v %s %v", d1.Status, d1.Message, leafNodes(d1), d2.Status, d2.Message, leafNodes(d2))
		}
	})
}

// Four twin leaves (alike but for names) of two slots, each on one host:
// rack r0 has three hosts of two free slots (and seven slots), so it is
// skipped without a solve; in r1 the twins take the free hosts in order.
// Applying each leaf gives the same decision.
func TestHierarchy_TwinLeavesTakeHostsInOrder(t *testing.T) {
	const hostKey = "kubernetes.io/hostname"
	var nodes []placement.Node
	for r, free := range [][]int64{{2, 0, 2, 2, 1}, {0, 2, 2, 2, 2, 2}} {
		for h, slots := range free {
			n := hNode(fmt.Sprintf("r%d-h%d", r, h), "b0", fmt.Sprintf("r%d", r), slots)
			n.Labels[hostKey] = n.Name
			nodes = append(nodes, n)
		}
	}
	s := hSnap(t, nodes...)
	inner := &placement.HierarchyNode{Name: "i0", MinGroupCount: 4, TopologyKey: hRack}
	for i := range 4 {
		inner.Children = append(inner.Children, hLeaf(fmt.Sprintf("i0-l%d", i), hostKey, 2, 2))
	}
	root := &placement.HierarchyNode{Name: "root", MinGroupCount: 1, TopologyKey: hBlock, Children: []*placement.HierarchyNode{inner}}
	d := hSolve(t, s, root)
	want := "map[i0-l0:[r1-h1] i0-l1:[r1-h2] i0-l2:[r1-h3] i0-l3:[r1-h4]]"
	if d.Status != placement.Scheduled || d.Root.Children[0].Domain != "r1" || fmt.Sprint(leafNodes(d)) != want {
		t.Fatalf("%v %v: %s", d.Status, leafNodes(d), d.Message)
	}
	d2, err := placement.SolveHierarchyApplied(s, root, placement.Options{})
	if err != nil || !reflect.DeepEqual(d, d2) {
		t.Fatalf("applied: %v %v %v", err, d2.Status, leafNodes(d2))
	}
}

// A child a placed tree leaves out is reported by its own reason when it
// would not fit even alone in its parent's domain (upstream: "minCount (3)
// cannot be satisfied"), and as not fitting beside its siblings only when
// it would. It was always the latter.
func TestHierarchy_LeftOutChildJudgedAlone(t *testing.T) {
	s := hSnap(t, hNode("n1", "b", "r1", 2), hNode("n2", "b", "r2", 2))
	root := &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic,
		Children: []*placement.HierarchyNode{hLeaf("a", hRack, 2, 2), hLeaf("b", hRack, 3, 3)}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || d.Root.Scheduled != 1 || d.Root.Unschedulable != 1 {
		t.Fatalf("%v %+v", d.Status, d.Root)
	}
	b := d.Root.Children[1]
	if b.Name != "b" || b.Status != placement.Unresolvable || b.Message != "2 of min 3 members fit in r1; ns/b-2 fits on none of 1 nodes: 1 Insufficient cpu" {
		t.Fatalf("b: %v %q", b.Status, b.Message)
	}

	// Three children of two pods on two racks of two: the third fits
	// alone, not beside the other two.
	root = &placement.HierarchyNode{Name: "root", MinGroupCount: 2,
		Children: []*placement.HierarchyNode{hLeaf("a", hRack, 2, 2), hLeaf("b", hRack, 2, 2), hLeaf("c", hRack, 2, 2)}}
	d = hSolve(t, s, root)
	c := d.Root.Children[2]
	if d.Status != placement.Scheduled || c.Status != placement.Unschedulable || c.Message != "does not fit beside its placed siblings" {
		t.Fatalf("%v; c: %v %q", d.Status, c.Status, c.Message)
	}

	// Inside a block: a child that would fit only in the other block is
	// judged in its parent's.
	s = hSnap(t, hNode("n1", "b1", "r1", 2), hNode("n2", "b2", "r2", 4))
	root = &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic, TopologyKey: hBlock,
		Children: []*placement.HierarchyNode{hLeaf("a", "", 2, 2), hLeaf("big", "", 4, 4)}}
	d = hSolve(t, s, root)
	big := d.Root.Children[1]
	if d.Status != placement.Scheduled || d.Root.Domain != "b1" || big.Status != placement.Unresolvable || big.Message != "2 of min 4 members fit; ns/big-2 fits on none of 1 nodes: 1 Insufficient cpu" {
		t.Fatalf("%v in %q; big: %v %q", d.Status, d.Root.Domain, big.Status, big.Message)
	}
}

// TestHierarchy_PodSetNamedAsAnotherLeafsMember: a pod set takes the name
// of the pods it stands for, so one leaf's set may not be named as another
// leaf's member of its namespace (Solve refuses it within one group: "is
// also the name of a member"), whichever leaf comes first; the error names
// both leaves' groups and the field. Sets of one name in two leaves, and
// a member and a set of one name in two namespaces, are not pods of one
// key. A set named as a pod another group has bound in the snapshot was
// refused already (by the leaf's Solve).
func TestHierarchy_PodSetNamedAsAnotherLeafsMember(t *testing.T) {
	s := hSnap(t, hNode("n1", "b1", "r1", 8))
	bound := hBoundSnap(t, "other", "x", "n1", 1, hNode("n1", "b1", "r1", 8)) // pod ns/x0 of group other
	setLeaf := func(name, ns, set string) *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: name, Group: &placement.Group{Namespace: ns, Name: name, MinCount: 1,
			PodSets: []placement.PodSet{{Name: name + "-w", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}},
				{Name: set, Count: 1, Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}}}
	}
	const clash = `hierarchy node "b": group.podSets[1].name: pod set "x" of PodGroup "ns/b" has the name of pod ns/x, a member of leaf "a" (PodGroup "ns/a")`
	root := func(kids ...*placement.HierarchyNode) *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: "r", Policy: placement.PolicyBasic, Children: kids}
	}
	for _, tc := range []struct {
		name string
		snap *placement.Snapshot // nil: s
		root *placement.HierarchyNode
		err  string // "" decides
	}{
		{"bound in another group", bound, root(setLeaf("b", "ns", "x0"), hLeaf("c", "", 1, 1)),
			`pod set "x0" of PodGroup "ns/b": name: is the name of pod ns/x0, bound to node "n1"`},
		{"member first", nil, root(stray("a", "x"), setLeaf("b", "ns", "x")), clash},
		{"set first", nil, root(setLeaf("b", "ns", "x"), stray("a", "x")), clash},
		{"one level down", nil, root(setLeaf("b", "ns", "x"), &placement.HierarchyNode{Name: "i", Policy: placement.PolicyBasic,
			Children: []*placement.HierarchyNode{hLeaf("c", "", 1, 2), stray("a", "x")}}), clash},
		{"other namespace", nil, root(stray("a", "x"), setLeaf("b", "other", "x")), ""},
		{"two sets of one name", nil, root(setLeaf("a", "ns", "x"), setLeaf("b", "ns", "x")), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := s
			if tc.snap != nil {
				snap = tc.snap
			}
			d, err := placement.SolveHierarchy(snap, tc.root, placement.Options{})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, placement.ErrDuplicate) {
					t.Fatalf("got %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || d.Status != placement.Scheduled {
				t.Fatalf("%v %v: %s", err, d.Status, d.Message)
			}
		})
	}
}

// A child judged alone is reported from the domain where most of its
// members fit, not from the first one tried: in a later cycle rack r1 is
// full of its sibling x's bound pods, and r2 holds two of big's three.
// Between racks that hold as many, the first by value is named. Before,
// every message read "0 of min 3 members fit in r1".
func TestHierarchy_JudgedAloneNamesBestDomain(t *testing.T) {
	bound := func() *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: "x", TopologyKey: hRack, Group: &placement.Group{Namespace: "ns", Name: "x", MinCount: 2}}
	}
	const inR2 = "2 of min 3 members fit in r2; ns/big-2 fits on none of 1 nodes: 1 Insufficient cpu"
	for _, tc := range []struct {
		name   string
		nodes  []placement.Node
		root   *placement.HierarchyNode
		path   []string // from the root to big's result
		status placement.Status
		want   string
	}{{
		name:  "left out of a placed tree",
		nodes: []placement.Node{hNode("n1", "b", "r1", 2), hNode("n2", "b", "r2", 2), hNode("n3", "b", "r3", 1)},
		root: &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic,
			Children: []*placement.HierarchyNode{bound(), hLeaf("c", hRack, 1, 1), hLeaf("big", hRack, 3, 3)}},
		path: []string{"big"}, status: placement.Scheduled, want: inR2,
	}, {
		name:  "tie between r2 and r3: the first by value",
		nodes: []placement.Node{hNode("n1", "b", "r1", 2), hNode("n3", "b", "r3", 2), hNode("n2", "b", "r2", 2)},
		root: &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic,
			Children: []*placement.HierarchyNode{bound(), hLeaf("big", hRack, 3, 3)}},
		path: []string{"big"}, status: placement.Scheduled, want: inR2,
	}, {
		name:  "a tree that fails",
		nodes: []placement.Node{hNode("n1", "b", "r1", 2), hNode("n2", "b", "r2", 2), hNode("n3", "b", "r3", 1)},
		root: &placement.HierarchyNode{Name: "root", MinGroupCount: 2,
			Children: []*placement.HierarchyNode{bound(), hLeaf("big", hRack, 3, 3)}},
		path: []string{"big"}, status: placement.Unresolvable, want: inR2,
	}, {
		name:  "left out one level down: block b2 holds more",
		nodes: []placement.Node{hNode("n1", "b1", "r1", 2), hNode("n2", "b2", "r2", 2), hNode("n3", "b1", "r3", 1)},
		root: &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic,
			Children: []*placement.HierarchyNode{bound(), hLeaf("c", hRack, 1, 1),
				{Name: "g", TopologyKey: hBlock, MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf("big", hRack, 3, 3)}}}},
		path: []string{"g", "big"}, status: placement.Scheduled, want: inR2,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := hBoundSnap(t, "x", "x-", "n1", 2, tc.nodes...)
			d := hSolve(t, s, tc.root)
			r := d.Root
			for _, name := range tc.path {
				i := slices.IndexFunc(r.Children, func(c placement.NodeResult) bool { return c.Name == name })
				if i < 0 {
					t.Fatalf("no %q in %+v", name, r)
				}
				r = r.Children[i]
			}
			if d.Status != tc.status || r.Name != "big" || r.Status != placement.Unresolvable || r.Message != tc.want {
				t.Fatalf("%v: %s; %s: %v %q", d.Status, d.Message, r.Name, r.Status, r.Message)
			}
		})
	}
}

// Every node below a child a placed tree leaves out has a result of its
// own, so that each of its PodGroups can be told why it waits: an inner
// child that would fit alone (judged "does not fit beside its placed
// siblings") used to come without children, and a host that looked its
// leaves up found none.
func TestHierarchy_LeftOutInnerChildNamesItsLeaves(t *testing.T) {
	s := hSnap(t, hNode("n1", "b", "r1", 2))
	inner := func(name, leaf string) *placement.HierarchyNode {
		return &placement.HierarchyNode{Name: name, MinGroupCount: 1, Children: []*placement.HierarchyNode{hLeaf(leaf, "", 2, 2)}}
	}
	root := &placement.HierarchyNode{Name: "root", Policy: placement.PolicyBasic,
		Children: []*placement.HierarchyNode{inner("i1", "a"), inner("i2", "b")}}
	d := hSolve(t, s, root)
	if d.Status != placement.Scheduled || len(d.Root.Children) != 2 {
		t.Fatalf("%v %+v", d.Status, d.Root)
	}
	i2 := d.Root.Children[1]
	if i2.Name != "i2" || i2.Status != placement.Unschedulable || i2.Message != "does not fit beside its placed siblings" ||
		i2.Unschedulable != 1 || len(i2.Children) != 1 {
		t.Fatalf("i2: %+v", i2)
	}
	b := i2.Children[0]
	if b.Name != "b" || b.Status != placement.Unschedulable || b.Min != 2 || b.Decision != nil ||
		b.Message != `"i2", which holds it, does not fit beside its placed siblings` {
		t.Fatalf("b: %+v", b)
	}
}
