package replay

import (
	"github.com/gangsched/gangsched/placement"
)

// A parked group is one whose last cycle changed nothing: its pending
// members are out of the scheduler's queue (so that no cycle is spent on
// them while the cluster cannot help them) until an event may make one of
// them fit. This is the host's part of what kube-scheduler does with its
// unschedulable pool and queueing hints; the hint here is deliberately
// coarse — it may wake a group in vain, never leave one asleep that an
// event could help — since a cycle in vain costs time, a missed wake a
// wrong answer.

// wake queues again, at now or when its backoff expires, every parked
// group that may fit after room was freed on the nodes freed, and every
// one of owners (the groups whose pods were removed).
func (e *engine) wake(freed []placement.NodeID, owners map[*groupState]bool) {
	// The order of the map does not matter: waking only queues events,
	// which the timeline orders.
	for _, g := range e.parked {
		if g.waking || (!e.wakeAll && !owners[g] && !e.mayFit(g, freed)) {
			continue
		}
		g.waking = true
		at := e.now
		if g.retryAt.After(at) {
			at = g.retryAt
		}
		e.ev.push(event{at: at, kind: evWake, key: g.out.key})
	}
}

// mayFit reports whether one of g's parked members could fit on one of
// the nodes, by resources and nodeSelector alone (with preemption, pods of
// lower priority than g's count as removable). A group that names
// ResourceClaims may wait for devices, which the resources do not show.
func (e *engine) mayFit(g *groupState, nodes []placement.NodeID) bool {
	if g.claims {
		return true
	}
	if !e.slotsAllow(g, nodes) {
		return false
	}
	for _, id := range nodes {
		n := e.snap.Node(id)
		if n.Unschedulable {
			continue
		}
		var held placement.ResourceList // what pods that cannot be evicted hold
		if e.opts.Preemption {
			held = placement.ResourceList{}
			for p := range e.snap.PodsOn(id) {
				if e.priority(p) >= g.priority {
					for r, q := range p.Requests {
						held[r] += q
					}
					held[placement.ResourcePods]++
				}
			}
		}
		for i := range g.parked {
			if e.fits(id, n, &g.parked[i], held) {
				return true
			}
		}
	}
	return false
}

// fits reports whether p fits node id (n) by resources and nodeSelector:
// into its free room, or, when held is not nil, into its allocatable less
// held.
func (e *engine) fits(id placement.NodeID, n *placement.Node, p *placement.Pod, held placement.ResourceList) bool {
	for k, v := range p.NodeSelector {
		if lv, ok := n.Labels[k]; !ok || lv != v {
			return false
		}
	}
	room := func(r placement.ResourceName) int64 {
		if held != nil {
			return e.snap.Allocatable(id, r) - held[r]
		}
		return e.snap.Free(id, r)
	}
	if room(placement.ResourcePods) < 1 {
		return false
	}
	for r, q := range p.Requests {
		if q > 0 && room(r) < q {
			return false
		}
	}
	return true
}

// priority is a bound pod's priority as preemption ranks it: its
// PodGroup's when that sets one.
func (e *engine) priority(p *placement.Pod) int32 {
	if ps, ok := e.pods[p.Key()]; ok && ps.group.override {
		return ps.group.priority
	}
	return p.Priority
}

// unpark queues g's parked members again.
func (e *engine) unpark(g *groupState) error {
	if g.parked == nil {
		return nil
	}
	members := g.parked
	g.parked = nil
	delete(e.parked, g.out.key)
	for i := range members {
		if err := e.sched.AddPod(members[i]); err != nil {
			return err
		}
	}
	return nil
}
