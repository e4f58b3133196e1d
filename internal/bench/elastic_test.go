package bench_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
)

// elasticMatrix is the pod set matrix's elastic delta: in every cell, a
// set of p/2 pods, decided and reserved (Change.Reserve) as the cell's
// decision would place it, grows to p with placement.SolveResize under
// the cell's options, so only the p/2 new pods are placed, inside the
// domain holding the existing ones. Its floor is the pod set cell's floor
// for p/2 pods (a pass over every host and a first-fit of the delta).
// Before timing, each cell checks that no existing pod moved and that a
// scheduled delta verifies. Each cell comes twice: allocating its answer,
// as a host that keeps it does (elastic/<cell>), and with
// placement.ResizeBuffers kept between resizes, as an elastic controller
// would (elastic/buffers/<cell>), checked to resize as without.
func elasticMatrix() []workload {
	var out []workload
	for _, c := range cells() {
		half := cell{c.n, c.p / 2, c.key, c.fragmented}
		out = append(out, workload{
			name: "elastic/" + c.name(),
			decision: func(b *testing.B) (func(), []metric) {
				s, grp, r, opts := elasticCell(b, c)
				d, err := placement.SolveResize(s, grp, r, opts)
				if err != nil {
					b.Fatal(err)
				}
				placed := 0
				for _, a := range d.Decision.PodSetAssignments {
					placed += int(a.Count)
				}
				return func() {
					d, _ := placement.SolveResize(s, grp, r, opts)
					sink += int64(len(d.Assignments))
				}, []metric{{float64(placed), "placed"}}
			},
			floor: cellFloor(half),
		})
		// An elastic controller that keeps placement.ResizeBuffers
		// between resizes: the answer's memory is reused, not allocated.
		out = append(out, workload{
			name: "elastic/buffers/" + c.name(),
			decision: func(b *testing.B) (func(), []metric) {
				s, grp, r, opts := elasticCell(b, c)
				want, err := placement.SolveResize(s, grp, r, opts)
				if err != nil {
					b.Fatal(err)
				}
				r.Buffers = &placement.ResizeBuffers{}
				for range 2 { // the second resize reuses what the first grew
					got, err := placement.SolveResize(s, grp, r, opts)
					if err != nil || !reflect.DeepEqual(got, want) {
						b.Fatalf("%s: with buffers %v; want the resize made without", c.name(), err)
					}
				}
				return func() {
					d, _ := placement.SolveResize(s, grp, r, opts)
					sink += int64(len(d.Assignments))
				}, nil
			},
			floor: cellFloor(half),
		})
	}
	return out
}

// elasticCell is cell c's elastic input, checked: the snapshot with the
// first p/2 pods reserved, the set grown to p, the resize request and the
// options. A cell whose p/2 pods do not fit starts from none.
func elasticCell(tb testing.TB, c cell) (*placement.Snapshot, *placement.Group, placement.Resize, placement.Options) {
	tb.Helper()
	type elastic struct {
		s *placement.Snapshot
		r placement.Resize
	}
	g, _, opts, _, _ := solveCell(tb, c)
	e := cached(fmt.Sprint("elastic-", c.name()), func() elastic {
		half := bench.PodSetGang("pg", c.p/2)
		d, err := placement.Solve(g.s, half, opts)
		if err != nil {
			tb.Fatal(err)
		}
		e := elastic{s: g.s, r: placement.Resize{PodSet: "workers", Levels: g.c.Keys}}
		if d.Status == placement.Scheduled {
			us, err := placement.PodSetUsageOf(half, d)
			if err != nil {
				tb.Fatal(err)
			}
			if e.s, err = g.s.Apply(placement.Change{Reserve: us}); err != nil {
				tb.Fatal(err)
			}
			e.r.Existing = us[0].Nodes
		}
		return e
	})
	grp := cached(fmt.Sprint("podset-gang-", c.p), func() *placement.Group { return bench.PodSetGang("pg", c.p) })
	d, err := placement.SolveResize(e.s, grp, e.r, opts)
	if err != nil {
		tb.Fatal(err)
	}
	after := map[string]int32{}
	for _, a := range d.Assignments {
		after[a.Node] = a.Count
	}
	for _, a := range e.r.Existing {
		if after[a.Node] < a.Count {
			tb.Fatalf("%s: an existing pod on %s moved", c.name(), a.Node)
		}
	}
	if d.Decision.Status == placement.Scheduled && len(d.Decision.PodSetAssignments) > 0 {
		delta := bench.PodSetGang("pg", c.p-c.p/2)
		if len(e.r.Existing) == 0 {
			delta = grp
		}
		if err := placement.Verify(e.s, delta, d.Decision); err != nil {
			tb.Fatalf("%s: the delta does not verify: %v", c.name(), err)
		}
	}
	return e.s, grp, e.r, opts
}

// TestElasticMatrix_KeepsExisting checks the smallest clusters' elastic
// cells (the benchmarks check every cell before timing it), and that the
// matrix has cells that grow and cells that cannot.
func TestElasticMatrix_KeepsExisting(t *testing.T) {
	grew, waited := 0, 0
	for _, c := range cells() {
		if c.n != matrixHosts[0] {
			continue
		}
		s, grp, r, opts := elasticCell(t, c)
		d, err := placement.SolveResize(s, grp, r, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d.Decision.Status == placement.Scheduled {
			grew++
		} else {
			waited++
		}
	}
	if grew == 0 || waited == 0 {
		t.Errorf("%d cells grow, %d cannot: want both", grew, waited)
	}
}

// BenchmarkResizeAnswer times, per cell of the elastic matrix, the least
// any placement.SolveResize must do whatever it decides, given the cell's
// own answer: compare Existing with the snapshot's reservation of the set
// entry for entry (every field), as the resize must to keep every
// existing pod where it is, and write the answer — the delta's
// PodSetAssignments, one entry per node it uses, and the grown set's
// Assignments, Existing merged with the delta in node order, each in a
// slice allocated for it (when the set cannot grow, Existing itself: the
// caller's own slice, as SolveResize answers it). An elastic cell's decision cannot
// come closer to its floor than (this + the floor) / the floor.
func BenchmarkResizeAnswer(b *testing.B) {
	for _, c := range cells() {
		b.Run("elastic/"+c.name(), func(b *testing.B) {
			s, grp, r, opts := elasticCell(b, c)
			d, err := placement.SolveResize(s, grp, r, opts)
			if err != nil {
				b.Fatal(err)
			}
			var stored []placement.PodSetAssignment
			if u, ok := s.PodSetUsage(grp.Key(), r.PodSet); ok {
				stored = u.Nodes
			}
			existing, delta := r.Existing, d.Decision.PodSetAssignments
			if d.Decision.Status != placement.Scheduled {
				delta = nil
			}
			answer := func() ([]placement.PodSetAssignment, []placement.PodSetAssignment) {
				if len(stored) != len(existing) {
					return nil, nil
				}
				for i := range existing {
					if existing[i] != stored[i] {
						return nil, nil
					}
				}
				var out []placement.PodSetAssignment
				if len(delta) == 0 {
					return nil, existing
				}
				{
					out = make([]placement.PodSetAssignment, len(delta))
					for i := range delta {
						e, x := &out[i], &delta[i]
						e.PodSet, e.Node, e.NodeID, e.Count = x.PodSet, x.Node, x.NodeID, x.Count
					}
				}
				grown := make([]placement.PodSetAssignment, len(existing)+len(delta))
				i, j, k := 0, 0, 0
				for ; i < len(existing) || j < len(delta); k++ {
					var x *placement.PodSetAssignment
					var n int32
					switch {
					case j == len(delta) || i < len(existing) && existing[i].NodeID < delta[j].NodeID:
						x, n = &existing[i], existing[i].Count
						i++
					case i == len(existing) || delta[j].NodeID < existing[i].NodeID:
						x, n = &delta[j], delta[j].Count
						j++
					default:
						x, n = &existing[i], existing[i].Count+delta[j].Count
						i, j = i+1, j+1
					}
					e := &grown[k]
					e.PodSet, e.Node, e.NodeID, e.Count = x.PodSet, x.Node, x.NodeID, n
				}
				return out, grown[:k]
			}
			if _, grown := answer(); len(grown) != len(d.Assignments) {
				b.Fatalf("%s: the least answer has %d nodes, the decision %d", c.name(), len(grown), len(d.Assignments))
			}
			cputime.Loop(b, func() {
				out, grown := answer()
				sink += int64(len(out) + len(grown))
			})
			b.ReportMetric(float64(len(delta)+len(d.Assignments)), "rows")
		})
	}
}
