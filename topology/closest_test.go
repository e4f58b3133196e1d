package topology

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_ClosestIsTheMostSlots: the pruned search for the explanatory
// domain picks what counting every domain would, the most slots, ties by
// ID, whatever order the domains come in. slots is held to a node-by-node
// count that asks every node whether it admits the group, so the
// shortcut for plain domains (no taints or cordons, members without
// selector or node affinity) must count as asking does, and so must its
// product for a domain whose nodes are all free alike; both must be taken
// in some runs, and a selector, a cordon or a taint must turn them off.
func TestProp_ClosestIsTheMostSlots(t *testing.T) {
	plainSeen, uniformSeen := 0, 0
	defer func() {
		if !t.Failed() && (plainSeen == 0 || uniformSeen == 0 || uniformSeen == plainSeen) {
			t.Errorf("plain domains counted: %d, of them alike node for node: %d; want some of each kind", plainSeen, uniformSeen)
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 12).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i),
				Labels: map[string]string{"rack": rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "rack"),
					"zone": rapid.SampledFrom([]string{"x", "y"}).Draw(t, "zone")},
				Allocatable: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 8).Draw(t, "cpu"), placement.ResourceGPU: rapid.Int64Range(0, 4).Draw(t, "gpu")}})
			if pods := rapid.IntRange(0, 3).Draw(t, "podsLimit"); pods > 0 { // else unlimited: no product of a rack's nodes
				nodes[i].Allocatable[placement.ResourcePods] = int64(pods)
			}
			switch rapid.IntRange(0, 9).Draw(t, "tainted") {
			case 0:
				nodes[i].Taints = []placement.Taint{{Key: "x", Effect: placement.TaintEffectNoSchedule}}
			case 1:
				nodes[i].Unschedulable = true
			}
		}
		var pods []placement.Pod
		for i := range rapid.IntRange(0, 6).Draw(t, "pods") {
			pods = append(pods, placement.Pod{Namespace: "x", Name: fmt.Sprintf("p%d", i), NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name,
				Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 4).Draw(t, "pcpu")}})
		}
		s, err := placement.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTree(s, []string{"rack"})
		if err != nil {
			t.Fatal(err)
		}
		g := &placement.Group{Namespace: "default", Name: "g", MinCount: 1, PodSets: []placement.PodSet{{Name: "w",
			Count: int32(rapid.IntRange(1, 40).Draw(t, "count")),
			Template: placement.Pod{Requests: placement.ResourceList{
				placement.ResourceCPU: rapid.Int64Range(0, 3).Draw(t, "mcpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "mgpu")}}}}}
		switch rapid.IntRange(0, 4).Draw(t, "template") {
		case 0:
			g.PodSets[0].Template.NodeSelector = map[string]string{"zone": "x"}
		case 1:
			g.PodSets[0].Template.NodeAffinity = &placement.NodeAffinity{Required: []placement.NodeSelectorTerm{{MatchExpressions: []placement.NodeSelectorRequirement{
				{Key: "zone", Operator: placement.NodeSelectorOpIn, Values: []string{"y"}}}}}}
		case 2:
			g.PodSets[0].Template.Tolerations = []placement.Toleration{{Key: "x", Operator: placement.TolerationOpExists}}
		}
		c, err := tr.capacityFor(s)
		if err != nil {
			t.Fatal(err)
		}
		gv := placement.GroupView{Group: g}
		b := &builder{t: tr, c: c, s: s, g: gv, sh: newShape(c, 0, gv), scope: -1}
		b.static(gv)
		var doms []DomainID
		for d := range tr.Domains(0) {
			doms = append(doms, d.ID)
		}
		want, most := doms[0], int64(-1)
		for _, d := range doms {
			if b.plainPass && tr.doms[d].plain {
				plainSeen++
				if _, ok := b.uniformCopies(d); ok {
					uniformSeen++
				}
			}
			if k, naive := b.slots(d), slotsOneByOne(b, d); k != naive {
				t.Fatalf("slots of domain %d: %d, counting node by node %d", d, k, naive)
			}
			if k := b.slots(d); k > most {
				want, most = d, k
			}
		}
		if got := b.closest(doms); got != want {
			t.Fatalf("closest %d (%d slots), counting every domain %d (%d slots)", got, b.slots(got), want, most)
		}
		// The answer does not depend on the order doms come in (ties go
		// to the smallest ID wherever it is).
		shuffled := rapid.Permutation(doms).Draw(t, "shuffled")
		if got := b.closest(shuffled); got != want {
			t.Fatalf("closest of %v: %d (%d slots), counting every domain %d (%d slots)", shuffled, got, b.slots(got), want, most)
		}
	})
}

// TestClosest_MultiplesThatOverflow: a bound compared by multiplying
// must not read k copies of a request past int64 as reachable. Rack a
// holds one copy of a 2⁶² request, rack b none; 2·2⁶² overflows.
func TestClosest_MultiplesThatOverflow(t *testing.T) {
	const q = int64(1) << 62
	s, err := placement.NewSnapshot([]placement.Node{
		{Name: "n0", Labels: map[string]string{"rack": "a"}, Allocatable: placement.ResourceList{placement.ResourceCPU: q + 5}},
		{Name: "n1", Labels: map[string]string{"rack": "b"}, Allocatable: placement.ResourceList{placement.ResourceCPU: q - 1}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTree(s, []string{"rack"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.capacityFor(s)
	if err != nil {
		t.Fatal(err)
	}
	g := &placement.Group{Namespace: "default", Name: "g", MinCount: 1, PodSets: []placement.PodSet{{Name: "w", Count: 3,
		Template: placement.Pod{Requests: placement.ResourceList{placement.ResourceCPU: q}}}}}
	gv := placement.GroupView{Group: g}
	b := &builder{t: tr, c: c, s: s, g: gv, sh: newShape(c, 0, gv), scope: -1}
	b.static(gv)
	var doms []DomainID
	for d := range tr.Domains(0) {
		doms = append(doms, d.ID)
	}
	if got := b.closest(doms); tr.doms[got].path != "a" {
		t.Fatalf("closest %s (%d slots), want a (%d slots)", tr.doms[got].path, b.slots(got), b.slots(doms[0]))
	}
}

// slotsOneByOne is slots without its shortcut: each node's copies counted
// by dividing its own free row.
func slotsOneByOne(b *builder, d DomainID) int64 {
	R, n := len(b.c.res), int64(b.sh.n)
	var sum int64
	for _, id := range b.t.doms[d].nodes {
		k := n
		for r := range R {
			if q := b.sh.maxReq[r]; q > 0 {
				k = min(k, max(b.c.nodeFree[int(id)*R+r], 0)/q)
			}
		}
		if k > 0 && b.admits(id) {
			sum += k
		}
	}
	return min(sum, n)
}
