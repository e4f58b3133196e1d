package placement

import (
	"encoding/binary"
	"maps"
	"math"
	"math/bits"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
)

// nodeClasses partitions a snapshot's nodes into classes of identical nodes:
// the same static type (allocatable, taints, schedulability) and the same
// usage. For a member without a node selector all nodes of a class are
// interchangeable, so the solver places a run of identical members over the
// whole cluster in O(classes + nodes used) instead of visiting every node.
//
// The index is built on first use, O(nodes), and a snapshot derived with
// Apply from one that has it gets its own in O(changed nodes + classes
// changed × nodes/512).
type nodeClasses struct {
	sets map[string]*classSet // by classKey
	// list holds the sets of sets, for the solver to walk: a map's
	// iteration draws a random start and steps bucket by bucket, some 3 %
	// of a resize's delta on a fragmented block by profile. Its order is
	// the map's at sealing, which no answer depends on (as it did not on
	// the map's).
	list []*classSet
}

// seal lists c's sets once they are final (see list).
func (c *nodeClasses) seal() *nodeClasses {
	c.list = slices.AppendSeq(make([]*classSet, 0, len(c.sets)), maps.Values(c.sets))
	return c
}

// classSet is one class: its nodes in ID order. A set is shared by every
// snapshot whose class index has not changed it.
type classSet struct {
	typ   int32
	used  []int64
	nodes *nodeSet
}

// chunkNodes is how many node IDs one chunk of a nodeSet covers: 8 words,
// so that a chunk copied on write costs one cache line.
const chunkNodes = 512

type nodeChunk [chunkNodes / 64]uint64

// nodeSet is a set of NodeIDs as a bitmap in chunks, the chunks shared
// copy-on-write between a set and its clones: a clone costs O(nodes/512)
// pointers, and a change O(1) plus, the first time the clone writes to a
// chunk it shares, one chunk copied. A removal never rebalances anything,
// which a tree of a big class (a packed cluster's full nodes) pays for
// every node preemption frees. A set is written only by the code that made
// it (NewSnapshot's first solve, or Apply), before the class index holding
// it is published; after that it is read-only, so reading it needs no
// lock.
type nodeSet struct {
	chunks []*nodeChunk // nil: no node of the chunk
	owned  []bool       // chunks this set may write in place
	n      int
}

func newNodeSet(nodes int) *nodeSet {
	k := (nodes + chunkNodes - 1) / chunkNodes
	return &nodeSet{chunks: make([]*nodeChunk, k), owned: make([]bool, k)}
}

// clone returns a copy of s that shares its chunks until it writes them.
// s itself must not be written afterwards: it still owns the chunks the
// copy shares (clearing that would write to a published set).
func (s *nodeSet) clone() *nodeSet {
	return &nodeSet{chunks: slices.Clone(s.chunks), owned: make([]bool, len(s.chunks)), n: s.n}
}

// chunk returns chunk i, made s's own.
func (s *nodeSet) chunk(i int) *nodeChunk {
	if !s.owned[i] {
		c := new(nodeChunk)
		if old := s.chunks[i]; old != nil {
			*c = *old
		}
		s.chunks[i], s.owned[i] = c, true
	}
	return s.chunks[i]
}

// Len returns the number of nodes in s.
func (s *nodeSet) Len() int { return s.n }

func (s *nodeSet) has(id NodeID) bool {
	c := s.chunks[int(id)/chunkNodes]
	return c != nil && c[int(id)%chunkNodes/64]&(1<<(uint(id)%64)) != 0
}

func (s *nodeSet) insert(id NodeID) {
	if s.has(id) {
		return
	}
	c := s.chunk(int(id) / chunkNodes)
	c[int(id)%chunkNodes/64] |= 1 << (uint(id) % 64)
	s.n++
}

func (s *nodeSet) delete(id NodeID) {
	if !s.has(id) {
		return
	}
	i := int(id) / chunkNodes
	c := s.chunk(i)
	c[int(id)%chunkNodes/64] &^= 1 << (uint(id) % 64)
	s.n--
	if *c == (nodeChunk{}) {
		s.chunks[i], s.owned[i] = nil, false // scans skip it
	}
}

// Min returns the smallest node of s, and false when s is empty.
func (s *nodeSet) Min() (NodeID, bool) {
	var out NodeID
	found := false
	s.ascend(0, math.MaxInt32, func(id NodeID) bool { out, found = id, true; return false })
	return out, found
}

// next returns the smallest node of s at or above from, false when there
// is none: ascend's first node without a call per word, for loops that
// step through s one node at a time.
func (s *nodeSet) next(from NodeID) (NodeID, bool) {
	from = max(from, 0)
	first := int(from) / chunkNodes
	for i := first; i < len(s.chunks); i++ {
		c := s.chunks[i]
		if c == nil {
			continue
		}
		w0 := 0
		if i == first {
			w0 = int(from) % chunkNodes / 64
		}
		for w := w0; w < len(c); w++ {
			word := c[w]
			if i == first && w == w0 {
				word &^= 1<<(uint(from)%64) - 1 // the IDs below from
			}
			if word != 0 {
				return NodeID(i*chunkNodes+w*64) + NodeID(bits.TrailingZeros64(word)), true
			}
		}
	}
	return 0, false
}

// ascend calls fn on each node of s in [from, to), in ID order, until fn
// returns false.
func (s *nodeSet) ascend(from, to NodeID, fn func(NodeID) bool) {
	s.words(from, to, func(base NodeID, word uint64) bool {
		for word != 0 {
			id := base + NodeID(bits.TrailingZeros64(word))
			word &= word - 1
			if id >= to || !fn(id) {
				return false
			}
		}
		return true
	})
}

// appendRange appends to buf the nodes of s in [from, to), in ID order,
// until buf holds limit: ascend without a call per node.
func (s *nodeSet) appendRange(buf []NodeID, from, to NodeID, limit int) []NodeID {
	if len(buf) >= limit {
		return buf
	}
	s.words(from, to, func(base NodeID, word uint64) bool {
		for word != 0 {
			id := base + NodeID(bits.TrailingZeros64(word))
			word &= word - 1
			if id >= to {
				return false
			}
			if buf = append(buf, id); len(buf) == limit {
				return false
			}
		}
		return true
	})
	return buf
}

// words calls fn, in ID order, on each non-empty word of s that holds IDs
// in [from, to), with the ID of its bit 0 and the IDs below from cleared,
// until fn returns false. Bits at or past to are left: fn stops there.
func (s *nodeSet) words(from, to NodeID, fn func(base NodeID, word uint64) bool) {
	from = max(from, 0)
	if to <= from {
		return
	}
	first := int(from) / chunkNodes
	last := min(len(s.chunks), (int(to)-1)/chunkNodes+1) // the chunk of to-1, included: no overflow near MaxInt32
	for i := first; i < last; i++ {
		c := s.chunks[i]
		if c == nil {
			continue
		}
		w0 := 0
		if i == first {
			w0 = int(from) % chunkNodes / 64
		}
		for w := w0; w < len(c); w++ {
			word := c[w]
			if i == first && w == w0 {
				word &^= 1<<(uint(from)%64) - 1 // the IDs below from
			}
			if word != 0 && !fn(NodeID(i*chunkNodes+w*64), word) {
				return
			}
		}
	}
}

// count returns the number of nodes of s in [from, to).
func (s *nodeSet) count(from, to NodeID) int64 {
	lo, hi := int64(max(from, 0)), min(int64(to), int64(len(s.chunks))*chunkNodes)
	if lo >= hi {
		return 0
	}
	if lo == 0 && hi == int64(len(s.chunks))*chunkNodes {
		return int64(s.n)
	}
	const words = chunkNodes / 64
	n, first, last := 0, int(lo/64), int((hi-1)/64)
	for w := first; w <= last; w++ {
		c := s.chunks[w/words]
		if c == nil {
			w = (w/words+1)*words - 1 // on to the next chunk
			continue
		}
		word := c[w%words]
		if w == first {
			word &^= 1<<(uint64(lo)%64) - 1
		}
		if w == last && hi%64 != 0 {
			word &= 1<<(uint64(hi)%64) - 1
		}
		n += bits.OnesCount64(word)
	}
	return int64(n)
}

// nodeTypes assigns each node a static type: nodes with equal allocatable,
// taints and schedulability share one. rep[t] is the first node of type t.
func (b *base) nodeTypes() {
	R := len(b.res)
	ids := map[string]int32{}
	b.typeOf = make([]int32, len(b.nodes))
	var key []byte
	for i := range b.nodes {
		n := &b.nodes[i]
		// Nodes listed by name are often alike in runs: a node without
		// taints like the one before has its type, without building a key.
		if prev := &b.nodes[max(i-1, 0)]; i > 0 && len(n.Taints) == 0 && len(prev.Taints) == 0 &&
			n.Unschedulable == prev.Unschedulable && slices.Equal(b.alloc[i*R:(i+1)*R], b.alloc[(i-1)*R:i*R]) {
			b.typeOf[i] = b.typeOf[i-1]
			continue
		}
		key = key[:0]
		for _, q := range b.alloc[i*R : (i+1)*R] {
			key = binary.LittleEndian.AppendUint64(key, uint64(q))
		}
		if n.Unschedulable {
			key = append(key, 1)
		}
		// Each string goes in after its length, so that no content (a NUL
		// byte included) can make two different taint lists one key.
		for _, t := range n.Taints {
			for _, f := range [...]string{t.Key, t.Value, string(t.Effect)} {
				key = binary.AppendUvarint(key, uint64(len(f)))
				key = append(key, f...)
			}
		}
		t, ok := ids[string(key)]
		if !ok {
			t = int32(len(ids))
			ids[string(key)] = t
			b.typeRep = append(b.typeRep, NodeID(i))
		}
		b.typeOf[i] = t
	}
}

func classKey(typ int32, used []int64) string {
	return string(appendClassKey(make([]byte, 0, 4+8*len(used)), typ, used))
}

func appendClassKey(key []byte, typ int32, used []int64) []byte {
	key = binary.LittleEndian.AppendUint32(key, uint32(typ))
	for _, q := range used {
		key = binary.LittleEndian.AppendUint64(key, uint64(q))
	}
	return key
}

// classes returns s's class index, building it on first use.
func (s *Snapshot) classes() *nodeClasses {
	if c := s.cls.Load(); c != nil {
		return c
	}
	c := &nodeClasses{sets: map[string]*classSet{}}
	for id := range NodeID(len(s.b.nodes)) {
		c.add(s.b.typeOf[id], s.usedRow(id), id, len(s.b.nodes))
	}
	s.cls.CompareAndSwap(nil, c.seal())
	return s.cls.Load()
}

// add puts node id in the class (typ, used), creating the set for a
// snapshot of nodes nodes; the caller owns the sets it touches.
func (c *nodeClasses) add(typ int32, used []int64, id NodeID, nodes int) {
	k := classKey(typ, used)
	set, ok := c.sets[k]
	if !ok {
		set = &classSet{typ: typ, used: slices.Clone(used), nodes: newNodeSet(nodes)}
		c.sets[k] = set
	}
	set.nodes.insert(id)
}

// derive returns the index of a snapshot whose nodes changed from old rows
// (the parent's) to new ones; p is the parent's index.
func (p *nodeClasses) derive(b *base, changed []NodeID, oldRow, newRow func(NodeID) []int64) *nodeClasses {
	c := &nodeClasses{sets: maps.Clone(p.sets)}
	own := map[*classSet]bool{}
	// Keys are built in two buffers and looked up without a string of
	// their own (m[string(buf)] does not allocate); only a set copied or
	// added stores one.
	var okb, nkb []byte
	mine := func(k []byte) *classSet {
		set := c.sets[string(k)]
		if set != nil && !own[set] {
			set = &classSet{typ: set.typ, used: set.used, nodes: set.nodes.clone()}
			c.sets[string(k)] = set
			own[set] = true
		}
		return set
	}
	// Changed nodes often move alike (victims freeing the same room on
	// nodes that were full alike): the sets of the last move serve the
	// next one that is the same, without a key built or looked up.
	var from, to *classSet
	lastTyp := int32(-1)
	var lastOld, lastNew []int64
	for _, id := range changed {
		or, nr := oldRow(id), newRow(id)
		if slices.Equal(or, nr) { // same type: the same class
			continue
		}
		typ := b.typeOf[id]
		if typ != lastTyp || !slices.Equal(or, lastOld) || !slices.Equal(nr, lastNew) {
			okb, nkb = appendClassKey(okb[:0], typ, or), appendClassKey(nkb[:0], typ, nr)
			from, to = mine(okb), mine(nkb)
			lastTyp, lastOld, lastNew = typ, append(lastOld[:0], or...), append(lastNew[:0], nr...)
		}
		if from != nil {
			from.nodes.delete(id)
			if from.nodes.Len() == 0 {
				delete(c.sets, string(okb)) // okb is still from's key
				from = nil                  // no other node has its usage
			}
		}
		if to != nil {
			to.nodes.insert(id)
		} else {
			c.add(typ, nr, id, len(b.nodes))
			to = c.sets[string(nkb)]
			own[to] = true
		}
	}
	return c.seal()
}

// source is a stream of candidate nodes of equal score and capacity for one
// member: untouched nodes alike in ID order (a class's, streamed from its
// set, or a group of a placement's, all ahead), or one node the attempt
// has already touched.
type source struct {
	score int64
	cap   int64
	next  NodeID
	ahead []NodeID  // the class's next untouched nodes: next, then ahead[at:]
	at    int       // (an index, not a reslice: no pointer written per node)
	set   *classSet // where to look up more nodes; nil: ahead holds them all
	end   NodeID    // with set: the placement's nodes end before it
	// recheck: nodes of set may have been touched before the run began
	// (by an earlier run of the attempt), so a lookup skips them. In a
	// run of its own, a set's nodes are touched only when taken from its
	// source, in ID order, behind every lookup.
	recheck bool
}

// sourceBefore orders sources: higher score first, ties by next node ID.
func sourceBefore(x, y *source) bool {
	if x.score != y.score {
		return x.score > y.score
	}
	return x.next < y.next
}

// untouched appends to buf up to limit nodes of set in [from, to), in ID
// order, that the attempt has not touched (with recheck; otherwise none
// can have been): one walk of the set's bitmap serves the next nodes a run
// fills.
func (sv *solver) untouched(set *classSet, from, to NodeID, limit int, buf []NodeID, recheck bool) []NodeID {
	if cap(buf) < limit {
		buf = make([]NodeID, 0, limit)
	}
	if !recheck {
		return set.nodes.appendRange(buf, from, to, limit)
	}
	set.nodes.ascend(from, to, func(n NodeID) bool {
		if _, touched := sv.w.offset(n); !touched {
			buf = append(buf, n)
		}
		return len(buf) < limit
	})
	return buf
}

// aheadRoom returns an empty slice with room for n node IDs, carved from
// the run's pooled lookups (sv.sc.ahead, emptied when a run makes its
// sources): a source that runs out of the nodes it looked up takes more
// room there instead of allocating it. A full arena is replaced by a
// larger one; the sources still reading the old one keep it until the
// run ends.
func (sv *solver) aheadRoom(n int) []NodeID {
	a := sv.sc.ahead
	if cap(a)-len(a) < n {
		a = make([]NodeID, 0, max(2*cap(a), n, 256))
	}
	sv.sc.ahead = a[:len(a)+n]
	return a[len(a) : len(a) : len(a)+n]
}

// firstLookup is how many nodes a class's source looks up before the run
// reaches it: most classes of a fragmented cluster score below the nodes
// that take the whole run, and walking their bitmaps ahead would be wasted.
const firstLookup = 4

// placeRunClasses is placeRun over the nodes lo..hi-1 (the whole cluster,
// or a placement of consecutive IDs), by class: it visits each class once,
// each node the attempt touched once, and then only the nodes it fills, in
// exactly the order placeRun would (score descending, node ID ascending).
func (sv *solver) placeRunClasses(a *attempt, idx []int, cls *nodeClasses, lo, hi NodeID, last bool) {
	h := sv.classSources(&sv.members[idx[0]], int64(len(idx)), cls, lo, hi)
	if !sv.spend(int64(len(h))) {
		return
	}
	sv.drain(a, idx, h, last)
}

// classSources returns the nodes lo..hi-1 with room for member m (up to
// want copies) as sources: one per class of cls, streaming its untouched
// nodes in ID order, and each node the attempt touched alone.
func (sv *solver) classSources(m *member, want int64, cls *nodeClasses, lo, hi NodeID) []source {
	b := sv.s.b
	// The sources and first lookups are the scratch's: a run drains its
	// sources before the next run asks for its own.
	h := sv.sc.sources[:0]
	if n := len(cls.sets) + len(sv.w.touched); cap(h) < n {
		h = make([]source, 0, n)
		sv.sc.sources = h
	}
	recheck := len(sv.w.touched) > 0
	// The last run's sources are done with the lookups' arena; every
	// class's first lookup comes from it.
	sv.sc.ahead = sv.sc.ahead[:0]
	firsts := sv.aheadRoom(firstLookup * len(cls.sets))[:firstLookup*len(cls.sets)]
	k := 0
	for _, set := range cls.list {
		rep := b.typeRep[set.typ]
		if !staticOK(sv.pod(m.row), &b.nodes[rep]) {
			continue
		}
		c := capacityOf(sv.req(m.row), b.alloc[int(rep)*sv.R:int(rep+1)*sv.R], set.used, nil, want)
		if c == 0 {
			continue
		}
		buf := firsts[k*firstLookup : k*firstLookup : (k+1)*firstLookup]
		k++
		next := sv.untouched(set, lo, hi, min(aheadOf(want, c, 0), firstLookup), buf, recheck)
		if len(next) == 0 {
			continue
		}
		h = append(h, source{score: scoreOf(sv.req(m.row), b.alloc[int(rep)*sv.R:int(rep+1)*sv.R], set.used, nil, b.podsR),
			cap: c, next: next[0], ahead: next, at: 1, set: set, end: hi, recheck: recheck})
	}
	for _, id := range sv.w.touched { // all in lo..hi-1: an attempt touches only its placement's nodes
		if !staticOK(sv.pod(m.row), &b.nodes[id]) {
			continue
		}
		if c := sv.capacity(sv.req(m.row), id, want); c > 0 {
			h = append(h, source{score: sv.nodeScore(sv.req(m.row), id), cap: c, next: id})
		}
	}
	return h
}

// shortByClasses answers an attempt without placing anything when the
// group is one class of identical members, with no hook or constraint,
// the placement goes by the snapshot's classes (see classRange), and its
// room falls short of what the group needs: the greedy would then fill
// every node with room to capacity, so it places exactly that room, the
// first members in member order, and the rest wait. The room is counted
// per class, where filling costs a step per node; diagnose explains such
// an attempt per class too. The budget is spent as the greedy's run
// would. ok is false when the greedy must run.
func (sv *solver) shortByClasses(p *Placement) (a *attempt, ok bool) {
	m := &sv.members[0]
	cls, lo, hi, byClass := sv.classRange(p, m)
	if !byClass || sv.missingOf(m) != "" || !sv.memoReasons(m) {
		return nil, false
	}
	b, pod, req, want := sv.s.b, sv.pod(m.row), sv.req(m.row), int64(len(sv.members))
	var room, sources int64
	for _, set := range cls.list {
		rep := b.typeRep[set.typ]
		if !staticOK(pod, &b.nodes[rep]) {
			continue
		}
		c := capacityOf(req, b.alloc[int(rep)*sv.R:int(rep+1)*sv.R], set.used, nil, want)
		if c == 0 {
			continue
		}
		if k := set.nodes.count(lo, hi); k > 0 {
			room, sources = arith.SatAdd(room, arith.MulSat(c, k)), sources+1
			if room >= int64(sv.need) {
				return nil, false
			}
		}
	}
	// Cut by the budget, the run places nothing, and the nodes stay empty
	// for the diagnosis, as after the greedy's cut run.
	a = sv.sc.attempts.get(p, 0, false)
	a.normal = true
	if sv.spend(sources) {
		a.placed, a.short = int(room), true
	}
	return a, true
}

// shortReasons counts, per class of p's nodes, the reasons member first
// fits on none of them once a short attempt (shortByClasses) filled every
// node with room: each class's nodes end alike, so one of them, filled in
// the scratch state, speaks for all.
func (sv *solver) shortReasons(p *Placement, first *member, counts *tally) {
	cls, lo, hi, byClass := sv.classRange(p, first)
	if !byClass {
		sv.groupReasons(p, first, counts) // short by its groups of nodes
		return
	}
	b, pod, req, want := sv.s.b, sv.pod(first.row), sv.req(first.row), int64(len(sv.members))
	for _, set := range cls.list {
		k := set.nodes.count(lo, hi)
		if k == 0 {
			continue
		}
		var id NodeID
		set.nodes.ascend(lo, hi, func(n NodeID) bool { id = n; return false })
		rep := b.typeRep[set.typ]
		if staticOK(pod, &b.nodes[rep]) {
			if c := capacityOf(req, b.alloc[int(rep)*sv.R:int(rep+1)*sv.R], set.used, nil, want); c > 0 {
				sv.w.add(id, req, c)
			}
		}
		for _, r := range sv.reasons(first, id) {
			counts.add(r.Reason, int(k))
		}
		sv.w.reset()
	}
}

// drain fills the nodes of sources h with members idx in placeOne's order
// (score descending, node ID ascending): the top source's next node takes
// as many as fit, then the source moves on to its next node, looked up in
// its class when its nodes ahead run out.
func (sv *solver) drain(a *attempt, idx []int, h []source, last bool) {
	want, req := int64(len(idx)), sv.req(sv.members[idx[0]].row)
	heapInit(h, sourceBefore)
	k := 0
	for k < len(idx) && len(h) > 0 {
		src := &h[0]
		id := src.next
		n := int(min(src.cap, int64(len(idx)-k)))
		sv.assignRun(a, idx[k:k+n], id, req, last)
		k += n
		h = sv.advance(h, want, k)
	}
}

// advance moves the top source of heap h, whose next node a run of want
// members just filled or passed (placed of them placed so far), on to its
// next node, and returns the heap. The node just filled is touched now;
// the nodes looked up ahead are still untouched: a run fills only nodes
// it takes from its sources, each once, in ID order within a class.
func (sv *solver) advance(h []source, want int64, placed int) []source {
	src := &h[0]
	if src.at == len(src.ahead) && src.set != nil {
		limit, buf := aheadOf(want, src.cap, placed), src.ahead[:0]
		if cap(buf) < limit {
			buf = sv.aheadRoom(limit)
		}
		src.ahead, src.at = sv.untouched(src.set, src.next+1, src.end, limit, buf, src.recheck), 0
	}
	if src.at < len(src.ahead) {
		src.next = src.ahead[src.at]
		src.at++
		// The top only moved later (its next node's ID grew); it stays
		// on top while it still goes before both children.
		if (len(h) > 1 && sourceBefore(&h[1], src)) || (len(h) > 2 && sourceBefore(&h[2], src)) {
			heapDown(h, 0, sourceBefore)
		}
		return h
	}
	_, h = heapPop(h, sourceBefore)
	return h
}

// aheadOf is how many of a class's nodes to look up at once for a run of
// want members, placed of which are placed, c to a node: those the run
// could still fill, at most 256.
func aheadOf(want, c int64, placed int) int { return int(min((want-int64(placed)+c-1)/c+1, 256)) }

// capacityOf is how many copies of req fit in alloc - used - extra (extra
// may be nil), at most limit.
func capacityOf(req, alloc, used, extra []int64, limit int64) int64 {
	c := limit
	for r, q := range req {
		if q == 0 {
			continue
		}
		free := alloc[r] - used[r]
		if extra != nil {
			free -= extra[r]
		}
		if free < q {
			return 0
		}
		// No division where it is known: room for one (free < 2q), or a
		// request of 1 (a GPU, the pod count). A division costs tens of
		// cycles, and the hierarchy's leaf placer takes this per node.
		switch {
		case free-q < q:
			c = min(c, 1)
		case q == 1:
			c = min(c, free)
		default:
			c = min(c, free/q)
		}
	}
	return c
}

// scoreOf is nodeScore for a node with the given rows.
func scoreOf(req, alloc, used, extra []int64, podsR int) int64 {
	var sc int64
	for r, q := range req {
		if q == 0 || r == podsR {
			continue
		}
		u := used[r] + q
		if extra != nil {
			u += extra[r]
		}
		sc += arith.MulDiv(u, scoreScale, alloc[r])
	}
	return sc
}
