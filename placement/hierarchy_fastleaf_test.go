package placement_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// drawFastLeafCase draws a cluster of racks of hosts with GPUs, CPUs and
// a pod limit, some tainted, cordoned or partly used by other groups'
// pods, and a tree over it whose leaves are mostly of the shape the leaf
// placer takes (members alike, none bound), with now and then what sends
// a leaf to Solve: a member of another request, priority or queue time, a
// node selector, a member bound already, of another group or naming a
// node, bound members of the group, a pod set, or a leaf that does not
// fit whole. A leaf is now and then of another namespace; the bound pods
// are given in key order or not, some of them bound by Apply.
func drawFastLeafCase(t *rapid.T) (*placement.Snapshot, *placement.HierarchyNode) {
	racks := rapid.IntRange(1, 4).Draw(t, "racks")
	var nodes []placement.Node
	var bound []placement.Pod
	for r := range racks {
		hosts := rapid.IntRange(1, 5).Draw(t, "hosts")
		for h := range hosts {
			name := fmt.Sprintf("r%d-h%d", r, h)
			n := placement.Node{Name: name, Labels: map[string]string{hBlock: fmt.Sprintf("b%d", r%2), hRack: fmt.Sprintf("r%d", r), "host": name},
				Allocatable: placement.ResourceList{
					placement.ResourceGPU:  int64(rapid.SampledFrom([]int{0, 2, 4, 8}).Draw(t, "gpus")),
					placement.ResourceCPU:  int64(rapid.IntRange(1, 8).Draw(t, "cpus")) * 1000,
					placement.ResourcePods: int64(rapid.IntRange(1, 10).Draw(t, "pods"))}}
			switch rapid.IntRange(0, 9).Draw(t, "nodeKind") {
			case 0:
				n.Taints = []placement.Taint{{Key: "gpu", Value: "x", Effect: placement.TaintEffectNoSchedule}}
			case 1:
				n.Unschedulable = true
			case 2:
				n.Labels["pool"] = "a"
			}
			nodes = append(nodes, n)
			for k := range rapid.IntRange(0, 2).Draw(t, "used") {
				bound = append(bound, placement.Pod{Namespace: "ns", Name: fmt.Sprintf("other-%s-%d", name, k), SchedulingGroup: "other", NodeName: name,
					Requests: placement.ResourceList{placement.ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "usedGPU")), placement.ResourceCPU: 500}})
			}
		}
	}
	leafNo := 0
	leaf := func(key string) *placement.HierarchyNode {
		name := fmt.Sprintf("l%d", leafNo)
		leafNo++
		pods := rapid.IntRange(1, 6).Draw(t, "members")
		ns := "ns"
		if rapid.IntRange(0, 5).Draw(t, "otherNamespace") == 0 {
			ns = "ns2"
		}
		g := &placement.Group{Namespace: ns, Name: name, MinCount: int32(rapid.IntRange(1, pods).Draw(t, "min"))}
		if rapid.IntRange(0, 5).Draw(t, "basic") == 0 {
			g.Policy, g.MinCount = placement.PolicyBasic, 0
		}
		tmpl := placement.Pod{Namespace: ns, SchedulingGroup: name,
			Requests: placement.ResourceList{placement.ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "gpu")), placement.ResourceCPU: int64(rapid.IntRange(0, 2).Draw(t, "cpu")) * 500}}
		if rapid.IntRange(0, 5).Draw(t, "tolerates") == 0 {
			tmpl.Tolerations = []placement.Toleration{{Key: "gpu", Operator: placement.TolerationOpExists}}
		}
		odd, oddAt := rapid.IntRange(0, 29).Draw(t, "odd"), rapid.IntRange(0, pods-1).Draw(t, "oddAt")
		for i := range pods {
			p := tmpl
			p.Name = fmt.Sprintf("%s-%d", name, i)
			p.Requests = placement.ResourceList{}
			for k, v := range tmpl.Requests {
				p.Requests[k] = v
			}
			kind := odd
			if i != oddAt {
				kind = -1
			}
			switch kind {
			case 0:
				p.Requests[placement.ResourceCPU] += 500
			case 1:
				p.Priority = 5
			case 2:
				p.QueuedAt = time.Unix(100, 0)
			case 3:
				p.NodeSelector = map[string]string{"pool": "a"}
			case 4: // bound already: Solve's error
				bound = append(bound, placement.Pod{Namespace: ns, Name: p.Name, SchedulingGroup: "elsewhere", NodeName: nodes[0].Name})
			case 5: // a bound member of the leaf's own group
				bound = append(bound, placement.Pod{Namespace: ns, Name: p.Name + "-b", SchedulingGroup: name, NodeName: nodes[0].Name,
					Requests: placement.ResourceList{placement.ResourceCPU: 500}})
			case 6: // of another group: Solve's error
				p.SchedulingGroup = "elsewhere"
			case 7: // not pending: Solve's error
				p.NodeName = nodes[0].Name
			case 8: // the same instant in another zone: not == (validate's test)
				p.QueuedAt = p.QueuedAt.In(time.FixedZone("z", 0))
			}
			g.Members = append(g.Members, p)
		}
		if rapid.IntRange(0, 9).Draw(t, "podSet") == 0 {
			g.PodSets = []placement.PodSet{{Name: "set", Count: 2, Template: tmpl}}
		}
		return &placement.HierarchyNode{Name: name, TopologyKey: key, Group: g}
	}
	var draw func(depth int, name string) *placement.HierarchyNode
	draw = func(depth int, name string) *placement.HierarchyNode {
		if depth > 1 && (depth == 3 || rapid.Bool().Draw(t, "leaf")) {
			return leaf(rapid.SampledFrom([]string{hRack, "host", ""}).Draw(t, "leafKey"))
		}
		n := &placement.HierarchyNode{Name: name, TopologyKey: rapid.SampledFrom([]string{"", hBlock, hRack}).Draw(t, "key")}
		for i := range rapid.IntRange(1, 3).Draw(t, "children") {
			n.Children = append(n.Children, draw(depth+1, fmt.Sprintf("%s%d", name, i)))
		}
		if rapid.Bool().Draw(t, "basicInner") {
			n.Policy = placement.PolicyBasic
		} else {
			n.MinGroupCount = int32(rapid.IntRange(1, len(n.Children)).Draw(t, "minGroupCount"))
		}
		return n
	}
	root := draw(1, "g")
	// The bound pods in key order (as a LIST gives them), so that a
	// member bound already is found by the leaf placer's one search, or
	// not; some of them bound by Apply afterwards.
	if rapid.Bool().Draw(t, "keyOrder") {
		slices.SortFunc(bound, func(a, b placement.Pod) int { return a.Key().Compare(b.Key()) })
	}
	k := rapid.IntRange(0, len(bound)).Draw(t, "inBase")
	s, err := placement.NewSnapshot(nodes, bound[:k])
	if err != nil {
		t.Fatal(err)
	}
	if k < len(bound) {
		if s, err = s.Apply(placement.Change{Bind: bound[k:]}); err != nil {
			t.Fatal(err)
		}
	}
	return s, root
}

// The leaf placer decides as Solve: the whole decision — every leaf's
// Decision (assignments node by node, score, steps, message), every
// node's result, status, steps and message — and any error are those of
// the search with every leaf solved by Solve. The budget is drawn small
// too, so that leaves near its end are covered. Across the runs the
// placer must have decided some leaves, or the property proves nothing.
func TestHierarchy_PropFastLeafIsSolve(t *testing.T) {
	fast := 0
	rapid.Check(t, func(t *rapid.T) {
		s, root := drawFastLeafCase(t)
		opts := placement.Options{}
		if rapid.IntRange(0, 4).Draw(t, "smallBudget") == 0 {
			opts.Budget = int64(rapid.IntRange(1, 60).Draw(t, "budget"))
		}
		hopts := placement.HierarchyOptions{EmptyValueIsNoDomain: rapid.Bool().Draw(t, "v138")}
		want, wantErr := placement.SolveHierarchyGeneral(s, root, opts, hopts)
		got, n, err := placement.SolveHierarchyCountingFast(s, root, opts, hopts)
		fast += n
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, Solve's %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("with the leaf placer (%d leaves) %v %q %v,\nwith Solve %v %q %v\n%+v\n%+v",
				n, got.Status, got.Message, leafNodes(got), want.Status, want.Message, leafNodes(want), got.Decisions, want.Decisions)
		}
	})
	t.Logf("the leaf placer decided %d leaves", fast)
	if fast < 20 {
		t.Fatalf("the leaf placer decided %d leaves over the runs", fast)
	}
}

// A member bound already is found whichever leaf and namespace it is in:
// the one search for the whole tree covers the leaves of one namespace
// only, and a tree of two namespaces checks each leaf by itself.
func TestHierarchy_FastLeafFindsBoundMember(t *testing.T) {
	var nodes []placement.Node
	for h := range 4 { // two racks: a leaf's domain is not the whole cluster, as fastLeaf needs
		name := fmt.Sprintf("h%d", h)
		nodes = append(nodes, placement.Node{Name: name, Labels: map[string]string{hBlock: "b0", hRack: fmt.Sprintf("r%d", h/2)},
			Allocatable: placement.ResourceList{placement.ResourceGPU: 8, placement.ResourcePods: 10}})
	}
	leaf := func(ns, name string) *placement.HierarchyNode {
		g := &placement.Group{Namespace: ns, Name: name, MinCount: 2}
		for i := range 2 {
			g.Members = append(g.Members, placement.Pod{Namespace: ns, Name: fmt.Sprintf("%s-%d", name, i), SchedulingGroup: name,
				Requests: placement.ResourceList{placement.ResourceGPU: 1}})
		}
		return &placement.HierarchyNode{Name: name, TopologyKey: hRack, Group: g}
	}
	for _, tc := range []struct {
		name     string
		nsA, nsB string
		bound    placement.Key // in key order with a pod of no leaf
	}{
		{"second namespace", "a", "b", placement.Key{Namespace: "b", Name: "lb-1"}},
		{"first namespace", "b", "a", placement.Key{Namespace: "b", Name: "la-0"}},
		{"one namespace, second leaf", "a", "a", placement.Key{Namespace: "a", Name: "lb-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := &placement.HierarchyNode{Name: "root", TopologyKey: hBlock, MinGroupCount: 2,
				Children: []*placement.HierarchyNode{leaf(tc.nsA, "la"), leaf(tc.nsB, "lb")}}
			other := placement.Pod{Namespace: "a", Name: "other", NodeName: "h3"}
			s, err := placement.NewSnapshot(nodes, []placement.Pod{other})
			if err != nil {
				t.Fatal(err)
			}
			// Without the bound member the placer takes both leaves.
			if _, fast, err := placement.SolveHierarchyCountingFast(s, root, placement.Options{}, placement.HierarchyOptions{}); err != nil || fast != 2 {
				t.Fatalf("the leaf placer decided %d leaves of 2 (%v)", fast, err)
			}
			bound := []placement.Pod{other, {Namespace: tc.bound.Namespace, Name: tc.bound.Name, NodeName: "h3"}}
			slices.SortFunc(bound, func(a, b placement.Pod) int { return a.Key().Compare(b.Key()) })
			if s, err = placement.NewSnapshot(nodes, bound); err != nil {
				t.Fatal(err)
			}
			_, err = placement.SolveHierarchy(s, root, placement.Options{})
			_, wantErr := placement.SolveHierarchyGeneral(s, root, placement.Options{}, placement.HierarchyOptions{})
			if wantErr == nil || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, Solve's %v (want: already bound)", err, wantErr)
			}
		})
	}
}
