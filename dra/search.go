package dra

import (
	"github.com/gangsched/gangsched/placement"
)

// DefaultSearchBudget is the budget a zero Options.SearchBudget stands
// for: device choices one search may try.
const DefaultSearchBudget int64 = 1 << 16

// Options configures the device search of [Ledger.Reserver],
// [Ledger.Commit] and [Ledger.Plan].
type Options struct {
	// SearchBudget caps the device choices (one device tried for one
	// request, or one subrequest tried) of a single search; 0 means
	// [DefaultSearchBudget]. It is counted, never timed, so the same input
	// always gives the same answer. A search cut short rejects the node
	// with a reason that says so.
	SearchBudget int64
}

// svar is one claim to allocate in a search.
type svar struct {
	claim int32
	spec  *spec
	reach []*placement.Node // every device must be reachable from each
	at    placement.NodeID  // reach[0]'s ID in the reserver's snapshot; -1 without one
}

// usage selects what a search treats as taken.
type usage uint8

const (
	useAll  usage = iota // the ledger and the solve's assignment
	useBase              // the ledger only: a relaxation
	useNone              // nothing: can the claims be satisfied at all?
)

type outcome uint8

const (
	found outcome = iota
	infeasible
	exhausted
)

// assign is the devices chosen for one claim in a solve.
type assign struct {
	devs []int32
	alts []*calt // per device: the request or subrequest it serves
}

// scratch is per-reserver search state, clean between searches.
type scratch struct {
	taken  lazy[bool] // per device: picked in the running search
	ctr    []int64    // per counter: consumed by the running search
	shared []int64    // per capacity of a shared device: consumed by the running search
	uses   []capUse   // scratch for consumption
}

type slotState struct {
	v, req int
	cands  [][]int32 // per alternative: candidate devices
	busy   []bool    // per alternative (All mode): a matching device is taken
}

// consState is a constraint's state in a search, with v1.37's set
// semantics (a scalar is a set of one): how many picks it covers; for
// matchAttribute, the elements all of them share (inter[k] after pick k,
// so that taking a pick back restores the set before it); for
// distinctAttribute, every element taken, in pick order.
type consState struct {
	n     int
	inter [][]Attribute
	vals  []Attribute
}

// admits reports whether a device with attribute value v keeps the
// constraint (distinct or match) in state cs.
func (cs *consState) admits(distinct bool, v Attribute) bool {
	if distinct {
		return !anyIn(cs.vals, v)
	}
	return cs.n == 0 || anyIn(cs.inter[cs.n-1], v)
}

// add records a pick with value v; admits(v) must hold.
func (cs *consState) add(distinct bool, v Attribute) {
	if distinct {
		cs.vals = v.appendElems(cs.vals)
		cs.n++
		return
	}
	if len(cs.inter) == cs.n {
		cs.inter = append(cs.inter, nil)
	}
	if cs.n == 0 {
		cs.inter[0] = v.appendElems(cs.inter[0][:0])
	} else {
		cs.inter[cs.n] = intersect(cs.inter[cs.n], cs.inter[cs.n-1], v)
	}
	cs.n++
}

// remove takes back the last pick, whose value was v.
func (cs *consState) remove(distinct bool, v Attribute) {
	cs.n--
	if distinct {
		cs.vals = cs.vals[:len(cs.vals)-v.size()]
	}
}

type dfs struct {
	bufs   [][]int32 // candidate buffers, reused across searches
	nbuf   int
	r      *reserver
	vars   []svar
	slots  []slotState
	cons   [][]consState
	use    usage
	picks  []int32 // devices, in pick order
	alts   []*calt // the alternative each pick serves
	pslot  []int32 // the slot each pick serves
	nadmin int     // picks made with admin access
	steps  int64
	budget int64
	stop   bool
	// gst is the state of the PodGroup's constraints across claims (see
	// GroupDeviceConstraint), inSearch marks the claims among vars.
	gst      []consState
	inSearch []bool
	orig     [][][]int32 // byValue's unfiltered candidates, per slot and alternative
	ends     []int       // assigns' scratch
	grouped  bool        // the group's constraints apply (see reserver.noGroup)
	plained  bool        // search took plain's picks (slots[0].cands[0] holds the candidates)
	// heldSkips counts the devices that candidates left out, since
	// reset, because the assignment holds them (see noteFull).
	heldSkips int
}

// search allocates vars together, in order, each alternative and device
// in candidate order, backtracking chronologically: the first solution in
// that order wins, so earlier claims keep their preferred choices when
// possible (KEP-4816: the first subrequest that works). When want is set
// it returns one assign per var. It reuses the reserver's buffers, so
// searches never nest.
func (r *reserver) search(vars []svar, use usage, want bool) ([]*assign, outcome) {
	if !r.setup(vars, use) {
		return nil, infeasible
	}
	x := &r.x
	if pick := x.plain(); pick != nil {
		x.keep()
		x.plained = true
		if !want {
			return nil, found
		}
		alt := &vars[0].spec.reqs[0].alts[0]
		if alt.self != nil { // every pick serves alt: its shared list
			as, devs := r.slab.takeDevs(1, len(pick))
			as[0].devs, as[0].alts = append(devs, pick...), alt.self
			return r.slab.ptrs(as), found
		}
		as, devs, alts := r.slab.take(1, len(pick))
		as[0].devs = append(devs, pick...)
		for range pick {
			alts = append(alts, alt)
		}
		as[0].alts = alts
		return r.slab.ptrs(as), found
	}
	return x.decide(want)
}

// setup readies r.x to search vars: the candidates of every slot. It
// reports false when a slot has too few, so that vars are infeasible.
func (r *reserver) setup(vars []svar, use usage) bool {
	r.scratchState()
	r.x.reset(r, vars, use)
	x := &r.x
	for v := range vars {
		sp := vars[v].spec
		var cs []consState
		if len(sp.cons) > 0 {
			cs = make([]consState, len(sp.cons))
		}
		x.cons = append(x.cons, cs)
		for q := range sp.reqs {
			st := x.nextSlot(v, q)
			feasible := false
			for a := range sp.reqs[q].alts {
				alt := &sp.reqs[q].alts[a]
				c, busy := r.candidates(&vars[v], alt, use, x.buf())
				st.cands = append(st.cands, c)
				st.busy = append(st.busy, busy)
				if alt.all && !busy && len(c) > 0 || !alt.all && len(c) >= alt.count {
					feasible = true
				}
			}
			if !feasible {
				x.keep()
				return false
			}
		}
	}
	return true
}

// reset readies x for a search of vars by r with use: every field as a
// fresh dfs has it, its buffers kept. Field by field rather than a
// struct literal: a literal is copied in with a write barrier over every
// pointer field while the collector runs, and a gang searches once a
// member; a slice cut to [:0] in place writes no pointer.
func (x *dfs) reset(r *reserver, vars []svar, use usage) {
	if x.r != r {
		x.r = r
	}
	x.vars, x.use, x.budget = vars, use, r.budget
	x.slots, x.cons, x.gst = x.slots[:0], x.cons[:0], x.gst[:0]
	x.picks, x.alts, x.pslot = x.picks[:0], x.alts[:0], x.pslot[:0]
	x.nbuf, x.nadmin, x.steps = 0, 0, 0
	x.stop, x.plained, x.heldSkips = false, false, 0
	x.grouped = len(r.rs.gcons) > 0 && !r.noGroup
}

// decide runs the depth-first search that setup readied.
func (x *dfs) decide(want bool) ([]*assign, outcome) {
	sc := &x.r.sc
	var out0 outcome
	switch {
	case !x.grouped:
		out0 = x.run(sc)
	case !x.seedGroup():
		out0 = infeasible
	default:
		out0 = x.byValue(sc)
	}
	if out0 != found {
		x.keep()
		return nil, out0
	}
	var out []*assign
	if want {
		out = x.assigns(len(x.vars))
	}
	for k := len(x.picks) - 1; k >= 0; k-- {
		x.untake(int(x.pslot[k]), x.alts[k])
	}
	x.keep()
	return out, found
}

// plain returns the devices the depth-first search would pick, without
// it, when that is plainly its first Count candidates: one claim of one
// request of one alternative, exactly Count devices, no constraint of
// the claim or the PodGroup, and those candidates exclusive and consuming
// no counter, so each fits in turn. It returns nil otherwise (also when
// the budget could not pay the picks: the search would be cut).
func (x *dfs) plain() []int32 {
	if x.grouped || len(x.vars) != 1 || len(x.slots) != 1 || len(x.vars[0].spec.cons) > 0 {
		return nil
	}
	st := &x.slots[0]
	alt := &x.vars[0].spec.reqs[st.req].alts[0]
	if len(st.cands) != 1 || alt.all || alt.admin || int64(alt.count)+1 > x.budget {
		return nil
	}
	pick := st.cands[0][:alt.count] // the caller found enough candidates
	for _, d := range pick {
		if dv := &x.r.inv.devs[d]; dv.multi || len(dv.uses) > 0 {
			return nil
		}
	}
	return pick
}

// assigns returns the picks as one assign per var, in pick order, carved
// from the reserver's slab (assigns are never appended to).
func (x *dfs) assigns(nvars int) []*assign {
	ends := append(x.ends[:0], make([]int, nvars+1)...) // ends[v+1]: picks of vars up to v
	x.ends = ends
	for _, p := range x.pslot {
		ends[x.slots[p].v+1]++
	}
	for v := range nvars {
		ends[v+1] += ends[v]
	}
	as, devs, alts := x.r.slab.take(nvars, len(x.picks))
	devs, alts = devs[:len(x.picks)], alts[:len(x.picks)]
	for v := range as {
		as[v].devs, as[v].alts = devs[ends[v]:ends[v]:ends[v+1]], alts[ends[v]:ends[v]:ends[v+1]]
	}
	for k, d := range x.picks {
		a := &as[x.slots[x.pslot[k]].v]
		a.devs = append(a.devs, d)
		a.alts = append(a.alts, x.alts[k])
	}
	return x.r.slab.ptrs(as)
}

// run searches the slots as their candidates stand: each slot must have
// enough candidates, the slots together enough devices (hall), and then
// the depth-first search decides.
func (x *dfs) run(sc *scratch) outcome {
	for i := range x.slots {
		st := &x.slots[i]
		feasible := false
		for a, c := range st.cands {
			alt := &x.vars[st.v].spec.reqs[st.req].alts[a]
			if alt.all && !st.busy[a] && len(c) > 0 || !alt.all && len(c) >= alt.count {
				feasible = true
				break
			}
		}
		if !feasible {
			return infeasible
		}
	}
	if !x.hall(sc) {
		return infeasible
	}
	if !x.slot(0) {
		if x.stop {
			return exhausted
		}
		return infeasible
	}
	return found
}

// nextSlot appends a slot for request q of var v, reusing old buffers.
func (x *dfs) nextSlot(v, q int) *slotState {
	if len(x.slots) < cap(x.slots) {
		x.slots = x.slots[:len(x.slots)+1]
		st := &x.slots[len(x.slots)-1]
		*st = slotState{v: v, req: q, cands: st.cands[:0], busy: st.busy[:0]}
		return st
	}
	x.slots = append(x.slots, slotState{v: v, req: q})
	return &x.slots[len(x.slots)-1]
}

// buf hands out a reusable candidate buffer.
func (x *dfs) buf() []int32 {
	if x.nbuf == len(x.bufs) {
		x.bufs = append(x.bufs, nil)
	}
	b := x.bufs[x.nbuf][:0]
	x.nbuf++
	return b
}

// keep saves the grown candidate buffers for the next search.
func (x *dfs) keep() {
	k := 0
	for i := range x.slots {
		for _, c := range x.slots[i].cands {
			if k < len(x.bufs) && cap(c) > cap(x.bufs[k]) {
				x.bufs[k] = c
			}
			k++
		}
	}
}

// hall checks a necessary condition: the devices that could serve any
// slot are at least as many as the slots need together.
func (x *dfs) hall(sc *scratch) bool {
	need, have := 0, 0
	var marked []int32
	for i := range x.slots {
		st := &x.slots[i]
		least := -1
		for a, c := range st.cands {
			alt := &x.vars[st.v].spec.reqs[st.req].alts[a]
			n := alt.count
			if alt.all {
				n = len(c)
			}
			if least < 0 || n < least {
				least = n
			}
			for _, d := range c {
				if x.r.inv.devs[d].multi || alt.admin {
					// A shared device, or one seen with admin access,
					// may serve several slots: no bound.
					for _, m := range marked {
						sc.taken.set(m, false)
					}
					return true
				}
				if !sc.taken.get(d) {
					sc.taken.set(d, true)
					marked = append(marked, d)
				}
			}
		}
		need += least
	}
	have = len(marked)
	for _, d := range marked {
		sc.taken.set(d, false)
	}
	return need <= have
}

func (x *dfs) spend() bool {
	x.steps++
	if x.steps > x.budget {
		x.stop = true
		return false
	}
	return true
}

func (x *dfs) slot(p int) bool {
	if p == len(x.slots) {
		return true
	}
	st := &x.slots[p]
	req := &x.vars[st.v].spec.reqs[st.req]
	for a := range req.alts {
		alt := &req.alts[a]
		if !x.spend() {
			return false
		}
		c := st.cands[a]
		if alt.all {
			if st.busy[a] || len(c) == 0 {
				continue
			}
			if x.takeAll(p, alt, c) {
				if x.slot(p + 1) {
					return true
				}
				for range c {
					x.untake(p, alt)
				}
			}
			continue
		}
		if x.pick(p, alt, c, 0, alt.count) {
			return true
		}
		if x.stop {
			return false
		}
	}
	return false
}

// pick chooses need more devices from c[from:] for slot p, as an
// increasing sequence, so each set is tried once.
func (x *dfs) pick(p int, alt *calt, c []int32, from, need int) bool {
	if need == 0 {
		return x.slot(p + 1)
	}
	for i := from; i+need <= len(c); i++ {
		if !x.spend() {
			return false
		}
		d := c[i]
		if !x.fits(p, alt, d) {
			continue
		}
		x.take(p, alt, d)
		if x.pick(p, alt, c, i+1, need-1) {
			return true
		}
		x.untake(p, alt)
		if x.stop {
			return false
		}
	}
	return false
}

func (x *dfs) takeAll(p int, alt *calt, c []int32) bool {
	for k, d := range c {
		if !x.fits(p, alt, d) {
			for range k {
				x.untake(p, alt)
			}
			return false
		}
		x.take(p, alt, d)
	}
	return true
}

// fits reports whether device d may serve alternative alt of slot p now:
// not picked yet, its counters not exceeded, the claim's constraints met.
func (x *dfs) fits(p int, alt *calt, d int32) bool {
	r := x.r
	sc := &r.sc
	st := &x.slots[p]
	dv := &r.inv.devs[d]
	if dv.multi || alt.admin || x.nadmin > 0 {
		// A claim lists a device at most once, whatever its requests'
		// access (upstream's allocatingDeviceForClaim); other claims may
		// share a device that allows multiple allocations, or one seen
		// with admin access.
		for k, pd := range x.picks {
			if pd == d && x.slots[x.pslot[k]].v == st.v {
				return false
			}
		}
	}
	switch {
	case alt.admin:
		return x.meets(st, alt, dv) // takes no device, counter or capacity
	case dv.multi:
		// Within what is left of each capacity.
		sc.uses, _ = alt.consumption(dv, sc.uses[:0])
		for _, u := range sc.uses {
			if x.overdraws(r.inv.shared[u.slot], sc.shared[u.slot], u.n, &r.l.shared, r.sharedHeld, u.slot) {
				return false
			}
		}
	case sc.taken.get(d):
		return false
	}
	for _, u := range dv.uses {
		if x.overdraws(r.inv.counters[u.c], sc.ctr[u.c], u.n, &r.l.ctr, r.ctr, u.c) {
			return false
		}
	}
	return x.meets(st, alt, dv)
}

// meets reports whether dv serving alt of slot st keeps the claim's
// constraints.
func (x *dfs) meets(st *slotState, alt *calt, dv *device) bool {
	sp := x.vars[st.v].spec
	for ci := range sp.cons {
		c := &sp.cons[ci]
		if !c.covers(&sp.reqs[st.req], alt) {
			continue
		}
		v, ok := Attr(dv.id.Driver, dv.d, c.attr)
		if !ok {
			return false
		}
		if !x.cons[st.v][ci].admits(c.distinct, v) {
			return false
		}
	}
	return !x.grouped || x.meetsGroup(st, alt, dv)
}

// overdraws reports whether taking n more of entry i of a pool of
// quantities (a counter, or a shared device's capacity) exceeds its limit,
// beside what the running search took (mine) and what x.use counts as
// taken: the ledger's consumption and, with useAll, the solve's assignment
// (held; nil when it holds nothing).
func (x *dfs) overdraws(limit, mine, n int64, ledger *cow[int64], held []int64, i int32) bool {
	var fromLedger, fromHeld int64
	if x.use != useNone {
		fromLedger = ledger.get(int(i))
	}
	if x.use == useAll && held != nil {
		fromHeld = held[i]
	}
	return exceeds(limit, mine, n, fromLedger, fromHeld)
}

func (x *dfs) take(p int, alt *calt, d int32) {
	r := x.r
	dv := &r.inv.devs[d]
	switch {
	case alt.admin:
		x.nadmin++
	case dv.multi:
		r.sc.uses, _ = alt.consumption(dv, r.sc.uses[:0])
		for _, u := range r.sc.uses {
			r.sc.shared[u.slot] += u.n
		}
	default:
		r.sc.taken.set(d, true)
	}
	if !alt.admin {
		for _, u := range dv.uses {
			r.sc.ctr[u.c] += u.n
		}
	}
	st := &x.slots[p]
	sp := x.vars[st.v].spec
	for ci := range sp.cons {
		if c := &sp.cons[ci]; c.covers(&sp.reqs[st.req], alt) {
			v, _ := Attr(dv.id.Driver, dv.d, c.attr)
			x.cons[st.v][ci].add(c.distinct, v)
		}
	}
	if x.grouped {
		x.markGroup(st, alt, dv, true)
	}
	x.picks = append(x.picks, d)
	x.alts = append(x.alts, alt)
	x.pslot = append(x.pslot, int32(p))
}

// untake takes back the last pick, which served alt of slot p.
func (x *dfs) untake(p int, alt *calt) {
	r := x.r
	k := len(x.picks) - 1
	d := x.picks[k]
	x.picks, x.alts, x.pslot = x.picks[:k], x.alts[:k], x.pslot[:k]
	switch dv := &r.inv.devs[d]; {
	case alt.admin:
		x.nadmin--
	case dv.multi:
		r.sc.uses, _ = alt.consumption(dv, r.sc.uses[:0])
		for _, u := range r.sc.uses {
			r.sc.shared[u.slot] -= u.n
		}
	default:
		r.sc.taken.set(d, false)
	}
	if !alt.admin {
		for _, u := range r.inv.devs[d].uses {
			r.sc.ctr[u.c] -= u.n
		}
	}
	st := &x.slots[p]
	sp := x.vars[st.v].spec
	for ci := range sp.cons {
		if c := &sp.cons[ci]; c.covers(&sp.reqs[st.req], alt) {
			dv := &r.inv.devs[d]
			v, _ := Attr(dv.id.Driver, dv.d, c.attr)
			x.cons[st.v][ci].remove(c.distinct, v)
		}
	}
	if x.grouped {
		x.markGroup(st, alt, &r.inv.devs[d], false)
	}
}

// candidates appends to out the devices that may serve alt for v, in
// candidate order: those near (see nearOf) v.reach[0], reachable
// from every other node of v.reach too and, as use says, not taken (with
// admin access, taken ones too). For All mode it lists every matching
// reachable device and busy says whether one of them is taken.
func (r *reserver) candidates(v *svar, alt *calt, use usage, out []int32) ([]int32, bool) {
	busy := false
next:
	for _, d := range r.nearOf(alt, v) {
		for _, n := range v.reach[1:] {
			if !r.inv.reachable(d, n) {
				continue next
			}
		}
		if alt.admin {
			out = append(out, d)
			continue
		}
		if use != useNone && r.l.used.get(int(d)) {
			busy = busy || alt.all
			continue
		}
		if use == useAll && r.held.pages != nil && r.held.get(d) != 0 {
			busy = busy || alt.all
			r.x.heldSkips++
			continue
		}
		out = append(out, d)
	}
	return out, busy
}

// nearOf returns the devices that could serve alt from v's first node
// (v.at) on an idle cluster, in candidate order: reachable from the
// node, matching, their taints tolerated, providing the capacities alt
// asks for (see calt.usable). When that is the node's local devices
// themselves, as on nodes of GPUs alike with no usable network device,
// the alternative's memo says so (see calt.localNear) and no list is
// built. Otherwise none of that changes while a reserver lives (its
// inventory and snapshot are fixed), so each list is built once per
// alternative and node: a gang's searches ask about the same few nodes
// again and again. Without a snapshot's node ID (Ledger.Plan) it is
// built afresh.
func (r *reserver) nearOf(alt *calt, v *svar) []int32 {
	if own, ok := alt.localNear(r.inv, v.reach[0]); ok {
		return own // the node's locals, or nothing: no list to build or keep
	}
	if v.at < 0 || r.s == nil {
		r.nearTmp = r.appendNear(r.nearTmp[:0], alt, v.reach[0])
		return r.nearTmp
	}
	if alt != r.nearAlt {
		k, ok := r.nearIx[alt]
		if !ok {
			if r.nearIx == nil {
				// Sized for the members with claims of their own, each
				// asking about its node; members sharing a claim ask
				// about the first one's only. A map grown insert by
				// insert costs more than the lists.
				r.nearIx, r.near = map[*calt]uint64{}, make(map[uint64]span, min(r.rs.solo, r.s.NumNodes()))
			}
			k = uint64(len(r.nearIx)) << 32
			r.nearIx[alt] = k
		}
		r.nearAlt, r.nearKey = alt, k
	}
	k := r.nearKey | uint64(uint32(v.at))
	sp, ok := r.near[k]
	if !ok {
		sp = r.newNear(alt, v.reach[0])
		r.near[k] = sp
	}
	if sp.at < 0 {
		own := r.inv.locals[-1-sp.at]
		return own[:len(own):len(own)]
	}
	return r.nearBuf[sp.at : sp.at+sp.n : sp.at+sp.n]
}

// span is a list of nearOf's: r.nearBuf[at:at+n], or for at < 0 the
// local devices of the node of index -1-at in Inventory.locals.
type span struct{ at, n int32 }

// newNear builds nearOf's list for alt and node n: the node's local
// devices themselves, not a copy, when they are the list (a node of
// GPUs alike, each usable); otherwise a list in r.nearBuf.
func (r *reserver) newNear(alt *calt, n *placement.Node) span {
	at := len(r.nearBuf)
	r.nearBuf = r.appendNear(r.nearBuf, alt, n)
	l := r.nearBuf[at:]
	if ix, ok := r.inv.nodeIx[n.Name]; ok && len(l) > 0 {
		// The list is the locals in order, then other devices: one as
		// long as the locals that ends with their last is the locals.
		if own := r.inv.locals[ix]; len(l) == len(own) && l[len(l)-1] == own[len(own)-1] {
			r.nearBuf = r.nearBuf[:at]
			return span{at: -1 - ix, n: int32(len(own))}
		}
	}
	return span{at: int32(at), n: int32(len(l))}
}

// appendNear appends nearOf's list for alt and node n to out.
func (r *reserver) appendNear(out []int32, alt *calt, n *placement.Node) []int32 {
	r.inv.eachReachable(n, func(d int32) bool {
		if alt.usable(r.inv, d) {
			out = append(out, d)
		}
		return true
	})
	return out
}
