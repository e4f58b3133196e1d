package placement

import "slices"

// Runs of alike members. Placed one by one (placeOne), a member with
// affinity terms — or one a placed member's terms select — costs a
// checker and preference set-up over the terms' matches and a visit of
// every node: O(members × (members + nodes)) for a group whose members all
// carry a term. But which nodes such a member may take, and how it
// prefers them, depends on a node only through its domain of the terms'
// key and on the other members only through how many of each class's
// matches (and owners) are placed in each domain. Members alike in
// requests, node filters, the classes of the terms they own and the
// classes that select them therefore see the same domains alike, and a
// placement changes the counts of its own domain only. placeAlike keeps,
// per domain, whether the run's next member may go there, its preference
// and its best node, in a heap ordered as placeOne orders nodes
// (preference, then score, then the lowest ID, which is name order): each
// member costs O(log domains) plus the nodes of its domain when its node
// fills up. TestProp_AlikeRunsArePlaceOne holds it to placeOne.

// alikeOff turns the runs off, so that tests can compare them with
// placeOne.
var alikeOff bool

// alikeEnd returns the end of the run of members alike to order[k] from k
// on in order, or k+1 when runs do not apply: the group has sub-groups,
// caller hooks or a scoring other than packing (under which a node that
// took a member need not stay its domain's best), or the classes that
// concern the members name more than one topology key.
func (sv *solver) alikeEnd(order []int, k int) int {
	c := sv.cons
	if alikeOff || c == nil || len(c.subs) > 0 || len(sv.opts.Filters) > 0 || len(sv.reservers) > 0 || sv.ns != nil || sv.opts.NodeScorer != nil {
		return k + 1
	}
	if _, ok := sv.alikeKey(order[k]); !ok {
		return k + 1
	}
	// Members of one class are alike (see splitUnalike).
	e, cl := k+1, sv.class[sv.members[order[k]].row]
	for e < len(order) && sv.class[sv.members[order[e]].row] == cl {
		e++
	}
	return e
}

// alikeKey returns the topology key of the classes that concern member i
// (those it owns terms of and those that select it; "" for none), false
// when they name two.
func (sv *solver) alikeKey(i int) (string, bool) {
	c, ci := sv.cons, sv.bound+i
	key, any := "", false
	check := func(k int32) bool {
		if cl := &c.classes[k]; !any {
			key, any = cl.key, true
		} else if cl.key != key {
			return false
		}
		return true
	}
	for _, ti := range c.owned(ci) {
		if !check(c.terms[ti].cls) {
			return "", false
		}
	}
	for _, k := range c.matchers(ci) {
		if !check(k) {
			return "", false
		}
	}
	return key, true
}

// alikeRun is placeAlike's state: the domains of the run's key over the
// placement's nodes (domain nd holds the nodes without the label), and
// per class that concerns the run the counts its value reads.
type alikeRun struct {
	sv   *solver
	m    *member
	pod  *Pod
	req  []int64
	dom  []int32 // per node its domain, -1 without the label; nil: no key
	nd   int
	doms [][]NodeID // per labelled domain, the placement's nodes in it, ascending
	rest []NodeID   // the placement's nodes without the label (domain nd)
	cls  []runClass
	// counts holds the classes' per-domain counts.
	counts []int32
	// Per domain: may the run's next member go there, its preference,
	// best node (-1: none fits) and that node's score; the heap holds the
	// domains with ok and a best node, at[d] is d's place in it or -1.
	ok    []bool
	pref  []int64
	best  []NodeID
	score []int64
	heap  []int32
	at    []int32
	// The last untouched node scored: a node of the same static type and
	// usage has the same fit and score.
	lastTyp      int32
	lastUsed     []int64
	lastFit      bool
	lastScore    int64
	labelsMatter bool // the members' node filters read labels: no node is like another
	// counted says, per labelled domain, that some placed member counts
	// in it: the others have every per-domain count zero, so one value
	// (see value) is theirs all — computed once, not once a domain.
	counted []bool
	// full has the bit of every touched node the run's members no longer
	// fit: usage only grows during a run, so bestOf skips it from then on
	// instead of checking it again each time its domain's best fills.
	full []uint64
	// listed holds the labelled domains counted, in the order they became
	// so; stream, when on, stands for all the others (see alikestream.go).
	listed []int32
	stream alikeStream
	// stale holds the domains whose best node took a member while they
	// stayed ok, out of the heap until their best is scored again (see
	// placed); staleMax is the highest preference among them.
	stale    []int32
	staleMax int64
	// fresh holds the value (see value) of a labelled domain no placed
	// member counted in before it took freshK of the run's members
	// (0: none yet): its counts are then the run's own k members', the
	// same in every such domain, so placed values it once a run.
	freshK    int32
	freshOK   bool
	freshPref int64
}

// runClass is a class that concerns the run: owned (mult terms of it per
// member) or selecting the members (matched), or both.
type runClass struct {
	cl      *termClass
	mult    int64
	matched bool
	all     []int32 // per domain: placed matches
	in, out []int32 // per domain: terms of placed owners that match their own selector, that do not
	placed  int32   // placed matches anywhere
}

// placeAlike places the members order[k:e], alike, as placeOne would one
// after the other, and returns where the greedy pass goes on: e, or the
// member after which it must stop (the budget ran out, or too few members
// are left to meet the requirement).
func (sv *solver) placeAlike(p *Placement, a *attempt, order []int, k, e int) int {
	r := sv.newAlikeRun(p, order[k])
	for x := k; x < e; x++ {
		if x > k && (sv.exhausted || a.placed+len(order)-x < sv.need) {
			return x
		}
		if !sv.spend(int64(len(p.Nodes))) {
			return x + 1
		}
		d := r.top()
		if d < 0 {
			continue // nothing changed: the rest wait too, each counted as placeOne counts it
		}
		n := r.best[d]
		sv.assign(a, order[x], n)
		// While d's value stays, its best node n takes the next members
		// until it is full, one by one as well: a member raises n's
		// packing score and no other domain's. Booked at once, they cost
		// one capacity look-up instead of a fit and a score each.
		got := int32(1)
		if r.stable(d) {
			for more := sv.capacity(r.req, n, int64(e-x-1)); more > 0; more-- {
				if sv.exhausted || a.placed+len(order)-(x+1) < sv.need {
					break // the loop's own check ends the run
				}
				if !sv.spend(int64(len(p.Nodes))) {
					return x + 2
				}
				x++
				sv.assign(a, order[x], n)
				got++
			}
		}
		r.placed(d, n, got)
		if r.streamLeads() {
			next, stop := sv.streamAlike(r, a, order, x+1, e, int64(len(p.Nodes)))
			if stop {
				return next
			}
			x = next - 1
		}
	}
	return e
}

// stable reports whether placing more of the run's members in domain d
// leaves d's value (see value) as it is: the members own no term, and no
// placed owner of a preferred term that selects them is in d (whether d
// holds one match or more changes what such a term adds).
func (r *alikeRun) stable(d int) bool {
	for x := range r.cls {
		rc := &r.cls[x]
		if rc.mult > 0 || (rc.matched && rc.cl.weight != 0 && d < r.nd && rc.in[d]+rc.out[d] > 0) {
			return false
		}
	}
	return true
}

// newAlikeRun sets up the run of member i in the scratch's alikeRun,
// reusing its memory.
func (sv *solver) newAlikeRun(p *Placement, i int) *alikeRun {
	c, ci := sv.cons, sv.bound+i
	m := &sv.members[i]
	r := &sv.sc.alike
	r.zero()
	*r = alikeRun{sv: sv, m: m, pod: sv.pod(m.row), req: sv.req(m.row), lastTyp: -1,
		cls: r.cls[:0], counts: r.counts, ok: r.ok, pref: r.pref, best: r.best, score: r.score, heap: r.heap[:0], at: r.at, counted: r.counted, full: r.full,
		listed: r.listed[:0], stream: alikeStream{srcs: r.stream.srcs[:0], buf: r.stream.buf[:0]}, stale: r.stale[:0]}
	r.labelsMatter = readsLabels(r.pod)
	r.full = grow(r.full, (len(sv.s.b.nodes)+63)/64)
	clear(r.full)
	key, _ := sv.alikeKey(i)
	slot := func(k int32) *runClass {
		if rc := r.find(&c.classes[k]); rc != nil {
			return rc
		}
		r.cls = append(r.cls, runClass{cl: &c.classes[k]})
		return &r.cls[len(r.cls)-1]
	}
	for _, ti := range c.owned(ci) {
		slot(c.terms[ti].cls).mult++
	}
	for _, k := range c.matchers(ci) {
		slot(k).matched = true
	}
	b := sv.s.b
	whole := false // the run's domains are the whole cluster's, every node labelled
	if len(r.cls) > 0 {
		ld := b.labelDomains(key)
		r.dom, r.nd = ld.of, len(ld.values)
		if len(p.Nodes) == len(b.nodes) && ld.labelled == len(b.nodes) {
			r.doms, whole = ld.nodes, true
		}
	}
	if r.doms == nil {
		r.doms, r.rest = bucketNodes(p.Nodes, r.dom, r.nd)
	}
	r.counts = grow(r.counts, 3*r.nd*len(r.cls)) // zero: see zero
	for x := range r.cls {
		rc := &r.cls[x]
		off := 3 * r.nd * x
		rc.all, rc.in, rc.out = r.counts[off:off+r.nd], r.counts[off+r.nd:off+2*r.nd], r.counts[off+2*r.nd:off+3*r.nd]
	}
	// Count what is placed: bound members and earlier runs'.
	r.counted = grow(r.counted, r.nd) // zero: see zero
	for j, n := range sv.pos {
		if n < 0 {
			continue
		}
		if len(c.matchers(j))+len(c.owned(j)) > 0 && r.dom != nil && r.dom[n] >= 0 {
			r.count(int(r.dom[n]))
		}
		for _, k := range c.matchers(j) {
			if rc := r.find(&c.classes[k]); rc != nil {
				rc.placed++
				if d := r.dom[n]; d >= 0 {
					rc.all[d]++
				}
			}
		}
		for _, ti := range c.owned(j) {
			t := &c.terms[ti]
			if rc := r.find(&c.classes[t.cls]); rc != nil {
				rc.owner(r.dom[n], c.selfMatch(int32(j), t.cls))
			}
		}
	}
	D := r.nd + 1
	r.ok, r.pref, r.best, r.score, r.at = grow(r.ok, D), grow(r.pref, D), grow(r.best, D), grow(r.score, D), grow(r.at, D)
	if r.streamable(whole) {
		r.startStream()
		r.entries(-1)
		return r
	}
	values := r.values()
	for d := range D {
		r.ok[d], r.pref[d] = values(d)
		r.best[d], r.score[d] = -1, 0
	}
	r.bestAll(p.Nodes)
	for d := range D {
		r.at[d] = -1
		if r.ok[d] && r.best[d] >= 0 {
			r.at[d] = int32(len(r.heap))
			r.heap = append(r.heap, int32(d))
		}
	}
	for x := len(r.heap)/2 - 1; x >= 0; x-- {
		r.down(x)
	}
	return r
}

// zero clears the counts and counted marks of the run r held, leaving
// every one zero for the next run. Only the listed domains have any, so
// this costs the domains taken, not a clear of every domain per class
// (1,000 hosts: 3,000 counts a class each run).
func (r *alikeRun) zero() {
	for x := range r.cls {
		rc := &r.cls[x]
		for _, d := range r.listed {
			rc.all[d], rc.in[d], rc.out[d] = 0, 0, 0
		}
	}
	for _, d := range r.listed {
		r.counted[d] = false
	}
	r.listed = r.listed[:0]
}

// forget drops what r points to of the solve, keeping its memory for
// the next.
func (r *alikeRun) forget() {
	r.zero()
	clear(r.cls[:cap(r.cls)])
	r.cls = r.cls[:0]
	clear(r.stream.srcs[:cap(r.stream.srcs)])
	r.stream = alikeStream{srcs: r.stream.srcs[:0], buf: r.stream.buf[:0]}
	r.sv, r.m, r.pod, r.req, r.dom, r.doms, r.rest, r.lastUsed = nil, nil, nil, nil, nil, nil, nil, nil
}

// nodesOf returns the placement's nodes in domain d, ascending.
func (r *alikeRun) nodesOf(d int) []NodeID {
	if d < r.nd {
		return r.doms[d]
	}
	return r.rest
}

// bucketNodes returns nodes (ascending) by domain of nd, and those
// without the label (dom -1, or every node when dom is nil).
func bucketNodes(nodes []NodeID, dom []int32, nd int) ([][]NodeID, []NodeID) {
	domOf := func(id NodeID) int {
		if dom != nil && dom[id] >= 0 {
			return int(dom[id])
		}
		return nd
	}
	start := make([]int32, nd+2)
	for _, id := range nodes {
		start[domOf(id)+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	flat, next := make([]NodeID, len(nodes)), slices.Clone(start)
	for _, id := range nodes {
		d := domOf(id)
		flat[next[d]] = id
		next[d]++
	}
	out := make([][]NodeID, nd)
	for d := range out {
		out[d] = flat[start[d]:start[d+1]:start[d+1]]
	}
	return out, flat[start[nd]:]
}

func (r *alikeRun) find(cl *termClass) *runClass {
	for x := range r.cls {
		if r.cls[x].cl == cl {
			return &r.cls[x]
		}
	}
	return nil
}

// owner counts a placed owner's term in domain d (-1: none); self says
// the owner matches the term's selector.
func (rc *runClass) owner(d int32, self bool) {
	if d < 0 {
		return
	}
	if self {
		rc.in[d]++
	} else {
		rc.out[d]++
	}
}

// value is whether the run's next member may go to domain d and its
// preference there, up to a constant: what checker.allow and prefs.on say
// of d's nodes, read from the counts.
func (r *alikeRun) value(d int) (bool, int64) {
	lab := d < r.nd
	var pref int64
	for x := range r.cls {
		rc := &r.cls[x]
		cl := rc.cl
		if rc.mult > 0 {
			held := lab && rc.all[d] > 0
			switch {
			case cl.weight != 0:
				if held != cl.anti {
					pref += cl.weight * rc.mult
				}
			case cl.anti:
				if held {
					return false, 0
				}
			case !lab || (!held && (rc.placed > 0 || !rc.matched)):
				return false, 0
			}
		}
		if !rc.matched || !lab {
			continue
		}
		if cl.weight == 0 {
			if cl.anti && rc.in[d]+rc.out[d] > 0 {
				return false, 0
			}
			continue
		}
		// Placed owners' terms that no other placed match breaks yet.
		var u int32
		switch rc.all[d] {
		case 0:
			u = rc.out[d]
		case 1:
			u = rc.in[d]
		}
		if cl.anti {
			pref -= cl.weight * int64(u)
		} else {
			pref += cl.weight * int64(u)
		}
	}
	return true, pref
}

// values returns value for every domain, the value of the labelled
// domains no placed member counts in computed once, on first use.
func (r *alikeRun) values() func(d int) (bool, int64) {
	var have, ok bool // have: an uncounted labelled domain was valued
	var pref int64
	return func(d int) (bool, int64) {
		if d == r.nd || r.counted[d] {
			return r.value(d)
		}
		if !have {
			have = true
			ok, pref = r.value(d)
		}
		return ok, pref
	}
}

// bestAll sets the best node of every domain judged ok, as bestOf does,
// in one pass over the placement's nodes (ascending, so the lowest ID
// wins ties as there): a call per domain costs more than its one node
// when the domains are hosts.
func (r *alikeRun) bestAll(nodes []NodeID) {
	for _, id := range nodes {
		d := r.nd
		if r.dom != nil && r.dom[id] >= 0 {
			d = int(r.dom[id])
		}
		if !r.ok[d] {
			continue
		}
		ok, sc := r.lastFit, r.lastScore
		if !r.cached(id) {
			ok, sc = r.fitScore(id)
		}
		if ok && (r.best[d] < 0 || sc > r.score[d]) {
			r.best[d], r.score[d] = id, sc
		}
	}
}

// quick says no node is touched yet and the node filters read no label:
// every node's fit and score is its type's and usage's (see cached).
func (r *alikeRun) quick() bool { return len(r.sv.w.touched) == 0 && !r.labelsMatter }

// cached says fitScore would answer node id from its cache of the last
// untouched node scored: id is untouched, of that node's type and usage,
// and the node filters read no label. The scans check it inline, before
// and after the run touches nodes — the untouched ones are most — as the
// call costs more than the check.
func (r *alikeRun) cached(id NodeID) bool {
	return !r.labelsMatter && !r.sv.w.isTouched(id) &&
		r.sv.s.b.typeOf[id] == r.lastTyp && slices.Equal(r.sv.s.usedRow(id), r.lastUsed)
}

// fitScore is whether the run's members fit node id now and its score.
func (r *alikeRun) fitScore(id NodeID) (bool, int64) {
	sv := r.sv
	b := sv.s.b
	// A run's first member often finds no node touched yet: no lookup.
	untouched := !sv.w.isTouched(id)
	if untouched && !r.labelsMatter {
		typ, used := b.typeOf[id], sv.s.usedRow(id)
		if typ == r.lastTyp && slices.Equal(used, r.lastUsed) {
			return r.lastFit, r.lastScore
		}
		r.lastTyp, r.lastUsed = typ, used
		r.lastFit = sv.fits(r.m, id)
		r.lastScore = 0
		if r.lastFit {
			r.lastScore = sv.nodeScore(r.req, id)
		}
		return r.lastFit, r.lastScore
	}
	if r.full[id/64]&(1<<(id%64)) != 0 {
		return false, 0
	}
	if !sv.fits(r.m, id) {
		r.full[id/64] |= 1 << (id % 64)
		return false, 0
	}
	return true, sv.nodeScore(r.req, id)
}

// bestOf sets domain d's best node: the highest score that fits, the
// lowest ID among equals.
func (r *alikeRun) bestOf(d int) {
	best, bs := NodeID(-1), int64(0)
	for _, id := range r.nodesOf(d) {
		ok, sc := r.lastFit, r.lastScore
		if !r.cached(id) {
			ok, sc = r.fitScore(id)
		}
		if ok && (best < 0 || sc > bs) {
			best, bs = id, sc
		}
	}
	r.best[d], r.score[d] = best, bs
}

// placed books k members put on node n, the best of domain d (k > 1 only
// when d is stable).
func (r *alikeRun) placed(d int, n NodeID, k int32) {
	global, fresh := false, d < r.nd && !r.counted[d]
	if d < r.nd {
		r.count(d)
	}
	for x := range r.cls {
		rc := &r.cls[x]
		if rc.matched {
			// An own required affinity term with no placed match admitted
			// every domain; now only this one.
			global = global || (rc.placed == 0 && rc.mult > 0 && rc.cl.weight == 0 && !rc.cl.anti)
			rc.placed += k
			if d < r.nd {
				rc.all[d] += k
			}
		}
		if d < r.nd {
			for range rc.mult * int64(k) {
				rc.owner(int32(d), rc.matched)
			}
		}
	}
	if !global {
		// A domain the next member may not take (a member's own required
		// anti-affinity term now held there) needs no best: every path
		// that judges a domain ok again looks for one when it has none.
		// One it may take waits, stale, for its best to be scored again
		// until it may be the next member's (see top): under a preferred
		// anti-affinity term the domains taken fall behind the others, and
		// most are never looked at again.
		if fresh && r.freshK == k {
			r.ok[d], r.pref[d] = r.freshOK, r.freshPref
		} else {
			r.ok[d], r.pref[d] = r.value(d)
			if fresh {
				r.freshK, r.freshOK, r.freshPref = k, r.ok[d], r.pref[d]
			}
		}
		r.best[d] = -1
		r.fix(d)
		if r.ok[d] {
			r.best[d] = n
			if len(r.stale) == 0 || r.pref[d] > r.staleMax {
				r.staleMax = r.pref[d]
			}
			r.stale = append(r.stale, int32(d))
		}
		return
	}
	r.rescore()
	r.rebest(d)
	if r.stream.on {
		r.streamValue()
		r.entries(d)
		return
	}
	r.heap = r.heap[:0]
	values := r.values()
	for e := range r.nd + 1 {
		r.ok[e], r.pref[e] = values(e)
		r.at[e] = -1
		if r.ok[e] && r.best[e] < 0 && e != d {
			r.bestOf(e) // a domain never judged ok had no best looked for
		}
		if r.ok[e] && r.best[e] >= 0 {
			r.at[e] = int32(len(r.heap))
			r.heap = append(r.heap, int32(e))
		}
	}
	for x := len(r.heap)/2 - 1; x >= 0; x-- {
		r.down(x)
	}
}

// rebest scores domain d's best node again after it took members: under
// packing it scores at least as high as before, so it stays d's best while
// it fits.
func (r *alikeRun) rebest(d int) {
	if ok, sc := r.fitScore(r.best[d]); ok {
		r.score[d] = sc
	} else {
		r.bestOf(d)
	}
}

// rescore scores the stale domains' best nodes again and puts them back in
// the heap. Their nodes took no member since (a stale domain is never
// chosen), so the scores are those placed would have given.
func (r *alikeRun) rescore() {
	for _, d := range r.stale {
		r.rebest(int(d))
		r.fix(int(d))
	}
	r.stale = r.stale[:0]
}

// before orders domains as placeOne orders their best nodes.
func (r *alikeRun) before(x, y int32) bool {
	if r.pref[x] != r.pref[y] {
		return r.pref[x] > r.pref[y]
	}
	if r.score[x] != r.score[y] {
		return r.score[x] > r.score[y]
	}
	return r.best[x] < r.best[y]
}

// fix restores the heap after domain d's entry changed, adding or
// removing it.
func (r *alikeRun) fix(d int) {
	in := r.ok[d] && r.best[d] >= 0
	x := int(r.at[d])
	switch {
	case x < 0 && !in:
		return
	case x < 0:
		x = len(r.heap)
		r.heap = append(r.heap, int32(d))
		r.at[d] = int32(x)
	case !in:
		last := len(r.heap) - 1
		r.swap(x, last)
		r.heap = r.heap[:last]
		r.at[d] = -1
		if x == last {
			return
		}
	}
	r.down(x)
	r.up(x)
}

func (r *alikeRun) swap(x, y int) {
	r.heap[x], r.heap[y] = r.heap[y], r.heap[x]
	r.at[r.heap[x]], r.at[r.heap[y]] = int32(x), int32(y)
}

func (r *alikeRun) up(x int) {
	for x > 0 {
		p := (x - 1) / 2
		if !r.before(r.heap[x], r.heap[p]) {
			return
		}
		r.swap(x, p)
		x = p
	}
}

func (r *alikeRun) down(x int) {
	for {
		l, best := 2*x+1, x
		if l < len(r.heap) && r.before(r.heap[l], r.heap[best]) {
			best = l
		}
		if l+1 < len(r.heap) && r.before(r.heap[l+1], r.heap[best]) {
			best = l + 1
		}
		if best == x {
			return
		}
		r.swap(x, best)
		x = best
	}
}
