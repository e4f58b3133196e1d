package preemption

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

func (f *finder) plan(r *result) (Plan, error) {
	// What Verify would check of a decision Solve made on r.snap itself,
	// with no caller filter that could answer differently the second
	// time, Solve guarantees (placement's property tests verify every
	// decision it makes; preemption's, every plan): Verify would cost
	// more than the search's last solve.
	if !r.solved || len(f.opts.Filters) > 0 {
		if err := placement.Verify(r.snap, f.g, r.d, f.opts.Filters...); err != nil {
			return Plan{}, err
		}
	}
	if len(r.victims) == 0 { // the placement fits as it is
		return Plan{Outcome: Fits, Decision: r.d, After: r.snap, Candidates: f.q.len(), Solves: f.solves, Message: "fits without preemption: " + r.d.Message}, nil
	}
	victims := ranked(r.victims)
	left := newAllowance(f.in.Budgets)
	out := make([]Victim, len(victims))
	pods, over := 0, 0
	for i := len(victims) - 1; i >= 0; i-- {
		out[i] = victims[i].v
		out[i].Pods = slices.Clone(out[i].Pods)
		out[i].ExceedsBudgets = left.take(victims[i].pods, true)
		pods += len(out[i].Pods)
		if len(out[i].ExceedsBudgets) > 0 {
			over++
		}
	}
	f.roomFor(out, victims, r.d)
	msg := fmt.Sprintf("evict %d pods in %d victims of priority at most %d (preemptor %d)", pods, len(out), out[0].Priority, f.prio)
	if over > 0 {
		msg += fmt.Sprintf(", %d beyond a disruption budget", over)
	}
	return Plan{
		Outcome: Preempt, Victims: out, Decision: r.d, After: r.snap,
		Cost: f.cost.of(victims, nil), Proven: !f.heuristic && !f.cut && !f.unproven,
		Candidates: f.q.len(), Solves: f.solves, Message: msg + "; then " + r.d.Message,
	}, nil
}

// cannotHelp explains, from d (the decision with the candidates removed),
// why preemption cannot place the group.
func (f *finder) cannotHelp(d placement.Decision) Plan {
	pl := Plan{Outcome: CannotHelp, Decision: d, After: f.s, Candidates: f.q.len(), Solves: f.solves, Proven: d.Proven}
	var b strings.Builder
	if f.q.len() == 0 {
		fmt.Fprintf(&b, "preemption cannot help: no pod of priority below %d is in the way; %s", f.prio, d.Message)
	} else {
		fmt.Fprintf(&b, "preemption cannot help: even with every candidate victim of priority below %d removed (%d in all), %s", f.prio, f.q.len(), d.Message)
	}
	pl.MostFreeable = f.freeable(d.Placement.Nodes)
	for _, fr := range pl.MostFreeable {
		fmt.Fprintf(&b, "; at most %s %d on node %s (%d free + %d from lower-priority pods), a member requests %d",
			fr.Resource, fr.Free+fr.Freed, fr.Node, fr.Free, fr.Freed, fr.Request)
	}
	pl.Message = b.String()
	return pl
}

// freeable finds, per resource the members request, the node of nodes
// (every node when empty) where the most could be had with every candidate
// gone.
func (f *finder) freeable(nodes []placement.NodeID) []Freeable {
	R, N := len(f.res), f.s.NumNodes()
	freed := make([]int64, N*R)
	for _, u := range f.q.all() {
		req := u.rows(f)
		for j, id := range u.nodeIDs(f.s) {
			for r, q := range req[j*R : (j+1)*R] {
				freed[int(id)*R+r] += q
			}
		}
	}
	if len(nodes) == 0 {
		nodes = make([]placement.NodeID, N)
		for i := range nodes {
			nodes[i] = placement.NodeID(i)
		}
	}
	var out []Freeable
	for r, name := range f.res {
		var request int64
		for _, p := range f.pending {
			request = max(request, p.Requests[name])
		}
		if r == f.podsR {
			request = 1
		} else if request == 0 {
			continue
		}
		var best *Freeable
		var bestTotal int64
		for _, id := range nodes {
			if id < 0 || int(id) >= N || (r == f.podsR && f.s.Allocatable(id, name) == math.MaxInt64) {
				continue
			}
			fr := Freeable{Resource: name, Node: f.s.Node(id).Name, Free: f.s.Free(id, name), Freed: freed[int(id)*R+r], Request: request}
			if total := fr.Free + fr.Freed; best == nil || total > bestTotal {
				best, bestTotal = &fr, total
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}

// roomFor fills each victim's MakesRoomFor from d: the pending pods
// assigned to the nodes of its pods. The pods are ranked by key once, so
// that each victim sorts integers; every list shares one allocation.
// O(A log A + P log P) for A assignments and P (victim pod, pending pod)
// pairs on a node.
func (f *finder) roomFor(out []Victim, victims []*unit, d placement.Decision) {
	keys := make([]placement.Key, 0, len(d.Assignments)+len(d.PodSetAssignments))
	ids := make([]placement.NodeID, 0, cap(keys))
	for _, a := range d.Assignments {
		keys, ids = append(keys, a.Pod), append(ids, a.NodeID)
	}
	for _, a := range d.PodSetAssignments {
		keys, ids = append(keys, placement.Key{Namespace: f.g.Namespace, Name: a.PodSet}), append(ids, a.NodeID)
	}
	// on holds (node, rank of the pod's key) pairs, sorted.
	byKey := make([]int, len(keys))
	for i := range byKey {
		byKey[i] = i
	}
	slices.SortFunc(byKey, func(a, b int) int { return keys[a].Compare(keys[b]) })
	on := make([][2]int32, len(keys))
	for r, i := range byKey {
		on[i] = [2]int32{int32(ids[i]), int32(r)}
	}
	slices.SortFunc(on, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
	var ranks []int32
	var slab []placement.Key
	for i, u := range victims {
		ranks = ranks[:0]
		for _, id := range u.nodeIDs(f.s) {
			k, _ := slices.BinarySearchFunc(on, int32(id), func(p [2]int32, id int32) int { return cmp.Compare(p[0], id) })
			for ; k < len(on) && on[k][0] == int32(id); k++ {
				ranks = append(ranks, on[k][1])
			}
		}
		slices.Sort(ranks)
		ranks = slices.Compact(ranks)
		if cap(slab)-len(slab) < len(ranks) {
			slab = make([]placement.Key, 0, max(len(ranks), len(keys)))
		}
		at := len(slab)
		for _, r := range ranks {
			slab = append(slab, keys[byKey[r]])
		}
		out[i].MakesRoomFor = slab[at:len(slab):len(slab)]
	}
}
