package placement

import (
	"slices"
	"time"

	"github.com/gangsched/gangsched/internal/arith"
)

// This file bounds what a subtree needs at the least, so that the search
// skips, without a solve, a domain whose free capacity is short of it.

// prepare sets every node's least need and twin flag, children first.
func (h *hsolver) prepare(n *hnode) {
	for _, c := range n.children {
		h.prepare(c)
	}
	R := len(h.s.b.res)
	n.least = carve(&h.hs.ints, R)
	switch {
	case n.done < 0:
		n.never = true // nothing will satisfy it this cycle
	case n.done > 0:
		// Satisfied by its bound members; nothing is solved.
	case n.src.Group != nil:
		n.leafRows(h.s.b, &h.hs.ints)
	default:
		var can []*hnode
		for _, c := range n.children {
			if !c.never {
				can = append(can, c)
			}
		}
		if len(can) < n.need {
			n.never = true
			return
		}
		// Per resource, the need smallest children's least: a bound on
		// any choice of need children.
		vs := carve(&h.hs.ints, len(can))
		n.childLeast = carve(&h.hs.ints, R)
		for r := range R {
			for i, c := range can {
				vs[i] = c.least[r]
			}
			slices.Sort(vs)
			for _, v := range vs[:n.need] {
				n.least[r] += v
			}
			n.childLeast[r] = vs[0]
		}
		n.childKey, n.childLD = can[0].src.TopologyKey, can[0].ld
		for _, c := range can {
			if c.src.TopologyKey != n.childKey {
				n.childKey, n.childLD = "", nil
			}
		}
	}
}

// leafRows reads a leaf's pending pods once: each member's usage row
// (what binding it adds to a node, as Apply counts it), whether the
// members' names ascend, whether every pending pod's row is the same,
// and from the rows the leaf's least need — per resource, the sum of its
// need smallest rows (0 when some pending pod requests none of it). A
// resource no node has, requested by every pending pod, makes the leaf
// never fit. O(members × resources), plus O(members log members) when
// the rows differ. The first member's row and the sets' rows are carved
// from arena (the search's, dropped with it).
func (n *hnode) leafRows(b *base, arena *[]int64) {
	g := n.src.Group
	R := len(b.res)
	n.rows = nil
	n.sorted, n.uniform, n.compiled, n.alike, n.plain = true, true, true, true, true
	missing := map[ResourceName]int{} // untracked resources: how many pending pods request them
	var first []int64                 // the first pending pod's row
	// names and vals are the first pod's requests, when its map holds
	// tracked resources alone but the pod count (known): a member with
	// exactly those requests has its row (sameRun).
	var nameBuf [8]ResourceName
	var valBuf [8]int64
	names, vals, known := nameBuf[:0], valBuf[:0], false
	// The tracked resources in the order to look them up: each found
	// moves to the front, so a run of members alike finds all of theirs
	// before any miss (a miss hashes the name too), as Solve's compile.
	cols := make([]int, R)
	for i := range cols {
		cols[i] = i
	}
	fill := func(r []int64, p *Pod, pods int) int {
		// A lookup per tracked resource costs less than a range over
		// the map; the range is for a pod that requests another. Once
		// every name of the map is found, the rest would miss.
		found := 0
		for k := 0; k < R && found < len(p.Requests); k++ {
			i := cols[k]
			if q, ok := p.Requests[b.res[i]]; ok {
				r[i] += q
				cols[k], cols[found] = cols[found], i
				found++
				n.compiled = n.compiled && q >= 0 && i != b.podsR
			}
		}
		// Solve's compile would give this row (see compiledRows) when the
		// map holds tracked resources alone, none negative and not the pod
		// count, and the pod is otherwise valid as it checks.
		n.compiled = n.compiled && found == len(p.Requests) && p.Name != "" && validScoreRequests(p.ScoreRequests) &&
			validTolerations(p.Tolerations)
		if found < len(p.Requests) {
			for name, q := range p.Requests {
				if _, ok := b.resIdx[name]; !ok && q > 0 {
					missing[name] += pods
				}
			}
		}
		r[b.podsR]++
		if first == nil {
			first = r
		}
		n.uniform = n.uniform && slices.Equal(r, first)
		return found
	}
	// While the members are uniform one row stands for all of them (the
	// usual gang: no per-member array); every member's row is kept from
	// the first that differs.
	M := len(g.Members)
	all := func(upto int) { // every member's row: the first's for those before upto, 0 after
		rows := make([]int64, R*M)
		for j := range upto {
			copy(rows[j*R:], n.rows[:R])
		}
		n.rows = rows
	}
	var scratch []int64 // a member's row while they are uniform; made for a second member
	sorted, alike, plain, named := memberChecks(g)
	for i := 0; i < M; i++ {
		p := &g.Members[i]
		if i > 0 && len(n.rows) == R && known {
			// A run of members with the first's requests have its row,
			// as fill would find it: the members are uniform still, and
			// compiled as the first was (memberChecks read the rest).
			// The run's loop keeps little live across its map lookups.
			if j := sameRun(g.Members, i, names, vals); j > i {
				i = j - 1
				continue
			}
		}
		var r []int64
		switch {
		case i == 0:
			r = carve(arena, R) // kept: first is this row (Solve copies rows, never keeps them)
		case len(n.rows) > R:
			r = n.rows[i*R : (i+1)*R : (i+1)*R]
		default:
			if scratch == nil {
				scratch = make([]int64, R)
			}
			clear(scratch)
			r = scratch
		}
		found := fill(r, p, 1)
		switch {
		case i == 0:
			n.rows = r
			// Not with the pod count, whose column holds the request + 1.
			if found == len(p.Requests) && !slices.Contains(cols[:found], b.podsR) {
				for _, c := range cols[:found] {
					names, vals = append(names, b.res[c]), append(vals, r[c])
				}
				known = true
			}
		case !n.uniform && len(n.rows) == R:
			all(i)
			copy(n.rows[i*R:], r)
		}
	}
	n.sorted, n.alike, n.plain = sorted, alike, plain
	compiled := n.compiled && named && M > 0 // of the members; templates compile in Solve
	// Each template is read once: its row bounds the need here and is
	// what the overlay adds per pod of the set (push).
	n.setRows = nil
	if len(g.PodSets) > 0 {
		n.setRows = carve(arena, R*len(g.PodSets))
	}
	for k := range g.PodSets {
		fill(n.setRows[k*R:(k+1)*R:(k+1)*R], &g.PodSets[k].Template, max(int(g.PodSets[k].Count), 0))
	}
	n.compiled = compiled
	n.alike = n.alike && n.uniform && compiled && len(g.PodSets) == 0
	if !n.uniform && M > 1 && len(n.rows) == R {
		all(M) // the members are alike, a pod set's template is not
	}
	pending := g.NumPending()
	for _, pods := range missing {
		n.never = n.never || pods >= pending // every pending pod requests what no node has
	}
	if n.boundMeets || pending == 0 {
		return // satisfied by its bound members even if no pending one fits
	}
	for r := range R {
		if r == b.podsR {
			continue
		}
		if n.uniform {
			n.least[r] = int64(n.need) * max(first[r], 0)
			continue
		}
		vs := make([]int64, 0, pending)
		for i := range len(g.Members) {
			vs = append(vs, n.rows[i*R+r])
		}
		for k, ps := range g.PodSets {
			for range min(int(ps.Count), n.need) {
				vs = append(vs, n.setRows[k*R+r])
			}
		}
		slices.Sort(vs)
		for _, v := range vs[:min(n.need, len(vs))] {
			n.least[r] += max(v, 0)
		}
	}
}

// memberChecks reads what leafRows keeps of g's members besides their
// rows, in passes of their own (the rows' map lookups are calls, across
// which every value live in a loop is saved and reloaded): sorted, the
// names ascend in g's namespace; alike, each member has the first's
// selector, tolerations and node affinity (alikeBesidesRequests);
// plain, what fastLeaf requires of each (hnode.plain); named, each has
// a name and valid score requests (what Solve's compile checks of a
// member whose row is the first's).
//
// A string compare of equal lengths is a call too, so the fields that
// compare without one are read in a first pass for the usual member
// (memberFieldsBare), which then calls nothing, and the names, the
// namespace and the group name in a second with little else live; a
// member outside the usual shape is read by memberFields.
func memberChecks(g *Group) (sorted, alike, plain, named bool) {
	sorted, alike, plain, named = true, true, true, true
	ms := g.Members
	if len(ms) == 0 {
		return
	}
	m0 := &ms[0]
	// alikeBesidesRequests, without the call for the usual member: none
	// of the three, as the first.
	bare := len(m0.NodeSelector) == 0 && len(m0.Tolerations) == 0 && m0.NodeAffinity == nil
	prio, queued := m0.Priority, m0.QueuedAt
	for i := range ms {
		p := &ms[i]
		if bare && memberFieldsBare(p, prio, queued) {
			continue
		}
		a, pl, nm := memberFields(m0, p, bare)
		alike, plain, named = alike && a, plain && pl, named && nm
	}
	ns, name := g.Namespace, g.Name
	for i := range ms {
		p := &ms[i]
		if p.Namespace != ns || p.SchedulingGroup != name {
			sorted, plain = sorted && p.Namespace == ns, plain && p.SchedulingGroup == name
		}
		if i > 0 && ms[i-1].Name >= p.Name {
			sorted = false
		}
	}
	return
}

// memberFieldsBare reports whether p is the usual member of a group whose
// first member has no selector, tolerations or node affinity, priority
// prio and queue time queued: none of those three (alike), a name, none
// of what fastLeaf refuses besides its names (plain), no score requests
// (named). Each check is a load and a compare: no call.
func memberFieldsBare(p *Pod, prio int32, queued time.Time) bool {
	return len(p.NodeSelector) == 0 && len(p.Tolerations) == 0 && p.NodeAffinity == nil &&
		len(p.Name) > 0 && len(p.NodeName) == 0 && p.Affinity == nil && len(p.ResourceClaims) == 0 &&
		len(p.ScoreRequests) == 0 && p.Priority == prio && p.QueuedAt == queued
}

// memberFields is memberChecks' reading of member p of a group whose
// first member is m0 (bare: with no selector, tolerations or node
// affinity), but for its namespace, group name and name order: alike,
// plain and named as memberChecks defines them.
func memberFields(m0, p *Pod, bare bool) (alike, plain, named bool) {
	alike = p == m0 || (bare && len(p.NodeSelector) == 0 && len(p.Tolerations) == 0 && p.NodeAffinity == nil) ||
		alikeBesidesRequests(m0, p)
	plain = p.NodeName == "" && p.Affinity == nil && len(p.ResourceClaims) == 0 &&
		len(p.ScoreRequests) == 0 && p.Priority == m0.Priority && p.QueuedAt == m0.QueuedAt
	named = p.Name != "" && validScoreRequests(p.ScoreRequests) && validTolerations(p.Tolerations)
	return
}

// sameRun returns the end of the run of members from ms[i] whose
// requests are exactly names with vals (names distinct): those members'
// rows are the first's. Each member's map is looked up once a name, with
// the names and values held in locals for the usual one or two (a
// lookup is a call: a loop over slices reloads their headers after it).
func sameRun(ms []Pod, i int, names []ResourceName, vals []int64) int {
	switch len(names) {
	case 1:
		n0, v0 := names[0], vals[0]
		for ; i < len(ms); i++ {
			rq := ms[i].Requests
			if len(rq) != 1 {
				break
			}
			if q, ok := rq[n0]; !ok || q != v0 {
				break
			}
		}
	case 2:
		n0, n1, v0, v1 := names[0], names[1], vals[0], vals[1]
		for ; i < len(ms); i++ {
			rq := ms[i].Requests
			if len(rq) != 2 {
				break
			}
			if q, ok := rq[n0]; !ok || q != v0 {
				break
			}
			if q, ok := rq[n1]; !ok || q != v1 {
				break
			}
		}
	default:
	members:
		for ; i < len(ms); i++ {
			rq := ms[i].Requests
			if len(rq) != len(names) {
				break
			}
			for k, name := range names {
				if q, ok := rq[name]; !ok || q != vals[k] {
					break members
				}
			}
		}
	}
	return i
}

// mayHold is a necessary condition for n's subtree to fit on nodes: for
// each resource, its least need is at most the nodes' summed free
// quantity. O(nodes × resources needed), stopping at the first nodes that
// hold it.
func (h *hsolver) mayHold(n *hnode, s *Snapshot, nodes []NodeID) bool {
	if n.never {
		return false
	}
	if ld := n.childLD; ld != nil && len(ld.values) == ld.labelled && len(n.least) <= maxHostPassResources {
		return h.mayHoldOnHosts(n, s, nodes, ld)
	}
	for r, need := range n.least {
		if need <= 0 {
			continue
		}
		if freeOn(s, nodes, r, need) < need {
			return false
		}
	}
	return n.childKey == "" || h.slots(n, s, nodes) >= n.need
}

// maxHostPassResources bounds the resources mayHoldOnHosts sums in an
// array of its own; a snapshot with more takes mayHold's passes.
const maxHostPassResources = 8

// mayHoldOnHosts is mayHold for inner node n whose children's key puts
// every labelled node in a domain of its own (ld, a host key): the free
// sums and the children's slots (slots) in one pass over nodes, each
// node's rows read once, until every bound is met. Each sum stops
// growing at its need, as freeOn's, and the count at n.need, as slots'.
func (h *hsolver) mayHoldOnHosts(n *hnode, s *Snapshot, nodes []NodeID, ld *labelDomains) bool {
	// The resources each bound reads, gathered once: the loop over the
	// nodes then touches only those (a row has a column for every
	// resource of the snapshot, most of them needed by neither bound).
	var sumR, fitR [maxHostPassResources]uint
	var sum, sumNeed, fitNeed [maxHostPassResources]int64
	ns, nf := 0, 0
	for r, need := range n.least {
		if need > 0 {
			sumR[ns], sumNeed[ns] = uint(r), need
			ns++
		}
	}
	for r, need := range n.childLeast {
		if need > 0 {
			fitR[nf], fitNeed[nf] = uint(r), need
			nf++
		}
	}
	short := ns // resources whose sum is below their need
	total, most := 0, int64(n.need)
	// Every node a child's domain (the usual host key: each node
	// labelled, none empty where empty values are no domain): no
	// node's value is then read.
	every := ld.labelled == len(ld.of) && (!h.noEmpty || len(ld.values) == 0 || ld.values[0] != "")
	// The rows by index, not as slices (allocRow, usedRow): a row's
	// slice costs bounds checks and its header per node, and this loop
	// reads a whole domain when it is short.
	R, alloc, pages := uint(len(s.b.res)), s.b.alloc, s.used
	for _, id := range nodes {
		u := uint(id)
		a, page, o := u*R, pages[u/pageNodes], (u%pageNodes)*R
		if short > 0 {
			for i := range ns {
				if need := sumNeed[i]; sum[i] < need {
					r := sumR[i]
					if sum[i] += max(alloc[a+r]-page[o+r], 0); sum[i] >= need {
						short--
					}
				}
			}
		}
		if total < n.need && (every || (ld.of[id] >= 0 && (!h.noEmpty || ld.values[ld.of[id]] != ""))) {
			// rowsFit over the needed resources only; a node holding
			// fewer than two children's need (the usual one) takes
			// no division.
			fit := most
			for i := range nf {
				r, need := fitR[i], fitNeed[i]
				free, k := alloc[a+r]-page[o+r], int64(0)
				if free >= need {
					k = 1
					if free-need >= need {
						k = min(free/need, most)
					}
				}
				if fit = min(fit, k); fit == 0 {
					break
				}
			}
			total += int(fit)
		}
		if short == 0 && total >= n.need {
			return true
		}
	}
	return false
}

// slots bounds how many of inner node n's children fit on nodes when all
// of them are confined to domains of one key: each child lies in one
// domain and needs there at least the smallest least of any child, so a
// domain holds at most its free quantity over that, per resource. It
// stops counting at n.need. O(nodes × resources needed). A key whose
// every domain is one node (a host key) is counted over nodes directly,
// with no split (the count does not depend on the domains' order).
func (h *hsolver) slots(n *hnode, s *Snapshot, nodes []NodeID) int {
	total := 0
	if ld := n.childLD; len(ld.values) == ld.labelled {
		for i := range nodes {
			if v := ld.of[nodes[i]]; v < 0 || (h.noEmpty && ld.values[v] == "") {
				continue
			}
			if total += nodeFit(n, s, nodes[i]); total >= n.need {
				break
			}
		}
		return total
	}
	for _, dom := range h.split(n.childLD, nodes).sets {
		if total += h.fit(n, s, dom); total >= n.need {
			break
		}
	}
	return total
}

// fit bounds how many of inner node n's children one domain of their key
// holds: per resource, its free quantity over the smallest least of a
// child, at most n.need (n.need when no resource bounds it).
func (h *hsolver) fit(n *hnode, s *Snapshot, dom []NodeID) int {
	fit := -1 // unbounded
	for r, need := range n.childLeast {
		if need <= 0 {
			continue
		}
		// A domain short of one child's need (the usual one on a
		// fragmented cluster) holds none, with no division; the sum
		// stops once it holds n.need children, the most counted.
		free, k := freeOn(s, dom, r, arith.MulSat(need, int64(n.need))), 0
		if free >= need {
			k = int(min(free/need, int64(n.need)))
		}
		if fit < 0 || k < fit {
			fit = k
		}
		if fit == 0 {
			break // no resource can lower it further
		}
	}
	if fit < 0 {
		return n.need
	}
	return fit
}

// nodeFit is fit on the one node id, its rows read once (fit reads
// them once per resource): slots calls it for every node of a domain
// split by a host key.
func nodeFit(n *hnode, s *Snapshot, id NodeID) int {
	return rowsFit(n, s.allocRow(id), s.usedRow(id))
}

// rowsFit is nodeFit on a node of rows alloc and used.
func rowsFit(n *hnode, alloc, used []int64) int {
	fit := -1 // unbounded
	for r, need := range n.childLeast {
		if need <= 0 {
			continue
		}
		free, k := max(alloc[r]-used[r], 0), 0
		if free >= need {
			k = int(min(free/need, int64(n.need)))
		}
		if fit < 0 || k < fit {
			fit = k
		}
		if fit == 0 {
			break
		}
	}
	if fit < 0 {
		return n.need
	}
	return fit
}

// freeOn sums the free quantity of resource r on nodes, stopping once it
// reaches enough. It reads the rows by index, as mayHoldOnHosts does (a
// row's slice costs its header and bounds checks per node): a domain
// short of a leaf's need is read whole.
func freeOn(s *Snapshot, nodes []NodeID, r int, enough int64) int64 {
	R, ur, alloc, pages := uint(len(s.b.res)), uint(r), s.b.alloc, s.used
	var free int64
	for _, id := range nodes {
		u := uint(id)
		free += max(alloc[u*R+ur]-pages[u/pageNodes][(u%pageNodes)*R+ur], 0)
		if free >= enough {
			break
		}
	}
	return free
}
