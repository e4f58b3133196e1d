package placement

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// diagnose re-runs the best failed attempt and explains why its first
// waiting member fits on none of the placement's nodes. unresolvable is set
// when too few members could fit even if the cluster were empty.
func (sv *solver) diagnose(best *attempt) (first *member, reasons []ReasonCount, unresolvable bool) {
	if !best.short {
		sv.replay(best)
		defer sv.undo(best)
	}
	sv.gaps(best, func(i, _ int) bool {
		first = &sv.members[i]
		return false
	})
	if first == nil {
		return nil, nil, false
	}
	var counts tally // becomes reasons: the caller's to keep
	memo := sv.memoReasons(first)
	var last []Rejection
	run := 0 // nodes in a row with the reasons last
	flush := func() {
		for _, r := range last {
			counts.add(r.Reason, run)
		}
	}
	if best.short {
		sv.shortReasons(best.p, first, &counts)
	} else {
		for i, id := range best.p.Nodes {
			if !memo || i == 0 || !sv.sameNode(best.p.Nodes[i-1], id) {
				flush()
				last, run = sv.reasons(first, id), 0
			}
			run++
		}
		flush()
	}
	reasons = counts
	slices.SortFunc(reasons, func(x, y ReasonCount) int {
		if c := cmp.Compare(y.Nodes, x.Nodes); c != 0 {
			return c
		}
		return strings.Compare(x.Reason, y.Reason)
	})
	// Unresolvable only when, even with every other pod gone, fewer than
	// need members could be placed: those placed here, plus waiting ones
	// that some node rejects for no unresolvable reason. Looking at the
	// first waiting member alone called a gang unresolvable when it could
	// do without that member.
	can := best.placed
	builtinOnly := sv.batched
	known := map[int32]bool{}             // by class, when no hook can tell members apart
	lastClass, lastOK := int32(-1), false // members of one class come in runs
	sv.gaps(best, func(i, j int) bool {
		// A row's waiting pods (one *Pod to every check) get one answer.
		c := sv.class[sv.members[i].row]
		ok, cached := lastOK, builtinOnly && c == lastClass
		if !cached {
			ok, cached = known[c]
		}
		if !cached {
			ok = sv.resolvable(&sv.members[i])
			if builtinOnly {
				known[c] = ok
			}
		}
		lastClass, lastOK = c, ok
		if ok {
			can += j - i
		}
		return can < sv.need
	})
	return first, reasons, can < sv.need
}

// resolvable reports whether some node of the cluster rejects m for no
// unresolvable reason, so that m would fit there if pods left.
func (sv *solver) resolvable(m *member) bool {
	memo := sv.memoReasons(m)
	for id := range NodeID(len(sv.s.b.nodes)) {
		if memo && id > 0 && sv.sameNode(id-1, id) {
			continue // the same reasons as the node before
		}
		if !slices.ContainsFunc(sv.reasons(m, id), func(r Rejection) bool { return r.Unresolvable }) {
			return true
		}
	}
	return false
}

// memoReasons reports whether reasons(m, id) depends only on the node's
// static type (allocatable, taints, schedulability) and its usage, the
// attempt's included: true when no node selector, member affinity, caller
// filter or reserver looks at anything else. Then nodes for which sameNode
// holds give m the same reasons, and explaining a member over thousands of
// identical nodes costs a row comparison per node, not a list of reasons.
func (sv *solver) memoReasons(m *member) bool {
	return !readsLabels(sv.pod(m.row)) && sv.pos == nil && len(sv.opts.Filters) == 0 &&
		len(sv.reservers) == 0 && len(sv.s.b.typeOf) == len(sv.s.b.nodes)
}

// sameNode reports whether nodes a and b have the same static type and the
// same usage, the attempt's included.
func (sv *solver) sameNode(a, b NodeID) bool {
	if sv.s.b.typeOf[a] != sv.s.b.typeOf[b] {
		return false
	}
	ua, ub := sv.s.usedRow(a), sv.s.usedRow(b)
	oa, inA := sv.w.offset(a)
	ob, inB := sv.w.offset(b)
	if !inA && !inB {
		return slices.Equal(ua, ub) // the attempt placed nothing on either
	}
	for r := range ua {
		qa, qb := ua[r], ub[r]
		if inA {
			qa += sv.w.slab[int(oa)+r]
		}
		if inB {
			qb += sv.w.slab[int(ob)+r]
		}
		if qa != qb {
			return false
		}
	}
	return true
}

// reasons lists every reason member m does not fit node id now, in the
// solver's buffer: valid until the next call.
func (sv *solver) reasons(m *member, id NodeID) []Rejection {
	out := sv.rejections[:0]
	n := &sv.s.b.nodes[id]
	p := sv.pod(m.row)
	if sv.missingOf(m) != "" {
		out = append(out, Rejection{Reason: "Insufficient " + string(sv.missingOf(m)), Unresolvable: true})
	}
	if n.Unschedulable && !toleratesUnschedulable(p) {
		out = append(out, Rejection{Reason: "node(s) were unschedulable", Unresolvable: true})
	}
	for k, v := range p.NodeSelector {
		if lv, ok := n.Labels[k]; !ok || lv != v {
			out = append(out, Rejection{Reason: "node(s) didn't match Pod's node selector", Unresolvable: true})
			break
		}
	}
	if p.NodeAffinity != nil && !p.NodeAffinity.Matches(n) {
		out = append(out, Rejection{Reason: "node(s) didn't match Pod's node affinity", Unresolvable: true})
	}
	for _, t := range n.Taints {
		if t.Effect != TaintEffectPreferNoSchedule && !tolerated(p, t) {
			out = append(out, Rejection{Reason: "node(s) had untolerated taint {" + t.Key + ": " + t.Value + "}", Unresolvable: true})
			break
		}
	}
	alloc, used := sv.s.allocRow(id), sv.s.usedRow(id)
	for r, q := range sv.req(m.row) {
		if q == 0 {
			continue
		}
		name := sv.s.b.insufficient[r]
		if alloc[r] < q {
			out = append(out, Rejection{Reason: name, Unresolvable: true})
		} else if alloc[r]-used[r]-sv.w.extra(id, r) < q {
			out = append(out, Rejection{Reason: name})
		}
	}
	if sv.pos != nil {
		i := slices.IndexFunc(sv.members, func(x member) bool { return x.row == m.row })
		if !sv.cons.allow(sv.bound+i, id, sv.pos, true, nil) {
			out = append(out, Rejection{Reason: "node(s) didn't satisfy the group's pod affinity, anti-affinity or sub-group topology"})
		}
	}
	ni := NodeInfo{sv.s, sv.w, id}
	for k, f := range sv.opts.Filters {
		if r := f.Filter(p, ni); !r.OK() && !sv.failed(r, fmt.Sprintf("Options.Filters[%d]", k), p, ni) {
			out = append(out, r)
		}
	}
	for k, rv := range sv.reservers {
		if r := rv.Filter(p, ni); !r.OK() && !sv.failedIn(r, "Options.Reservers", k, p, ni) {
			out = append(out, r)
		}
	}
	sv.rejections = out
	return out
}

// tally counts nodes per reason. A failure has a handful of distinct
// reasons: a linear search of a slice, which is also the answer once
// sorted, costs less than a map and the slice copied out of it.
type tally []ReasonCount

// add counts n more nodes with reason r.
func (t *tally) add(r string, n int) {
	for i := range *t {
		if (*t)[i].Reason == r {
			(*t)[i].Nodes += n
			return
		}
	}
	if *t == nil {
		*t = make(tally, 0, 4) // one allocation for the usual few reasons; none without
	}
	*t = append(*t, ReasonCount{Reason: r, Nodes: n})
}
