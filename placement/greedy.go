package placement

import (
	"math"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
)

// newAttempt returns an empty attempt that records a node per member, as
// the paths that place members one by one need, with room in seq for
// every member (see attemptPool).
func (sv *solver) newAttempt(p *Placement) *attempt {
	return sv.sc.attempts.get(p, len(sv.members), true)
}

// greedy places the members one by one in the given order and returns the
// attempt with the scratch state clean again. Without hooks or
// constraints it places a class's members in runs and records segments,
// so that a pod set's pods cost nothing one by one.
func (sv *solver) greedy(p *Placement, order []int) *attempt {
	// A run relies on packing: the node that took a member stays the best.
	batch := sv.batched && sv.ns == nil && sv.opts.NodeScorer == nil
	var a *attempt
	from := len(sv.sc.segs) // the batched attempt's segments follow the last one's
	if batch {
		a = sv.sc.attempts.get(p, 0, false)
	} else {
		a = sv.newAttempt(p)
	}
	for k := 0; k < len(order); {
		if sv.exhausted || a.placed+len(order)-k < sv.need {
			break // cannot reach the requirement any more
		}
		// A row's members (a pod set's pods) are consecutive in every
		// order, in member order.
		j := k + sv.rowEnd(order[k]) - order[k]
		if batch {
			for j < len(order) && sv.class[sv.members[order[j]].row] == sv.class[sv.members[order[k]].row] {
				j += sv.rowEnd(order[j]) - order[j]
			}
			// Only a later run reads the usage a run adds: the last one
			// (a group of one class: the only one) need not book it.
			sv.placeRun(p, a, order[k:j], j == len(order))
		} else if e := sv.alikeEnd(order, k); e > k+1 {
			j = sv.placeAlike(p, a, order, k, e)
		} else if sv.runHooks != nil {
			for j < len(order) && sv.hclass[sv.members[order[j]].row] == sv.hclass[sv.members[order[k]].row] {
				j++ // no pod sets with reservers: a row is a member
			}
			sv.placeHookedRun(p, a, order[k:j])
		} else {
			sv.placeOne(p, a, order[k])
			if a.node[order[k]] >= 0 {
				j = k + 1
			} // else the rest of its row — one *Pod to every check, nothing placed meanwhile — waits too
		}
		k = j
	}
	if batch {
		a.segs = sv.sc.segs[from:len(sv.sc.segs):len(sv.sc.segs)]
	}
	sv.finish(a)
	sv.undo(a)
	return a
}

// rowEnd returns the end (exclusive) in sv.members of the row of member i,
// from i on: a member is a row alone, a pod set's pods are consecutive.
func (sv *solver) rowEnd(i int) int {
	m := &sv.members[i]
	n := len(sv.g.Members)
	if int(m.index) < n {
		return i + 1
	}
	return i + sv.prep.starts[int(m.row)-n+1] - int(m.index)
}

// assign puts member i on node id in the scratch state.
func (sv *solver) assign(a *attempt, i int, id NodeID) {
	a.node[i] = id
	a.placed++
	a.seq = append(a.seq, i)
	sv.put(i, id)
}

// put adds member i on node id to the scratch state: usage, positions,
// reservers.
func (sv *solver) put(i int, id NodeID) {
	sv.putUsage(i, id)
	if len(sv.reservers) > 0 {
		ni := NodeInfo{sv.s, sv.w, id}
		for _, r := range sv.reservers {
			r.Reserve(sv.pod(sv.members[i].row), ni)
		}
	}
}

// putUsage is put without the reservers: usage and positions.
func (sv *solver) putUsage(i int, id NodeID) {
	m := &sv.members[i]
	sv.w.add(id, sv.req(m.row), 1)
	sv.nz.add(m.row, id, 1)
	if sv.pos != nil {
		sv.pos[sv.bound+i] = id
	}
}

// assignRun puts members idx, which share one class and request req, on
// node id at once and records them as segments of the batched attempt a
// (in sv.sc.segs until greedy hands them to a). idx ascends (every order
// keeps a class's members in member order), so it is consecutive when its
// ends are len(idx)-1 apart, as a pod set's pods are. last says the run is
// the greedy's last: only a later run reads the usage a run adds, so the
// last one need not book it.
func (sv *solver) assignRun(a *attempt, idx []int, id NodeID, req []int64, last bool) {
	a.placed += len(idx)
	if !last {
		sv.w.add(id, req, int64(len(idx)))
	}
	// Appending to the field itself writes back only its length unless
	// it grows: no write barrier per node.
	if idx[len(idx)-1]-idx[0] == len(idx)-1 {
		sv.sc.segs = append(sv.sc.segs, seg{int32(idx[0]), int32(len(idx)), id})
		return
	}
	for x := 0; x < len(idx); {
		y := x + 1
		for y < len(idx) && idx[y] == idx[y-1]+1 {
			y++
		}
		sv.sc.segs = append(sv.sc.segs, seg{int32(idx[x]), int32(y - x), id})
		x = y
	}
}

// seg is members start..start+n-1, consecutive in member order and of one
// class, on one node.
type seg struct {
	start, n int32
	node     NodeID
}

// segsOf returns the placed members of attempt a as segments in member
// order, each of members only or within one pod set: O(segments) for a
// batched attempt of pod sets, O(members) otherwise. The result is kept in
// a.
func (sv *solver) segsOf(a *attempt) []seg {
	if a.normal {
		return a.segs
	}
	var out []seg
	if a.node != nil {
		// Carved from the pool's segments, after those of the attempts
		// before: an attempt is read only within its Solve.
		from := len(sv.sc.segs)
		out = sv.sc.segs
		for i := 0; i < len(a.node); {
			end, j := sv.rowEnd(i), i+1
			for j < end && a.node[j] == a.node[i] {
				j++
			}
			if a.node[i] >= 0 {
				out = append(out, seg{int32(i), int32(j - i), a.node[i]})
			}
			i = j
		}
		sv.sc.segs, out = out, out[from:len(out):len(out)]
	} else {
		out = a.segs
		byStart := func(x, y seg) int { return int(x.start - y.start) }
		if !slices.IsSortedFunc(out, byStart) {
			slices.SortFunc(out, byStart)
		}
		// A run of identical members may span pod sets (or members and a
		// set): split it where a set begins or ends. Only rows of one
		// class can make such a run.
		n := len(sv.g.Members)
		if len(sv.g.PodSets) > 0 && len(sv.class) > sv.classes && slices.ContainsFunc(out, func(s seg) bool {
			if sv.rowEnd(int(s.start)) >= int(s.start+s.n) {
				return false // one row
			}
			return slices.ContainsFunc(sv.members[s.start:s.start+s.n], func(m member) bool { return int(m.index) >= n })
		}) {
			split := make([]seg, 0, len(out))
			for _, s := range out {
				for x, e := int(s.start), int(s.start+s.n); x < e; {
					y := x + 1
					if int(sv.members[x].index) >= n {
						y = min(sv.rowEnd(x), e)
					} else {
						for y < e && int(sv.members[y].index) < n {
							y++
						}
					}
					split = append(split, seg{int32(x), int32(y - x), s.node})
					x = y
				}
			}
			out = split
		}
	}
	a.segs, a.normal = out, true
	return out
}

// unassign takes back the member assigned last.
func (sv *solver) unassign(a *attempt) {
	i := a.seq[len(a.seq)-1]
	a.seq = a.seq[:len(a.seq)-1]
	m := &sv.members[i]
	id := a.node[i]
	if len(sv.reservers) > 0 {
		ni := NodeInfo{sv.s, sv.w, id}
		for k := len(sv.reservers) - 1; k >= 0; k-- {
			sv.reservers[k].Unreserve(sv.pod(m.row), ni)
		}
	}
	if sv.pos != nil {
		sv.pos[sv.bound+i] = -1
	}
	sv.w.sub(id, sv.req(m.row))
	sv.nz.add(m.row, id, -1)
	a.node[i] = -1
	a.placed--
}

// undo clears the scratch state of an attempt while keeping its result.
func (sv *solver) undo(a *attempt) {
	if len(sv.reservers) > 0 {
		// Last first, a node's consecutive members at once: each
		// reserver sees the calls one by one placement makes.
		for k := len(a.seq); k > 0; {
			id, j := a.node[a.seq[k-1]], k-1
			for j > 0 && a.node[a.seq[j-1]] == id {
				j--
			}
			pods := sv.runPods[:0]
			for _, i := range a.seq[j:k] {
				pods = append(pods, sv.pod(sv.members[i].row))
			}
			sv.runPods = pods
			ni := NodeInfo{sv.s, sv.w, id}
			for r := len(sv.reservers) - 1; r >= 0; r-- {
				unreserveRun(sv.reservers[r], pods, ni)
			}
			k = j
		}
	}
	if sv.pos != nil {
		for i := sv.bound; i < len(sv.pos); i++ {
			sv.pos[i] = -1
		}
	}
	sv.w.reset()
	sv.nz.reset()
}

// replay re-establishes the scratch state of attempt a; undo(a) clears it.
// Without hooks or constraints, each segment goes back at once.
func (sv *solver) replay(a *attempt) {
	if !sv.cons.empty() || len(sv.reservers) > 0 {
		for _, i := range a.seq { // reservers see the members in the order placed
			sv.put(i, a.node[i])
		}
		return
	}
	for _, s := range sv.segsOf(a) {
		row := sv.members[s.start].row
		sv.w.add(s.node, sv.req(row), int64(s.n))
		sv.nz.add(row, s.node, int64(s.n))
	}
}

// placeOne places member i on the best node of p that admits it, if any.
func (sv *solver) placeOne(p *Placement, a *attempt, i int) {
	m := &sv.members[i]
	if !sv.spend(int64(len(p.Nodes))) {
		return
	}
	best, bestScore, bestPref := NodeID(-1), int64(math.MinInt64), int64(math.MinInt64)
	prefs := sv.prefsOf(i)
	var chk *checker // allow for member i, set up once for all of p's nodes
	if sv.pos != nil {
		chk = sv.cons.checker(sv.bound+i, sv.pos)
	}
	cands := sv.normIDs[:0] // with a normalising scorer: scored together below
	for _, id := range p.Nodes {
		if !sv.fits(m, id) || (chk != nil && !chk.allow(id)) {
			continue
		}
		if sv.norm != nil {
			cands = append(cands, id)
			continue
		}
		pref, sc := prefs.on(id), sv.memberScore(m, id)
		if best < 0 || pref > bestPref || (pref == bestPref && sc > bestScore) {
			best, bestScore, bestPref = id, sc, pref
		}
	}
	if sv.norm != nil {
		sv.normIDs = cands
		for k, sc := range sv.candidateScores(m, cands) {
			id, pref := cands[k], prefs.on(cands[k])
			if best < 0 || pref > bestPref || (pref == bestPref && sc > bestScore) {
				best, bestScore, bestPref = id, sc, pref
			}
		}
		if sv.hookErr != nil {
			return
		}
	}
	if best >= 0 {
		sv.assign(a, i, best)
	}
}

// prefsOf sets up the preference scores of member i's nodes, which orders
// them as the group's whole preference score with i there would; none
// when the group has no preferred terms.
func (sv *solver) prefsOf(i int) prefs {
	if sv.cons.empty() || sv.cons.maxPref == 0 {
		return prefs{}
	}
	return sv.cons.prefsOf(sv.bound+i, sv.pos)
}

// placeRun places the members idx, which share one class, exactly as
// placeOne would one by one: the most-allocated node stays the most
// allocated after taking a member, so it is filled before the next. last
// is passed to assignRun.
func (sv *solver) placeRun(p *Placement, a *attempt, idx []int, last bool) {
	m := &sv.members[idx[0]]
	if sv.missingOf(m) != "" {
		return
	}
	if cls, lo, hi, ok := sv.classRange(p, m); ok {
		sv.placeRunClasses(a, idx, cls, lo, hi, last)
		return
	}
	if !sv.spend(int64(len(p.Nodes))) {
		return
	}
	h := sv.groupSources(p, m, int64(len(idx)))
	if sv.shortOfGroups(a, idx, h) {
		return
	}
	sv.drain(a, idx, h, last)
}

// classRange reports whether a run of member m's class over p goes by the
// snapshot's classes of identical nodes, restricted to the IDs lo..hi-1,
// rather than visiting every node: for the whole cluster, or a domain
// whose nodes have consecutive IDs (their names sort together) and are
// many to the classes, when m has no node selector (labels are not part
// of a class).
func (sv *solver) classRange(p *Placement, m *member) (cls *nodeClasses, lo, hi NodeID, ok bool) {
	if readsLabels(sv.pod(m.row)) {
		return nil, 0, 0, false
	}
	if k := len(p.Nodes); k == len(sv.s.b.nodes) {
		return sv.s.classes(), 0, NodeID(k), true
	} else if k >= 64 && p.Nodes[k-1]-p.Nodes[0] == NodeID(k-1) {
		if cls := sv.s.classes(); 4*len(cls.sets) <= k {
			return cls, p.Nodes[0], p.Nodes[k-1] + 1, true
		}
	}
	return nil, 0, 0, false
}

// groupSources returns p's nodes with room for member m (up to want
// copies) as sources: the untouched nodes grouped by static type and usage
// (nodes alike in both have the same room and score, and p.Nodes is
// ascending, so each group streams in ID order), and each touched node
// alone. Telling a node's group costs a comparison with the previous
// node's, or a hash of its usage row, where scoring it costs a division
// per resource. The sources, and the slice of them, are sv.gs's until
// the next call.
func (sv *solver) groupSources(p *Placement, m *member, want int64) []source {
	b, pod, req := sv.s.b, sv.pod(m.row), sv.req(m.row)
	perNode := readsLabels(pod) // labels are not part of a type
	gs := &sv.gs
	sv.grouped = nil
	if gs.table == nil {
		gs.table, gs.bits = make([]int32, 128), 7 // grows while groups fill half
	}
	gs.gid = slices.Grow(gs.gid[:0], len(p.Nodes))[:len(p.Nodes)]
	groups, gid, h := gs.groups[:0], gs.gid, gs.h[:0]
	last := -1                          // the group of the previous node grouped
	anyTouched := len(sv.w.touched) > 0 // a first run touches none
	for k, id := range p.Nodes {
		if anyTouched && sv.w.isTouched(id) {
			gid[k] = -1
			if staticOK(pod, &b.nodes[id]) {
				if c := sv.capacity(req, id, want); c > 0 {
					h = append(h, source{score: sv.nodeScore(req, id), cap: c, next: id})
				}
			}
			continue
		}
		if perNode && !staticOK(pod, &b.nodes[id]) {
			gid[k] = -1
			continue
		}
		typ, used := b.typeOf[id], sv.s.usedRow(id)
		if last >= 0 && groups[last].typ == typ && slices.Equal(groups[last].used, used) {
			gid[k] = int32(last)
			groups[last].count++
			continue
		}
		hash := uint64(typ)
		for _, q := range used {
			hash = (hash ^ uint64(q)) * 0x9e3779b97f4a7c15
		}
		if last = gs.find(groups, hash, typ, used); last < 0 {
			groups = append(groups, nodeGroup{typ: typ, rep: id, used: used, hash: hash})
			last = len(groups) - 1
			gs.insert(groups, last)
		}
		gid[k] = int32(last)
		groups[last].count++
	}
	// Each group with room gets its nodes, in p's order, in one buffer.
	end := int32(0)
	for g := range groups {
		gr := &groups[g]
		gs.table[gr.slot] = 0 // the table is empty again for the next call
		alloc := b.alloc[int(gr.rep)*sv.R : int(gr.rep+1)*sv.R]
		if perNode || staticOK(pod, &b.nodes[gr.rep]) {
			gr.cap = capacityOf(req, alloc, gr.used, nil, want)
			gr.score = scoreOf(req, alloc, gr.used, nil, b.podsR)
		}
		gr.off, gr.fill = end, end
		if gr.cap > 0 {
			end += gr.count
		}
	}
	gs.buf = slices.Grow(gs.buf[:0], int(end))[:end]
	for k, id := range p.Nodes {
		if g := gid[k]; g >= 0 && groups[g].cap > 0 {
			gs.buf[groups[g].fill] = id
			groups[g].fill++
		}
	}
	for g := range groups {
		if nodes := gs.buf[groups[g].off:groups[g].fill]; len(nodes) > 0 {
			h = append(h, source{score: groups[g].score, cap: groups[g].cap, next: nodes[0], ahead: nodes, at: 1})
		}
	}
	gs.groups, gs.h = groups, h
	return h
}

// groupScratch is groupSources' scratch, kept for a solve's runs; its
// table is all empty between calls.
type groupScratch struct {
	table  []int32 // open addressing by a hash's top bits, group+1 (0: empty)
	bits   int     // log2(len(table))
	gid    []int32 // per node of the placement: its group, or -1
	groups []nodeGroup
	buf    []NodeID // the groups' nodes
	h      []source // the sources groupSources returns (no pointer outside the scratch)
}

// find returns the group of nodes of type typ with usage row used, whose
// hash is hash, or -1.
func (gs *groupScratch) find(groups []nodeGroup, hash uint64, typ int32, used []int64) int {
	mask := uint64(len(gs.table) - 1)
	for i := hash >> (64 - gs.bits); gs.table[i] != 0; i = (i + 1) & mask { // a product's top bits mix all of its input
		if g := &groups[gs.table[i]-1]; g.hash == hash && g.typ == typ && slices.Equal(g.used, used) {
			return int(gs.table[i] - 1)
		}
	}
	return -1
}

// insert enters groups[g] in the table, doubling it first when half full.
func (gs *groupScratch) insert(groups []nodeGroup, g int) {
	if 2*(g+1) > len(gs.table) {
		gs.table, gs.bits = make([]int32, 2*len(gs.table)), gs.bits+1
		for k := range g {
			gs.place(groups, k)
		}
	}
	gs.place(groups, g)
}

func (gs *groupScratch) place(groups []nodeGroup, g int) {
	mask := uint64(len(gs.table) - 1)
	i := groups[g].hash >> (64 - gs.bits)
	for gs.table[i] != 0 {
		i = (i + 1) & mask
	}
	gs.table[i], groups[g].slot = int32(g+1), uint32(i)
}

// nodeGroup is a group of a placement's untouched nodes alike in static
// type and usage, with its room and score for one member and its nodes
// in groupScratch.buf[off:fill].
type nodeGroup struct {
	typ        int32
	rep        NodeID
	used       []int64 // rep's usage row
	hash       uint64
	slot       uint32 // its entry in the table
	count      int32
	off, fill  int32
	cap, score int64
}

// StaticFit reports whether the solver's built-in filters that do not
// depend on usage — unschedulable (kube-scheduler NodeUnschedulable),
// spec.nodeSelector and required node affinity (NodeAffinity) and
// NoSchedule/NoExecute taints
// (TaintToleration) — admit pod p on node n. Generators use it to pre-check
// nodes with exactly the solver's rules. A nil pod or node does not fit.
func StaticFit(p *Pod, n *Node) bool { return p != nil && n != nil && staticOK(p, n) }

// staticOK applies the built-in filters that do not depend on usage.
func staticOK(p *Pod, n *Node) bool {
	if n.Unschedulable && !toleratesUnschedulable(p) {
		return false
	}
	if len(p.NodeSelector) > 0 { // ranging over even an empty map costs an iterator
		for k, v := range p.NodeSelector {
			if lv, ok := n.Labels[k]; !ok || lv != v {
				return false
			}
		}
	}
	if p.NodeAffinity != nil && !p.NodeAffinity.Matches(n) {
		return false
	}
	for _, t := range n.Taints {
		if t.Effect == TaintEffectPreferNoSchedule {
			continue
		}
		if !tolerated(p, t) {
			return false
		}
	}
	return true
}

// toleratesUnschedulable mirrors the NodeUnschedulable plugin: a pod that
// tolerates the node.kubernetes.io/unschedulable:NoSchedule taint may go to
// a cordoned node.
func toleratesUnschedulable(p *Pod) bool {
	return tolerated(p, Taint{Key: "node.kubernetes.io/unschedulable", Effect: TaintEffectNoSchedule})
}

func tolerated(p *Pod, t Taint) bool {
	for _, tol := range p.Tolerations {
		if tol.Tolerates(t) {
			return true
		}
	}
	return false
}

// capacity returns how many copies of req fit on node id now (at most
// limit).
func (sv *solver) capacity(req []int64, id NodeID, limit int64) int64 {
	alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
	off, hasExtra := sv.w.offset(id)
	c := limit
	for r, q := range req {
		if q == 0 {
			continue
		}
		free := alloc[r] - used[r]
		if hasExtra {
			free -= sv.w.slab[int(off)+r]
		}
		if free < q {
			return 0
		}
		c = min(c, free/q)
	}
	return c
}

const scoreScale = 1 << 30

// rowScore is the node score of row's pod on node id: Options.NodeScoring's
// profile, or packing's nodeScore when it is the zero value.
func (sv *solver) rowScore(row int32, id NodeID) int64 {
	if sv.ns == nil {
		return sv.nodeScore(sv.req(row), id)
	}
	var extra []int64
	if off, ok := sv.w.offset(id); ok {
		extra = sv.w.slab[int(off) : int(off)+sv.R]
	}
	return sv.ns.score(sv.s.allocRow(id), sv.s.usedRow(id), extra, sv.req(row), sv.nz.adj(sv.s, row, id))
}

// nodeScore is the packing score of node id after one more copy of req:
// the sum over requested resources (the pods count excluded) of
// requested/allocatable, scaled by 2^30. It only compares nodes for one
// member, so the sum needs no averaging.
func (sv *solver) nodeScore(req []int64, id NodeID) int64 {
	alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
	off, hasExtra := sv.w.offset(id)
	var sc int64
	for r, q := range req {
		if q == 0 || r == sv.s.b.podsR {
			continue
		}
		u := used[r] + q
		if hasExtra {
			u += sv.w.slab[int(off)+r]
		}
		sc += arith.MulDiv(u, scoreScale, alloc[r])
	}
	return sc
}

// fits reports whether member m may go to node id now, including hooks.
func (sv *solver) fits(m *member, id NodeID) bool {
	if sv.missingOf(m) != "" || !staticOK(sv.pod(m.row), &sv.s.b.nodes[id]) || sv.capacity(sv.req(m.row), id, 1) == 0 {
		return false
	}
	ni := NodeInfo{sv.s, sv.w, id}
	p := sv.pod(m.row)
	for k, f := range sv.opts.Filters {
		if r := f.Filter(p, ni); !r.OK() {
			sv.hookCut = sv.hookCut || r.Cut
			sv.failedIn(r, "Options.Filters", k, p, ni)
			return false
		}
	}
	for k, rv := range sv.reservers {
		if r := rv.Filter(p, ni); !r.OK() {
			sv.hookCut = sv.hookCut || r.Cut
			sv.failedIn(r, "Options.Reservers", k, p, ni)
			return false
		}
	}
	return true
}
