package topology

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_TakeFromAsOrderConsume: takeFrom takes from one level's units
// (domains or nodes) exactly what order then consume take — the same
// units, takes and rest — for any capacities (many empty, many equal),
// need (none, a little, about all, more than all), capacity mode and
// order, BestFit and LeastFreeCapacity, with and without affinity.
func TestProp_TakeFromAsOrderConsume(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 2*packedOrderMin).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", rapid.IntRange(0, 99).Draw(t, "name")*1000+i),
				Labels: map[string]string{"block": fmt.Sprint("b", rapid.IntRange(0, 3).Draw(t, "block")),
					"rack": fmt.Sprint("r", rapid.IntRange(0, 8).Draw(t, "rack"))},
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
		top := rapid.SampledFrom([]int64{2, 9, 40}).Draw(t, "top")
		for u := range D + N {
			p.pods[u] = rapid.Int64Range(0, top).Draw(t, "pods")
			p.slice[u] = p.pods[u] / rapid.SampledFrom([]int64{1, 2, 8}).Draw(t, "perSlice")
			p.aff[u] = rapid.Int64Range(0, 3).Draw(t, "aff")
		}
		var us []int
		if lv := rapid.IntRange(0, 2).Draw(t, "level"); lv < 2 {
			for d := tr.levelStart[lv]; d < tr.levelStart[lv+1]; d++ {
				us = append(us, int(d))
			}
		} else {
			for n := range N {
				us = append(us, D+n)
			}
		}
		us = rapid.Permutation(us).Draw(t, "us")
		m := capMode{slices: rapid.Bool().Draw(t, "slices"), unit: rapid.SampledFrom([]int64{1, 2, 8}).Draw(t, "capUnit")}
		var total int64
		for _, u := range us {
			total += p.capOf(m, u)
		}
		need := rapid.Int64Range(0, total+2).Draw(t, "need")
		unit := rapid.SampledFrom([]int64{1, 8}).Draw(t, "unit")
		leastFree := rapid.Bool().Draw(t, "leastFree")
		takes := func() map[int]int64 {
			out := map[int]int64{}
			for _, u := range p.taken {
				out[u] = p.take[u]
			}
			p.clearTakes()
			return out
		}

		want := slices.Clone(us)
		p.order(want, leastFree)
		want, wantLeft := p.consume(nil, want, need, unit, m, !leastFree)
		wantTakes := takes()
		got, gotLeft := p.takeFrom(nil, slices.Clone(us), need, unit, m, leastFree)
		gotTakes := takes()
		require.Equal(t, wantLeft, gotLeft, "rest")
		require.Equal(t, wantTakes, gotTakes, "takes")
		slices.Sort(want)
		slices.Sort(got)
		require.Equal(t, want, got, "units used")
		require.Equal(t, slices.Sorted(maps.Keys(wantTakes)), got, "units used are the units with a take")
	})
}
