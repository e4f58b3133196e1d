package placement

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Resize asks [SolveResize] to change an elastic pod set's count (Kueue's
// elastic workloads, ElasticJobsViaWorkloadSlices): from the pods it runs
// now, Existing, to the Count its [PodSet] in the group says.
type Resize struct {
	// PodSet names the set of the group to resize; its Count is the new
	// count M.
	PodSet string
	// Existing are the set's pods per node now (N pods in all), as a
	// Decision's or a [PodSetUsage]'s entries for the set: Node names the
	// node (NodeID is ignored), Count is 1..[MaxPending], one entry per
	// node. The snapshot must already hold their usage, as bound pods or
	// as the reservation of the set ([Change].Reserve); when it holds a
	// reservation of the set, Existing must be it.
	Existing []PodSetAssignment
	// Levels are the topology keys, widest first (e.g. topology.Tree's
	// keys), whose domains a shrink empties least filled first. A domain
	// of a level is the nodes that agree on every key from the widest to
	// it, as the topology tree counts them. Without levels a shrink takes
	// pods from the least filled nodes first.
	Levels []string
	// Grow, when set, places a growth's delta in place of Solve: it gets
	// the delta group (as SolveResize builds it: the set alone, its Count
	// M−N) and Existing as checked (NodeIDs set, in node order, shared:
	// not to be modified), and
	// returns the delta group's decision as Solve would (Scheduled with
	// the delta's PodSetAssignments in node order, or not Scheduled with
	// the reason). The opts of SolveResize are then not used.
	// topology.Tree.ResizePodSet sets it so that a sliced set's delta
	// keeps every slice whole.
	Grow func(s *Snapshot, delta *Group, existing []PodSetAssignment) (Decision, error)
	// Shrink, when set, picks the pods a shrink removes in place of the
	// least-filled rule of Levels: it gets Existing as checked (NodeIDs
	// set, in node order, shared: not to be modified) and the number n of
	// pods to remove, and returns the removed pods per node (in any order,
	// n in all, none more on a node than it has), or an error returned
	// as is. topology.Tree.ResizePodSet sets it so that a sliced set keeps
	// whole slices.
	Shrink func(existing []PodSetAssignment, n int64) ([]PodSetAssignment, error)
	// Buffers, when set, is memory the answer's rows are carved from
	// instead of allocated (see [ResizeBuffers]); the Resized is then
	// valid only until the next SolveResize with the same Buffers.
	Buffers *ResizeBuffers
}

// Resized is what [SolveResize] decided.
type Resized struct {
	// Decision decides the pods added, when the set grows: Solve's on the
	// delta, a pod set of M−N pods of the template named like the set,
	// whose PodSetAssignments are the pods to create. When it shrinks or
	// keeps its count, Decision is Scheduled with no assignment.
	Decision Decision
	// Assignments are the set's pods per node after the resize, sorted by
	// node name: Existing plus the delta, or Existing less Removed; just
	// Existing when the decision is not Scheduled or the count stays —
	// then the caller's Existing itself, not a copy, when it lists the
	// snapshot's reservation of the set field for field (NodeIDs and set
	// names set, as [PodSetUsageOf] and a Resized give them), and a copy
	// otherwise. It never shares the snapshot's memory.
	Assignments []PodSetAssignment
	// Removed are the pods a shrink takes away, per node, sorted by node
	// name.
	Removed []PodSetAssignment
}

// SolveResize decides an elastic pod set's new count without moving any
// of its existing pods. Growing from N to M pods places only the delta,
// with s, g and opts as [Solve] would the set — the set's Count replaced
// by M−N, and for a gang MinCount by the group's bound members plus M−N,
// so the delta comes whole or not at all — in placements that hold every
// node of Existing: inside the same required domain, or, with preferred
// levels, the narrowest domain holding them that fits — or as r.Grow
// places it. A set that cannot grow there waits (Unschedulable), with the
// solver's reason. Shrinking
// from N to M removes N−M pods, taking them first from the least filled
// domain of the widest of Levels, emptied whole when it does not hold the
// rest, then inside the next least filled one, level by level down to its
// nodes (the least filled first); ties go to the domain or node last in
// name order, so the pods that stay keep the first nodes — or as r.Shrink
// picks them. The same count returns Existing unchanged.
//
// The group's Members and other pod sets are not part of the resize. Errors
// are Solve's for the delta group, or a [*FieldError] naming the field: the
// set is not in g or its count is outside 1..[MaxPending]; Existing is
// invalid, names unknown nodes, differs from the snapshot's reservation
// of the set or, without one, lists more pods on a node than the pods
// bound there request room for; a key of Levels is empty or repeated (read when it shrinks
// without r.Shrink); or r.Shrink's error.
//
// Memory: the answer is the caller's to keep, unless r.Buffers is set:
// its rows are then carved from those buffers, valid until the next
// SolveResize with them (see [ResizeBuffers]).
//
// Cost: a growth costs Solve of the delta plus a pass over each
// placement's nodes — only the placements holding Existing are made when
// opts' Generator is a [PlacementNarrower], as topology's is with a
// required key and no narrower preferred one (Existing that lists the
// snapshot's reservation of the set entry for entry, as a host passes
// back what it reserved, is compared with it, not checked and copied
// again); a shrink O(E·L·log E) for E nodes of Existing and L levels
// (or r.Shrink's cost).
func SolveResize(s *Snapshot, g *Group, r Resize, opts Options) (Resized, error) {
	set, err := podSetOf(s, g, "SolveResize", "resize.podSet", r.PodSet)
	if err != nil {
		return Resized{}, err
	}
	if set.Count < 1 || set.Count > MaxPending {
		return Resized{}, Errorf(ErrInvalid, fmt.Sprintf("pod set %q of %s", set.Name, groupObj(g)), "count", "%d is outside 1..%d", set.Count, MaxPending)
	}
	var existing []PodSetAssignment
	var have int64
	// stored: existing is the snapshot's reservation's own slice; same:
	// r.Existing lists it field for field, NodeIDs and set names too.
	stored, same := false, false
	if len(r.Existing) > 0 {
		existing, stored, same, err = s.existingPods(&PodSetUsage{Group: g.Key(), PodSet: set.Name, Requests: set.Template.Requests, Nodes: r.Existing}, "resize.existing")
		if err != nil {
			return Resized{}, err
		}
		for _, a := range existing {
			have += int64(a.Count)
		}
	}
	// Stored existing pods are the reservation: existingPods compared
	// them entry for entry, so the reservation is not looked up again.
	if !stored {
		u, ok := s.PodSetUsage(g.Key(), set.Name)
		if ok && !slices.EqualFunc(u.Nodes, existing, func(a, b PodSetAssignment) bool { return a.NodeID == b.NodeID && a.Count == b.Count }) {
			return Resized{}, Errorf(ErrInvalid, fmt.Sprintf("pod set %q of %s", set.Name, groupObj(g)), "resize.existing", "differs from the snapshot's reservation of the set")
		}
		if !ok {
			if err := s.checkHeld(g, set, existing); err != nil {
				return Resized{}, err
			}
		}
	}
	// keep is existing as the caller may own it: its own r.Existing when
	// that equals the reservation field for field (no copy of a set's
	// thousand entries for a resize that changes nothing), else a copy of
	// the snapshot's slice.
	keep := func() []PodSetAssignment {
		switch {
		case same:
			return r.Existing
		case stored:
			out := r.Buffers.rows(len(existing))
			for i := range existing {
				e, x := &out[i], &existing[i]
				e.PodSet, e.Node, e.NodeID, e.Count = x.PodSet, x.Node, x.NodeID, x.Count
			}
			return out
		}
		return existing // node ID order is node name order
	}
	done := Decision{Group: g.Key(), Status: Scheduled, Placement: Placement{Nodes: s.b.allNodes}}
	switch want := int64(set.Count); {
	case want == have:
		var buf [96]byte
		msg := strconv.AppendQuote(append(buf[:0], "pod set "...), set.Name)
		msg = append(strconv.AppendInt(append(msg, " keeps its "...), have, 10), " pods"...)
		done.Message = r.Buffers.message(msg)
		return Resized{Decision: done, Assignments: keep()}, nil
	case want < have:
		var removed []PodSetAssignment
		if r.Shrink != nil {
			if removed, err = r.Shrink(existing, have-want); err != nil {
				return Resized{}, err
			}
		} else if removed, err = shrink(s, existing, have-want, r.Levels); err != nil {
			return Resized{}, Errorf(ErrInvalid, fmt.Sprintf("pod set %q of %s", set.Name, groupObj(g)), "resize.levels", "%v", err)
		}
		done.Message = fmt.Sprintf("pod set %q shrinks from %d to %d pods", set.Name, have, want)
		slices.SortFunc(removed, func(a, b PodSetAssignment) int { return int(a.NodeID) - int(b.NodeID) })
		return Resized{Decision: done, Assignments: subtract(existing, removed, r.Buffers), Removed: removed}, nil
	}
	// The delta group, its one pod set and the narrowing generator, which
	// escape to Solve: Solve reads them during the call only (what its
	// hooks may keep are its own copies), so they come from a pool and go
	// back emptied; r.Grow, the caller's, may keep the delta it is
	// handed, so it gets new ones. The 460 bytes were a quarter of what a
	// small resize allocates, and each byte brings the collector, whose
	// write barriers tax every pointer the resize writes, sooner.
	var own *resizeOwn
	if r.Grow != nil {
		own = new(resizeOwn)
	} else {
		own = resizePool.Get().(*resizeOwn)
		defer func() {
			*own = resizeOwn{}
			resizePool.Put(own)
		}()
	}
	own.delta = *g
	delta := &own.delta
	delta.Members = nil
	own.sets[0] = set
	own.sets[0].Count = set.Count - int32(have)
	delta.PodSets = own.sets[:]
	if delta.IsGang() {
		delta.MinCount = int32(len(s.GroupMembers(g.Key()))) + own.sets[0].Count
	}
	var d Decision
	if r.Grow != nil {
		d, err = r.Grow(s, delta, existing)
	} else {
		// Without a generator Solve's one placement, every node, holds
		// the existing pods as it is; no hook is then handed the group,
		// so the Solve keeps its memory in its pooled scratch.
		if opts.Generator != nil {
			own.gen = holding{gen: opts.Generator, existing: existing}
			opts.Generator = &own.gen
		}
		var pre *compiledRows
		if r.Buffers != nil {
			// The delta's rows and message go into the caller's buffers.
			own.pre.resize = r.Buffers
			pre = &own.pre
		}
		d, err = solveRows(s, delta, opts, pre)
	}
	if err != nil {
		return Resized{}, err
	}
	if d.Status == Scheduled {
		return Resized{Decision: d, Assignments: add(existing, d.PodSetAssignments, r.Buffers)}, nil
	}
	return Resized{Decision: d, Assignments: keep()}, nil
}

// resizeOwn is a growth's delta group, its one pod set and the holding
// generator (see SolveResize).
type resizeOwn struct {
	delta Group
	sets  [1]PodSet
	gen   holding
	pre   compiledRows // only resize set: the caller's buffers
}

// resizePool holds the resizeOwn of growths without r.Grow.
var resizePool = sync.Pool{New: func() any { return new(resizeOwn) }}

// existingPods checks an elastic set's existing pods, u.Nodes (field
// names them in errors), as checkUsage does, and returns them checked, in
// node order, and whether they are the snapshot's reservation of the set
// (u's key): when u.Nodes list its entries one for one — what a host that
// reserved the set passes back — they are its nodes, shared and not to be
// modified, and only what reserving did not check is checked: u's
// requests and each count's product with them; same then says u.Nodes
// equal them field for field (NodeIDs and set names as well), so that
// u.Nodes may stand for them. Otherwise checkUsage's copy, with its
// errors.
func (s *Snapshot) existingPods(u *PodSetUsage, field string) (nodes []PodSetAssignment, stored, same bool, err error) {
	if st, ok := s.PodSetUsage(u.Group, u.PodSet); ok && len(st.Nodes) == len(u.Nodes) {
		largest, err := s.largestRequest(u)
		if err != nil {
			return nil, false, false, err
		}
		// A count's product with the largest request overflows exactly
		// when the count exceeds MaxInt64/largest (both positive), so one
		// division serves every entry; the reservation's counts are at
		// most MaxPending, which no bound at or above it can miss.
		most := int32(MaxPending)
		if l := math.MaxInt64 / largest; l < MaxPending {
			most = int32(l)
		}
		// Entries that are the reservation's byte for byte (the same
		// names' memory, NodeIDs and counts, as a host passes back what
		// it reserved) are listed and the same, when no count can exceed
		// most: one comparison of the memory, not one of each field.
		if most == MaxPending && &u.Nodes[0] != &st.Nodes[0] && sameRows(u.Nodes, st.Nodes) {
			return st.Nodes, true, true, nil
		}
		listed, same := true, true
		for i := range u.Nodes {
			a, b := &u.Nodes[i], &st.Nodes[i]
			if a.Count != b.Count || a.Count > most || !sameString(a.Node, b.Node) || a.PodSet != "" && !sameString(a.PodSet, u.PodSet) {
				listed = false
				break
			}
			same = same && a.NodeID == b.NodeID && a.PodSet != ""
		}
		if listed {
			// u.Nodes taken straight from the snapshot (PodSetUsage's own
			// slice) must not stand for it: an answer handed back as the
			// caller's would be the snapshot's memory.
			same = same && &u.Nodes[0] != &st.Nodes[0]
			return st.Nodes, true, same, nil
		}
	}
	res, err := s.checkUsage(u, field)
	if err != nil {
		return nil, false, false, err
	}
	return res.u.Nodes, false, false, nil
}

// largestRequest is checkList of u's requests and then requestRow without
// a row, with their errors, in one pass over the map when both pass:
// iterating a two-entry map twice was a tenth of what a resize that grows
// a small set spends beyond Solve.
func (s *Snapshot) largestRequest(u *PodSetUsage) (int64, error) {
	var largest int64 = 1
	fine := true
	for name, q := range u.Requests {
		if name == "" || q < 0 || name == ResourcePods {
			fine = false // checkList's error
			break
		}
		if _, ok := s.b.resIdx[name]; ok {
			largest = max(largest, q)
		} else if q > 0 {
			fine = false // requestRow's error
			break
		}
	}
	if fine {
		return largest, nil
	}
	obj := u.key().obj
	if err := checkList(obj, "requests", u.Requests, true); err != nil {
		return 0, err
	}
	return s.requestRow(u, obj, nil)
}

// shrink picks n of the pods of existing (in node ID order) to remove,
// least filled domains first (see SolveResize).
func shrink(s *Snapshot, existing []PodSetAssignment, n int64, levels []string) ([]PodSetAssignment, error) {
	for i, k := range levels {
		if k == "" || slices.Contains(levels[:i], k) {
			return nil, fmt.Errorf("levels[%d] %q is empty or repeated", i, k)
		}
	}
	var out []PodSetAssignment
	var take func(part []PodSetAssignment, level int, n int64)
	// take removes n pods of part (n ≤ its pods) at level (len(levels):
	// nodes).
	take = func(part []PodSetAssignment, level int, n int64) {
		if level == len(levels) {
			order := slices.Clone(part)
			slices.SortFunc(order, func(a, b PodSetAssignment) int {
				return cmp.Or(cmp.Compare(a.Count, b.Count), strings.Compare(b.Node, a.Node))
			})
			for _, a := range order {
				if n == 0 {
					return
				}
				c := min(int64(a.Count), n)
				out = append(out, PodSetAssignment{PodSet: a.PodSet, Node: a.Node, NodeID: a.NodeID, Count: int32(c)})
				n -= c
			}
			return
		}
		type dom struct {
			path string
			pods int64
			part []PodSetAssignment
		}
		idx := map[string]int{}
		var doms []dom
		for _, a := range part {
			path := domainPath(s.Node(a.NodeID).Labels, levels[:level+1])
			j, ok := idx[path]
			if !ok {
				j = len(doms)
				idx[path] = j
				doms = append(doms, dom{path: path})
			}
			doms[j].pods += int64(a.Count)
			doms[j].part = append(doms[j].part, a)
		}
		slices.SortFunc(doms, func(a, b dom) int { return cmp.Or(cmp.Compare(a.pods, b.pods), strings.Compare(b.path, a.path)) })
		for _, d := range doms {
			if n == 0 {
				return
			}
			c := min(d.pods, n)
			take(d.part, level+1, c)
			n -= c
		}
	}
	take(existing, 0, n)
	return out, nil
}

// domainPath is the domain of labels at the last of keys: the values of
// every key, widest first, unambiguously joined (a missing label is its
// own value).
func domainPath(labels map[string]string, keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		if v, ok := labels[k]; ok {
			fmt.Fprintf(&b, "%q/", v)
		} else {
			b.WriteString("-/")
		}
	}
	return b.String()
}

// add returns a with b's counts added, in buf's rows (see
// ResizeBuffers.rows); both are in node order, and so is the result.
// Entries are written field by field: a whole struct copied into memory
// with pointers costs a bulk write barrier while the GC marks. The merge
// walks b, the delta, copying the entries of a before each of its nodes:
// the inner loop's one branch mispredicts once an entry of b, where
// choosing between a and b at every entry mispredicted at most of them
// (a growth's delta interleaves with its existing nodes).
func add(a, b []PodSetAssignment, buf *ResizeBuffers) []PodSetAssignment {
	out := buf.rows(len(a) + len(b))
	i, k := 0, 0
	for j := range b {
		y := &b[j]
		for i < len(a) && a[i].NodeID < y.NodeID {
			x, e := &a[i], &out[k]
			e.PodSet, e.Node, e.NodeID, e.Count = x.PodSet, x.Node, x.NodeID, x.Count
			i, k = i+1, k+1
		}
		e, c := &out[k], y.Count
		if i < len(a) && a[i].NodeID == y.NodeID {
			c += a[i].Count // both on one node: summed
			i++
		}
		e.PodSet, e.Node, e.NodeID, e.Count = y.PodSet, y.Node, y.NodeID, c
		k++
	}
	for ; i < len(a); i, k = i+1, k+1 {
		x, e := &a[i], &out[k]
		e.PodSet, e.Node, e.NodeID, e.Count = x.PodSet, x.Node, x.NodeID, x.Count
	}
	return out[:k]
}

// subtract returns a less b's counts, entries that reach 0 dropped, in
// buf's rows (see ResizeBuffers.rows).
func subtract(a, b []PodSetAssignment, buf *ResizeBuffers) []PodSetAssignment {
	less := map[NodeID]int32{}
	for _, x := range b {
		less[x.NodeID] += x.Count
	}
	out := buf.rows(len(a))[:0]
	for _, x := range a {
		if x.Count -= less[x.NodeID]; x.Count > 0 {
			out = append(out, x)
		}
	}
	return out
}
