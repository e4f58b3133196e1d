package placement_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/internal/arith"
	"github.com/gangsched/gangsched/topology"

	. "github.com/gangsched/gangsched/placement"
)

// refDefaultScore is DefaultScorer's score computed as its documentation
// says, from the snapshot's per-node sums and each assignment's pod's own
// request map, adding one assignment at a time (saturating).
func refDefaultScore(s *Snapshot, g *Group, p *Placement, a []Assignment) int64 {
	res := s.Resources()
	requested := map[ResourceName]bool{}
	pods := func(yield func(*Pod) bool) {
		for i := range g.Members {
			if !yield(&g.Members[i]) {
				return
			}
		}
		for k := range g.PodSets {
			if !yield(&g.PodSets[k].Template) {
				return
			}
		}
	}
	for p := range pods {
		for r, q := range p.Requests {
			if q > 0 && slices.Contains(res, r) {
				requested[r] = true
			}
		}
	}
	alloc, used := map[ResourceName]int64{}, map[ResourceName]int64{}
	for _, id := range p.Nodes {
		for r := range requested {
			alloc[r] = arith.SatAdd(alloc[r], s.Allocatable(id, r))
			used[r] = arith.SatAdd(used[r], max(s.Requested(id, r), 0))
		}
	}
	byKey := map[Key]*Pod{}
	for i := range g.Members {
		byKey[g.Members[i].Key()] = &g.Members[i]
	}
	for k := range g.PodSets {
		if _, dup := byKey[Key{Namespace: g.Namespace, Name: g.PodSets[k].Name}]; !dup {
			byKey[Key{Namespace: g.Namespace, Name: g.PodSets[k].Name}] = &g.PodSets[k].Template
		}
	}
	var placed int64
	for _, x := range a {
		placed += x.Pods()
		p, ok := byKey[x.Pod]
		if !ok {
			continue
		}
		for r := range requested {
			used[r] = arith.SatAdd(used[r], arith.MulSat(p.Requests[r], x.Pods()))
		}
	}
	const scale = 1_000_000
	var sum, n int64
	for r := range requested {
		sum += arith.MulDiv(used[r], scale, alloc[r])
		n++
	}
	var most int64
	if n > 0 {
		most = sum / n
	}
	bound := int64(g.BoundCount(s))
	total := bound + int64(g.NumPending())
	if total == 0 {
		return most
	}
	return most + (bound+placed)*scale/total
}

// TestDefaultScorer_ScoreOfLists checks DefaultScorer.Score and ScoreSums
// against the reference on assignment lists a hook could be handed or
// build itself: members and pod-set entries mixed, counts, keys of pods
// that are not pending (bound members, strangers), whole-cluster and
// partial placements, and quantities that saturate.
func TestDefaultScorer_ScoreOfLists(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c, err := drawShapeCase(t)
		if err != nil {
			t.Fatal(err)
		}
		r := choices{t}
		n := c.s.NumNodes()
		var p Placement
		whole := !r.OneIn(2)
		for id := range n {
			if whole || r.OneIn(2) {
				p.Nodes = append(p.Nodes, NodeID(id))
			}
		}
		var keys []Key
		for i := range c.g.Members {
			keys = append(keys, c.g.Members[i].Key())
		}
		for k := range c.g.PodSets {
			keys = append(keys, Key{Namespace: c.g.Namespace, Name: c.g.PodSets[k].Name})
		}
		for _, b := range c.s.GroupMembers(c.g.Key()) {
			keys = append(keys, b.Key())
		}
		keys = append(keys, Key{Namespace: "ns", Name: "stranger"})
		var a []Assignment
		for range r.IntN(12) {
			k := keys[r.IntN(len(keys))]
			id := NodeID(r.IntN(n))
			a = append(a, Assignment{Pod: k, Node: c.s.Node(id).Name, NodeID: id, Member: r.IntN(4), Count: int32(r.IntN(3))})
		}
		v := GroupView{Group: c.g}
		want := refDefaultScore(c.s, c.g, &p, a)
		if got, _ := (DefaultScorer{}).Score(c.s, v, &p, a); got != want {
			t.Errorf("%s: Score %d, reference %d; assignments %v", c.desc, got, want, a)
		}
		placed, sums := AssignedSums(c.s, v, a)
		if got, _ := (DefaultScorer{}).ScoreSums(c.s, v, &p, placed, sums); got != want {
			t.Errorf("%s: ScoreSums %d, reference %d", c.desc, got, want)
		}
		// topology's MostAllocated is documented to score exactly so.
		tr, err := topology.NewTree(c.s, []string{"zone", "rack"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := tr.SolverOptions([]topology.Constraint{{Key: "zone"}}, topology.MostAllocated)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := o.Scorer.Score(c.s, v, &p, a); got != want {
			t.Errorf("%s: topology MostAllocated Score %d, reference %d", c.desc, got, want)
		}
		if got, _ := o.Scorer.(SumScorer).ScoreSums(c.s, v, &p, placed, sums); got != want {
			t.Errorf("%s: topology MostAllocated ScoreSums %d, reference %d", c.desc, got, want)
		}
	})
}
