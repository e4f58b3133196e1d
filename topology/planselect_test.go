package topology

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestProp_TakeFromAsOrderConsume: takeFrom takes from one level's units
// (domains or nodes) exactly what order then consume take — the same
// units, takes and rest — for any capacities (many empty, many equal),
// need (none, a little, about all, more than all), capacity mode and
// order, BestFit and LeastFreeCapacity, with and without affinity.
func TestProp_TakeFromAsOrderConsume(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawPlanner(t, 8)
		D, N := p.D, p.s.NumNodes()
		top := rapid.SampledFrom([]int64{2, 9, 40}).Draw(t, "top")
		for u := range D + N {
			p.pods[u] = rapid.Int64Range(0, top).Draw(t, "pods")
			p.slice[u] = p.pods[u] / rapid.SampledFrom([]int64{1, 2, 8}).Draw(t, "perSlice")
			p.aff[u] = rapid.Int64Range(0, 3).Draw(t, "aff")
		}
		us := drawLevelUnits(t, p)
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
