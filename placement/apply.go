package placement

import (
	"maps"
	"math"
	"slices"

	"github.com/google/btree"

	"github.com/gangsched/gangsched/internal/arith"
)

// addUsage adds p's requests (and its pod count) to node n in page, which
// the caller owns. On overflow it changes nothing and names the first
// overflowing resource in name order.
func (s *Snapshot) addUsage(n NodeID, p *Pod, page []int64) error {
	R := len(s.b.res)
	row := page[(int(n)%pageNodes)*R : (int(n)%pageNodes+1)*R]
	overflows := func(r ResourceName) bool { return row[s.b.resIdx[r]] > math.MaxInt64-p.Requests[r] }
	for r := range p.Requests {
		if overflows(r) {
			for _, r := range slices.Sorted(maps.Keys(p.Requests)) {
				if overflows(r) {
					return Errorf(ErrInvalid, podObj(p.Key()), "requests["+string(r)+"]", "sum of requests on node %q overflows int64", s.b.nodes[n].Name)
				}
			}
		}
	}
	for r, q := range p.Requests {
		row[s.b.resIdx[r]] += q
	}
	row[s.b.podsR]++
	return nil
}

func (s *Snapshot) subUsage(n NodeID, p *Pod, page []int64) {
	R := len(s.b.res)
	row := page[(int(n)%pageNodes)*R : (int(n)%pageNodes+1)*R]
	// A bound pod requests no resource outside res (NewSnapshot adds
	// them, Apply refuses them): a lookup of each of the few resources
	// costs half a range over the pod's map.
	for r, name := range s.b.res {
		row[r] -= p.Requests[name]
	}
	row[s.b.podsR]--
}

// Change is a set of pod changes for [Snapshot.Apply]: Remove is applied
// before Bind, so a pod can be moved by listing it in both; likewise
// Release before Reserve, so a reservation can be replaced (an elastic
// pod set resized) in one change.
type Change struct {
	// Remove lists bound pods to take out (deleted, evicted).
	Remove []Key
	// Bind lists pods to add as bound; each must have NodeName set.
	Bind []Pod
	// Release lists reservations (see [PodSetUsage]) to take out.
	Release []PodSetRef
	// Reserve lists pod sets to add as usage per node without pods (see
	// [PodSetUsage]); each costs O(nodes it touches), not O(pods).
	Reserve []PodSetUsage
}

// Apply returns a new snapshot with ch applied; s is not modified. It costs
// O(changes × log changes) plus one pointer per 64 nodes: unchanged usage
// pages and the whole base are shared.
//
// A snapshot's resources are fixed when it is built: Apply rejects a pod
// that requests a positive quantity of a resource the snapshot does not
// track (no node has it, so no decision places such a pod), where
// NewSnapshot would have added the resource.
//
// Errors (a [*FieldError]; nothing is applied): removing a pod that is not
// bound here or listed twice; binding a pod that already exists (after the
// removals), twice, with an empty or unknown nodeName, or with invalid
// requests; releasing a reservation that is not here or twice; reserving
// one whose key exists (after the releases) or that is invalid (see
// [PodSetUsage]); summed requests on a node overflowing int64.
func (s *Snapshot) Apply(ch Change) (*Snapshot, error) {
	n := &Snapshot{b: s.b, used: slices.Clone(s.used), nPods: s.nPods, scoreReqs: s.scoreReqs}
	s.cloning.Lock()
	if s.removed != nil {
		n.removed = s.removed.Clone()
	}
	if s.added != nil {
		n.added, n.addedMask = s.added.Clone(), s.addedMask
		n.addedOn = s.addedOn.Clone()
		n.addedGroup = s.addedGroup.Clone()
		if s.addedPrio != nil {
			n.addedPrio = s.addedPrio.Clone()
		}
	}
	if s.reserved != nil {
		n.reserved = s.reserved.Clone()
	}
	s.cloning.Unlock()
	owned := make([]bool, len(n.used)) // one byte per 64 nodes, as the clone above
	changed := make([]NodeID, 0, len(ch.Remove)+len(ch.Bind))
	page := func(id NodeID) []int64 {
		pg := int(id) / pageNodes
		if !owned[pg] {
			n.used[pg] = slices.Clone(n.used[pg])
			owned[pg] = true
		}
		changed = append(changed, id)
		return n.used[pg]
	}
	gone := func(k Key) error {
		if _, was := s.Pod(k); was {
			return Errorf(ErrDuplicate, podObj(k), "remove", "listed twice")
		}
		return Errorf(ErrNotFound, podObj(k), "remove", "no bound pod with this key")
	}
	for _, k := range ch.Remove {
		if n.added != nil {
			if e, ok := n.added.Delete(keyedPod{k: k}); ok {
				p := e.p
				id, _ := s.b.byName(p.NodeName)
				n.subUsage(id, p, page(id))
				n.nPods--
				n.addedOn.Delete(nodePod{id, p})
				if p.SchedulingGroup != "" {
					n.addedGroup.Delete(p)
				}
				if n.addedPrio != nil {
					n.addedPrio.Delete(p)
				}
				continue
			}
		}
		i, ok := s.b.podIndex(k)
		if !ok {
			return nil, gone(k)
		}
		if n.removed == nil {
			n.removed = btree.NewG[int32](16, func(a, b int32) bool { return a < b })
		}
		// Inserting finds a base pod removed already (in s, or earlier in
		// this change) without a lookup of its own.
		if _, was := n.removed.ReplaceOrInsert(int32(i)); was {
			return nil, gone(k)
		}
		p := &s.b.pods[i]
		id, _ := s.b.byName(p.NodeName)
		n.subUsage(id, p, page(id))
		n.nPods--
	}
	if err := n.release(ch.Release, page); err != nil {
		return nil, err
	}
	for i := range ch.Bind {
		p := new(Pod)
		*p = ch.Bind[i]
		if err := checkPod(p); err != nil {
			return nil, err
		}
		if _, dup := n.Pod(p.Key()); dup {
			return nil, Errorf(ErrDuplicate, podObj(p.Key()), "metadata.name", "a bound pod with this key exists")
		}
		id, ok := s.b.byName(p.NodeName)
		if !ok {
			if p.NodeName == "" {
				return nil, Errorf(ErrInvalid, podObj(p.Key()), "spec.nodeName", "is empty")
			}
			return nil, Errorf(ErrNotFound, podObj(p.Key()), "spec.nodeName", "node %q is not in the snapshot", p.NodeName)
		}
		for r := range p.Requests {
			if _, known := s.b.resIdx[r]; !known && p.Requests[r] > 0 {
				return nil, Errorf(ErrInvalid, podObj(p.Key()), "requests["+string(r)+"]", "node %q has no %s", p.NodeName, r)
			}
		}
		if err := n.addUsage(id, p, page(id)); err != nil {
			return nil, err
		}
		n.scoreReqs = n.scoreReqs || p.ScoreRequests != nil
		if n.added == nil {
			n.added = btree.NewG(16, lessKeyed)
			n.addedOn = btree.NewG(16, lessNodePod)
			n.addedGroup = btree.NewG(16, lessGroupMember)
			n.addedPrio = btree.NewG(16, lessPriorityPod)
		}
		n.added.ReplaceOrInsert(keyedPod{p.Key(), p})
		h := nameHash(nsHash(p.Namespace), p.Name)
		n.addedMask[h>>6&3] |= 1 << (h & 63)
		n.addedOn.ReplaceOrInsert(nodePod{id, p})
		if p.SchedulingGroup != "" {
			n.addedGroup.ReplaceOrInsert(p)
		}
		if n.addedPrio != nil {
			n.addedPrio.ReplaceOrInsert(p)
		}
		n.nPods++
	}
	if err := n.reserve(ch.Reserve, page); err != nil {
		return nil, err
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	R := len(s.b.res)
	// The sums saturate as NewSnapshot's do: one that was saturated lost
	// what it held past the top, and one that would pass it is summed
	// again over every node (redo marks them; a sum is never negative).
	const redo = math.MinInt64
	n.usedSum = slices.Clone(s.usedSum)
	for r, q := range n.usedSum {
		if q == math.MaxInt64 {
			n.usedSum[r] = redo
		}
	}
	for _, id := range changed {
		before, after := s.usedRow(id), n.usedRow(id)
		for r := range R {
			switch d := after[r] - before[r]; {
			case n.usedSum[r] == redo:
			case d > 0 && n.usedSum[r] > math.MaxInt64-d:
				n.usedSum[r] = redo
			default:
				n.usedSum[r] += d
			}
		}
	}
	for r, q := range n.usedSum {
		if q == redo {
			n.usedSum[r] = 0
			for id := range len(s.b.nodes) {
				n.usedSum[r] = arith.SatAdd(n.usedSum[r], n.usedRow(NodeID(id))[r])
			}
		}
	}
	if c := s.cls.Load(); c != nil {
		n.cls.Store(c.derive(s.b, changed, s.usedRow, n.usedRow))
	}
	return n, nil
}

// ChangedNodes returns, ascending, the IDs of the nodes whose usage (summed
// requests or pod count) differs between s and o, and true; or nil and false
// when s and o do not descend from one [NewSnapshot] call (then their
// NodeIDs need not even name the same nodes). Any two snapshots derived with
// [Snapshot.Apply] from a common one qualify, whichever is older.
//
// It lets a cache keyed to one snapshot (e.g. the topology package's
// per-domain free capacity) move to another in O(changes) instead of
// recounting every node. Cost: one pointer comparison per 64 nodes, plus a
// row comparison for each node of a usage page that either side copied.
func (s *Snapshot) ChangedNodes(o *Snapshot) ([]NodeID, bool) {
	if o == nil || s.b != o.b {
		return nil, false
	}
	R := len(s.b.res)
	var out []NodeID
	for pg := range s.used {
		a, b := s.used[pg], o.used[pg]
		if len(a) == 0 || &a[0] == &b[0] {
			continue
		}
		for i := 0; i*R < len(a); i++ {
			if !slices.Equal(a[i*R:(i+1)*R], b[i*R:(i+1)*R]) {
				out = append(out, NodeID(pg*pageNodes+i))
			}
		}
	}
	return out, true
}
