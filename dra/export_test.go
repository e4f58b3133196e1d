package dra

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// SaturatedAgrees asks the slow path's shortcut (see saturated) about
// member p on node ni of h, a Reserver of Ledger.Reserver, in the state h
// is in, worded and terse; each time it answers, it runs the full slow
// path too. answered counts the answers, noted those given at once from
// a node noted full (fullNote.sat); agree says every answer was the full
// path's verdict (ok, outcome, idle, reason and claims). The full path's
// release and re-hold leave the assignment as it was, so the count of
// moves is set back after it: the note stands, for the next question and
// for the solve.
func SaturatedAgrees(h placement.Reserver, p *placement.Pod, ni placement.NodeInfo) (answered, noted int, agree bool) {
	r := h.(hook).r
	refs := r.refs(p)
	defer func() { r.terse = false }()
	for _, terse := range []bool{false, true} {
		r.terse = terse
		f := r.full
		fast := f.sat && f.sp != nil && f.at == ni.ID() && f.moves == r.moves
		short, ok := r.saturated(refs, ni.ID())
		if !ok {
			continue
		}
		answered++
		if fast {
			noted++
		}
		moves := r.moves
		_, full := r.searchSlow(refs, ni.ID(), false)
		r.moves = moves
		if terse {
			full.vars = nil // verdict does not read them: rejection answers before
		}
		if short.ok != full.ok || short.out != full.out || short.idle != full.idle || short.why != full.why ||
			!slices.EqualFunc(short.vars, full.vars, func(a, b svar) bool { return a.claim == b.claim }) {
			return answered, noted, false
		}
	}
	return answered, noted, true
}

// PlainAgrees has the search's shortcut (see dfs.plain) pick devices for
// member p's unallocated claim on node ni of h, with each usage, and the
// depth-first search too whenever the shortcut picks: answered counts
// its picks, agree says the search found the same devices for the same
// request every time.
func PlainAgrees(h placement.Reserver, p *placement.Pod, ni placement.NodeInfo) (answered int, agree bool) {
	r := h.(hook).r
	var vars []svar
	for _, ref := range r.refs(p) {
		if c := r.rs.claims[ref.claim]; c.base == nil && r.alloc[ref.claim] == nil {
			vars = append(vars, svar{claim: ref.claim, spec: c.spec, reach: []*placement.Node{ni.Node()}, at: ni.ID()})
		}
	}
	for _, use := range []usage{useAll, useBase, useNone} {
		if !r.setup(vars, use) {
			continue
		}
		pick := slices.Clone(r.x.plain())
		if pick == nil {
			continue
		}
		answered++
		// What search hands back through the shortcut (its devices, and
		// alt's shared self list), copied before the full search reuses
		// the buffers.
		short, _ := r.search(vars, use, true)
		devs, alts := slices.Clone(short[0].devs), slices.Clone(short[0].alts)
		r.setup(vars, use)
		as, out := r.x.decide(true)
		alt := &vars[0].spec.reqs[0].alts[0]
		if out != found || !slices.Equal(as[0].devs, pick) || slices.ContainsFunc(as[0].alts, func(a *calt) bool { return a != alt }) ||
			!slices.Equal(devs, as[0].devs) || !slices.Equal(alts, as[0].alts) {
			return answered, false
		}
	}
	return answered, true
}

// KnownFullAgrees asks plan's note of a full node (see noteFull) about
// member p's unallocated claims on node ni of h, in the state h is in;
// when it answers (the search would fail), it runs the search, which
// must find them infeasible. answered counts the answers.
func KnownFullAgrees(h placement.Reserver, p *placement.Pod, ni placement.NodeInfo) (answered int, agree bool) {
	r := h.(hook).r
	var vars []svar
	for _, ref := range r.refs(p) {
		if c := r.rs.claims[ref.claim]; c.base == nil && r.alloc[ref.claim] == nil {
			vars = append(vars, svar{claim: ref.claim, spec: c.spec, reach: []*placement.Node{ni.Node()}, at: ni.ID()})
		}
	}
	if !r.knownFull(vars) {
		return 0, true
	}
	_, out := r.search(vars, useAll, false)
	return 1, out == infeasible
}

// NearAgrees asks nearOf, the memo (a node's locals themselves when
// they are the list, told by localNear or found by newNear), about every
// alternative of member p's claims on node ni of h, twice, and requires
// the list built afresh each time. aliased counts the answers that were
// a node's locals.
func NearAgrees(h placement.Reserver, p *placement.Pod, ni placement.NodeInfo) (aliased int, agree bool) {
	r := h.(hook).r
	v := svar{reach: []*placement.Node{ni.Node()}, at: ni.ID()}
	for range 2 {
		for _, ref := range r.refs(p) {
			sp := r.rs.claims[ref.claim].spec
			for q := range sp.reqs {
				for a := range sp.reqs[q].alts {
					alt := &sp.reqs[q].alts[a]
					got := r.nearOf(alt, &v)
					if !slices.Equal(got, r.appendNear(nil, alt, ni.Node())) {
						return aliased, false
					}
					if ix, ok := r.inv.nodeIx[ni.Node().Name]; ok && len(got) > 0 && &got[0] == &r.inv.locals[ix][0] {
						aliased++
					}
				}
			}
		}
	}
	return aliased, true
}

// ResolveAgrees resolves members (in member order) for pg, and each
// member alone: every member's claims must be those it gets alone (key,
// spec, template, owner, allocation, PodGroup constraints, and whether
// the PodGroup shares it), and the whole must fail exactly when a member
// alone does. resolve skips the checks of a member whose entries are
// its predecessor's; alone, each member is checked. same counts the
// members whose entries are their predecessor's and name a claim of
// their own (the others take their predecessor's claims as they are).
func ResolveAgrees(l *Ledger, pg PodGroup, members []*placement.Pod) (same int, agree bool) {
	all, err := l.resolve(&pg, members)
	failed := false
	for _, p := range members {
		if _, e := l.resolve(&pg, []*placement.Pod{p}); e != nil {
			failed = true
		}
	}
	if err != nil || failed {
		return 0, err != nil && failed
	}
	type view struct {
		key      placement.Key
		sp       *spec
		tmpl     *ResourceClaimTemplate
		owner    Owner
		base     *AllocationResult
		gmask    uint32
		viaGroup bool
	}
	viewOf := func(rs *resolved, refs []memberRef) []view {
		var out []view
		for _, ref := range refs {
			c := rs.claims[ref.claim]
			v := view{key: c.keyOf(), sp: c.spec, tmpl: c.tmpl, base: c.base, gmask: c.gmask, viaGroup: ref.viaGroup}
			if c.owner != nil {
				v.owner = *c.owner
			}
			out = append(out, v)
		}
		return out
	}
	for i, p := range members {
		alone, _ := l.resolve(&pg, []*placement.Pod{p})
		if !slices.Equal(viewOf(all, all.lists[all.refIx[i]]), viewOf(alone, alone.lists[alone.refIx[0]])) {
			return same, false
		}
		if i > 0 && slices.Equal(p.ResourceClaims, members[i-1].ResourceClaims) && slices.ContainsFunc(p.ResourceClaims, func(e placement.PodResourceClaim) bool {
			return !slices.Contains(pg.ResourceClaims, PodGroupResourceClaim(e))
		}) {
			same++ // resolve's shortcut: entries checked already, claims of its own
		}
	}
	return same, true
}

// UsableAgrees asks every alternative of l's templates and claims about
// every device, in order (a permutation of the device indexes), twice:
// the memoized answers of calt.usable, cold then warm, must both equal
// the check it memoizes, evaluated afresh. asked counts the questions.
func UsableAgrees(l *Ledger, order []int) (asked int, agree bool) {
	var specs []*spec
	for _, t := range l.templates {
		specs = append(specs, t.spec)
	}
	l.claims.Ascend(func(e *claimEntry) bool { specs = append(specs, e.spec); return true })
	for range 2 {
		for _, sp := range specs {
			for q := range sp.reqs {
				for a := range sp.reqs[q].alts {
					alt := &sp.reqs[q].alts[a]
					for _, i := range order {
						d, dv := int32(i), &l.inv.devs[i]
						_, capsOK := alt.consumption(dv, nil)
						asked++
						if alt.usable(l.inv, d) != (alt.matches(l.inv, d) && alt.tolerates(dv) && capsOK) {
							return asked, false
						}
					}
				}
			}
		}
	}
	return asked, true
}

// RunState describes what h, a Reserver of Ledger.Reserver, holds for
// the members it reserved: per claim its devices, its users' nodes and
// counts, and how many members and moved claims its frames keep. Two
// reservers of one world holding the same members describe alike.
// stacked counts the members held on another's frame.
func RunState(h placement.Reserver) (state string, stacked int) {
	r := h.(hook).r
	members := len(r.frames)
	for _, f := range r.frames {
		members += int(f.more)
		stacked += int(f.more)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "members %d changes %d\n", members, len(r.changes))
	for ci := range r.alloc {
		var devs []int32
		if a := r.alloc[ci]; a != nil {
			devs = a.devs
		}
		fmt.Fprintf(&b, "claim %d: devs %v nodes %v group %d pod %d\n", ci, devs, r.nodes[ci], r.grpRefs[ci], r.podRefs[ci])
	}
	return b.String(), stacked
}

// resolve is resolveInto a new resolved, for the tests.
func (l *Ledger) resolve(pg *PodGroup, members []*placement.Pod) (*resolved, error) {
	rs := &resolved{}
	if err := l.resolveInto(rs, pg, members); err != nil {
		return nil, err
	}
	return rs, nil
}
