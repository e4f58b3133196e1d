package preemption

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_CandOrderIsVictimOrder: the heap's comparator on candidates
// ranks exactly as VictimOrder ranks the victims they become (whole groups
// and pods, started or not, with and without monotonic clock readings).
func TestProp_CandOrderIsVictimOrder(t *testing.T) {
	wall := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mono := time.Now() // only for its monotonic reading; offsets are drawn
	draw := func(t *rapid.T, q *queue, i int) Victim {
		start := time.Time{}
		switch rapid.IntRange(0, 2).Draw(t, "start") {
		case 1:
			start = wall.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "ns")) * time.Millisecond / 2)
		case 2:
			start = mono.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "ns")) * time.Millisecond / 2)
		}
		prio := rapid.SampledFrom([]int32{math.MinInt32, -1, 0, 1, 2, math.MaxInt32}).Draw(t, "priority")
		name := fmt.Sprintf("v%d", rapid.IntRange(0, 2).Draw(t, "name"))
		grouped := rapid.Bool().Draw(t, "grouped")
		pod := &placement.Pod{Namespace: "x", Name: fmt.Sprintf("%s-%d", name, i), StartTime: start}
		if grouped {
			pod.SchedulingGroup = name
		}
		if grouped && rapid.Bool().Draw(t, "whole") {
			g := &placement.BoundGroup{Key: placement.Key{Namespace: "x", Name: fmt.Sprintf("%s-%d", name, i)},
				Pods: rapid.SampledFrom([]int{1, 2, 3, 1000}).Draw(t, "pods"), EarliestStart: start}
			v := Victim{PodGroup: g.Key, Whole: true, Priority: prio, StartTime: start, Pods: make([]placement.Key, g.Pods)}
			q.add(prio, g.Pods, true, g, nil)
			return v
		}
		v := Victim{Priority: prio, StartTime: start, Pods: []placement.Key{pod.Key()}}
		if grouped {
			v.PodGroup = placement.Key{Namespace: "x", Name: name}
		}
		q.add(prio, 1, grouped, nil, pod)
		return v
	}
	sign := func(c int) int { return max(-1, min(1, c)) }
	rapid.Check(t, func(t *rapid.T) {
		q := &queue{}
		va, vb := draw(t, q, 0), draw(t, q, 1)
		a, b := q.heap[0], q.heap[1]
		for _, c := range []struct {
			c *cand
			v *Victim
		}{{&a, &va}, {&b, &vb}} {
			if c.c.priority() != c.v.Priority || c.c.grouped() != (c.v.PodGroup.Name != "") {
				t.Fatalf("cand of %+v says priority %d, grouped %v", *c.v, c.c.priority(), c.c.grouped())
			}
		}
		if got, want := sign(q.order(&a, &b)), sign(VictimOrder(&va, &vb)); got != want {
			t.Fatalf("order %d, VictimOrder %d for %+v and %+v", got, want, va, vb)
		}
		if got, want := sign(q.order(&b, &a)), sign(VictimOrder(&vb, &va)); got != want {
			t.Fatalf("order %d, VictimOrder %d for %+v and %+v", got, want, vb, va)
		}
	})
}

// TestProp_SlotsWithoutIsAFreshCount: the member slots minimize starts from,
// derived from prefixBound's count by swapping units, equal a count of the
// snapshot without the victims, node by node.
func TestProp_SlotsWithoutIsAFreshCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 5).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%d", i), Allocatable: placement.ResourceList{
				placement.ResourceCPU: rapid.Int64Range(0, 6).Draw(t, "cpu"), placement.ResourcePods: rapid.Int64Range(1, 6).Draw(t, "pods")}})
		}
		in := Input{PodGroups: map[placement.Key]PodGroupSpec{}}
		var pods []placement.Pod
		for i := range rapid.IntRange(0, 12).Draw(t, "bound") {
			p := placement.Pod{Namespace: "x", Name: fmt.Sprintf("p%d", i), NodeName: rapid.SampledFrom(nodes).Draw(t, "node").Name,
				Priority: rapid.Int32Range(1, 3).Draw(t, "priority"), Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 2).Draw(t, "req")}}
			if g := rapid.IntRange(0, 3).Draw(t, "group"); g > 0 {
				p.SchedulingGroup = fmt.Sprintf("g%d", g)
				if rapid.Bool().Draw(t, "whole") {
					in.PodGroups[placement.Key{Namespace: "x", Name: p.SchedulingGroup}] = PodGroupSpec{DisruptionMode: DisruptionModePodGroup}
				}
			}
			pods = append(pods, p)
		}
		s, err := placement.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		g := &placement.Group{Namespace: "x", Name: "high", Policy: placement.PolicyGang, MinCount: 2}
		for i := range 2 {
			g.Members = append(g.Members, placement.Pod{Namespace: "x", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "high",
				Priority: 5, Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 2).Draw(t, "member")}})
		}
		f := &finder{s: s, g: g, in: &in, need: 2}
		f.q = collect(s, g, f.joiner(nil), 5, false)
		f.index()
		f.prefixBound(f.q, nil, nil)
		var victims []*unit
		for _, u := range f.q.all() {
			if rapid.Bool().Draw(t, "victim") {
				victims = append(victims, u)
			}
		}
		snap, err := s.Apply(placement.Change{Remove: podKeys(victims)})
		if err != nil {
			t.Fatal(err)
		}
		got := f.slotsWithout(snap, victims, nil)
		gotTotal := got.total
		var gotFree []int64
		for id := range placement.NodeID(s.NumNodes()) {
			gotFree = append(gotFree, got.row(id)...)
		}
		want := f.newSlots(snap, nil, nil)
		var wantFree []int64
		for id := range placement.NodeID(s.NumNodes()) {
			wantFree = append(wantFree, snap.AppendFree(nil, id)...)
		}
		if gotTotal != want.total || !slices.Equal(gotFree, wantFree) {
			t.Fatalf("derived slots %d %v, counted %d %v", gotTotal, gotFree, want.total, wantFree)
		}
	})
}
