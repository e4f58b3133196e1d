package kube

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// headsByWalk is the walk [headCursors] replaces: over every pending
// Workload, each queue's first one not passed over, in pending's order.
func headsByWalk(a *admitter, pending []int, out []KueueOutcome, aside map[int]bool) []int {
	seen := map[string]bool{}
	var heads []int
	for _, i := range pending {
		if o := &out[i]; o.Action == KueueAdmitted || o.Action == KueueReadmitted || aside[i] || a.isStuck(a.queue[i]) && !a.retriable(a.queue[i]) {
			continue
		}
		if key := a.queueKey(i); !seen[key] {
			seen[key] = true
			heads = append(heads, i)
		}
	}
	return heads
}

// headsAdmitter is an admitter over n queue Workloads w0.., each routed
// to ClusterQueue cq0 or cq1 or nowhere (a queue of its own) as route
// draws.
func headsAdmitter(n int, route func(i int) int) *admitter {
	a := &admitter{routes: map[placement.Key]routeResult{
		{Namespace: "default", Name: "q0"}:   {cq: &KueueClusterQueue{Name: "cq0"}},
		{Namespace: "default", Name: "q1"}:   {cq: &KueueClusterQueue{Name: "cq1"}},
		{Namespace: "default", Name: "none"}: {why: "LocalQueue default/none does not exist"},
	}}
	for i := range n {
		name := fmt.Sprintf("w%d", i)
		obj := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: kueue.WorkloadSpec{QueueName: kueue.LocalQueueName([]string{"q0", "q1", "none"}[route(i)])}}
		a.queue = append(a.queue, &KueueWorkload{Obj: obj, Group: &placement.Group{Namespace: "default", Name: name}})
	}
	return a
}

// TestProp_KueueHeadsWalk: the heads [headCursors] finds are those of
// the walk over every pending Workload, over random sequences of what
// admitInCycles does between cycles: admissions, Workloads set aside,
// held (stuck for good, or assumed and retriable after the next change),
// changes counted, held heads tried again, and, each with a reset,
// preemptions (admitted Workloads queued again, merged into pending) and
// the set-aside Workloads cleared.
func TestProp_KueueHeadsWalk(t *testing.T) {
	comeBack, emptied := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "n")
		routes := rapid.SliceOfN(rapid.IntRange(0, 2), n, n).Draw(rt, "routes")
		a := headsAdmitter(n, func(i int) int { return routes[i] })
		a.stuck, a.assumed = map[placement.Key]bool{}, map[placement.Key]assumedHold{}
		out := make([]KueueOutcome, n)
		pending := rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 1, n, rapid.ID[int]).Draw(rt, "pending")
		slices.Sort(pending)
		aside := map[int]bool{}
		hc := &headCursors{}
		var last []int
		for step := range rapid.IntRange(1, 30).Draw(rt, "steps") {
			heads := hc.heads(a, pending, out, aside)
			want := headsByWalk(a, pending, out, aside)
			require.Equal(rt, fmt.Sprint(want), fmt.Sprint(heads), "step %d: heads", step)
			for _, h := range heads {
				if a.retriable(a.queue[h]) && !slices.Contains(last, h) {
					comeBack++
				}
			}
			if len(heads) == 0 {
				emptied++
			}
			last = heads
			i := rapid.SampledFrom(pending).Draw(rt, "workload")
			w := a.queue[i]
			switch rapid.IntRange(0, 7).Draw(rt, "change") {
			case 0: // admitted
				out[i].Action = rapid.SampledFrom([]KueueAction{KueueAdmitted, KueueReadmitted}).Draw(rt, "action")
				a.changes++
			case 1: // set aside
				aside[i] = true
			case 2: // held for good
				a.stuck[w.Key()] = true
			case 3: // a head held as Kueue's assumption, retriable after the next change (only a
				// head is settled: one passed over for good is never held afresh)
				if len(heads) == 0 {
					continue
				}
				h := a.queue[rapid.SampledFrom(heads).Draw(rt, "held head")]
				a.stuck[h.Key()] = true
				a.assumed[h.Key()] = assumedHold{at: a.changes}
			case 4: // a change counted
				a.changes++
			case 5: // a retriable head tried again
				if len(heads) == 0 {
					continue
				}
				h := a.queue[rapid.SampledFrom(heads).Draw(rt, "head")]
				if a.retriable(h) {
					delete(a.assumed, h.Key())
					delete(a.stuck, h.Key())
				}
			case 6: // a preemption: admitted Workloads, pending or not, queued again
				var victims []int
				for v := range n {
					if out[v].Action == KueueAdmitted && rapid.Bool().Draw(rt, "victim") {
						out[v].Action = KueuePreempted
						victims = append(victims, v)
					}
				}
				victims = append(victims, rapid.IntRange(0, n-1).Draw(rt, "running victim"))
				pending = mergePending(pending, victims)
				a.changes++
				hc.reset()
			case 7: // the set-aside Workloads cleared
				clear(aside)
				hc.reset()
			}
		}
	})
	require.Positive(t, comeBack, "no held assumed Workload came back as a head")
	require.Positive(t, emptied, "no sequence left no head")
}

// TestKueueHeads_HeldAssumed: a held assumed Workload ahead of the
// cursor is passed over without the cursor moving past it, so that it is
// its queue's head again once a change makes it retriable; one held for
// good and one admitted are passed for good.
func TestKueueHeads_HeldAssumed(t *testing.T) {
	a := headsAdmitter(4, func(int) int { return 0 })
	a.stuck = map[placement.Key]bool{a.queue[0].Key(): true, a.queue[1].Key(): true}
	a.assumed = map[placement.Key]assumedHold{a.queue[1].Key(): {at: 0}}
	out := make([]KueueOutcome, 4)
	out[2].Action = KueueAdmitted
	pending := []int{0, 1, 2, 3}
	hc := &headCursors{}
	require.Equal(t, []int{3}, hc.heads(a, pending, out, nil))
	require.Equal(t, 1, hc.queues[0].next, "the cursor stops at the held assumed Workload")
	a.changes++
	require.Equal(t, []int{1}, hc.heads(a, pending, out, nil))
	delete(a.stuck, a.queue[1].Key())
	delete(a.assumed, a.queue[1].Key())
	out[1].Action = KueueAdmitted
	require.Equal(t, []int{3}, hc.heads(a, pending, out, nil))
	require.Equal(t, 3, hc.queues[0].next)
	out[3].Action = KueueAdmitted
	require.Empty(t, hc.heads(a, pending, out, nil))
	require.Empty(t, hc.queues, "a queue with no Workload left is dropped")
}
