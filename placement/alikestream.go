package placement

import "math"

// A run's uncounted domains, streamed. Every labelled domain no placed
// member counts in has the same value (see alikeRun.values), so among
// them placeOne's choice is simply the best node — highest score, lowest
// ID — of the nodes that fit. When no node is touched yet, the member
// reads no label and the placement is the whole cluster with every node
// labelled, nodes of one snapshot class (same type and usage) have one fit
// and one score, and the class's bitmap yields them in ID order: the run
// then keeps an entry per counted domain only (a few, one per domain
// taken) and streams the others from the classes, instead of reading
// every node's fit and keeping a heap entry per domain — at 8 members of
// 1,000 hosts, most of a run's cost. A node comes from the stream only
// while its domain is uncounted; the domain it goes to becomes counted,
// and from then on has its own entry. Touched nodes are in counted
// domains, so the stream meets none.

// streamSrc is one fitting class's next node in an uncounted domain.
type streamSrc struct {
	score int64
	next  NodeID
	set   *classSet
}

func streamBefore(x, y *streamSrc) bool {
	if x.score != y.score {
		return x.score > y.score
	}
	return x.next < y.next
}

// alikeStream is the uncounted domains' part of a run: whether the run's
// next member may go there and its preference (one value for all), the
// fitting classes' sources in a heap, and the lowest domain that may still
// be uncounted.
type alikeStream struct {
	on   bool
	ok   bool
	pref int64
	srcs []streamSrc
	free int
	// buf holds, during streamAlike's pass over one source, that source's
	// next nodes from at on (see streamNext).
	buf []NodeID
	at  int
}

// streamable reports whether r may stream its uncounted domains; doms
// says the run's domains are the whole cluster's, every node labelled.
func (r *alikeRun) streamable(doms bool) bool {
	return doms && r.quick() && len(r.cls) > 0
}

// startStream sets up the stream over the snapshot's classes that fit.
func (r *alikeRun) startStream() {
	st := &r.stream
	st.on, st.free, st.srcs = true, 0, st.srcs[:0]
	r.streamValue()
	for _, set := range r.sv.s.classes().list {
		first, ok := set.nodes.Min()
		if !ok {
			continue
		}
		if fit, sc := r.fitScore(first); fit {
			st.srcs = append(st.srcs, streamSrc{score: sc, next: first, set: set})
		}
	}
	heapInit(st.srcs, streamBefore)
}

// streamValue sets the uncounted domains' value, from the lowest of
// them (none left: the stream is done).
func (r *alikeRun) streamValue() {
	st := &r.stream
	for st.free < r.nd && r.counted[st.free] {
		st.free++
	}
	if st.free == r.nd {
		st.ok = false
		return
	}
	st.ok, st.pref = r.value(st.free)
}

// peek returns the stream's best node in an uncounted domain, or nil,
// dropping the nodes of domains counted since they were found.
func (r *alikeRun) peek() *streamSrc {
	st := &r.stream
	for len(st.srcs) > 0 {
		top := &st.srcs[0]
		if !r.counted[r.dom[top.next]] {
			return top
		}
		id, ok := top.set.nodes.next(top.next + 1)
		for ok && r.counted[r.dom[id]] {
			id, ok = top.set.nodes.next(id + 1)
		}
		if ok {
			top.next = id
			if len(st.srcs) == 1 {
				return top // id's domain is uncounted, and no other source can lead
			}
			heapDown(st.srcs, 0, streamBefore)
		} else {
			_, st.srcs = heapPop(st.srcs, streamBefore)
		}
	}
	return nil
}

// top returns the domain the run's next member goes to (-1: none) with
// its best node set: the heap's first or, when its best node comes
// before, the stream's, whose domain then gets its entry (still outside
// the heap; placed puts it in).
func (r *alikeRun) top() int {
	for {
		d := r.pick()
		// Preference orders domains first: a stale one that falls behind
		// the choice cannot be chosen, whatever its score.
		if len(r.stale) == 0 || (d >= 0 && r.pref[d] > r.staleMax) {
			return d
		}
		r.rescore()
	}
}

// pick is top, the stale domains left out.
func (r *alikeRun) pick() int {
	e := int32(-1)
	if len(r.heap) > 0 {
		e = r.heap[0]
	}
	if !r.stream.on || !r.stream.ok {
		return int(e)
	}
	src := r.peek()
	if src == nil {
		return int(e)
	}
	if e >= 0 {
		p := r.stream.pref
		if p < r.pref[e] || (p == r.pref[e] && !streamBefore(src, &streamSrc{score: r.score[e], next: r.best[e]})) {
			return int(e)
		}
	}
	d := int(r.dom[src.next])
	r.ok[d], r.pref[d], r.best[d], r.score[d], r.at[d] = true, r.stream.pref, src.next, src.score, -1
	return d
}

// count marks labelled domain d counted, listing it the first time.
func (r *alikeRun) count(d int) {
	if !r.counted[d] {
		r.counted[d] = true
		r.listed = append(r.listed, int32(d))
	}
}

// entries values the counted domains and the unlabelled one (which, on a
// stream, holds no node) and builds their heap, as newAlikeRun and
// placed do over every domain without a stream; skip is a domain whose
// best node is already set (-1: none).
func (r *alikeRun) entries(skip int) {
	r.heap = r.heap[:0]
	entry := func(e int) {
		r.ok[e], r.pref[e] = r.value(e)
		r.at[e] = -1
		if e == r.nd {
			r.best[e] = -1
		} else if r.ok[e] && e != skip {
			r.bestOf(e)
		}
		if r.ok[e] && r.best[e] >= 0 {
			r.at[e] = int32(len(r.heap))
			r.heap = append(r.heap, int32(e))
		}
	}
	for _, e := range r.listed {
		entry(int(e))
	}
	entry(r.nd)
	for x := len(r.heap)/2 - 1; x >= 0; x-- {
		r.down(x)
	}
}

// streamLeads reports whether, from now on, the run's next members each
// go to the stream's next node for as long as it has one: a fresh domain
// that takes one of the run's members falls strictly behind the uncounted
// domains (its value, freshOK and freshPref, is the same in every such
// domain), and so do the heap's first domain and every stale one. The
// uncounted domains' value does not change while members are placed (only
// a required affinity term's first match changes it, and placed has then
// valued the stream again), and what falls behind never comes back ahead,
// so every member placeOne would place goes where the stream says. A
// member's own required anti-affinity term (its domain barred once it
// takes one) and a preferred one (its domain valued lower) give this.
func (r *alikeRun) streamLeads() bool {
	st := &r.stream
	if !st.on || !st.ok || r.freshK != 1 || (r.freshOK && r.freshPref >= st.pref) {
		return false
	}
	if len(r.heap) > 0 && r.pref[r.heap[0]] >= st.pref {
		return false
	}
	return len(r.stale) == 0 || r.staleMax < st.pref
}

// streamAlike places the run's members order[x:e] from the stream while
// it has nodes, as placeAlike would member by member when streamLeads
// holds: each to the stream's best node, whose domain then takes the fresh
// value — without choosing among the heap, the stream and the stale
// domains, fixing the heap or valuing the domain a member at a time. It
// returns where placeAlike goes on and whether it must stop there (the
// budget ran out, or too few members are left to meet the requirement),
// as placeAlike's own checks would; nodes is the placement's size, the
// steps a member costs.
//
// Nothing in the pass reads the usage its members add: a node taken is in
// a counted domain, which the stream skips, and a stale domain is scored
// again only after the pass. So the usage is booked once the pass ends,
// and not at all when its members end the greedy pass's order (only a
// later member reads what they add; finish reads their positions).
func (sv *solver) streamAlike(r *alikeRun, a *attempt, order []int, x, e int, nodes int64) (int, bool) {
	from := len(a.seq)
	x, stop := sv.streamPass(r, a, order, x, e, nodes)
	if x < len(order) {
		for _, i := range a.seq[from:] {
			sv.putUsage(i, a.node[i])
		}
	}
	return x, stop
}

// streamPass is streamAlike's pass, the members' usage left unbooked.
func (sv *solver) streamPass(r *alikeRun, a *attempt, order []int, x, e int, nodes int64) (int, bool) {
	r.stream.buf, r.stream.at = r.stream.buf[:0], 0
	for ; x < e; x++ {
		if sv.exhausted || a.placed+len(order)-x < sv.need {
			return x, true
		}
		n, sc, ok := r.streamNext()
		if !ok {
			return x, false // the stream is done: placeAlike chooses again
		}
		if !sv.spend(nodes) {
			return x + 1, true
		}
		d := int(r.dom[n])
		i := order[x]
		a.node[i] = n
		a.placed++
		a.seq = append(a.seq, i)
		sv.pos[sv.bound+i] = n
		r.count(d)
		for c := range r.cls {
			rc := &r.cls[c]
			if rc.matched {
				rc.placed++
				rc.all[d]++
			}
			for range rc.mult {
				rc.owner(int32(d), rc.matched)
			}
		}
		r.ok[d], r.pref[d], r.score[d], r.at[d], r.best[d] = r.freshOK, r.freshPref, sc, -1, -1
		if r.freshOK {
			r.best[d] = n
			if len(r.stale) == 0 || r.freshPref > r.staleMax {
				r.staleMax = r.freshPref
			}
			r.stale = append(r.stale, int32(d))
		}
	}
	return e, false
}

// streamNext is peek's node and score for streamPass. With one source
// (one class of nodes fits: an empty or uniform cluster) no other can
// lead, so its next nodes are read from its set a buffer at a time, a
// node whose domain is counted skipped, instead of a search of the set
// per member; the source's next is kept at the node returned, as peek
// leaves it.
func (r *alikeRun) streamNext() (NodeID, int64, bool) {
	st := &r.stream
	if len(st.srcs) != 1 {
		src := r.peek()
		if src == nil {
			return 0, 0, false
		}
		return src.next, src.score, true
	}
	top := &st.srcs[0]
	for {
		for st.at < len(st.buf) {
			id := st.buf[st.at]
			st.at++
			if !r.counted[r.dom[id]] {
				top.next = id
				return id, top.score, true
			}
		}
		from := top.next // the first fill: the source's next, which may be counted
		if len(st.buf) > 0 {
			from = st.buf[len(st.buf)-1] + 1
		}
		st.buf, st.at = top.set.nodes.appendRange(st.buf[:0], from, math.MaxInt32, streamFill), 0
		if len(st.buf) == 0 {
			st.srcs = st.srcs[:0] // its set is done, as peek pops it
			return 0, 0, false
		}
	}
}

// streamFill is how many nodes streamNext reads at a time.
const streamFill = 64
