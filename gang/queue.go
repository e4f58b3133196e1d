package gang

import (
	"slices"
	"time"

	"github.com/google/btree"

	"github.com/gangsched/gangsched/placement"
)

// QueueState is where a PodGroup's pending members are in the [Scheduler]'s
// queue.
type QueueState int

// Queue states.
const (
	// Idle: no pending members.
	Idle QueueState = iota
	// Gated: no cycle is attempted until an event for the group (its
	// PodGroup appears or changes, a member arrives or leaves): the PodGroup
	// does not exist, or fewer than minCount members exist (upstream: the
	// GangScheduling plugin's PreEnqueue).
	Gated
	// Active: the group is attempted in a coming cycle.
	Active
	// BackingOff: the last cycle left members pending; the group becomes
	// active again at RetryAt.
	BackingOff
)

// String returns the state's name, e.g. "BackingOff".
func (q QueueState) String() string {
	switch q {
	case Idle:
		return "Idle"
	case Gated:
		return "Gated"
	case Active:
		return "Active"
	case BackingOff:
		return "BackingOff"
	}
	return "QueueState(?)"
}

// group is the scheduler's record of one PodGroup key.
type group struct {
	key     placement.Key
	pg      *PodGroup // nil while the PodGroup does not exist
	members map[placement.Key]*placement.Pod
	head    *placement.Pod // first pending member in MemberOrder; nil until place finds it
	state   QueueState
	reason  string // why Gated
	retryAt time.Time
	// attempts counts consecutive cycles that left members pending; the
	// backoff doubles with each.
	attempts int
	// rootPrio is the priority of the root CompositePodGroup of the
	// hierarchy g is a leaf of (0 when the root sets none), when the root
	// exists: the whole tree is decided at once, so its leaves queue by
	// it (see Scheduler.setRootPriority).
	rootPrio *int32
}

// lessActive orders active groups by [queuePriority], then by their first
// member in placement.MemberOrder, so that popping the head of the queue
// takes the group of the pod the queue would have popped (priority, then
// arrival), then by group key: a total order.
func lessActive(a, b *group) bool {
	if c := queuePriority(b) - queuePriority(a); c != 0 {
		return c < 0
	}
	if c := placement.MemberOrder(a.head, b.head); c != 0 {
		return c < 0
	}
	return a.key.Compare(b.key) < 0
}

// queuePriority is the priority a group is queued by: for a leaf of a
// hierarchy, its root CompositePodGroup's (0 when unset); otherwise its
// PodGroup's when set, else its first member's. Preemption ranks a group by the same
// priority, so a preemptor outranks every pod it evicted: without this, a
// victim recreated by its controller, ahead of a preemptor whose pods carry
// a lower priority than their PodGroup, took the freed room back before the
// preemptor's retry, and the two traded it forever (upstream, the
// preemptor's nominated node holds the room).
func queuePriority(g *group) int64 {
	if g.rootPrio != nil {
		return int64(*g.rootPrio)
	}
	if g.pg != nil && g.pg.Spec.Priority != nil {
		return int64(*g.pg.Spec.Priority)
	}
	return int64(g.head.Priority)
}

func lessBackoff(a, b *group) bool {
	if c := a.retryAt.Compare(b.retryAt); c != 0 {
		return c < 0
	}
	return a.key.Compare(b.key) < 0
}

// queue holds every group with pending members, each in exactly one state.
// Only Active and BackingOff groups sit in a tree; a group's tree key
// (head, retryAt) changes only while it is out of its tree.
type queue struct {
	groups   map[placement.Key]*group
	podGroup map[placement.Key]placement.Key // pending pod -> its group
	active   *btree.BTreeG[*group]
	backoff  *btree.BTreeG[*group]
}

func newQueue() queue {
	return queue{
		groups:   map[placement.Key]*group{},
		podGroup: map[placement.Key]placement.Key{},
		active:   btree.NewG(16, lessActive),
		backoff:  btree.NewG(16, lessBackoff),
	}
}

// get returns the record for k, creating it.
func (q *queue) get(k placement.Key) *group {
	g, ok := q.groups[k]
	if !ok {
		g = &group{key: k, members: map[placement.Key]*placement.Pod{}}
		q.groups[k] = g
	}
	return g
}

// drop forgets pending member k of g; g must be detached.
func (q *queue) drop(g *group, k placement.Key) {
	delete(g.members, k)
	delete(q.podGroup, k)
	if g.head != nil && g.head.Key() == k {
		g.head = nil // place finds the next one
	}
}

// add queues pending member p of g; g must be detached.
func (q *queue) add(g *group, p *placement.Pod) {
	g.members[p.Key()] = p
	q.podGroup[p.Key()] = g.key
	if g.head != nil && placement.MemberOrder(p, g.head) < 0 {
		g.head = p
	}
}

// detach takes g out of its tree; the caller then changes g and calls
// place.
func (q *queue) detach(g *group) {
	switch g.state {
	case Active:
		q.active.Delete(g)
	case BackingOff:
		q.backoff.Delete(g)
	}
}

// place files g after an event: a group without members is idle (and
// forgotten once its PodGroup is gone too), one without PodGroup is gated,
// one backing off stays so, and any other becomes active. The quorum is
// checked when the group reaches the head of the queue, against the
// cycle's snapshot.
func (q *queue) place(g *group) {
	if g.head == nil {
		for _, p := range g.members {
			if g.head == nil || placement.MemberOrder(p, g.head) < 0 {
				g.head = p
			}
		}
	}
	switch {
	case len(g.members) == 0:
		g.state, g.reason, g.attempts = Idle, "", 0
		if g.pg == nil {
			delete(q.groups, g.key)
		}
	case g.pg == nil:
		g.state, g.reason = Gated, "waiting for PodGroup "+g.key.String()+" to exist"
	case g.state == BackingOff:
		q.backoff.ReplaceOrInsert(g)
	default:
		g.state, g.reason = Active, ""
		q.active.ReplaceOrInsert(g)
	}
}

// flush makes active every group whose backoff has expired at now.
func (q *queue) flush(now time.Time) {
	for {
		g, ok := q.backoff.Min()
		if !ok || g.retryAt.After(now) {
			return
		}
		q.backoff.DeleteMin()
		g.state = Active
		q.place(g)
	}
}

// sortedMembers returns g's pending members in placement.MemberOrder.
func (g *group) sortedMembers() []placement.Pod {
	out := make([]placement.Pod, 0, len(g.members))
	for _, p := range g.members {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b placement.Pod) int { return placement.MemberOrder(&a, &b) })
	return out
}
