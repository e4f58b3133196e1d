package topology

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_OrderAsByCompare: order's packed keys sort one level's units
// (domains or nodes, with node names in any order against their paths)
// exactly as the comparator does, for counts and affinity scores small
// enough to pack and too wide to, BestFit and LeastFreeCapacity.
func TestProp_OrderAsByCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPlanner(t, packedOrderMin)
		D, N := p.D, p.s.NumNodes()
		// Ranges that pack into few bits, into many, and not at all.
		width := rapid.SampledFrom([]int64{5, 1 << 12, 1 << 40}).Draw(t, "width")
		val := func(label string) int64 { return rapid.Int64Range(-width, width).Draw(t, label) }
		for u := range D + N {
			p.slice[u], p.pods[u], p.aff[u] = val("slice"), val("pods"), val("aff")
		}
		us := drawLevelUnits(t, p)
		leastFree := rapid.Bool().Draw(t, "leastFree")
		want := slices.Clone(us)
		p.orderByCompare(want, leastFree)
		p.order(us, leastFree)
		require.Equal(t, want, us)
	})
}

// drawPlanner draws a two-level (block > rack) tree of up to
// 2·packedOrderMin one-node hosts over racks+1 racks, and a planner on it
// with fresh scratch; the caller fills its pods, slices and affinity.
func drawPlanner(t *rapid.T, racks int) *planner {
	var nodes []placement.Node
	for i := range rapid.IntRange(1, 2*packedOrderMin).Draw(t, "nodes") {
		nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", rapid.IntRange(0, 99).Draw(t, "name")*1000+i),
			Labels: map[string]string{"block": fmt.Sprint("b", rapid.IntRange(0, 3).Draw(t, "block")),
				"rack": fmt.Sprint("r", rapid.IntRange(0, racks).Draw(t, "rack"))},
			Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}})
	}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	tr, err := NewTree(s, []string{"block", "rack"})
	require.NoError(t, err)
	D, N := len(tr.doms), s.NumNodes()
	p := &planner{t: tr, s: s, L: 2, D: D, prefer: rapid.Bool().Draw(t, "prefer")}
	tr.plan = newPlanScratch(tr, s, D+N, 1)
	p.pods, p.slice, p.aff, p.take = tr.plan.pods, tr.plan.slice, tr.plan.aff, tr.plan.take
	return p
}

// drawLevelUnits draws one level's units of p's tree (its blocks, racks
// or nodes), in any order.
func drawLevelUnits(t *rapid.T, p *planner) []int {
	var us []int
	if lv := rapid.IntRange(0, 2).Draw(t, "level"); lv < 2 {
		for d := p.t.levelStart[lv]; d < p.t.levelStart[lv+1]; d++ {
			us = append(us, int(d))
		}
	} else {
		for n := range p.s.NumNodes() {
			us = append(us, p.D+n)
		}
	}
	return rapid.Permutation(us).Draw(t, "us")
}

// TestProp_RankOrderAsSorted: rankOrder orders the nodes of any set (each
// with a deepest domain, as a descent's) and their takes exactly as
// sorting them by (deepest domain, NodeID) does — as they come when in
// order, merged when two runs in order, by sorted keys when few, through
// the bitset of tie ranks when many — and leaves the per-unit take and the bitset clear. Every path
// must be seen.
func TestProp_RankOrderAsSorted(t *testing.T) {
	byBits, bySort, asIs, merged := 0, 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 4*rankBitsMin).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", rapid.IntRange(0, 99).Draw(t, "name")*1000+i),
				Labels: map[string]string{"block": fmt.Sprint("b", rapid.IntRange(0, 3).Draw(t, "block")),
					"rack": fmt.Sprint("r", rapid.IntRange(0, 9).Draw(t, "rack"))},
				Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}})
		}
		s, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		tr, err := NewTree(s, []string{"block", "rack"})
		require.NoError(t, err)
		tr.plan = newPlanScratch(tr, s, len(tr.doms)+s.NumNodes(), 1)
		p := &planner{t: tr, s: s, L: 2, D: len(tr.doms), take: tr.plan.take}
		for range rapid.IntRange(1, 3).Draw(t, "plans") { // the buffers are reused
			var ids []placement.NodeID
			for id := range placement.NodeID(s.NumNodes()) {
				ids = append(ids, id)
			}
			ids = rapid.Permutation(ids).Draw(t, "order")
			ids = ids[:rapid.IntRange(1, len(ids)).Draw(t, "used")]
			inOrder := func(a, b placement.NodeID) int {
				return cmp.Or(cmp.Compare(tr.domainOf(a, 1), tr.domainOf(b, 1)), cmp.Compare(a, b))
			}
			switch rapid.IntRange(0, 2).Draw(t, "shape") {
			case 1: // in order, as an empty cluster's descent gives them
				slices.SortFunc(ids, inOrder)
			case 2: // two runs in order, as whole domains' nodes and then the rest
				slices.SortFunc(ids, inOrder)
				first := func(placement.NodeID) bool { return rapid.Bool().Draw(t, "first") }
				var a, b []placement.NodeID
				for _, id := range ids {
					if first(id) {
						a = append(a, id)
					} else {
						b = append(b, id)
					}
				}
				ids = append(a, b...)
			}
			runs := 1
			for i := 1; i < len(ids); i++ {
				if inOrder(ids[i-1], ids[i]) > 0 {
					runs++
				}
			}
			type pair struct {
				u    int
				take int64
			}
			var so setOut
			var want []pair
			for _, id := range ids {
				take := rapid.Int64Range(1, 8).Draw(t, "take")
				so.nodes, so.takes = append(so.nodes, p.D+int(id)), append(so.takes, take)
				want = append(want, pair{p.D + int(id), take})
			}
			slices.SortFunc(want, func(a, b pair) int {
				da, db := tr.domainOf(placement.NodeID(a.u-p.D), 1), tr.domainOf(placement.NodeID(b.u-p.D), 1)
				return cmp.Or(cmp.Compare(da, db), cmp.Compare(a.u, b.u))
			})
			gotNodes, gotTakes := p.rankOrder(so)
			var got []pair
			for i, u := range gotNodes {
				got = append(got, pair{u, gotTakes[i]})
			}
			require.Equal(t, want, got)
			switch {
			case &gotNodes[0] == &so.nodes[0]:
				asIs++
			case runs == 2:
				merged++
			case len(ids) < rankBitsMin:
				bySort++
			default:
				byBits++
			}
			require.Zero(t, slices.IndexFunc(tr.plan.take, func(x int64) bool { return x != 0 })+1, "the takes are left clear")
			require.Zero(t, slices.IndexFunc(tr.plan.rankBits, func(w uint64) bool { return w != 0 })+1, "the bitset is left clear")
		}
	})
	require.Positive(t, byBits, "the bitset never ordered the nodes")
	require.Positive(t, bySort, "sorting never ordered the nodes")
	require.Positive(t, asIs, "nodes in order never came back as they were")
	require.Positive(t, merged, "two runs in order were never merged")
}
