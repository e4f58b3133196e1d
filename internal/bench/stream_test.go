package bench_test

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

const streamNodes, streamGangs, streamSize = 5000, 2250, 4

// stream is the stream workload on one cluster: streamGangs gangs of
// streamSize pods, each requiring a rack, placed one after the other.
type stream struct {
	c     *bench.Cluster
	s     *placement.Snapshot
	tree  *topology.Tree
	opts  placement.Options
	gangs []*placement.Group
}

// newStream builds the stream on the upstream TAS perf cluster (tas: cpu 4
// nodes in racks of 100, scheduler_perf pods) or on the empty GPU cluster
// (gpu: 3 levels, pods of 1 GPU and 8 CPUs).
func newStream(tb testing.TB, kind string) *stream {
	return cached("stream-"+kind, func() *stream {
		st := &stream{}
		if kind == "tas" {
			st.c = bench.TASCluster(streamNodes)
		} else {
			st.c = bench.GPUCluster(streamNodes, false)
		}
		st.s = mustSnapshot(tb, st.c.Nodes, st.c.Bound)
		var err error
		if st.tree, err = topology.NewTree(st.s, st.c.Keys); err != nil {
			tb.Fatal(err)
		}
		if st.opts, err = st.tree.SolverOptions(constraint(bench.RackKey), topology.MostAllocated); err != nil {
			tb.Fatal(err)
		}
		for i := range streamGangs {
			name := fmt.Sprintf("pg-%04d", i)
			if kind == "tas" {
				st.gangs = append(st.gangs, bench.Gang(name, streamSize))
			} else {
				st.gangs = append(st.gangs, bench.GPUGang(name, streamSize))
			}
		}
		return st
	})
}

// run places every gang in turn: placement.Solve, then Snapshot.Apply of
// the decision's bindings, which the next gang sees. It returns the number
// of gangs scheduled.
func (st *stream) run(tb testing.TB) int {
	s, scheduled := st.s, 0
	bind := make([]placement.Pod, 0, streamSize)
	for _, g := range st.gangs {
		d, err := placement.Solve(s, g, st.opts)
		if err != nil {
			tb.Fatal(err)
		}
		if d.Status != placement.Scheduled {
			continue
		}
		scheduled++
		bind = bind[:0]
		for i, a := range d.Assignments {
			// Members are listed in member order already (names ascend,
			// equal priorities and queue times), as Assignments are.
			p := g.Members[i]
			if p.Key() != a.Pod {
				tb.Fatalf("assignment %d is %v, want %v", i, a.Pod, p.Key())
			}
			p.NodeName = a.Node
			bind = append(bind, p)
		}
		if s, err = s.Apply(placement.Change{Bind: bind}); err != nil {
			tb.Fatal(err)
		}
	}
	return scheduled
}

func streams() []workload {
	var out []workload
	for _, kind := range []string{"tas", "gpu"} {
		out = append(out, workload{
			name: fmt.Sprintf("stream/n=%d/gangs=%dx%d/rack/%s", streamNodes, streamGangs, streamSize, kind),
			decision: func(b *testing.B) (func(), []metric) {
				st := newStream(b, kind)
				if n := st.run(b); n != streamGangs {
					b.Fatalf("%d of %d gangs scheduled", n, streamGangs)
				}
				return func() { sink += int64(st.run(b)) }, []metric{{streamGangs, "gangs"}}
			},
			floor: func(b *testing.B) (func(), []metric) {
				st := newStream(b, kind)
				f, level := bench.NewGangFloor(st.c), st.c.Level(bench.RackKey)
				reqs := make([][]bench.Request, len(st.gangs))
				for i, g := range st.gangs {
					reqs[i] = st.c.Requests(g.Members)
				}
				out := make([]int32, streamSize)
				pass := func() int {
					f.Reset()
					placed := 0
					for _, r := range reqs {
						if f.Place(level, r, out, true) == streamSize {
							placed++
						}
					}
					return placed
				}
				if n := pass(); n != streamGangs {
					b.Fatalf("floor: %d of %d gangs placed", n, streamGangs)
				}
				return func() { sink += int64(pass()) }, []metric{{streamGangs, "gangs"}}
			},
		})
	}
	return out
}
