package dra

import "github.com/gangsched/gangsched/placement"

// saturated gives slowPath's verdict without its searches in the case
// that ends most runs of members with per-pod claims on a node: the
// member's one unallocated claim has a plain spec (one request of one
// alternative, exactly Count devices, no constraint, no PodGroup
// constraint in the solve) and is used from this node only, and every
// device the claim could get from the node is exclusive, consumes no
// counter, and is free or held by a claim of the same spec used from this
// node only. Then slowPath's closure of competing claims is those holders
// (no device they could use is held by anyone else), each of them and the
// member's claim has exactly these devices as candidates in the joint
// search, and that search fails on Hall's condition before any choice
// when their counts add up to more than there are devices. ok is false
// when the case does not hold, or when the counts fit (the search must
// decide): slowPath then runs as it would have.
//
// The verdict is slowPath's to the field, idle included; vars are left
// out in terse mode, where verdict never reads them.
func (r *reserver) saturated(refs []memberRef, id placement.NodeID) (v slowVerdict, ok bool) {
	if len(r.rs.gcons) > 0 || r.held.pages == nil {
		return v, false
	}
	var ref memberRef
	open := 0
	for _, x := range refs {
		if r.rs.claims[x.claim].base == nil {
			ref, open = x, open+1
		}
	}
	if open != 1 || r.alloc[ref.claim] != nil || !r.usedOnlyFrom(ref.claim, id) {
		return v, false
	}
	sp := r.rs.claims[ref.claim].spec
	if len(sp.reqs) != 1 || len(sp.reqs[0].alts) != 1 || len(sp.cons) > 0 {
		return v, false
	}
	alt := &sp.reqs[0].alts[0]
	if alt.all || alt.admin || alt.count < 1 || int64(alt.count)+1 > r.budget {
		// All mode and admin access search otherwise; a count the budget
		// cannot pick even alone may leave slowPath's first search
		// exhausted rather than found.
		return v, false
	}
	if f := &r.full; f.sat && f.sp == sp && f.at == id && f.moves == r.moves && r.usedOnlyFrom(f.holder, id) {
		// The last plain pick on this node left fewer free candidates
		// than the count, nothing moved since, and its claim, of this
		// spec and used from here alone, is the only holder among
		// candidates all exclusive and counter-free (see noteFull): the
		// count below is the pick's and this claim's against the
		// search's list, and fails.
		return r.slowFail(ref.claim, sp, id, "devices taken by other members' claims"), true
	}
	r.satReach[0] = r.node(id)
	probe := svar{claim: ref.claim, spec: sp, reach: r.satReach[:], at: id}
	base, _ := r.candidates(&probe, alt, useBase, r.cbuf[:0])
	r.cbuf = base
	if len(base) < alt.count {
		// slowPath's first search, the claim alone on the idle
		// assignment, fails at once: too few candidates.
		return r.slowFail(ref.claim, sp, id, "not enough free matching devices"), true
	}
	in := r.newClaimSet()
	need := alt.count
	for _, d := range base {
		if dv := &r.inv.devs[d]; dv.multi || len(dv.uses) > 0 {
			return v, false // the closure may reach further
		}
		h := r.held.get(d) - 1
		if h < 0 || r.inSet[h] == in {
			continue
		}
		r.inSet[h] = in
		if r.rs.claims[h].spec != sp || !r.usedOnlyFrom(h, id) {
			return v, false // its candidates may differ from base
		}
		need += alt.count
	}
	if need <= len(base) {
		return v, false
	}
	return r.slowFail(ref.claim, sp, id, "devices taken by other members' claims"), true
}

// usedOnlyFrom reports whether every reserved member using claim ci is on
// node id (true when there is none): its reach set is that node alone.
func (r *reserver) usedOnlyFrom(ci int32, id placement.NodeID) bool {
	for _, x := range r.nodes[ci] {
		if x != id {
			return false
		}
	}
	return true
}

// slowFail is slowPath's failed verdict for its one var, claim ci of
// spec sp searched from node id: infeasible, for reason why.
func (r *reserver) slowFail(ci int32, sp *spec, id placement.NodeID, why string) slowVerdict {
	if r.terse {
		return slowVerdict{out: infeasible, why: why}
	}
	vars := []svar{{claim: ci, spec: sp, reach: r.reachSet(ci, id), at: id}}
	return slowVerdict{vars: vars, out: infeasible, idle: r.idle(vars), why: why}
}
