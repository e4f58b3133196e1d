package dra

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// Reserver returns the placement hook that allocates the devices of a
// PodGroup's claims while [placement.Solve] places its members (pass it in
// [placement.Options].Reservers). pg is the group's DRA spec; its key must
// be the solved group's.
//
// For each member on each node the hook checks that the claims already
// allocated (in the ledger, or earlier in this attempt for a claim the
// member shares with members placed before it) are reachable from the
// node, that reservedFor stays within [MaxReservedFor], and that the
// member's unallocated claims can be allocated there. A claim the group
// shares is allocated once, with the first member that uses it, on devices
// reachable from that member's node; later members must reach them
// (KEP-5729). When a member's claims do not fit only because of devices
// chosen for earlier members, the hook searches again, reassigning the
// devices of every claim that competes with this member's, directly or
// through a chain of claims (D10: a prioritized request falls back to its
// second choice so that another member fits; the greedy trap: every
// earlier claim moves off its first choice), while every member keeps its
// node. That search is complete within Options.SearchBudget, so with the
// solver's backtracking over nodes a group is placed whenever a choice of
// nodes and devices exists; a search cut short by the budget says so in
// its rejection.
//
// Rejections name the claim and say why ("ResourceClaim default/c: not
// enough free matching devices"), so the decision's reasons say when a
// group waits on devices (see [WaitsOnDevices]). A rejection is
// Unresolvable when the member's claims cannot be satisfied from the node
// even on an idle cluster.
//
// The factory returns an error (and the solve with it) for a member entry
// or PodGroup entry that is malformed, names a claim or template that does
// not exist, or a claim to allocate whose device class does not exist.
func (l *Ledger) Reserver(pg PodGroup, opts Options) placement.NewReserverFunc {
	return func(s *placement.Snapshot, g placement.GroupView) (placement.Reserver, error) {
		r, err := l.newReserver(l.takeReserver(), s, &pg, g.Group, opts)
		if err != nil {
			return nil, err
		}
		need := 1
		if g.IsGang() {
			need = max(int(g.MinCount)-g.BoundCount(s), 1)
		}
		r.allNeeded = need >= g.NumPending()
		return hook{r}, nil
	}
}

// WaitsOnDevices reports whether some reason of d comes from this
// package's hook: the group waits, at least in part, on devices.
func WaitsOnDevices(d placement.Decision) bool {
	for _, r := range d.Reasons {
		if strings.HasPrefix(r.Reason, "ResourceClaim") {
			return true
		}
	}
	return false
}

type reserver struct {
	l      *Ledger
	inv    *Inventory
	s      *placement.Snapshot
	rs     *resolved
	budget int64

	mem   reserverMem // memory kept from an earlier solve: see recycle
	sc    scratch
	x     dfs // reused by every search
	slab  assignSlab
	one   [1]*placement.Node
	fresh []svar
	alone []svar
	why   map[reasonKey]string // reasons already formatted

	// The attempt's assignment: claims allocated to the members reserved
	// so far.
	alloc   []*assign            // per claim
	nodes   [][]placement.NodeID // per claim: nodes of reserved members using it
	grpRefs []int32              // per claim: reserved members using it through the PodGroup
	podRefs []int32              // per claim: reserved members with a pod entry
	held    lazy[int32]          // per device: claim+1 holding it, 0 if none (or shared); no pages before the first hold
	ctr     []int64              // per counter: consumed by the assignment
	// sharedHeld is, per capacity of a shared device, what the
	// assignment consumes.
	sharedHeld []int64
	frames     []frame
	changes    []change // the frames' moved claims, a stack in frame order

	// terse says the caller reads a rejection's Cut only (ReserveRun):
	// no reason is worded, no blame or idle cluster searched.
	terse   bool
	keyRefs []memberRef // the refs ClassKey last named, as key (nil: none yet)
	key     string
	keyBuf  []byte

	users []int32 // per claim: members using it
	// allNeeded says the group needs every pending member, so every
	// claim they use needs devices (see CheckPlacement); mark, epoch,
	// reach and matched are CheckPlacement's scratch.
	allNeeded bool
	mark      []uint32
	epoch     uint32
	reach     []int32
	matched   []int32

	// full and moves let plan skip a search it knows fails: see
	// noteFull. moves counts holds and releases.
	full  fullNote
	moves uint64

	memo    map[planKey]planMemo
	quiet   bool     // the slow path's release and re-hold leave everything as it was
	noGroup bool     // searches ignore the PodGroup's device constraints (groupBlame)
	nodeGen []uint32 // per node of Inventory.locals: changes of its local devices
	global  uint32   // changes of every other device

	// near memoizes, per alternative and node (the alternative's number
	// in nearIx, above the node's ID), the devices that could serve the
	// alternative from the node on an idle cluster (see nearOf); nearBuf
	// holds the lists that are not a node's locals (see newNear); nearAlt
	// and nearKey are the last alternative asked about and its number.
	near    map[uint64]span
	nearIx  map[*calt]uint64
	nearBuf []int32
	nearAlt *calt
	nearKey uint64
	nearTmp []int32 // nearOf's list without a snapshot
	// inSet marks, per claim, membership in conflicts' closure: set when
	// equal to inEpoch.
	inSet    []uint32
	inEpoch  uint32
	queue    []svar  // conflicts' scratch
	cbuf     []int32 // conflicts' and saturated's scratch
	satReach [1]*placement.Node
}

type frame struct {
	pod     *placement.Pod
	changed int32 // the claims its reserve moved: the last this many of reserver.changes
	// more counts the members stacked on the frame (see ReserveRun's
	// stack): rs.pods[at+1 : at+1+more], reserved after pod on its node
	// with pod's refs and nothing new planned. They hold no frame of
	// their own, so a run's members store no pointer each.
	at, more int32
}

type change struct {
	claim int32
	prev  *assign
}

var (
	_ placement.Reserver         = hook{}
	_ placement.PlacementChecker = hook{}
)

// hook adapts a reserver to placement.Reserver.
type hook struct{ r *reserver }

// Filter implements [placement.Reserver]: see [Ledger.Reserver].
func (h hook) Filter(p *placement.Pod, ni placement.NodeInfo) placement.Rejection {
	_, rej := h.r.plan(h.r.refs(p), ni.ID(), ni.Node(), false)
	return rej
}

// Reserve implements [placement.Reserver]: the member's claims take the
// devices Filter found, possibly moving those of competing claims.
func (h hook) Reserve(p *placement.Pod, ni placement.NodeInfo) { h.r.reserve(p, ni.ID()) }

// Unreserve implements [placement.Reserver]: it restores the assignment
// from before the matching Reserve.
func (h hook) Unreserve(p *placement.Pod, ni placement.NodeInfo) { h.r.unreserve(p) }

// newReserver sets up r, a new reserver or one an earlier solve released
// (see takeReserver), for a solve of g on s.
func (l *Ledger) newReserver(r *reserver, s *placement.Snapshot, pg *PodGroup, g *placement.Group, opts Options) (*reserver, error) {
	if pg.Name != "" && pg.Key() != g.Key() {
		return nil, placement.Errorf(placement.ErrInvalid, groupObj(pg), "metadata.name", "does not match the solved group %q", g.Key().String())
	}
	members := zeroedTo(r.mem.members, len(g.Members))
	for i := range g.Members {
		members[i] = &g.Members[i]
	}
	if !inMemberOrder(members) {
		slices.SortFunc(members, placement.MemberOrder)
	}
	rs := &r.mem.rs
	if err := l.resolveInto(rs, pg, members); err != nil {
		return nil, err
	}
	l.initSearcher(r, rs, opts)
	r.s = s
	// A node a user of each claim, and a frame a member with a claim of
	// its own: sized once rather than grown through the attempt. Other
	// frames grow as members need them: a run's settled members stack on
	// one (see stack), so a gang sharing one claim needs about one a node
	// rather than one a member.
	r.frames = sizedTo(r.frames, rs.solo+8)
	r.changes = sizedTo(r.changes, len(rs.claims))
	var all int
	for _, n := range r.users {
		all += int(n)
	}
	block := sizedTo(r.mem.nodes, all)[:all] // one allocation, carved per claim
	r.mem.nodes = block
	for ci, n := range r.users {
		r.nodes[ci], block = block[:0:n], block[n:]
	}
	// Claims are numbered in the order members first use them: the
	// first in that order is named.
	for _, c := range rs.claims {
		if c.base == nil {
			if name := c.spec.missingClass(); name != "" {
				return nil, placement.Errorf(placement.ErrNotFound, claimObj(c.keyOf()), "spec.devices.requests", "device class %q does not exist", name)
			}
		}
	}
	return r, nil
}

// inMemberOrder reports whether members are sorted by
// [placement.MemberOrder], as hosts usually pass them: members of one
// priority, queue time and namespace (the usual gang) compare by name
// alone.
func inMemberOrder(members []*placement.Pod) bool {
	for i := 1; i < len(members); i++ {
		a, b := members[i-1], members[i]
		if a.Priority == b.Priority && a.QueuedAt.Equal(b.QueuedAt) && a.Namespace == b.Namespace {
			if a.Name > b.Name {
				return false
			}
		} else if placement.MemberOrder(a, b) > 0 {
			return false
		}
	}
	return true
}

func (l *Ledger) newSearcher(rs *resolved, opts Options) *reserver {
	r := &reserver{}
	l.initSearcher(r, rs, opts)
	return r
}

// initSearcher sets r up to search rs's claims: r is new, or emptied by
// recycle.
func (l *Ledger) initSearcher(r *reserver, rs *resolved, opts Options) {
	n := len(rs.claims)
	r.l, r.inv, r.rs, r.budget = l, l.inv, rs, opts.SearchBudget
	r.alloc, r.nodes, r.grpRefs, r.podRefs = zeroedTo(r.alloc, n), zeroedTo(r.nodes, n), zeroedTo(r.grpRefs, n), zeroedTo(r.podRefs, n)
	if r.budget <= 0 {
		r.budget = DefaultSearchBudget
	}
	r.slab.claims0 = min(n, 256)
	r.users = zeroedTo(r.users, n) // claims added after resolve (Plan's) have no member
	copy(r.users, rs.users)
}

func (r *reserver) scratchState() *scratch {
	if r.sc.taken.pages == nil {
		r.sc.taken = newLazy[bool](len(r.inv.devs))
		r.sc.ctr = make([]int64, len(r.inv.counters))
		r.sc.shared = make([]int64, len(r.inv.shared))
	}
	return &r.sc
}

// refs returns member p's refs. The member asked about last is tried
// first, by index: no pointer is stored (a store would pay the write
// barrier while the collector marks, on every member).
func (r *reserver) refs(p *placement.Pod) []memberRef {
	if rs := r.rs; rs.at < len(rs.pods) && rs.pods[rs.at] == p {
		return rs.lists[rs.refIx[rs.at]]
	}
	return r.rs.refsOf(p)
}

func (r *reserver) node(id placement.NodeID) *placement.Node { return r.s.Node(id) }

// planned is the outcome of plan: new assignments for some claims.
type planned struct {
	claims []int32
	as     []*assign
}

// name names claim ci in a rejection, with what it serves when its
// template says.
func (r *reserver) name(ci int32) string {
	c := r.rs.claims[ci]
	if c.tmpl != nil && c.tmpl.Serves != "" {
		return c.keyOf().String() + " (" + c.tmpl.Serves + ")"
	}
	return c.keyOf().String()
}

func (r *reserver) names(vars []svar) string {
	ns := make([]string, len(vars))
	for i, v := range vars {
		ns[i] = r.name(v.claim)
	}
	if len(ns) == 1 {
		return "ResourceClaim " + ns[0]
	}
	return "ResourceClaims " + strings.Join(ns, ", ")
}

// plan decides whether a member using refs may go to node id (n) given
// the members reserved so far, and, when want is set, with which new
// device assignments.
func (r *reserver) plan(refs []memberRef, id placement.NodeID, n *placement.Node, want bool) (planned, placement.Rejection) {
	var p planned
	if len(refs) == 0 {
		return p, placement.Rejection{}
	}
	fresh := r.fresh[:0]
	r.one[0] = n
	stale := false
	for _, ref := range refs {
		c := r.rs.claims[ref.claim]
		if c.base != nil && !c.base.Reachable(n) {
			return p, placement.Rejection{Reason: r.claimReason(ref.claim, "allocated devices not reachable from the node")}
		}
		if r.entries(ref) > MaxReservedFor {
			return p, placement.Rejection{Reason: r.claimReason(ref.claim, reservedForFull)}
		}
		switch {
		case c.base != nil:
		case r.alloc[ref.claim] == nil:
			fresh = append(fresh, svar{claim: ref.claim, spec: c.spec, reach: r.one[:], at: id})
		case !r.reachesAll(r.alloc[ref.claim], n):
			stale = true
		}
	}
	r.fresh = fresh
	if !stale && len(fresh) == 1 && !want && id >= 0 {
		// The answer for one fresh claim depends only on its spec and the
		// devices the node reaches: members with claims from one template
		// share it until a device of the node changes hands.
		k := planKey{fresh[0].spec, id, r.rs.claims[fresh[0].claim].gmask}
		m, ok := r.memo[k]
		gen := r.genOf(n)
		if !ok || m.gen != gen || m.global != r.global {
			_, out := r.search(fresh, useAll, false)
			m = planMemo{gen: gen, global: r.global, out: out}
			if out == infeasible {
				m.idle = r.idle(fresh)
			}
			if r.memo == nil {
				r.memo = r.newMemo()
			}
			r.memo[k] = m
		}
		if m.out == found {
			return p, placement.Rejection{}
		}
		if len(r.frames) == 0 || r.ctr == nil && r.held.pages == nil {
			return p, r.rejection(fresh, m.out, m.idle, "not enough free matching devices")
		}
		if len(refs) == 1 {
			// The slow path's answer for a member with one claim depends
			// on the same devices, and on the claims holding them, whose
			// changes move the generations too.
			if !m.slowKnown {
				_, m.slow = r.slowPath(refs, id, false)
				m.slow.vars, m.slowKnown = nil, true
				r.memo[k] = m
			}
			return p, r.verdict(fresh, m.slow)
		}
	} else if !stale {
		if len(fresh) == 0 {
			return p, placement.Rejection{}
		}
		var as []*assign
		out := infeasible
		if !r.knownFull(fresh) {
			as, out = r.search(fresh, useAll, want)
		}
		if out == found {
			if want {
				p = planned{claims: r.slab.claimsOf(fresh), as: as}
				r.noteFull(fresh)
			}
			return p, placement.Rejection{}
		}
		if len(r.frames) == 0 || r.ctr == nil && r.held.pages == nil {
			return p, r.reject(fresh, out, "not enough free matching devices")
		}
	}
	pl, v := r.slowPath(refs, id, want)
	return pl, r.verdict(nil, v)
}

// fullNote records a plain pick (see dfs.plain) for a fresh claim of
// spec sp searched from node at alone that left fewer free candidates
// than its count, while moves stays as noted: the pick held and nothing
// else moved since.
//
// sat further says that the pick's claim (holder) is then the only claim
// of the assignment holding a device the search could list from the
// node, and that every such device is exclusive and consumes no counter:
// saturated then answers at once (see saturated).
type fullNote struct {
	sp     *spec
	at     placement.NodeID
	moves  uint64
	holder int32
	sat    bool
}

// noteFull notes, after plan found vars (one fresh claim searched from its
// node alone, with want) by plain's picks, whether those picks, once
// apply holds them, leave the node fewer free candidates than the
// claim's count. The candidates of a fresh claim of that spec asked
// about from that node are then the search's, less the picks: exclusive
// devices that apply marks held, and nothing else changed while moves is
// one more (apply's hold). Runs of members with per-pod claims end so on
// most nodes: the member after the run's last fits in no search.
func (r *reserver) noteFull(vars []svar) {
	r.full.sp = nil
	x := &r.x
	if !x.plained || len(vars) != 1 || len(vars[0].reach) != 1 || vars[0].at < 0 {
		return
	}
	alt := &vars[0].spec.reqs[0].alts[0]
	cands := x.slots[0].cands[0]
	if len(cands)-alt.count >= alt.count {
		return
	}
	// The search's one candidate list skipped no device for the
	// assignment's holds (heldSkips), so the devices the ledger leaves
	// the claim are its candidates, and after the pick only the claim
	// holds any of them. plain checked the picks themselves.
	sat := x.heldSkips == 0
	for _, d := range cands[alt.count:] {
		if dv := &r.inv.devs[d]; dv.multi || len(dv.uses) > 0 {
			sat = false
		}
	}
	r.full = fullNote{sp: vars[0].spec, at: vars[0].at, moves: r.moves + 1, holder: vars[0].claim, sat: sat}
}

// knownFull reports whether the search of vars with useAll is known to
// find too few candidates for their one request (see noteFull), and so
// to fail in setup: infeasible.
func (r *reserver) knownFull(vars []svar) bool {
	return r.full.sp != nil && len(vars) == 1 && len(vars[0].reach) == 1 && vars[0].spec == r.full.sp &&
		vars[0].at == r.full.at && r.moves == r.full.moves
}

// slowVerdict is the slow path's answer: ok, or why not.
type slowVerdict struct {
	ok   bool
	vars []svar // the member's claims searched; nil when taken from the caller
	out  outcome
	idle bool
	why  string
}

// verdict turns v into a rejection of vars (v.vars when set).
func (r *reserver) verdict(vars []svar, v slowVerdict) placement.Rejection {
	if v.ok {
		return placement.Rejection{}
	}
	if v.vars != nil {
		vars = v.vars
	}
	return r.rejection(vars, v.out, v.idle, v.why)
}

// slowPath searches the member's claims together with every claim of the
// assignment that competes with them. The vars are the member's
// unallocated claims, those it shares with earlier members included, each
// reachable from all its users' nodes. It leaves the assignment as it
// found it, and moves no generation.
func (r *reserver) slowPath(refs []memberRef, id placement.NodeID, want bool) (planned, slowVerdict) {
	if v, ok := r.saturated(refs, id); ok {
		return planned{}, v
	}
	return r.searchSlow(refs, id, want)
}

// searchSlow is slowPath without its shortcut.
func (r *reserver) searchSlow(refs []memberRef, id placement.NodeID, want bool) (planned, slowVerdict) {
	var p planned
	var vars []svar
	for _, ref := range refs {
		c := r.rs.claims[ref.claim]
		if c.base != nil {
			continue
		}
		vars = append(vars, svar{claim: ref.claim, spec: c.spec, reach: r.reachSet(ref.claim, id), at: id})
	}
	if _, out := r.search(vars, useBase, false); out != found {
		why := "not enough free matching devices"
		if slices.ContainsFunc(vars, func(v svar) bool { return len(v.reach) > 1 }) {
			why = "no free devices reachable from every member's node"
		}
		return p, slowVerdict{vars: vars, out: out, idle: out != exhausted && !r.terse && r.idle(vars), why: why}
	}
	all := append(r.conflicts(vars), vars...)
	r.quiet = true
	for _, v := range all {
		if r.alloc[v.claim] != nil {
			r.release(v.claim)
		}
	}
	as, out := r.search(all, useAll, want)
	for _, v := range all {
		if a := r.alloc[v.claim]; a != nil {
			r.hold(v.claim, a)
		}
	}
	r.quiet = false
	if out != found {
		return p, slowVerdict{vars: vars, out: out, idle: out != exhausted && !r.terse && r.idle(vars), why: "devices taken by other members' claims"}
	}
	if want {
		p = planned{claims: r.slab.claimsOf(all), as: as}
	}
	return p, slowVerdict{ok: true}
}

var reservedForFull = fmt.Sprintf("reservedFor is full (%d entries)", MaxReservedFor)

// reasonKey identifies a formatted reason about one claim.
type reasonKey struct {
	claim int32
	why   string
}

// reason formats "<claims>: why", once per claim and why.
func (r *reserver) reason(vars []svar, why string) string {
	if len(vars) > 1 {
		return r.names(vars) + ": " + why
	}
	return r.claimReason(vars[0].claim, why)
}

func (r *reserver) claimReason(ci int32, why string) string {
	k := reasonKey{ci, why}
	s, ok := r.why[k]
	if !ok {
		if r.why == nil {
			r.why = map[reasonKey]string{}
		}
		s = "ResourceClaim " + r.name(ci) + ": " + why
		r.why[k] = s
	}
	return s
}

// reject explains why vars do not fit; it is Unresolvable when they do
// not fit the first node of each even on an idle cluster, and Cut when
// the search ran out of budget (the solve is then not Proven).
func (r *reserver) reject(vars []svar, out outcome, why string) placement.Rejection {
	return r.rejection(vars, out, out != exhausted && !r.terse && r.idle(vars), why)
}

// rejection formats the rejection of vars for outcome out; idle says
// whether they fail even on an idle cluster.
func (r *reserver) rejection(vars []svar, out outcome, idle bool, why string) placement.Rejection {
	if r.terse {
		return placement.Rejection{Reason: why, Cut: out == exhausted}
	}
	if out == exhausted {
		return placement.Rejection{Reason: r.reason(vars, "device search budget exhausted"), Cut: true}
	}
	use := useAll
	if idle {
		use = useNone
	}
	if b := r.groupBlame(vars, use); b != "" {
		why = b
	}
	if idle && r.inv.tainted && r.taintBlocks(vars) {
		why += " (matching devices carry taints the request does not tolerate)"
	}
	return placement.Rejection{Reason: r.reason(vars, why), Unresolvable: idle}
}

// idle reports whether vars cannot be satisfied from the first node of
// each even on an idle cluster.
func (r *reserver) idle(vars []svar) bool {
	alone := r.alone[:0]
	for _, v := range vars {
		alone = append(alone, svar{claim: v.claim, spec: v.spec, reach: v.reach[:1], at: v.at})
	}
	r.alone = alone
	_, out := r.search(alone, useNone, false)
	return out == infeasible
}

// planKey and planMemo remember the fast path's answer for one fresh
// claim of a spec on a node, valid while the node's generation and the
// global one are those recorded.
type planKey struct {
	sp    *spec
	n     placement.NodeID
	gmask uint32 // the group constraints covering the claim
}

type planMemo struct {
	gen, global uint32
	out         outcome
	idle        bool
	slowKnown   bool
	slow        slowVerdict // vars nil: they are the asking member's
}

// touched records that device d changed hands in the assignment: a
// node-local device without counters invalidates its node's answers,
// any other device every answer.
func (r *reserver) touched(d int32) {
	if r.quiet {
		return
	}
	if dv := &r.inv.devs[d]; dv.access == accessNode && len(dv.uses) == 0 {
		if r.memo == nil {
			// No answer recorded yet: a generation need only grow after
			// the first, so none is kept before (a solve of runs plans
			// with want and records none).
			return
		}
		if r.nodeGen == nil {
			r.nodeGen = r.newNodeGen()
		}
		r.nodeGen[dv.nodeIx]++
		return
	}
	r.global++
}

// genOf is node n's generation: changes of its local devices so far.
func (r *reserver) genOf(n *placement.Node) uint32 {
	if r.nodeGen == nil {
		return 0
	}
	if ix, ok := r.inv.nodeIx[n.Name]; ok {
		return r.nodeGen[ix]
	}
	return 0
}

// groupTouched records that claim ci's devices changed hands: when a
// PodGroup constraint covers it, every answer may change, as its values
// bind the claims of members on other nodes.
func (r *reserver) groupTouched(ci int32) {
	if !r.quiet && r.rs.claims[ci].gmask != 0 {
		r.global++
	}
}

// entries is the length reservedFor of ref's claim would reach with one
// more member using it through ref.
func (r *reserver) entries(ref memberRef) int {
	c := r.rs.claims[ref.claim]
	n := len(c.held) + int(r.podRefs[ref.claim])
	grp := c.hasPG || r.grpRefs[ref.claim] > 0
	if grp {
		if !c.hasPG {
			n++
		}
	} else if ref.viaGroup {
		n++
	}
	if !ref.viaGroup {
		n++
	}
	return n
}

func (r *reserver) reachesAll(a *assign, n *placement.Node) bool {
	for _, d := range a.devs {
		if !r.inv.reachable(d, n) {
			return false
		}
	}
	return true
}

// reachSet returns the distinct nodes of claim ci's reserved users plus
// node id, that one first.
func (r *reserver) reachSet(ci int32, id placement.NodeID) []*placement.Node {
	ids := append([]placement.NodeID{id}, r.nodes[ci]...)
	slices.Sort(ids[1:])
	ids = slices.Compact(ids)
	out := make([]*placement.Node, 0, len(ids))
	for i, x := range ids {
		if i == 0 || x != id {
			out = append(out, r.node(x))
		}
	}
	return out
}

// conflicts returns the claims of the assignment, other than vars, that
// compete with vars for devices, directly or through one another, in
// claim order: the closure of "holds a device that a claim of the set
// could use, or a device that consumes a counter such a device consumes,
// or is covered by a PodGroup device constraint that covers a claim of the
// set".
// A claim outside the closure holds only devices and counters that no
// claim inside could use, so keeping its devices loses no joint
// assignment: searching vars and the closure together is complete.
func (r *reserver) conflicts(vars []svar) []svar {
	if r.held.pages == nil {
		return nil
	}
	in := r.newClaimSet()
	for _, v := range vars {
		r.inSet[v.claim] = in
	}
	isIn := func(c int32) bool { return r.inSet[c] == in }
	var ctrs map[int32]bool // made when a candidate consumes a counter
	var bound uint32        // group constraints whose claims are all in already
	var out []svar
	queue := append(r.queue[:0], vars...)
	add := func(c int32) {
		r.inSet[c] = in
		out = append(out, svar{claim: c, spec: r.rs.claims[c].spec, reach: r.reachSet(c, r.nodes[c][0]), at: r.nodes[c][0]})
		queue = append(queue, out[len(out)-1])
	}
	for qi := 0; qi < len(queue); qi++ {
		v := queue[qi]
		if m := r.rs.claims[v.claim].gmask &^ bound; m != 0 {
			// A claim that a constraint of the group binds to v competes
			// with it through the constraint's value.
			bound |= m
			for ci, a := range r.alloc {
				if c := int32(ci); a != nil && !isIn(c) && r.rs.claims[c].gmask&m != 0 {
					add(c)
				}
			}
		}
		grew := false
		for q := range v.spec.reqs {
			for a := range v.spec.reqs[q].alts {
				r.cbuf, _ = r.candidates(&v, &v.spec.reqs[q].alts[a], useBase, r.cbuf[:0])
				for _, d := range r.cbuf {
					if h := r.held.get(d); h != 0 && !isIn(h-1) {
						add(h - 1)
					}
					if r.inv.devs[d].multi {
						// Every claim sharing the device competes for
						// its capacity.
						for ci, a := range r.alloc {
							if c := int32(ci); a != nil && !isIn(c) && slices.Contains(a.devs, d) {
								add(c)
							}
						}
					}
					for _, u := range r.inv.devs[d].uses {
						if ctrs == nil {
							ctrs = map[int32]bool{}
						}
						grew = grew || !ctrs[u.c]
						ctrs[u.c] = true
					}
				}
			}
		}
		if !grew {
			continue
		}
		for ci, a := range r.alloc {
			c := int32(ci)
			if a == nil || isIn(c) {
				continue
			}
			if slices.ContainsFunc(a.devs, func(d int32) bool {
				return slices.ContainsFunc(r.inv.devs[d].uses, func(u counterUse) bool { return ctrs[u.c] })
			}) {
				add(c)
			}
		}
	}
	r.queue = queue[:0]
	slices.SortFunc(out, func(a, b svar) int { return cmp.Compare(a.claim, b.claim) })
	return out
}

// newClaimSet starts an empty set of claims in r.inSet and returns the
// mark of its members.
func (r *reserver) newClaimSet() uint32 {
	if n := len(r.rs.claims); len(r.inSet) < n {
		r.inSet = append(r.inSet, make([]uint32, n-len(r.inSet))...)
	}
	r.inEpoch++
	if r.inEpoch == 0 { // wrapped: old marks would read as members
		clear(r.inSet)
		r.inEpoch = 1
	}
	return r.inEpoch
}

// release takes claim ci's devices out of the assignment's usage, hold
// puts a's back in.
func (r *reserver) release(ci int32) {
	r.moves++
	a := r.alloc[ci]
	r.groupTouched(ci)
	for k, d := range a.devs {
		r.touched(d)
		if a.alts[k].admin {
			continue // held nothing
		}
		if dv := &r.inv.devs[d]; dv.multi {
			r.sc.uses, _ = a.alts[k].consumption(dv, r.sc.uses[:0])
			for _, u := range r.sc.uses {
				r.sharedHeld[u.slot] -= u.n
			}
			continue
		}
		r.held.set(d, 0)
		for _, u := range r.inv.devs[d].uses {
			r.ctr[u.c] -= u.n
		}
	}
}

func (r *reserver) hold(ci int32, a *assign) {
	if r.held.pages == nil {
		r.initHeld()
	}
	r.moves++
	r.groupTouched(ci)
	for k, d := range a.devs {
		r.touched(d)
		if a.alts[k].admin {
			continue // admin access holds nothing
		}
		if dv := &r.inv.devs[d]; dv.multi {
			r.sc.uses, _ = a.alts[k].consumption(dv, r.sc.uses[:0])
			for _, u := range r.sc.uses {
				r.sharedHeld[u.slot] += u.n
			}
			continue
		}
		r.held.set(d, ci+1)
		for _, u := range r.inv.devs[d].uses {
			r.ctr[u.c] += u.n
		}
	}
}

func (r *reserver) reserve(p *placement.Pod, id placement.NodeID) {
	refs := r.refs(p)
	// The solver reserves only where Filter accepted, and nothing changed
	// since, so plan succeeds; were it not to, the member would simply
	// hold no new devices, and Commit's own search would catch it.
	pl, _ := r.plan(refs, id, r.node(id), true)
	r.apply(p, refs, id, pl)
}

// apply reserves member p, whose claims are refs, on node id with the
// device assignments pl that plan found.
func (r *reserver) apply(p *placement.Pod, refs []memberRef, id placement.NodeID, pl planned) {
	f := frame{pod: p, changed: int32(len(pl.claims)), at: -1}
	if rs := r.rs; rs.at < len(rs.pods) && rs.pods[rs.at] == p {
		f.at = int32(rs.at) // refs came from p's list: members after it may stack
	}
	// Release every moved claim before holding any: claims may swap
	// devices, and a release after another claim's hold would free a
	// device that claim now holds.
	for _, ci := range pl.claims {
		prev := r.alloc[ci]
		if prev != nil {
			r.release(ci)
		}
		r.changes = append(r.changes, change{claim: ci, prev: prev})
	}
	for i, ci := range pl.claims {
		r.alloc[ci] = pl.as[i]
		r.hold(ci, pl.as[i])
	}
	r.addRefs(refs, id, 1)
	r.frames = append(r.frames, f)
}

// addRefs counts n members using refs reserved on node id.
func (r *reserver) addRefs(refs []memberRef, id placement.NodeID, n int) {
	for _, ref := range refs {
		if r.users[ref.claim] > 1 {
			r.global += uint32(n) // a shared claim's users decide where its devices may move
		}
		for range n {
			r.nodes[ref.claim] = append(r.nodes[ref.claim], id)
		}
		if ref.viaGroup {
			r.grpRefs[ref.claim] += int32(n)
		} else {
			r.podRefs[ref.claim] += int32(n)
		}
	}
}

// dropRefs takes back addRefs for the member last reserved using refs.
func (r *reserver) dropRefs(refs []memberRef) { r.dropRefsN(refs, 1) }

// dropRefsN takes back addRefs for the n members last reserved, each
// using refs.
func (r *reserver) dropRefsN(refs []memberRef, n int) {
	for _, ref := range refs {
		if r.users[ref.claim] > 1 {
			r.global += uint32(n)
		}
		r.nodes[ref.claim] = r.nodes[ref.claim][:len(r.nodes[ref.claim])-n]
		if ref.viaGroup {
			r.grpRefs[ref.claim] -= int32(n)
		} else {
			r.podRefs[ref.claim] -= int32(n)
		}
	}
}

func (r *reserver) unreserve(p *placement.Pod) {
	k := len(r.frames) - 1
	if k < 0 {
		return
	}
	if f := &r.frames[k]; f.more > 0 { // a stacked member: only its counts
		i := f.at + f.more
		if r.rs.pods[i] != p {
			return // not last in, first out: the solver's contract is broken
		}
		f.more--
		r.dropRefs(r.rs.lists[r.rs.refIx[i]])
		return
	}
	if r.frames[k].pod != p {
		return // as above
	}
	f := r.frames[k]
	r.frames = r.frames[:k]
	at := len(r.changes) - int(f.changed)
	changed := r.changes[at:]
	r.changes = r.changes[:at]
	for _, ch := range changed {
		r.release(ch.claim) // all first: see reserve
	}
	for _, ch := range changed {
		r.alloc[ch.claim] = ch.prev
		if ch.prev != nil {
			r.hold(ch.claim, ch.prev)
		}
	}
	if f.at >= 0 { // p's list, and no search for p after its stacked members
		r.rs.at = int(f.at)
		r.dropRefs(r.rs.lists[r.rs.refIx[f.at]])
		return
	}
	r.dropRefs(r.refs(p))
}
