package gang_test

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// treeCase is a cluster of racks in blocks and one or two hierarchies:
// a root CompositePodGroup (gang by block, or basic) over 1–3 leaf gangs
// by rack.
type treeCase struct {
	nodes []placement.Node
	cpgs  []*CompositePodGroup
	pgs   []*PodGroup
	pods  []placement.Pod
}

func drawTreeCase(t *rapid.T) treeCase {
	var c treeCase
	for i := range rapid.IntRange(1, 5).Draw(t, "nodes") {
		c.nodes = append(c.nodes, rackNode(fmt.Sprintf("n%d", i), fmt.Sprintf("b%d", i%2),
			fmt.Sprintf("r%d", rapid.IntRange(0, 2).Draw(t, "rack")), int64(rapid.IntRange(0, 4).Draw(t, "slots"))*1000))
	}
	for ti := range rapid.IntRange(1, 2).Draw(t, "trees") {
		root := fmt.Sprintf("t%d", ti)
		leaves := rapid.IntRange(1, 3).Draw(t, "leaves")
		c1 := cpg(root, "", blockKey, int32(rapid.IntRange(1, leaves).Draw(t, "minGroupCount")))
		if rapid.Bool().Draw(t, "basic") {
			c1.Spec.SchedulingPolicy = CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}}
		}
		c.cpgs = append(c.cpgs, c1)
		for li := range leaves {
			name := fmt.Sprintf("%s-l%d", root, li)
			min := rapid.IntRange(1, 3).Draw(t, "minCount")
			c.pgs = append(c.pgs, leafPG(name, root, rackKey, int32(min)))
			for pi := range min + rapid.IntRange(-1, 1).Draw(t, "extra") {
				c.pods = append(c.pods, member(fmt.Sprintf("%s-%d", name, pi), name, cpu(1000), len(c.pods)))
			}
		}
	}
	return c
}

// runTree feeds the case to a scheduler in the given order of objects and
// drains it; it returns every pod's node.
func runTree(t *rapid.T, c treeCase, order []int) (*placement.Snapshot, map[string]string) {
	s := NewScheduler(Options{})
	snap, err := placement.NewSnapshot(c.nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range order {
		switch {
		case i < len(c.cpgs):
			err = s.SetCompositePodGroup(c.cpgs[i])
		case i < len(c.cpgs)+len(c.pgs):
			err = s.SetPodGroup(c.pgs[i-len(c.cpgs)])
		default:
			err = s.AddPod(c.pods[i-len(c.cpgs)-len(c.pgs)])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		r, ok := s.Cycle(snap, t0)
		if !ok {
			break
		}
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		snap = r.Snapshot
	}
	out := map[string]string{}
	for _, p := range c.pods {
		if q, ok := snap.Pod(p.Key()); ok {
			out[p.Name] = q.NodeName
		}
	}
	return snap, out
}

// Every hierarchy is all-or-nothing at the root, every satisfied node has
// at least its minimum of satisfied children, every keyed subtree lies in
// one domain of its key; and the outcome does not depend on the order in
// which the host hands over the objects.
func TestCycleTree_PropRootAllOrNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawTreeCase(t)
		n := len(c.cpgs) + len(c.pgs) + len(c.pods)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		snap, got := runTree(t, c, order)
		_, again := runTree(t, c, rapid.Permutation(order).Draw(t, "order"))
		if fmt.Sprint(got) != fmt.Sprint(again) {
			t.Fatalf("order changed the outcome: %v vs %v", got, again)
		}
		label := func(node, k string) string {
			id, _ := snap.NodeID(node)
			return snap.Node(id).Labels[k]
		}
		for _, root := range c.cpgs {
			satisfied, placedAny := 0, false
			var blocks []string
			for _, pg := range c.pgs {
				if pg.Spec.ParentCompositePodGroupName != root.Name {
					continue
				}
				var racks []string
				bound := 0
				for _, p := range snap.GroupMembers(pg.Key()) {
					bound++
					racks = append(racks, label(p.NodeName, rackKey))
					blocks = append(blocks, label(p.NodeName, blockKey))
				}
				if bound > 0 && bound < int(pg.Spec.SchedulingPolicy.Gang.MinCount) {
					t.Fatalf("leaf %s: %d bound of minCount %d", pg.Name, bound, pg.Spec.SchedulingPolicy.Gang.MinCount)
				}
				if len(slices.Compact(slices.Sorted(slices.Values(racks)))) > 1 {
					t.Fatalf("leaf %s spans racks %v", pg.Name, racks)
				}
				if bound > 0 {
					satisfied++
					placedAny = true
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(blocks)))) > 1 {
				t.Fatalf("tree %s spans blocks %v", root.Name, blocks)
			}
			need := 1
			if g := root.Spec.SchedulingPolicy.Gang; g != nil {
				need = int(g.MinGroupCount)
			}
			if placedAny && satisfied < need {
				t.Fatalf("tree %s: %d satisfied children of min %d", root.Name, satisfied, need)
			}
		}
	})
}

// The generator yields trees that bind and trees that wait.
func TestCycleTree_GeneratorYieldsBoth(t *testing.T) {
	var placed, waited bool
	rapid.Check(t, func(t *rapid.T) {
		c := drawTreeCase(t)
		order := make([]int, len(c.cpgs)+len(c.pgs)+len(c.pods))
		for i := range order {
			order[i] = i
		}
		_, got := runTree(t, c, order)
		placed = placed || len(got) > 0
		waited = waited || len(got) < len(c.pods)
	})
	if !placed || !waited {
		t.Fatalf("placed %v waited %v", placed, waited)
	}
}
