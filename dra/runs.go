package dra

import (
	"slices"
	"strconv"

	"github.com/gangsched/gangsched/placement"
)

var (
	_ placement.ClassReserver = hook{}
	_ placement.RunUnreserver = hook{}
)

// ClassKey implements [placement.ClassReserver]: members are
// interchangeable to the hook when they use the same shared claims (the
// PodGroup's, or one named by several members) in the same way, and
// per-pod claims still to be generated from one template, under the same
// group constraints. A member with any other claim (an existing claim of
// its own) gets "": it is placed alone.
func (h hook) ClassKey(p *placement.Pod) string {
	r := h.r
	refs := r.refs(p)
	if r.keyRefs != nil && slices.Equal(refs, r.keyRefs) {
		return r.key // members in a row use the same claims
	}
	b := r.keyBuf[:0]
	for _, ref := range refs {
		c := r.rs.claims[ref.claim]
		switch {
		case r.users[ref.claim] > 1:
			b = strconv.AppendInt(append(b, 's'), int64(ref.claim), 10)
			b = strconv.AppendBool(append(b, '/'), ref.viaGroup)
		case c.entry == nil && c.tmpl != nil && !ref.viaGroup:
			// To be generated from a template: its spec is the template's.
			b = append(append(b, 't'), c.tmpl.Name...)
			b = strconv.AppendUint(append(b, '/'), uint64(c.gmask), 10)
		default:
			return ""
		}
		b = append(b, ';')
	}
	if len(b) == 0 {
		b = append(b, '-') // no claim: the hook accepts every node
	}
	r.keyBuf = b
	if string(b) != r.key { // members of one template differ in refs, not in key
		r.key = string(b)
	}
	r.keyRefs = refs
	return r.key
}

// ReserveRun implements [placement.ClassReserver]: each member is planned
// once, the plan both its verdict and its reservation. The rejection that
// stops a run is terse ("not enough free matching devices", Cut when the
// search ran out of budget): the solver reads only Cut from it, and the
// decision's reasons come from Filter.
func (h hook) ReserveRun(pods []*placement.Pod, ni placement.NodeInfo) (int, placement.Rejection) {
	r, id := h.r, ni.ID()
	n := ni.Node()
	var prev []memberRef
	for k := 0; k < len(pods); k++ {
		p := pods[k]
		refs := r.refs(p)
		if k > 0 && r.settled(refs, prev) {
			if c := r.stack(pods[k:], refs, id); c > 0 {
				k += c - 1
			} else {
				r.apply(p, refs, id, planned{})
			}
			continue
		}
		prev = refs
		r.terse = true // the solver reads Cut and Err only
		pl, rej := r.plan(refs, id, n, true)
		r.terse = false
		if !rej.OK() {
			return k, rej
		}
		r.apply(p, refs, id, pl)
	}
	return len(pods), placement.Rejection{}
}

// settled reports whether a member using refs, reserved on the node where
// a member using the same list (prev, resolve shares it between members
// alike) was just planned and reserved, would be planned there with
// nothing new: every claim is the PodGroup's (its reservedFor does not
// grow with members) and already allocated, in the ledger or in this
// attempt on devices reachable from the node. plan would find no claim to
// search and accept.
func (r *reserver) settled(refs, prev []memberRef) bool {
	if len(refs) == 0 || len(refs) != len(prev) || &refs[0] != &prev[0] {
		return false
	}
	for _, ref := range refs {
		if !ref.viaGroup || r.alloc[ref.claim] == nil && r.rs.claims[ref.claim].base == nil {
			return false
		}
	}
	return true
}

// stack reserves on the last frame, rather than in frames of their own,
// the members pods from the first on that come next in member order
// after that frame's members and use refs, the first's list, settled
// (see settled) on node id: unreserve finds each by its index, and its
// refs in its list. It returns how many it reserved.
func (r *reserver) stack(pods []*placement.Pod, refs []memberRef, id placement.NodeID) int {
	f, rs := &r.frames[len(r.frames)-1], r.rs
	if f.at < 0 {
		return 0
	}
	from := int(f.at) + int(f.more) + 1
	if from >= len(rs.pods) || rs.pods[from] != pods[0] || &rs.lists[rs.refIx[from]][0] != &refs[0] {
		return 0
	}
	n := 1
	for n < len(pods) && from+n < len(rs.pods) && rs.pods[from+n] == pods[n] && rs.refIx[from+n] == rs.refIx[from] {
		n++ // the same list: settled as the first
	}
	f.more += int32(n)
	rs.at = from + n - 1
	r.addRefs(refs, id, n)
	return n
}

// UnreserveRun implements [placement.RunUnreserver]: members stacked on
// the last frame (see stack) drop their counts at once, the others are
// taken back as Unreserve takes them, last first.
func (h hook) UnreserveRun(pods []*placement.Pod, ni placement.NodeInfo) {
	r := h.r
	for k := len(pods); k > 0; {
		if n := r.unstack(pods[:k]); n > 0 {
			k -= n
			continue
		}
		k--
		r.unreserve(pods[k])
	}
}

// unstack takes back at once the members at the end of pods that are
// the last stacked on the last frame, in order, and returns how many.
// They share the frame's member's list (see stack).
func (r *reserver) unstack(pods []*placement.Pod) int {
	if len(r.frames) == 0 {
		return 0
	}
	f, rs := &r.frames[len(r.frames)-1], r.rs
	n := 0
	for n < int(f.more) && n < len(pods) && rs.pods[int(f.at+f.more)-n] == pods[len(pods)-1-n] {
		n++
	}
	if n == 0 {
		return 0
	}
	f.more -= int32(n)
	r.dropRefsN(rs.lists[rs.refIx[f.at]], n)
	return n
}
