package dra

import (
	"slices"
	"strconv"

	"github.com/gangsched/gangsched/placement"
)

// ClaimUpdate is one claim changed by [Ledger.Commit], as the host writes
// it back: the claim after the commit, and whether it was generated in
// this commit (create the object before writing its status).
type ClaimUpdate struct {
	// Claim is the claim after the commit: status.allocation and
	// status.reservedFor as the API object should now carry them.
	Claim ResourceClaim
	// Created is set for a claim generated from a ResourceClaimTemplate in
	// this commit (KEP-5729: one per PodGroup, or one per pod).
	Created bool
}

// Commit applies a Scheduled decision of [placement.Solve] for group g,
// solved with [Ledger.Reserver] for pg and the same opts, to the ledger.
// It generates the claims that placed members need from templates (one per
// PodGroup entry, one per pod entry; named "<owner>-<entry>", with a
// numeric suffix if that name is taken), allocates once each claim the
// placed members use, and reserves it — for the PodGroup when members use
// it through the group's entry, for each pod otherwise. It returns the new
// ledger and the changed claims in namespace/name order. A decision that
// is not Scheduled changes nothing.
//
// The devices come from one search over all the claims to allocate, each
// reachable from the nodes of all its users, so they do not depend on the
// order in which the solver tried members; they may differ from those the
// hook saw during the solve, but fit the same nodes.
//
// s supplies the nodes (names and labels), so any snapshot derived from
// the one solved will do, e.g. the one after binding; g.Members must hold
// every assigned member, and a gang cycle may pass the bound copies.
//
// Errors: a nil snapshot or group with a Scheduled decision; those of
// [Ledger.Reserver]; an assignment that names a pod that
// is not a member or a node that is not in s; claims that no longer fit
// the decision's nodes (the ledger changed since the solve, or the search
// budget ran out).
func (l *Ledger) Commit(s *placement.Snapshot, pg PodGroup, g *placement.Group, d placement.Decision, opts Options) (*Ledger, []ClaimUpdate, error) {
	if d.Status != placement.Scheduled {
		return l, nil, nil
	}
	if s == nil || g == nil {
		return nil, nil, placement.Errorf(placement.ErrInvalid, groupObj(&pg), "decision", "snapshot and group must not be nil")
	}
	// A reserver of its own, never released: the claims it generates
	// keep their owners, which resolve made in the reserver's memory.
	r, err := l.newReserver(&reserver{}, s, &pg, g, opts)
	if err != nil {
		return nil, nil, err
	}
	pods := make(map[placement.Key]*placement.Pod, len(g.Members))
	for i := range g.Members {
		pods[g.Members[i].Key()] = &g.Members[i]
	}
	for _, a := range d.Assignments {
		p, ok := pods[a.Pod]
		if !ok {
			return nil, nil, placement.Errorf(placement.ErrNotFound, "pod "+strconv.Quote(a.Pod.String()), "metadata.name", "not a pending member of %s", groupObj(&pg))
		}
		id, ok := s.NodeID(a.Node)
		if !ok {
			return nil, nil, placement.Errorf(placement.ErrNotFound, podObj(p), "spec.nodeName", "node %q is not in the snapshot", a.Node)
		}
		for _, ref := range r.refs(p) {
			c := r.rs.claims[ref.claim]
			if c.base != nil && !c.base.Reachable(s.Node(id)) {
				return nil, nil, placement.Errorf(placement.ErrInvalid, podObj(p), "spec.nodeName", "node %q cannot reach the devices of ResourceClaim %s", a.Node, c.keyOf())
			}
			if r.entries(ref) > MaxReservedFor {
				return nil, nil, placement.Errorf(placement.ErrInvalid, podObj(p), "spec.resourceClaims", "ResourceClaim %s: %s", c.keyOf(), reservedForFull)
			}
			r.nodes[ref.claim] = append(r.nodes[ref.claim], id)
			if ref.viaGroup {
				r.grpRefs[ref.claim]++
			} else {
				r.podRefs[ref.claim]++
			}
		}
		r.frames = append(r.frames, frame{pod: p, at: -1})
	}
	// One search over every unallocated claim that placed members use,
	// each reachable from all its users' nodes: the devices do not depend
	// on the order in which the solver happened to place the members.
	var vars []svar
	for ci, c := range r.rs.claims {
		if c.base == nil && len(r.nodes[ci]) > 0 {
			vars = append(vars, svar{claim: int32(ci), spec: c.spec, reach: r.reachSet(int32(ci), r.nodes[ci][0]), at: r.nodes[ci][0]})
		}
	}
	if len(vars) > 0 {
		as, out := r.search(vars, useAll, true)
		if out != found {
			why := r.reject(vars, out, "not enough free matching devices").Reason
			return nil, nil, placement.Errorf(placement.ErrInvalid, groupObj(&pg), "decision", "claims do not fit the decision's nodes: %s", why)
		}
		for i, v := range vars {
			r.alloc[v.claim] = as[i]
		}
	}
	var touched []placement.Key
	created := map[placement.Key]bool{}
	touch := func(k placement.Key) {
		if !slices.Contains(touched, k) {
			touched = append(touched, k)
		}
	}
	n, err := l.apply(func(n *Ledger) error {
		keys := make([]placement.Key, len(r.rs.claims))
		for ci, c := range r.rs.claims {
			keys[ci] = c.keyOf()
			if len(r.nodes[ci]) == 0 {
				continue
			}
			if c.entry == nil {
				keys[ci] = n.freeName(keys[ci])
				nc := ResourceClaim{Namespace: keys[ci].Namespace, Name: keys[ci].Name, Owner: c.owner, Spec: c.tmpl.Spec}
				if err := n.addClaim(&nc, c.spec, false); err != nil {
					return err
				}
				created[keys[ci]] = true
			}
			if a := r.alloc[ci]; a != nil {
				res, _ := l.inv.result(a.devs, a.alts)
				e, _ := n.entry(keys[ci])
				ne := *e
				if err := n.allocate(&ne, res.Devices, "status.allocation"); err != nil {
					return err
				}
				n.claims.ReplaceOrInsert(&ne)
			}
			if r.grpRefs[ci] > 0 && !c.hasPG {
				if err := n.reserve(keys[ci], PodGroupRef(pg.Name, pg.UID)); err != nil {
					return err
				}
				touch(keys[ci])
			}
		}
		for _, f := range r.frames {
			for _, ref := range r.refs(f.pod) {
				if ref.viaGroup {
					continue
				}
				e, _ := n.entry(keys[ref.claim])
				pr := PodRef(f.pod.Name, f.pod.UID)
				if slices.ContainsFunc(e.c.Status.ReservedFor, pr.same) {
					continue
				}
				if err := n.reserve(keys[ref.claim], pr); err != nil {
					return err
				}
				touch(keys[ref.claim])
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(touched, placement.Key.Compare)
	out := make([]ClaimUpdate, len(touched))
	for i, k := range touched {
		c, _ := n.Claim(k)
		out[i] = ClaimUpdate{Claim: *c, Created: created[k]}
	}
	return n, out, nil
}

// freeName returns k, or k with the first numeric suffix that no claim
// has, so that generated names are unique and deterministic.
func (l *Ledger) freeName(k placement.Key) placement.Key {
	name := k.Name
	for i := 1; ; i++ {
		if _, taken := l.entry(k); !taken {
			return k
		}
		k.Name = name + "-" + strconv.Itoa(i)
	}
}

// Plan finds devices for claims, the claims of one pod, on node: the
// allocation each would get (claims already allocated keep theirs, and
// must be reachable from node), as the scheduler's filter for a pod
// outside any group would. It changes nothing; apply a result with
// [Ledger.Allocate]. A claim that cannot be allocated there is a
// rejection, not an error.
//
// Errors: a nil node; a claim that does not exist or is listed twice; an
// unallocated claim whose device class does not exist.
func (l *Ledger) Plan(node *placement.Node, opts Options, claims ...placement.Key) ([]AllocationResult, placement.Rejection, error) {
	if node == nil {
		return nil, placement.Rejection{}, placement.Errorf(placement.ErrInvalid, "Plan", "node", "must not be nil")
	}
	rs := &resolved{pg: &PodGroup{}}
	var refs []memberRef
	for _, k := range claims {
		e, ok := l.entry(k)
		if !ok {
			return nil, placement.Rejection{}, placement.Errorf(placement.ErrNotFound, claimObj(k), "metadata.name", "no such claim")
		}
		if slices.ContainsFunc(rs.claims, func(c *rclaim) bool { return c.key == k }) {
			return nil, placement.Rejection{}, placement.Errorf(placement.ErrDuplicate, claimObj(k), "metadata.name", "listed twice")
		}
		if e.c.Status.Allocation == nil {
			if name := e.spec.missingClass(); name != "" {
				return nil, placement.Rejection{}, placement.Errorf(placement.ErrNotFound, claimObj(k), "spec.devices.requests", "device class %q does not exist", name)
			}
		}
		refs = append(refs, memberRef{claim: int32(len(rs.claims))})
		rs.claims = append(rs.claims, l.existing(e, rs.pg))
	}
	r := l.newSearcher(rs, opts)
	p, rej := r.plan(refs, -1, node, true)
	if !rej.OK() {
		return nil, rej, nil
	}
	out := make([]AllocationResult, len(claims))
	for i, c := range rs.claims {
		if c.base != nil {
			out[i] = *c.base
		}
	}
	for i, ci := range p.claims {
		a := p.as[i]
		out[ci], _ = l.inv.result(a.devs, a.alts)
	}
	return out, placement.Rejection{}, nil
}
