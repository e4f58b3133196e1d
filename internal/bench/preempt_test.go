package bench_test

import (
	"testing"

	"github.com/gangsched/gangsched/internal/bench"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

const preemptNodes, preemptSize = 5000, 256

type packed struct {
	w *bench.Packed
	s *placement.Snapshot
}

func packedCluster(tb testing.TB) *packed {
	return cached("packed", func() *packed {
		w := bench.PackedCluster(preemptNodes, preemptSize)
		return &packed{w: w, s: mustSnapshot(tb, w.Nodes, w.Bound)}
	})
}

// preempt: 5,000 nodes packed with 40,000 low pods in PodGroups of 8
// (disruptionMode PodGroup) and a high gang of 256 → preemption.Find with
// zero Options; the floor is one pass over the nodes and the candidate
// pods, then a first-fit of the members.
func preempt() workload {
	return workload{
		name: "preempt/n=5000/pods=40000/p=256",
		decision: func(b *testing.B) (func(), []metric) {
			p := packedCluster(b)
			plan, err := preemption.Find(p.s, p.w.Group, p.w.Input, placement.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if plan.Outcome != preemption.Preempt || len(plan.Victims) == 0 {
				b.Fatalf("want victims, got %v: %s", plan.Outcome, plan.Message)
			}
			if err := placement.Verify(plan.After, p.w.Group, plan.Decision); err != nil {
				b.Fatal(err)
			}
			return func() {
				plan, _ := preemption.Find(p.s, p.w.Group, p.w.Input, placement.Options{})
				sink += int64(len(plan.Victims))
			}, []metric{{float64(len(plan.EvictedPods())), "evicted"}, {float64(plan.Solves), "solves"}}
		},
		floor: func(b *testing.B) (func(), []metric) {
			w := packedCluster(b).w
			scratch, out := make([]int64, len(w.Free)), make([]int32, len(w.MemberCPU))
			if n := w.Floor(scratch, out); n != preemptSize {
				b.Fatalf("floor placed %d of %d", n, preemptSize)
			}
			return func() { sink += int64(w.Floor(scratch, out)) }, nil
		},
	}
}
