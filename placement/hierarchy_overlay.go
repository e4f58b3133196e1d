package placement

import (
	"math"
	"slices"
	"strings"

	"github.com/google/btree"

	"github.com/gangsched/gangsched/internal/arith"
)

// usageOverlay is the hierarchy search's working snapshot: a private
// Snapshot that shares everything with the caller's but the usage pages
// it writes, on which placed leaves are added as usage in place and taken
// off again on backtrack. A leaf then costs O(its nodes) instead of an
// Apply (which copies the page table and the pod trees, and indexes every
// bound pod by key, name and group).
//
// Without the caller's hooks only usage changes: the leaves' pods are not
// added as pods. That is exact for Solve, which reads other groups only
// through usage (a group's constraints see its own members alone). The
// caller's hooks may read pods (Pods, PodsOn, GroupMembers, …), compare
// snapshots (ChangedNodes), keep one past the call or key a cache to it;
// so with hooks (pods set) the overlay also indexes the leaves' pods, as
// Apply binds them, and a Solve is given a frozen copy of it ([view]): a
// snapshot of its own, equal in content to the one Apply would give, that
// no later push or pop changes. Hooks then see, call for call, what they
// would see if each leaf were applied (TestHierarchy_PropHooksSeeApply).
type usageOverlay struct {
	s         *Snapshot
	owned     []bool // usage pages s owns (copied on first write)
	log       []savedRow
	saved     []int64 // the log's rows, end to end: one buffer, not one allocation a node
	frames    []overlayFrame
	frameSums []int64   // the frames' usage sums, end to end
	at        nodeIndex // the current frame's nodes, to their entry in log
	pods      bool      // index the leaves' pods too (the caller's hooks may read them)
	// Memory kept from an earlier overlay (see hscratch): its page table
	// and sums, the pages it owned alone, frameNodes' buffer.
	table [][]int64
	sum   []int64
	free  [][]int64
	ids   []NodeID
}

// savedRow is a node's usage row before a frame changed it.
type savedRow struct {
	id  NodeID
	row []int64
}

// overlayFrame is what pop restores: the log's length, the usage sums and
// the class index as they were before the push.
type overlayFrame struct {
	log   int
	saved int // the length of saved
	sum   int // where in frameSums the usage sums before the push start
	cls   *nodeClasses
	// With pods: the pod trees (clones, O(1)) and counts before the push.
	added      *btree.BTreeG[keyedPod]
	addedOn    *btree.BTreeG[nodePod]
	addedGroup *btree.BTreeG[*Pod]
	nPods      int
	scoreReqs  bool
}

// newUsageOverlay returns an overlay over s; s itself is never written.
// With pods, pushes index the leaves' pods too (see usageOverlay).
func newUsageOverlay(s *Snapshot, pods bool) *usageOverlay {
	o := &usageOverlay{}
	o.reset(s, pods)
	return o
}

// reset makes o an overlay over s, as newUsageOverlay, in the memory an
// earlier overlay left (see recycle).
func (o *usageOverlay) reset(s *Snapshot, pods bool) {
	n := &Snapshot{b: s.b, used: append(o.table[:0], s.used...), nPods: s.nPods, usedSum: append(o.sum[:0], s.usedSum...)}
	// The pod trees are shared read-only; they are cloned (O(1), copy on
	// write) under s's lock as Apply does, so that a Solve deriving from
	// the overlay never writes to s's trees.
	s.cloning.Lock()
	if s.removed != nil {
		n.removed = s.removed.Clone()
	}
	if s.added != nil {
		n.added, n.addedOn, n.addedGroup, n.addedMask = s.added.Clone(), s.addedOn.Clone(), s.addedGroup.Clone(), s.addedMask
	}
	if s.reserved != nil {
		n.reserved = s.reserved.Clone()
	}
	s.cloning.Unlock()
	n.cls.Store(s.cls.Load())
	o.s, o.pods, o.table, o.sum = n, pods, nil, nil
	o.owned = grow(o.owned, len(n.used))
	clear(o.owned)
	o.log, o.saved, o.frames, o.frameSums = o.log[:0], o.saved[:0], o.frames[:0], o.frameSums[:0]
	o.at.reset(len(n.b.nodes))
}

// recycle keeps o's memory for the next reset and drops every reference
// into the solve: the pages o owned alone (copied after the last view, so
// no view shares them) become free pages; the page table, cleared, and
// the sums become buffers.
func (o *usageOverlay) recycle() {
	if o.s == nil {
		return
	}
	for pg, own := range o.owned {
		if own {
			o.free = append(o.free, o.s.used[pg])
		}
	}
	clear(o.s.used)
	o.table, o.sum = o.s.used[:0], o.s.usedSum[:0]
	clear(o.frames)
	clear(o.log)
	o.s = nil
}

// view returns a frozen copy of the overlay for the caller's hooks: its
// own page table, sums and (O(1) copy-on-write) pod trees; the overlay's
// pages become shared with it, so the next write to one copies it first.
// Cost: O(nodes / pageNodes + resources).
func (o *usageOverlay) view() *Snapshot {
	s := o.s
	v := &Snapshot{b: s.b, used: slices.Clone(s.used), nPods: s.nPods, usedSum: slices.Clone(s.usedSum), scoreReqs: s.scoreReqs}
	if s.removed != nil {
		v.removed = s.removed.Clone()
	}
	if s.added != nil {
		v.added, v.addedOn, v.addedGroup = s.added.Clone(), s.addedOn.Clone(), s.addedGroup.Clone()
	}
	if s.reserved != nil {
		v.reserved = s.reserved.Clone()
	}
	v.cls.Store(s.cls.Load())
	clear(o.owned)
	return v
}

// adopt keeps the class index a Solve built on v, a view of the overlay
// as it is now, so that the next Solve does not build it again.
func (o *usageOverlay) adopt(v *Snapshot) {
	if o.s.cls.Load() == nil {
		o.s.cls.Store(v.cls.Load())
	}
}

// page returns node id's usage page for writing, copied first unless the
// overlay owns it.
func (o *usageOverlay) page(id NodeID) {
	if pg := int(id) / pageNodes; !o.owned[pg] {
		var buf []int64
		if k := len(o.free); k > 0 {
			buf, o.free = o.free[k-1][:0], o.free[:k-1]
		}
		o.s.used[pg] = append(buf, o.s.used[pg]...)
		o.owned[pg] = true
	}
}

// row returns node id's usage row for writing, saving it first.
func (o *usageOverlay) row(id NodeID) []int64 {
	o.page(id)
	if !o.at.has(id) {
		o.at.set(id, len(o.log))
		// A row saved is never written, and pop truncates saved only with
		// the log entries reading it: a row left in a buffer that append
		// outgrew still reads right.
		at := len(o.saved)
		o.saved = append(o.saved, o.s.usedRow(id)...)
		o.log = append(o.log, savedRow{id, o.saved[at:len(o.saved):len(o.saved)]})
	}
	return o.s.usedRow(id)
}

// push adds the usage of leaf n's Scheduled decision d (of n's group or
// of a variant of it, whose members are n's), as Apply would bind its
// pods: the same rows, sums and class index; with pods, it also indexes
// bind, the pods Apply would bind (hsolver.change). On an error (a node's
// summed requests overflowing, as Apply reports it) the overlay is left
// as it was.
func (o *usageOverlay) push(n *hnode, d Decision, bind []Pod) error {
	f := overlayFrame{log: len(o.log), saved: len(o.saved), sum: len(o.frameSums), cls: o.s.cls.Load()}
	o.frameSums = append(o.frameSums, o.s.usedSum...)
	if o.pods {
		f.nPods, f.scoreReqs = o.s.nPods, o.s.scoreReqs
		if o.s.added != nil {
			f.added, f.addedOn, f.addedGroup = o.s.added.Clone(), o.s.addedOn.Clone(), o.s.addedGroup.Clone()
		}
	}
	o.frames = append(o.frames, f)
	o.at.empty()
	g := n.src.Group
	R := len(o.s.b.res)
	as := d.Assignments
	for k := 0; k < len(as); {
		a := as[k]
		if n.uniform {
			// Identical members: a node's run of them (assignments come
			// by node) is added at once; only an overflow, which must name
			// its pod, goes pod by pod.
			end := k + 1
			for end < len(as) && as[end].NodeID == a.NodeID {
				end++
			}
			if err := o.add(a.NodeID, a.Pod, n.rows[:R], end-k); err == nil {
				k = end
				continue
			}
		}
		i := 0
		if !n.uniform {
			var ok bool
			if i, ok = n.member(a.Pod); !ok {
				o.pop()
				return Errorf(ErrNotFound, groupObj(g), "members", "decision places unknown pod %s", a.Pod)
			}
		}
		if err := o.add(a.NodeID, a.Pod, n.rows[i*R:(i+1)*R], 1); err != nil {
			o.pop()
			return err
		}
		k++
	}
	for _, a := range d.PodSetAssignments {
		for k := range g.PodSets {
			if ps := &g.PodSets[k]; ps.Name == a.PodSet {
				// The template's row, read once by leafRows: what Apply adds
				// for each pod bound from the set.
				if err := o.add(a.NodeID, Key{g.Namespace, ps.Name}, n.setRows[k*R:(k+1)*R], int(a.Count)); err != nil {
					o.pop()
					return err
				}
			}
		}
	}
	if o.pods {
		o.bind(bind)
	}
	// A uniform leaf's sums at once, when no class index needs the
	// changed nodes: the usual push.
	if n.uniform && len(as) > 0 && len(d.PodSetAssignments) == 0 && !noSumsAtOnce && o.s.cls.Load() == nil && o.sumsAtOnce(n.rows[:R], len(as)) {
		return nil
	}
	changed := o.frameNodes()
	o.sums(changed)
	if c := o.s.cls.Load(); c != nil {
		old := func(id NodeID) []int64 { return o.log[o.at.of(id)].row }
		o.s.cls.Store(c.derive(o.s.b, changed, old, o.s.usedRow))
	}
	return nil
}

// bind indexes pods (their usage added already) as Apply does: by key,
// by node and by group. The search places each pending pod once, so none
// is bound already (uniquePods).
func (o *usageOverlay) bind(pods []Pod) {
	s := o.s
	if s.added == nil && len(pods) > 0 {
		s.added = btree.NewG(16, lessKeyed)
		s.addedOn = btree.NewG(16, lessNodePod)
		s.addedGroup = btree.NewG(16, lessGroupMember)
	}
	for i := range pods {
		p := new(Pod)
		*p = pods[i]
		id, _ := s.b.byName(p.NodeName)
		s.added.ReplaceOrInsert(keyedPod{p.Key(), p})
		s.addedOn.ReplaceOrInsert(nodePod{id, p})
		if p.SchedulingGroup != "" {
			s.addedGroup.ReplaceOrInsert(p)
		}
		s.nPods++
		s.scoreReqs = s.scoreReqs || p.ScoreRequests != nil
	}
}

// add binds count pods of usage row req (pod k's) to node id. A sum past
// int64 is an error naming the first such resource in name order, as
// Apply's.
func (o *usageOverlay) add(id NodeID, k Key, req []int64, count int) error {
	row := o.row(id)
	for r, q := range req {
		if q > 0 && row[r] > math.MaxInt64-int64(count)*q || int64(count) > math.MaxInt64/max(q, 1) {
			name := o.s.b.res[r]
			return Errorf(ErrInvalid, podObj(k), "requests["+string(name)+"]", "sum of requests on node %q overflows int64", o.s.b.nodes[id].Name)
		}
	}
	for r, q := range req {
		row[r] += int64(count) * q
	}
	return nil
}

// member returns the index in n's group of member k.
func (n *hnode) member(k Key) (int, bool) {
	ms := n.src.Group.Members
	if n.sorted {
		i, ok := slices.BinarySearchFunc(ms, k.Name, func(p Pod, name string) int { return strings.Compare(p.Name, name) })
		return i, ok && ms[i].Namespace == k.Namespace
	}
	if n.byKey == nil {
		n.byKey = make(map[Key]int, len(ms))
		for i := range ms {
			n.byKey[ms[i].Key()] = i
		}
	}
	i, ok := n.byKey[k]
	return i, ok
}

// frameNodes returns the nodes the current frame changed, ascending, in
// a buffer the next call reuses.
func (o *usageOverlay) frameNodes() []NodeID {
	f := o.frames[len(o.frames)-1]
	ids := o.ids[:0]
	for _, e := range o.log[f.log:] {
		ids = append(ids, e.id)
	}
	slices.Sort(ids)
	o.ids = ids
	return ids
}

// sums moves usedSum over the changed nodes as Apply does: saturating,
// and summed again over every node for a resource whose sum was or would
// be saturated.
func (o *usageOverlay) sums(changed []NodeID) {
	const redo = math.MinInt64
	sum := o.s.usedSum
	for r, q := range sum {
		if q == math.MaxInt64 {
			sum[r] = redo
		}
	}
	for _, id := range changed {
		before, after := o.log[o.at.of(id)].row, o.s.usedRow(id)
		for r := range sum {
			switch d := after[r] - before[r]; {
			case sum[r] == redo:
			case d > 0 && sum[r] > math.MaxInt64-d:
				sum[r] = redo
			default:
				sum[r] += d
			}
		}
	}
	for r, q := range sum {
		if q == redo {
			sum[r] = 0
			for id := range len(o.s.b.nodes) {
				sum[r] = arith.SatAdd(sum[r], o.s.usedRow(NodeID(id))[r])
			}
		}
	}
}

// pop takes the last push off: rows, sums and class index as before it.
func (o *usageOverlay) pop() {
	f := o.frames[len(o.frames)-1]
	o.frames = o.frames[:len(o.frames)-1]
	if c := o.s.cls.Load(); c != nil && f.cls == nil {
		// A Solve built the class index after the push: move it back
		// rather than drop it, which would cost a rebuild over every node.
		at := make(map[NodeID][]int64, len(o.log)-f.log)
		ids := make([]NodeID, 0, len(o.log)-f.log)
		for _, e := range o.log[f.log:] {
			at[e.id] = e.row
			ids = append(ids, e.id)
		}
		slices.Sort(ids)
		f.cls = c.derive(o.s.b, ids, o.s.usedRow, func(id NodeID) []int64 { return at[id] })
	}
	for i := len(o.log) - 1; i >= f.log; i-- {
		o.page(o.log[i].id) // a view may share the page
		copy(o.s.usedRow(o.log[i].id), o.log[i].row)
	}
	o.log, o.saved = o.log[:f.log], o.saved[:f.saved]
	copy(o.s.usedSum, o.frameSums[f.sum:])
	o.frameSums = o.frameSums[:f.sum]
	o.s.cls.Store(f.cls)
	if o.pods {
		o.s.added, o.s.addedOn, o.s.addedGroup = f.added, f.addedOn, f.addedGroup
		o.s.nPods, o.s.scoreReqs = f.nPods, f.scoreReqs
	}
	o.at.empty()
}

// nodeIndex maps some nodes to an int (the overlay's current frame: its
// nodes to their log entries). An entry counts only while its stamp is
// the current one, so that emptying the index is a new stamp, O(1),
// instead of clearing a map; a lookup is two loads instead of hashing.
// It keeps 8 bytes a node between solves (in hscratch).
type nodeIndex struct {
	stamp []uint32 // per node: the stamp its entry was set under
	entry []int32
	cur   uint32
}

// reset empties x for nodes 0..n-1.
func (x *nodeIndex) reset(n int) {
	if len(x.stamp) < n {
		x.stamp, x.entry = make([]uint32, n), make([]int32, n)
	}
	x.empty()
}

// empty drops every entry.
func (x *nodeIndex) empty() {
	if x.cur++; x.cur == 0 { // wrapped: stamps set 2^32 emptyings ago would count again
		clear(x.stamp)
		x.cur = 1
	}
}

// has reports whether id has an entry.
func (x *nodeIndex) has(id NodeID) bool { return x.stamp[id] == x.cur }

// set gives id the entry e.
func (x *nodeIndex) set(id NodeID, e int) { x.stamp[id], x.entry[id] = x.cur, int32(e) }

// of returns id's entry, which it has.
func (x *nodeIndex) of(id NodeID) int { return int(x.entry[id]) }
