package preemption

import (
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
	on := make([][]placement.NodeID, len(victims))
	for i, u := range victims {
		on[i] = u.nodeIDs(f.s)
	}
	msg := fmt.Sprintf("evict %d pods in %d victims of priority at most %d (preemptor %d)", pods, len(out), out[0].Priority, f.prio)
	if over > 0 {
		msg += fmt.Sprintf(", %d beyond a disruption budget", over)
	}
	return Plan{
		Outcome: Preempt, Victims: out, Decision: r.d, After: r.snap, victimNodes: on,
		Cost: f.cost.of(victims), Proven: f.limit == NoLimit, Limit: f.limit, Steps: f.budget - f.left,
		Candidates: f.q.len(), Solves: f.solves, Message: msg + "; then " + r.d.Message,
	}, nil
}

// cannotHelp explains, from d (the decision with the candidates removed),
// why preemption cannot place the group. The message gives one reason and
// never repeats the decision on the snapshot as given, which a caller
// shows before it (gang.Result.Message): with no candidate, that none is
// in the way; otherwise how many members fit with every candidate gone
// (d's first clause) and, per resource whose most freeable quantity on a
// node is below a member's request, the node's "at most" line. A resource
// the members do not lack stays in MostFreeable but out of the message.
func (f *finder) cannotHelp(d placement.Decision) Plan {
	pl := Plan{Outcome: CannotHelp, Decision: d, After: f.s, Candidates: f.q.len(), Solves: f.solves, Proven: d.Proven, Steps: f.budget - f.left}
	if !d.Proven {
		pl.Limit = LimitUnprovenSolve
	}
	pl.MostFreeable = f.freeable(d.Placement.Nodes)
	if f.q.len() == 0 {
		pl.Message = fmt.Sprintf("preemption cannot help: no pod of priority below %d is in the way", f.prio) + reservedNote(f.s)
		return pl
	}
	var b strings.Builder
	fmt.Fprintf(&b, "preemption cannot help: even with every candidate victim of priority below %d removed (%d in all), %s", f.prio, f.q.len(), firstClause(d.Message))
	for _, fr := range pl.MostFreeable {
		if fr.Free+fr.Freed >= fr.Request {
			continue
		}
		fmt.Fprintf(&b, "; at most %s %d on node %s (%d free + %d from lower-priority pods), a member requests %d",
			fr.Resource, fr.Free+fr.Freed, fr.Node, fr.Free, fr.Freed, fr.Request)
	}
	pl.Message = b.String() + reservedNote(f.s)
	return pl
}

// firstClause is a decision message up to its first "; ": how many members
// (or children) fit, without the per-member detail that follows.
func firstClause(msg string) string {
	head, _, _ := strings.Cut(msg, "; ")
	return head
}

// freeable finds, per resource the members request, the node of nodes
// (every node when empty) where the most could be had with every candidate
// gone: one pass over the nodes reading each one's free row, O(nodes ×
// resources), plus O(pods of the candidates).
func (f *finder) freeable(nodes []placement.NodeID) []Freeable {
	R, N := len(f.res), f.s.NumNodes()
	var freed []int64 // per node and resource; nil when no candidate
	for _, u := range f.q.all() {
		if freed == nil {
			freed = make([]int64, N*R)
		}
		req := u.rows(f)
		for j, id := range u.nodeIDs(f.s) {
			for r, q := range req[j*R : (j+1)*R] {
				freed[int(id)*R+r] += q
			}
		}
	}
	// The resources to explain, in f.res order, with the largest request.
	type asked struct {
		r       int
		request int64
		best    placement.NodeID // -1 until a node is read
		total   int64
	}
	var want []asked
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
		want = append(want, asked{r: r, request: request, best: -1})
	}
	visit := func(id placement.NodeID, row []int64) {
		unlimited := f.s.Allocatable(id, placement.ResourcePods) == math.MaxInt64
		for k := range want {
			a := &want[k]
			if a.r == f.podsR && unlimited {
				continue
			}
			total := row[a.r]
			if freed != nil {
				total += freed[int(id)*R+a.r]
			}
			if a.best < 0 || total > a.total {
				a.best, a.total = id, total
			}
		}
	}
	row := make([]int64, 0, R)
	if len(nodes) == 0 {
		for id := range placement.NodeID(N) {
			row = f.s.AppendFree(row[:0], id)
			visit(id, row)
		}
	} else {
		for _, id := range nodes {
			if id >= 0 && int(id) < N {
				row = f.s.AppendFree(row[:0], id)
				visit(id, row)
			}
		}
	}
	var out []Freeable
	for _, a := range want {
		if a.best < 0 {
			continue
		}
		name := f.res[a.r]
		fr := Freeable{Resource: name, Node: f.s.Node(a.best).Name, Free: f.s.Free(a.best, name), Request: a.request}
		if freed != nil {
			fr.Freed = freed[int(a.best)*R+a.r]
		}
		out = append(out, fr)
	}
	return out
}

// MakesRoomFor returns, sorted, the pending members that the plan's
// Decision places on a node where Victims[i] has a pod (a pod set by the
// group's namespace and the set's name): what evicting that victim is
// for. It returns nil for i out of range. O(assignments × the victim's
// pods).
func (p *Plan) MakesRoomFor(i int) []placement.Key {
	if i < 0 || i >= len(p.victimNodes) {
		return nil
	}
	on := p.victimNodes[i]
	var out []placement.Key
	for _, a := range p.Decision.Assignments {
		if slices.Contains(on, a.NodeID) {
			out = append(out, a.Pod)
		}
	}
	for _, a := range p.Decision.PodSetAssignments {
		if slices.Contains(on, a.NodeID) {
			out = append(out, placement.Key{Namespace: p.Decision.Group.Namespace, Name: a.PodSet})
		}
	}
	slices.SortFunc(out, placement.Key.Compare)
	return slices.Compact(out)
}
