package bench_test

import (
	"fmt"
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
// (disruptionMode PodGroup) and a high gang of 256 → preemption with zero
// Options, the way a host calls it every cycle: [preemption.Index.Find] on
// an Index built once, outside the timer (like a topology tree). The floor
// is one pass over the nodes and the candidate pods, then a first-fit of
// the members. preempt-find is the same with a plain [preemption.Find],
// which validates and joins the input on every call; preempt-derived
// calls the Index on a snapshot derived from the packed one with Apply
// (one low group ended, a low pod bound in its place), as a host's next
// cycle would.
func preempt() []workload {
	floor := func(b *testing.B) (func(), []metric) {
		w := packedCluster(b).w
		scratch, out := make([]int64, len(w.Free)), make([]int32, len(w.MemberCPU))
		if n := w.Floor(scratch, out); n != preemptSize {
			b.Fatalf("floor placed %d of %d", n, preemptSize)
		}
		return func() { sink += int64(w.Floor(scratch, out)) }, nil
	}
	decision := func(indexed, derived bool) prepare {
		return func(b *testing.B) (func(), []metric) {
			p := packedCluster(b)
			s := p.s
			if derived {
				ch := placement.Change{Bind: []placement.Pod{{Namespace: "default", Name: "late", NodeName: p.w.Nodes[0].Name,
					Priority: bench.LowPriority, Requests: placement.ResourceList{placement.ResourceCPU: 1000}}}}
				for j := range 8 {
					ch.Remove = append(ch.Remove, placement.Key{Namespace: "default", Name: fmt.Sprintf("low-00000-%d", j)})
				}
				var err error
				if s, err = s.Apply(ch); err != nil {
					b.Fatal(err)
				}
			}
			find := func() (preemption.Plan, error) {
				return preemption.Find(s, p.w.Group, p.w.Input, placement.Options{})
			}
			if indexed {
				x, err := preemption.NewIndex(p.w.Input)
				if err != nil {
					b.Fatal(err)
				}
				find = func() (preemption.Plan, error) { return x.Find(s, p.w.Group, placement.Options{}) }
			}
			plan, err := find()
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
				plan, _ := find()
				sink += int64(len(plan.Victims))
			}, []metric{{float64(len(plan.EvictedPods())), "evicted"}, {float64(plan.Solves), "solves"}}
		}
	}
	const shape = "/n=5000/pods=40000/p=256"
	return []workload{
		{name: "preempt-exact/n=5/units=20/p=3", decision: exactDecision, floor: exactFloor},
		{name: "preempt" + shape, decision: decision(true, false), floor: floor},
		{name: "preempt-find" + shape, decision: decision(false, false), floor: floor},
		{name: "preempt-derived" + shape, decision: decision(true, true), floor: floor},
	}
}

// preempt-exact: 5 nodes full with 20 low pods of mixed priorities, a
// budget over one node's pods, and a gang of 3 that needs two victims on
// each of three nodes → preemption.Find, whose exact search proves the
// cheapest set. The floor is the packed case's on this cluster.
func exactDecision(b *testing.B) (func(), []metric) {
	w := bench.ExactCluster()
	s := mustSnapshot(b, w.Nodes, w.Bound)
	plan, err := preemption.Find(s, w.Group, w.Input, placement.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if plan.Outcome != preemption.Preempt || !plan.Proven || len(plan.Victims) != 6 {
		b.Fatalf("want 6 proven victims, got %v (proven %v): %s", plan.Outcome, plan.Proven, plan.Message)
	}
	if err := placement.Verify(plan.After, w.Group, plan.Decision); err != nil {
		b.Fatal(err)
	}
	return func() {
		plan, _ := preemption.Find(s, w.Group, w.Input, placement.Options{})
		sink += int64(len(plan.Victims))
	}, []metric{{float64(plan.Solves), "solves"}}
}

func exactFloor(b *testing.B) (func(), []metric) {
	w := bench.ExactCluster()
	scratch, out := make([]int64, len(w.Free)), make([]int32, len(w.MemberCPU))
	if n := w.Floor(scratch, out); n != len(w.MemberCPU) {
		b.Fatalf("floor placed %d of %d", n, len(w.MemberCPU))
	}
	return func() { sink += int64(w.Floor(scratch, out)) }, nil
}
