package replay

import (
	"math"

	"github.com/gangsched/gangsched/placement"
)

// Slot counts sharpen the wake hint for a parked group of several members:
// such a group needs Decision.Required − Decision.Bound more members
// placed, each at least its smallest member (the componentwise minimum of
// their requests), so an event wakes it only when the cluster — and, for
// a required topology key, the freed node's domain — has that many slots
// of the smallest member free. A slot count per node and shape is kept up
// to date at each binding and end, for the shapes of parked groups, in
// O(shapes · resources) per changed node.

// slotShape is one request vector and its free slots per node.
type slotShape struct {
	req   placement.ResourceList
	slots []int64 // by NodeID
	total int64
}

// slotsOn is how many pods of req fit node id's free room.
func (e *engine) slotsOn(id placement.NodeID, req placement.ResourceList) int64 {
	n := e.snap.Free(id, placement.ResourcePods)
	for r, q := range req {
		if q > 0 {
			n = min(n, e.snap.Free(id, r)/q)
		}
	}
	return max(n, 0)
}

// shapeOf returns the tracked slot shape of req, counting it on every
// node the first time.
func (e *engine) shapeOf(req placement.ResourceList) *slotShape {
	k := shapeKey(&placement.Pod{Requests: req})
	if s, ok := e.slotShapes[k]; ok {
		return s
	}
	s := &slotShape{req: req, slots: make([]int64, e.snap.NumNodes())}
	for id := range s.slots {
		s.slots[id] = e.slotsOn(placement.NodeID(id), req)
		s.total += s.slots[id]
	}
	e.slotShapes[k] = s
	return s
}

// recount updates the slot counts of the nodes ids after a change.
func (e *engine) recount(ids []placement.NodeID) {
	for _, s := range e.slotShapes {
		for _, id := range ids {
			n := e.slotsOn(id, s.req)
			s.total += n - s.slots[id]
			s.slots[id] = n
		}
	}
}

// smallest is the componentwise minimum of the members' requests.
func smallest(members []placement.Pod) placement.ResourceList {
	out := placement.ResourceList{}
	for r := range members[0].Requests {
		v := int64(math.MaxInt64)
		for i := range members {
			v = min(v, members[i].Requests[r])
		}
		if v > 0 {
			out[r] = v
		}
	}
	return out
}

// slotsAllow reports whether g, needing g.need members of g.shape, could
// be helped by room freed on nodes: enough slots in the cluster and, with
// a required topology key, in one freed node's domain. Under preemption,
// for a group that may preempt, slots say nothing and it allows.
func (e *engine) slotsAllow(g *groupState, nodes []placement.NodeID) bool {
	if g.shape == nil || (e.opts.Preemption && g.priority > e.minPriority) {
		return true
	}
	if g.shape.total < g.need {
		return false
	}
	if g.topoKey == "" {
		return true
	}
	for _, id := range nodes {
		v, ok := e.snap.Node(id).Labels[g.topoKey]
		if !ok {
			continue
		}
		var sum int64
		for _, o := range e.domainNodes(g.topoKey)[v] {
			sum += g.shape.slots[o]
		}
		if sum >= g.need {
			return true
		}
	}
	return false
}

// domainNodes indexes the nodes by their value of key.
func (e *engine) domainNodes(key string) map[string][]placement.NodeID {
	if m, ok := e.domains[key]; ok {
		return m
	}
	m := map[string][]placement.NodeID{}
	for id := range e.snap.NumNodes() {
		if v, ok := e.snap.Node(placement.NodeID(id)).Labels[key]; ok {
			m[v] = append(m[v], placement.NodeID(id))
		}
	}
	e.domains[key] = m
	return m
}
