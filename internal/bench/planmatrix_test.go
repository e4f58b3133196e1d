package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// planCell is one cell of the plan matrix: a pod set planned with
// topology.Tree.PlanPodSets on the matrix's GPU cluster, either in slices
// (a required block, slices of slice pods per rack) or balanced (a
// preferred rack, PlanOptions.Balanced; slice 0).
type planCell struct {
	n, p, slice int
	fragmented  bool
	// cold plans on two snapshots of the same cluster in turn, so that
	// no plan reuses the counts the tree kept of the one before.
	cold bool
}

func (c planCell) name() string {
	state := "empty"
	if c.fragmented {
		state = "fragmented"
	}
	kind := fmt.Sprintf("slices=%d", c.slice)
	if c.slice == 0 {
		kind = "balanced"
	}
	if c.cold {
		kind += "/cold"
	}
	return fmt.Sprintf("podset/plan/%s/n=%d/p=%d/%s", kind, c.n, c.p, state)
}

func (c planCell) request() ([]topology.PodSetRequest, topology.PlanOptions) {
	if c.slice == 0 {
		return []topology.PodSetRequest{{PodSet: "workers", Preferred: bench.RackKey}}, topology.PlanOptions{Balanced: true}
	}
	return []topology.PodSetRequest{{PodSet: "workers", Required: bench.BlockKey,
		Slices: []topology.SliceLayer{{Key: bench.RackKey, Size: int32(c.slice)}}}}, topology.PlanOptions{}
}

func planCells() []planCell {
	var out []planCell
	for _, n := range matrixHosts {
		for _, p := range []int{512, 4096} {
			for _, slice := range []int{8, 32, 0} {
				for _, f := range []bool{false, true} {
					out = append(out, planCell{n: n, p: p, slice: slice, fragmented: f})
					if p == 512 {
						out = append(out, planCell{n: n, p: p, slice: slice, fragmented: f, cold: true})
					}
				}
			}
		}
	}
	return out
}

// planCellDecision plans cell c, checked: the plan must verify, and place
// the set whenever the matrix's floor finds room for it in one block.
func planCellDecision(tb testing.TB, c planCell) (*gpu, *placement.Group, topology.Plan) {
	tb.Helper()
	g := gpuCluster(tb, c.n, c.fragmented)
	grp := cached(fmt.Sprint("podset-gang-", c.p), func() *placement.Group { return bench.PodSetGang("pg", c.p) })
	reqs, opts := c.request()
	pl, err := g.tree.PlanPodSets(g.s, grp, reqs, opts)
	if err != nil {
		tb.Fatal(err)
	}
	if err := placement.Verify(g.s, grp, pl.Decision); err != nil {
		tb.Fatalf("%s: plan does not verify: %v", c.name(), err)
	}
	floorPlaced, _ := bench.NewGangFloor(g.c).Place(g.c.Level(bench.BlockKey), gpuPod, c.p, nil, false)
	if c.slice == 8 && floorPlaced == c.p && pl.Decision.Status != placement.Scheduled {
		// A block holding the set holds it in slices of 8 (a rack's hosts
		// hold multiples of 8 pods); of 32 it need not.
		tb.Fatalf("%s: a block holds the set, the plan says %s", c.name(), pl.Decision.Message)
	}
	return g, grp, pl
}

// planMatrix is the plan matrix's workloads, each against the floor of the
// pod set matrix's block cell.
func planMatrix() []workload {
	var out []workload
	for _, c := range planCells() {
		out = append(out, workload{
			name: c.name(),
			decision: func(b *testing.B) (func(), []metric) {
				g, grp, pl := planCellDecision(b, c)
				reqs, opts := c.request()
				placed := 0
				for _, a := range pl.Decision.PodSetAssignments {
					placed += int(a.Count)
				}
				snaps := []*placement.Snapshot{g.s, g.s}
				if c.cold {
					other, err := g.s.Apply(placement.Change{})
					if err != nil {
						b.Fatal(err)
					}
					snaps[1] = other
				}
				i := 0
				return func() {
					pl, _ := g.tree.PlanPodSets(snaps[i&1], grp, reqs, opts)
					i++
					sink += int64(len(pl.Decision.PodSetAssignments))
				}, []metric{{float64(placed), "placed"}}
			},
			floor: cellFloor(cell{n: c.n, p: c.p, key: bench.BlockKey, fragmented: c.fragmented}),
		})
	}
	return out
}

// TestPlanMatrix checks the smallest clusters' cells of the plan matrix
// (the benchmarks check every cell before timing it).
func TestPlanMatrix(t *testing.T) {
	scheduled := 0
	for _, c := range planCells() {
		if c.n != matrixHosts[0] {
			continue
		}
		if _, _, pl := planCellDecision(t, c); pl.Decision.Status == placement.Scheduled {
			scheduled++
		}
	}
	if scheduled == 0 {
		t.Fatal("no cell of the plan matrix places its set")
	}
}

// BenchmarkPlanAnswer times, per cell of the plan matrix, the least any
// plan that answers as topology.Plan does must write, whatever it decides:
// the set's Ranks and its PodSetAssignments, one entry per node of the
// cell's own plan (node name, ID, first rank, count; the set's name), each
// in a slice allocated for it. A plan cell's decision cannot come closer
// to its floor than (this + the floor) / the floor.
func BenchmarkPlanAnswer(b *testing.B) {
	for _, c := range planCells() {
		b.Run(c.name(), func(b *testing.B) {
			_, _, pl := planCellDecision(b, c)
			if len(pl.PodSets) == 0 {
				b.Skip("the cell places nothing")
			}
			plan := pl.PodSets[0].Ranks
			answer := func() ([]topology.Rank, []placement.PodSetAssignment) {
				ranks := make([]topology.Rank, len(plan))
				set := make([]placement.PodSetAssignment, len(plan))
				var first int32
				for i := range plan {
					rk, e := &ranks[i], &set[i]
					rk.Node, rk.NodeID, rk.First, rk.Count = plan[i].Node, plan[i].NodeID, first, plan[i].Count
					e.PodSet, e.Node, e.NodeID, e.Count = "workers", plan[i].Node, plan[i].NodeID, plan[i].Count
					first += plan[i].Count
				}
				return ranks, set
			}
			cputime.Loop(b, func() {
				ranks, set := answer()
				sink += int64(len(ranks) + len(set))
			})
			b.ReportMetric(float64(len(plan)), "nodes")
		})
	}
}
