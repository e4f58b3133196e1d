package bench_test

import (
	"fmt"
	"reflect"
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
	// next is the snapshot plans alternate with: nextSame (warm) plans
	// on the cell's snapshot alone, reusing the counts the tree kept of
	// the plan before; the others plan on it and on a second snapshot in
	// turn, so that each plan's counts were kept for the other one.
	next next
}

// next is a plan cell's second snapshot, what the next scheduling cycle
// plans on: a snapshot derived from the cell's by [placement.Snapshot.Apply],
// to which a plan moves the counts kept for the other, counting again the
// units (at the plan's cut level) of the nodes whose usage changed.
type next int

const (
	nextSame      next = iota // none: the cell's snapshot again (warm)
	nextUnchanged             // Apply(Change{}): no node changed
	next8Nodes                // a pod without requests bound on each of 8 nodes, each in its own rack
	next1Pct                  // a pod without requests on each of 1 % of the nodes, each in its own rack
	nextAll                   // a pod without requests on every node: the move counts every unit again
)

// name is next's part of a cell's name ("" for warm cells).
func (x next) name() string {
	return [...]string{"", "/next=unchanged", "/next=8nodes", "/next=1pct", "/next=all"}[x]
}

// changed is the number of nodes of an n-node cluster that x binds a pod
// on, spread evenly over the nodes.
func (x next) changed(n int) int {
	switch x {
	case next8Nodes:
		return 8
	case next1Pct:
		return n / 100
	case nextAll:
		return n
	}
	return 0
}

// nextSnapshot is cell c's second snapshot (c.next), built once: one
// pod without requests bound on each of k = c.next.changed(n) nodes i·n/k
// — at 32 hosts a rack, for k ≤ n/32 each in a rack of its own. The pod
// counts against the node's pods (110, never what limits a GPU pod), so
// every changed node's usage differs and its room for the set does not:
// the plan on either snapshot is the same, and a cell costs what its
// next=unchanged cell does and moving the counts of k nodes.
func nextSnapshot(tb testing.TB, c planCell, g *gpu) *placement.Snapshot {
	tb.Helper()
	return cached(fmt.Sprint("plan-next-", c.n, c.fragmented, c.next), func() *placement.Snapshot {
		var ch placement.Change
		k := c.next.changed(c.n)
		for i := range k {
			ch.Bind = append(ch.Bind, placement.Pod{Namespace: "default", Name: fmt.Sprintf("next-%d", i),
				NodeName: g.c.Nodes[i*c.n/k].Name})
		}
		s, err := g.s.Apply(ch)
		if err != nil {
			tb.Fatal(err)
		}
		if changed, ok := s.ChangedNodes(g.s); !ok || len(changed) != k {
			tb.Fatalf("%s: the next snapshot changes %d nodes (derived: %v), want %d", c.name(), len(changed), ok, k)
		}
		return s
	})
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
	return fmt.Sprintf("podset/plan/%s%s/n=%d/p=%d/%s", kind, c.next.name(), c.n, c.p, state)
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
						for x := nextUnchanged; x <= nextAll; x++ {
							out = append(out, planCell{n: n, p: p, slice: slice, fragmented: f, next: x})
						}
					}
				}
			}
		}
	}
	return out
}

// planCellDecision plans cell c, checked: the plan must verify, and place
// the set whenever the matrix's floor finds room for it in one block; the
// plan on the cell's second snapshot, if any, must verify there and be
// the same.
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
	if c.slice == 0 {
		// A balanced set's preferred level widens to the cluster: the
		// plan places it exactly when its floor does.
		placed, _ := blockElseCluster(bench.NewGangFloor(g.c), g.c, c.p, nil)
		if fits := placed == c.p; fits != (pl.Decision.Status == placement.Scheduled) {
			tb.Fatalf("%s: the floor says fits=%v, the plan says %s (%s)", c.name(), fits, pl.Decision.Status, pl.Decision.Message)
		}
	}
	if c.next != nextSame {
		s := nextSnapshot(tb, c, g)
		npl, err := g.tree.PlanPodSets(s, grp, reqs, opts)
		if err != nil {
			tb.Fatal(err)
		}
		if err := placement.Verify(s, grp, npl.Decision); err != nil {
			tb.Fatalf("%s: the plan on the next snapshot does not verify: %v", c.name(), err)
		}
		if !reflect.DeepEqual(pl, npl) {
			tb.Fatalf("%s: the plan on the next snapshot differs, though no node's room for the set does", c.name())
		}
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
				if c.next != nextSame {
					snaps[1] = nextSnapshot(b, c, g)
				}
				i := 0
				return func() {
					pl, _ := g.tree.PlanPodSets(snaps[i&1], grp, reqs, opts)
					i++
					sink += int64(len(pl.Decision.PodSetAssignments))
				}, []metric{{float64(placed), "placed"}}
			},
			floor: planFloor(c),
		})
		if c.next != nextSame {
			continue
		}
		// A host that keeps topology.PlanBuffers between plans: the
		// answer's memory is reused, not allocated.
		out = append(out, workload{
			name: c.name() + "/buffers",
			decision: func(b *testing.B) (func(), []metric) {
				g, grp, pl := planCellDecision(b, c)
				reqs, opts := c.request()
				opts.Buffers = &topology.PlanBuffers{}
				for range 2 { // the second plan reuses what the first grew
					got, err := g.tree.PlanPodSets(g.s, grp, reqs, opts)
					if err != nil || !reflect.DeepEqual(got, pl) {
						b.Fatalf("%s: with buffers %v; want the plan made without", c.name(), err)
					}
				}
				return func() {
					pl, _ := g.tree.PlanPodSets(g.s, grp, reqs, opts)
					sink += int64(len(pl.Decision.PodSetAssignments))
				}, nil
			},
			floor: planFloor(c),
		})
	}
	return out
}

// planFloor is plan cell c's floor: the pod set matrix's block cell (one
// pass summing each block's slots, a first fit in the tightest block that
// holds the set), which places what a sliced cell must, all in one block
// or nothing. A balanced cell's set is only preferred in a rack: when no
// block holds it the plan spreads it over the cluster, so its floor then
// places it first-fit over the whole cluster, whose slots the same pass
// summed (blockElseCluster) — a floor that placed nothing would not do
// the job.
func planFloor(c planCell) prepare {
	if c.slice != 0 {
		return cellFloor(cell{n: c.n, p: c.p, key: bench.BlockKey, fragmented: c.fragmented})
	}
	return func(b *testing.B) (func(), []metric) {
		g := gpuCluster(b, c.n, c.fragmented)
		f, out := bench.NewGangFloor(g.c), make([]bench.Slots, 0, c.p)
		placed, _ := blockElseCluster(f, g.c, c.p, out)
		return func() {
			n, out := blockElseCluster(f, g.c, c.p, out)
			sink += int64(n + len(out))
		}, []metric{{float64(placed), "placed"}}
	}
}

// blockElseCluster places p matrix pods with f in one block, or when no
// block holds them in the whole cluster (GangFloor.PlaceWidening: the
// same pass's sums decide), and returns how many it placed (p or 0) and
// the answer, appended to out[:0].
func blockElseCluster(f *bench.GangFloor, c *bench.Cluster, p int, out []bench.Slots) (int, []bench.Slots) {
	return f.PlaceWidening(c.Level(bench.BlockKey), gpuPod, p, out)
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
