package topology

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_SlotsByClassOverMoves: slots reads a node's copies from its
// free class, counted once per class and call; over a chain of snapshots
// (pods bound and removed, so nodes change class and the tree's
// aggregates and classes move with them) and several templates asked of
// one tree in turn, it must count as dividing each node's own row does.
// Counts kept from another template's call, or a node left in its old
// class, would differ. Domains whose nodes are not all alike must be
// counted by class in some runs, and tainted nodes (no class) beside
// them.
func TestProp_SlotsByClassOverMoves(t *testing.T) {
	byClass, unclassed := 0, 0
	defer func() {
		if !t.Failed() && (byClass == 0 || unclassed == 0) {
			t.Errorf("domains counted by class: %d, nodes without a class counted: %d; want both", byClass, unclassed)
		}
	}()
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 10).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i),
				Labels: map[string]string{"rack": rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "rack")},
				Allocatable: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 8).Draw(t, "cpu"),
					placement.ResourceGPU: rapid.Int64Range(0, 4).Draw(t, "gpu"), placement.ResourcePods: 8}})
			if rapid.IntRange(0, 5).Draw(t, "tainted") == 0 {
				nodes[i].Taints = []placement.Taint{{Key: "x", Effect: placement.TaintEffectNoSchedule}}
			}
		}
		s, err := placement.NewSnapshot(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTree(s, []string{"rack"})
		if err != nil {
			t.Fatal(err)
		}
		var bound []placement.Key
		for step := range rapid.IntRange(1, 5).Draw(t, "steps") {
			var ch placement.Change
			for i := range rapid.IntRange(0, 4).Draw(t, "bind") {
				on := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name
				p := placement.Pod{Namespace: "x", Name: fmt.Sprintf("p%d-%d", step, i), NodeName: on,
					Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 3).Draw(t, "pcpu"),
						placement.ResourceGPU: rapid.Int64Range(0, 1).Draw(t, "pgpu")}}
				ch.Bind = append(ch.Bind, p)
			}
			if len(bound) > 0 && rapid.Bool().Draw(t, "remove") {
				i := rapid.IntRange(0, len(bound)-1).Draw(t, "which")
				ch.Remove = []placement.Key{bound[i]}
				bound = append(bound[:i], bound[i+1:]...)
			}
			for _, p := range ch.Bind {
				bound = append(bound, p.Key())
			}
			if s, err = s.Apply(ch); err != nil {
				t.Fatal(err)
			}
			c, err := tr.capacityFor(s)
			if err != nil {
				t.Fatal(err)
			}
			for range rapid.IntRange(1, 3).Draw(t, "templates") {
				g := &placement.Group{Namespace: "default", Name: "g", MinCount: 1, PodSets: []placement.PodSet{{Name: "w",
					Count: int32(rapid.IntRange(1, 30).Draw(t, "count")),
					Template: placement.Pod{Requests: placement.ResourceList{
						placement.ResourceCPU: rapid.Int64Range(0, 3).Draw(t, "mcpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "mgpu")}}}}}
				gv := placement.GroupView{Group: g}
				b := &builder{t: tr, c: c, s: s, g: gv, sh: newShape(c, 0, gv), scope: -1}
				b.static(gv)
				for d := range tr.Domains(0) {
					if k, naive := b.slots(d.ID), slotsOneByOne(b, d.ID); k != naive {
						t.Fatalf("step %d: slots of rack %s: %d, counting node by node %d", step, tr.doms[d.ID].path, k, naive)
					}
					if _, alike := b.uniformCopies(d.ID); !(b.plainPass && tr.doms[d.ID].plain && alike) {
						byClass++
						for _, id := range tr.doms[d.ID].nodes {
							if c.classes.of[id] < 0 {
								unclassed++
							}
						}
					}
				}
			}
		}
	})
}
