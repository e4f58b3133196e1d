package placement

import (
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/google/btree"
)

// PodSetUsage is a decided pod set committed to a [Snapshot] as usage per
// node, without a [Pod] per pod: how a batch system that admits a pod set
// (Kueue's Workload with its TopologyAssignment) accounts for it before
// any pod exists. [Change].Reserve adds it and [Change].Release takes it
// out again; both cost O(nodes it touches × resources + log reservations),
// whatever the pods' count.
//
// A reservation is usage, not pods: it counts against every node's
// allocatable (its pods count against [ResourcePods]) and so in every
// decision taken on the snapshot, but no [Snapshot.Pods], PodsOn or
// GroupMembers lists its pods, [Snapshot.NumPods] does not count them,
// [Solve] does not count them as bound members of their group, and
// preemption never picks them as victims. A host that needs any of those
// binds pods instead.
type PodSetUsage struct {
	// Group is the PodGroup (or Kueue Workload) the set belongs to; its
	// Name must not be empty.
	Group Key
	// PodSet is the set's name, unique among its group's reservations.
	PodSet string
	// Requests are one pod's requests (the set's Template.Requests) in
	// canonical units; the pod count is implicit, as for a Pod.
	Requests ResourceList
	// Nodes are the set's pods per node, as [Decision].PodSetAssignments
	// gives them: Node names the node (NodeID is ignored on input, and set
	// in what a snapshot returns), Count is 1..[MaxPending], at most one
	// entry per node; PodSet, when set, must be the set's name. A snapshot
	// returns them in node order.
	Nodes []PodSetAssignment
}

// key orders and names the reservation.
func (u *PodSetUsage) key() usageKey { return usageKey{u.Group, u.PodSet} }

// Pods returns how many pods the reservation stands for.
func (u *PodSetUsage) Pods() int64 {
	var n int64
	for _, a := range u.Nodes {
		n += int64(a.Count)
	}
	return n
}

// PodSetRef names a reservation for [Change].Release.
type PodSetRef struct {
	Group  Key
	PodSet string
}

// usageKey orders reservations by group namespace, group name, set name.
type usageKey struct {
	g  Key
	ps string
}

func (k usageKey) compare(o usageKey) int {
	if c := k.g.Compare(o.g); c != 0 {
		return c
	}
	return strings.Compare(k.ps, o.ps)
}

func (k usageKey) obj() string {
	return fmt.Sprintf("pod set %q of PodGroup %q", k.ps, k.g.String())
}

// reservation is a stored PodSetUsage with its requests as a row of the
// snapshot's resources (the pod count at podsR is 1).
type reservation struct {
	u   PodSetUsage
	vec []int64
}

func lessReservation(a, b *reservation) bool { return a.u.key().compare(b.u.key()) < 0 }

// release takes the reservations refs out of n (derived from s), through
// page, which copies a usage page on first write and records the node.
func (n *Snapshot) release(refs []PodSetRef, page func(NodeID) []int64) error {
	R := len(n.b.res)
	for _, ref := range refs {
		k := usageKey{ref.Group, ref.PodSet}
		var r *reservation
		var ok bool
		if n.reserved != nil {
			r, ok = n.reserved.Delete(&reservation{u: PodSetUsage{Group: k.g, PodSet: k.ps}})
		}
		if !ok {
			return Errorf(ErrNotFound, k.obj(), "release", "no reservation with this key (released twice, or never reserved)")
		}
		for _, a := range r.u.Nodes {
			pg := page(a.NodeID)
			row := pg[(int(a.NodeID)%pageNodes)*R : (int(a.NodeID)%pageNodes+1)*R]
			for i, q := range r.vec {
				row[i] -= q * int64(a.Count) // reserve checked the product
			}
		}
	}
	return nil
}

// reserve adds the reservations us to n, as release takes them out.
func (n *Snapshot) reserve(us []PodSetUsage, page func(NodeID) []int64) error {
	R := len(n.b.res)
	for i := range us {
		r, err := n.checkUsage(&us[i], "nodes")
		if err != nil {
			return err
		}
		k := r.u.key()
		if n.reserved == nil {
			n.reserved = btree.NewG(16, lessReservation)
		}
		if _, dup := n.reserved.ReplaceOrInsert(r); dup {
			return Errorf(ErrDuplicate, k.obj(), "reserve", "a reservation with this key exists (release it in the same change to replace it)")
		}
		for _, a := range r.u.Nodes {
			pg := page(a.NodeID)
			row := pg[(int(a.NodeID)%pageNodes)*R : (int(a.NodeID)%pageNodes+1)*R]
			for j, q := range r.vec {
				add := q * int64(a.Count)
				if row[j] > math.MaxInt64-add {
					return Errorf(ErrInvalid, k.obj(), "requests["+string(n.b.res[j])+"]", "usage on node %q overflows int64", a.Node)
				}
				row[j] += add
			}
		}
	}
	return nil
}

// checkUsage validates u against n and returns its stored form: a copy
// with NodeIDs set, nodes in ID order, and its requests as a row. nodes
// is the field errors name u.Nodes by.
func (n *Snapshot) checkUsage(u *PodSetUsage, nodes string) (*reservation, error) {
	k := u.key()
	obj := k.obj
	switch {
	case u.Group.Name == "":
		return nil, Errorf(ErrInvalid, obj(), "group.name", "must not be empty")
	case u.PodSet == "":
		return nil, Errorf(ErrInvalid, obj(), "podSet", "must not be empty")
	case len(u.Nodes) == 0:
		return nil, Errorf(ErrInvalid, obj(), nodes, "must not be empty: a reservation places at least one pod")
	case len(u.Nodes) > len(n.b.nodes):
		return nil, Errorf(ErrInvalid, obj(), nodes, "%d entries, more than the %d nodes", len(u.Nodes), len(n.b.nodes))
	}
	if err := checkList(obj, "requests", u.Requests, true); err != nil {
		return nil, err
	}
	vec, largest, err := n.usageRow(u, obj)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(u.Nodes)
	var total int64
	for i := range out {
		a := &out[i]
		f := func(sub string) string { return fmt.Sprintf("%s[%d].%s", nodes, i, sub) } // for an error only
		// An entry from a decision or a reservation has its NodeID right,
		// which spares a lookup by name.
		id, ok := a.NodeID, int(a.NodeID) >= 0 && int(a.NodeID) < len(n.b.nodes) && n.b.nodes[a.NodeID].Name == a.Node
		if !ok {
			id, ok = n.b.byName(a.Node)
		}
		switch {
		case !ok:
			return nil, Errorf(ErrNotFound, obj(), f("node"), "node %q is not in the snapshot", a.Node)
		case a.PodSet != "" && a.PodSet != u.PodSet:
			return nil, Errorf(ErrInvalid, obj(), f("podSet"), "is %q, another set", a.PodSet)
		case a.Count < 1 || a.Count > MaxPending:
			return nil, Errorf(ErrInvalid, obj(), f("count"), "%d is outside 1..%d", a.Count, MaxPending)
		case largest > math.MaxInt64/int64(a.Count):
			return nil, Errorf(ErrInvalid, obj(), f("count"), "%d pods' requests overflow int64", a.Count)
		}
		if total += int64(a.Count); total > MaxPending {
			return nil, Errorf(ErrInvalid, obj(), nodes, "more than %d pods in all", MaxPending)
		}
		a.NodeID, a.PodSet = id, u.PodSet
	}
	if byID := func(a, b PodSetAssignment) int { return int(a.NodeID) - int(b.NodeID) }; !slices.IsSortedFunc(out, byID) {
		slices.SortFunc(out, byID)
	}
	for i := 1; i < len(out); i++ {
		if out[i].NodeID == out[i-1].NodeID {
			return nil, Errorf(ErrDuplicate, obj(), nodes, "node %q is listed twice", out[i].Node)
		}
	}
	return &reservation{u: PodSetUsage{Group: u.Group, PodSet: u.PodSet, Requests: maps.Clone(u.Requests), Nodes: out}, vec: vec}, nil
}

// usageRow returns u's requests (checked by checkList) as a row of n's
// resources, the pod count 1 at podsR, and the largest request (at least
// 1). Error: a positive request of a resource no node has, the first by
// name.
func (n *Snapshot) usageRow(u *PodSetUsage, obj func() string) ([]int64, int64, error) {
	vec := make([]int64, len(n.b.res))
	vec[n.b.podsR] = 1
	largest, err := n.requestRow(u, obj, vec)
	if err != nil {
		return nil, 0, err
	}
	return vec, largest, nil
}

// requestRow is usageRow writing u's requests into vec (n's resources
// wide; nil: only checked, as a resize that compares its pods with the
// stored reservation needs the largest request and no row): the largest
// request (at least 1), or usageRow's error.
func (n *Snapshot) requestRow(u *PodSetUsage, obj func() string, vec []int64) (int64, error) {
	var largest int64 = 1
	missing := false
	for name, q := range u.Requests {
		j, ok := n.b.resIdx[name]
		if !ok {
			missing = missing || q > 0
			continue
		}
		if vec != nil {
			vec[j] = q
		}
		largest = max(largest, q)
	}
	if missing { // the first by name, whatever the map's order
		for _, name := range slices.Sorted(maps.Keys(u.Requests)) {
			if _, ok := n.b.resIdx[name]; !ok && u.Requests[name] > 0 {
				return 0, Errorf(ErrInvalid, obj(), "requests["+string(name)+"]", "no node has %s", name)
			}
		}
	}
	return largest, nil
}

// PodSetUsage returns the reservation of pod set podSet of group g (see
// [Change].Reserve). Its maps and slices are the snapshot's and must not
// be modified. Cost: O(log reservations).
func (s *Snapshot) PodSetUsage(g Key, podSet string) (PodSetUsage, bool) {
	if s.reserved == nil {
		return PodSetUsage{}, false
	}
	// The probe escapes to the tree's comparison, so it would be
	// allocated on every lookup (110 bytes of a resize's few hundred
	// beyond its answer); the pool lends one, its key cleared after.
	probe := probePool.Get().(*reservation)
	probe.u.Group, probe.u.PodSet = g, podSet
	r, ok := s.reserved.Get(probe)
	probe.u.Group, probe.u.PodSet = Key{}, ""
	probePool.Put(probe)
	if !ok {
		return PodSetUsage{}, false
	}
	return r.u, true
}

// probePool lends PodSetUsage its search key: a reservation of which
// only u.Group and u.PodSet are ever set, and cleared before it returns.
var probePool = sync.Pool{New: func() any { return new(reservation) }}

// PodSetUsages yields every reservation in key order (group namespace,
// group name, set name). Its maps and slices are the snapshot's and must
// not be modified.
func (s *Snapshot) PodSetUsages() iter.Seq[PodSetUsage] {
	return func(yield func(PodSetUsage) bool) {
		if s.reserved == nil {
			return
		}
		s.reserved.Ascend(func(r *reservation) bool { return yield(r.u) })
	}
}

// PodSetUsageOf returns the reservation of the pod sets d places for
// group g: one PodSetUsage per set named in d.PodSetAssignments, in set
// name order, with the template's requests from g. It is what a host
// passes as [Change].Reserve to commit a Scheduled decision without pods.
// Errors: d decides another group, or names a set g does not have.
func PodSetUsageOf(g *Group, d Decision) ([]PodSetUsage, error) {
	if d.Group != g.Key() {
		return nil, Errorf(ErrInvalid, groupObj(g), "decision.group", "the decision is for PodGroup %q", d.Group.String())
	}
	var out []PodSetUsage
	for _, a := range d.PodSetAssignments {
		if len(out) == 0 || out[len(out)-1].PodSet != a.PodSet {
			k := slices.IndexFunc(g.PodSets, func(ps PodSet) bool { return ps.Name == a.PodSet })
			if k < 0 {
				return nil, Errorf(ErrNotFound, groupObj(g), "podSets", "the decision places pod set %q, which the group does not have", a.PodSet)
			}
			out = append(out, PodSetUsage{Group: g.Key(), PodSet: a.PodSet, Requests: g.PodSets[k].Template.Requests})
		}
		u := &out[len(out)-1]
		u.Nodes = append(u.Nodes, a)
	}
	return out, nil
}
