package bench_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
)

const heteroNodes, heteroSize = 1000, 256

var heteroShapes = []int{1, 2, 4, 16}

// heteroInstances is how many generated instances the share metrics of
// each shape count come from.
const heteroInstances = 20

// heteroSearchBudget is the search budget of the share metrics.
const heteroSearchBudget = 1 << 14

// share settles count generated instances of size members with shapes
// shapes on n hosts and counts each verdict. Every scheduled decision must
// verify, and an instance with a planted placement must never be proven
// impossible.
func share(tb testing.TB, n, size, shapes, count int, searchBudget int64) [4]int {
	var out [4]int
	for seed := range count {
		nodes, bound, g, planted := bench.HeteroInstance(uint64(seed), n, size, shapes)
		s := mustSnapshot(tb, nodes, bound)
		v, d, err := bench.Settle(s, g, searchBudget)
		if err != nil {
			tb.Fatal(err)
		}
		if d.Status == placement.Scheduled {
			if err := placement.Verify(s, g, d); err != nil {
				tb.Fatalf("seed %d: %v", seed, err)
			}
		}
		if planted && v == bench.ProvenNone {
			tb.Fatalf("seed %d (%d hosts, %d members, %d shapes): proven impossible, but a placement was planted: %s", seed, n, size, shapes, d.Message)
		}
		out[v]++
	}
	return out
}

// hetero: a 256-member gang with 1, 2, 4 or 16 member shapes on the
// fragmented 1,000-host GPU cluster, zero Options. Beside the
// decision's steps (member-on-node evaluations) it reports, from
// heteroInstances generated tight instances of the same size and shape
// count (bench.HeteroInstance, each with a planted placement), how many
// the heuristic placed alone (heuristic), how many only the search placed
// within heteroSearchBudget (search), how many were proven impossible
// (none: only when the planted placement overflowed the hosts) and how
// many ran out of budget (budget-out).
func hetero() []workload {
	var out []workload
	for _, k := range heteroShapes {
		grp := func() *placement.Group {
			return cached(fmt.Sprint("hetero-gang-", k), func() *placement.Group { return bench.ShapedGang("h", heteroSize, k) })
		}
		out = append(out, workload{
			name: fmt.Sprintf("hetero/n=%d/p=%d/shapes=%d", heteroNodes, heteroSize, k),
			decision: func(b *testing.B) (func(), []metric) {
				g, grp := gpuCluster(b, heteroNodes, true), grp()
				d, err := placement.Solve(g.s, grp, placement.Options{})
				if err != nil || d.Status != placement.Scheduled {
					b.Fatalf("want scheduled, got %v %s", err, d.Message)
				}
				if err := placement.Verify(g.s, grp, d); err != nil {
					b.Fatal(err)
				}
				counts := cached(fmt.Sprint("hetero-share-", k), func() [4]int { return share(b, heteroNodes, heteroSize, k, heteroInstances, heteroSearchBudget) })
				return func() {
						d, _ := placement.Solve(g.s, grp, placement.Options{})
						sink += int64(len(d.Assignments))
					}, []metric{{float64(d.Steps), "steps"},
						{float64(counts[bench.ByHeuristic]), "heuristic"}, {float64(counts[bench.BySearch]), "search"},
						{float64(counts[bench.ProvenNone]), "none"}, {float64(counts[bench.Unsettled]), "budget-out"}}
			},
			floor: func(b *testing.B) (func(), []metric) {
				g, grp := gpuCluster(b, heteroNodes, true), grp()
				f, reqs, out := bench.NewGangFloor(g.c), g.c.Requests(grp.Members), make([]int32, heteroSize)
				placed := f.Place(-1, reqs, out, false)
				if placed == 0 {
					b.Fatal("floor placed nothing")
				}
				return func() { sink += int64(f.Place(-1, reqs, out, false)) }, []metric{{float64(placed), "placed"}}
			},
		})
	}
	return out
}

// TestSettle_GeneratorYieldsEveryVerdict settles small generated instances
// (6 hosts, 7 members: the search always finishes) and requires both
// instances the heuristic places and instances only the search places —
// so the share that the benchmarks report is measured over instances that
// can go either way — and that the complete search finds every planted
// placement (share fails on a planted instance proven impossible).
func TestSettle_GeneratorYieldsEveryVerdict(t *testing.T) {
	for _, k := range []int{2, 4, 16} {
		counts := share(t, 6, 7, k, 200, 0)
		t.Logf("%d shapes: heuristic %d, search %d, none %d, budget-out %d", k, counts[0], counts[1], counts[2], counts[3])
		if counts[bench.ByHeuristic] == 0 || counts[bench.BySearch] == 0 {
			t.Errorf("%d shapes: %d instances placed by the heuristic, %d by the search: want both", k, counts[bench.ByHeuristic], counts[bench.BySearch])
		}
		if counts[bench.Unsettled] != 0 {
			t.Errorf("%d shapes: %d small instances ran out of budget", k, counts[bench.Unsettled])
		}
	}
}

// TestSettle_HeuristicIsTheFullSolversFirstStep: whenever the heuristic
// alone schedules a group, the full solver schedules it with the same
// assignments (the search only starts where the heuristic stops), and
// otherwise the verdict matches the full solver's status.
func TestSettle_HeuristicIsTheFullSolversFirstStep(t *testing.T) {
	for seed := range 200 {
		nodes, bound, g, _ := bench.HeteroInstance(uint64(seed), 6, 7, 4)
		s := mustSnapshot(t, nodes, bound)
		v, d, err := bench.Settle(s, g, 0)
		if err != nil {
			t.Fatal(err)
		}
		full, err := placement.Solve(s, g, placement.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v == bench.ByHeuristic && (full.Status != placement.Scheduled || !slices.Equal(full.Assignments, d.Assignments)) {
			t.Fatalf("seed %d: heuristic %v, full solver %v %s", seed, d.Assignments, full.Status, full.Message)
		}
		if v != bench.ByHeuristic && (full.Status == placement.Scheduled) != (v == bench.BySearch) {
			t.Fatalf("seed %d: settled %v, full solver %v", seed, v, full.Status)
		}
	}
}
