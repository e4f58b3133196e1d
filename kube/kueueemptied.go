package kube

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// emptiedSnapshot keeps the snapshot on which a head that keeps room
// ([admitter.keepChoice]) is planned: a.s with the pod sets every queue
// Workload holds released (Kueue's WithSimulateEmpty). Building it costs
// a lookup per queued pod set and a release per admitted one, and each
// such head did so in every scheduling cycle: with N pending Workloads,
// half of them admitted one by one and half keeping room, ~N²/2 releases
// (a tester's 8,000 pending took 130 s).
//
// What it releases is every reservation a.s holds, but those under a
// reference no queue Workload names (placement.PodSetRef{Key, set} for a
// set of its Group.PodSets): it stands for a.s (src) and the queue as it
// was (queue, the same *KueueWorkload values). The admitter's own
// reservations are of queue Workloads' sets, so it carries over a change
// of a.s that only reserves or releases such sets ([admitter.moveTo]:
// emptied, the sets are gone either way). Any other change of a.s (a
// node added or removed by a new snapshot, a reservation of another
// key, pods bound or removed), or a queue Workload replaced
// (afterReclaim), makes the next use build it again: answers are those
// of building it every time.
type emptiedSnapshot struct {
	src   *placement.Snapshot
	queue []*KueueWorkload
	// index is each queue Workload's place in queue, by key.
	index map[placement.Key]int
	// s is src with the queue's sets released.
	s *placement.Snapshot
}

// emptiedNow is a.s with every pod set of a queue Workload released,
// kept in a.emptied while it stands (see [emptiedSnapshot]); without
// [KueueOptions].noEmptied built again on every call.
func (a *admitter) emptiedNow() (*placement.Snapshot, error) {
	if c := a.emptied; c != nil && c.src == a.s && slices.Equal(c.queue, a.queue) {
		return c.s, nil
	}
	a.emptied = nil
	c := &emptiedSnapshot{src: a.s, queue: slices.Clone(a.queue), index: make(map[placement.Key]int, len(a.queue)), s: a.s}
	unique := true
	var rel []placement.PodSetRef
	for i, v := range a.queue {
		if _, dup := c.index[v.Key()]; dup {
			unique = false // a reference of two Workloads: keep nothing
		}
		c.index[v.Key()] = i
		for _, set := range v.Group.PodSets {
			if _, ok := a.s.PodSetUsage(v.Key(), set.Name); ok {
				rel = append(rel, placement.PodSetRef{Group: v.Key(), PodSet: set.Name})
			}
		}
	}
	if len(rel) > 0 {
		next, err := a.s.Apply(placement.Change{Release: rel})
		if err != nil {
			return nil, err
		}
		c.s = next
	}
	if unique && !a.opts.noEmptied {
		a.emptied = c
	}
	return c.s, nil
}

// moveTo sets a.s to next, which is a.s with ch applied, and carries the
// emptied snapshot over to it when ch leaves it as it is.
func (a *admitter) moveTo(next *placement.Snapshot, ch placement.Change) {
	if c := a.emptied; c != nil && c.src == a.s {
		if c.releases(ch) {
			c.src = next
		} else {
			a.emptied = nil
		}
	}
	a.s = next
}

// releases reports whether emptying releases every pod set ch reserves
// or releases, and ch binds and removes no pod: a snapshot and the one ch
// makes of it are then alike emptied.
func (c *emptiedSnapshot) releases(ch placement.Change) bool {
	if len(ch.Remove) > 0 || len(ch.Bind) > 0 {
		return false
	}
	for _, r := range ch.Release {
		if !c.names(r.Group, r.PodSet) {
			return false
		}
	}
	for _, u := range ch.Reserve {
		if !c.names(u.Group, u.PodSet) {
			return false
		}
	}
	return true
}

// names reports whether a queue Workload of key k has pod set set.
func (c *emptiedSnapshot) names(k placement.Key, set string) bool {
	i, ok := c.index[k]
	return ok && slices.ContainsFunc(c.queue[i].Group.PodSets, func(p placement.PodSet) bool { return p.Name == set })
}
