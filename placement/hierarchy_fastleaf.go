package placement

import (
	"math"
	"slices"

	"github.com/gangsched/gangsched/internal/arith"
)

// The hierarchy's leaf placer. A leaf of the usual shape — members alike
// (one request row, one node selector, tolerations and node affinity),
// none bound, no affinity, no pod sets, no caller hook — is decided by
// Solve in a fixed way: validation, one class, one attempt on the one
// placement the hierarchy generates (its domain, fewer than 64 nodes in
// a row or not consecutive, so the greedy visits every node), the
// members in member order on the nodes with room by packing score
// (descending, then node ID), the default scorer's score of the sums, and
// a one-line message. At 3 levels a leaf's Solve cost ~1.3 µs, mostly its
// fixed cost (scratch, compile, attempt tables, heap, outputs); fastLeaf
// writes the same Decision directly. It answers only when every member is
// placed (the greedy's run then equals any order's, and the decision's
// Steps are the nodes visited); otherwise, or outside that shape, the
// caller runs Solve. TestHierarchy_PropFastLeafIsSolve holds it to Solve
// leaf by leaf and node by node.

// fastCand is a node of the leaf's domain with room for a member: its
// packing score for one more member and how many fit.
type fastCand struct {
	id         NodeID
	score, cap int64
}

// fastLeafOK reports whether opts leave a leaf's Solve on the path
// fastLeaf takes: no caller hook, packing, and assignments in the answer.
func fastLeafOK(opts Options) bool {
	return !hasHooks(opts) && opts.NodeScoring.Strategy == "" && opts.NodeScoring.Validate() == nil && !opts.StatusOnly
}

// fastLeaf returns leaf n's decision for its own group g on nodes (domain
// dom) of s, as solveLeaf's Solve would give it, with budget the Solve's
// Options.Budget; ok is false when n or the answer is outside the shape
// fastLeaf covers (see above), and the caller must Solve.
func (h *hsolver) fastLeaf(n *hnode, g *Group, s *Snapshot, dom string, nodes []NodeID, budget int64) (d Decision, ok bool) {
	if !h.fast || g != n.src.Group || !n.compiled || !n.alike || !n.uniform || !n.sorted || !n.plain || n.bound != 0 ||
		len(g.PodSets) > 0 || len(g.SubGroups) > 0 || g.Name == "" || len(g.Members) == 0 || len(g.Members) > MaxPending {
		return Decision{}, false
	}
	M := len(g.Members)
	switch g.Policy {
	case PolicyGang, "":
		if g.MinCount < 1 || int(g.MinCount) > M {
			return Decision{}, false // Solve reports it
		}
	case PolicyBasic:
	default:
		return Decision{}, false
	}
	// Solve's greedy visits every node of a placement that is not the
	// whole cluster nor a long run of consecutive IDs (classRange): each
	// a step.
	k := len(nodes)
	if k == 0 || k == len(s.b.nodes) || (k >= 64 && nodes[k-1]-nodes[0] == NodeID(k-1)) || int64(k) > budget {
		return Decision{}, false
	}
	p0 := &g.Members[0]
	if p0.NodeAffinity != nil || len(p0.NodeSelector) > 0 {
		return Decision{}, false
	}
	// What validate checks of each member, and what keeps the members
	// one class in member order (no affinity, claims or score requests,
	// one priority and queue time), leafRows read as n.plain; what is
	// left is that none is bound already. Their names ascend in one
	// namespace (n.sorted), so no pod bound in that range of keys shows
	// it with one search; otherwise each is looked up.
	if !h.unbound && !s.noneBoundIn(g.Namespace, p0.Name, g.Members[M-1].Name) {
		nsh := nsHash(g.Namespace)
		for i := range g.Members {
			if s.bound(Key{g.Namespace, g.Members[i].Name}, nsh) {
				return Decision{}, false
			}
		}
	}
	b, R := s.b, len(s.b.res)
	req := n.rows[:R]
	want := int64(M)
	// The score's sums over every node (fastScore) are taken in the
	// pass that finds the candidates, each row read once: per requested
	// resource but the pod count, allocatable then used.
	scored := h.hs.scored[:0]
	for r, q := range req {
		if q > 0 && r != b.podsR {
			scored = append(scored, r)
		}
	}
	sums := grow(h.hs.scoreSums, 2*len(scored))
	clear(sums)
	h.hs.scored, h.hs.scoreSums = scored, sums
	cands, room := h.hs.fast[:0], int64(0)
	// A node whose rows equal the previous node's read has its room and
	// score (functions of the rows alone): on an empty rack, every node.
	var lastAlloc, lastUsed []int64
	var lastCap, lastScore int64
	// The usual two scored resources (GPUs and CPUs) are summed in
	// locals: the loop over scored stored each sum back per node.
	two := len(scored) == 2
	var r0, r1 int
	var a0, u0, a1, u1 int64
	if two {
		r0, r1 = scored[0], scored[1]
	}
	for _, id := range nodes {
		alloc, used := s.allocRow(id), s.usedRow(id)
		if two {
			a0, u0 = arith.SatAdd(a0, alloc[r0]), arith.SatAdd(u0, max(used[r0], 0))
			a1, u1 = arith.SatAdd(a1, alloc[r1]), arith.SatAdd(u1, max(used[r1], 0))
		} else {
			for j, r := range scored {
				sums[2*j] = arith.SatAdd(sums[2*j], alloc[r])
				sums[2*j+1] = arith.SatAdd(sums[2*j+1], max(used[r], 0))
			}
		}
		// staticOK without the call on the usual node: p0 has no
		// selector or node affinity, so only a cordon or a taint can
		// refuse it.
		if nd := &b.nodes[id]; (nd.Unschedulable || len(nd.Taints) > 0) && !staticOK(p0, nd) {
			continue
		}
		if lastAlloc == nil || !slices.Equal(alloc, lastAlloc) || !slices.Equal(used, lastUsed) {
			lastAlloc, lastUsed, lastScore = alloc, used, 0
			if lastCap = capacityOf(req, alloc, used, nil, want); lastCap > 0 {
				lastScore = scoreOf(req, alloc, used, nil, b.podsR)
			}
		}
		if lastCap > 0 {
			cands = append(cands, fastCand{id: id, score: lastScore, cap: lastCap})
			room += lastCap
		}
	}
	if two {
		sums[0], sums[1], sums[2], sums[3] = a0, u0, a1, u1
	}
	h.hs.fast = cands
	if room < want {
		return Decision{}, false // not every member fits: Solve says how many do
	}
	cands, h.hs.fastBuf = sortCands(cands, h.hs.fastBuf)
	h.hs.fast = cands
	// The answer, carved from the tree's arena as Solve's outputs are.
	var out []Assignment
	if cap(h.answer)-len(h.answer) >= M {
		j := len(h.answer)
		h.answer = h.answer[:j+M]
		out = h.answer[j : j+M : j+M]
	} else {
		out = make([]Assignment, M)
	}
	i := 0
	for _, c := range cands {
		if i == M {
			break
		}
		name := b.nodes[c.id].Name
		for end := i + int(min(c.cap, int64(M-i))); i < end; i++ {
			e, p := &out[i], &g.Members[i]
			e.Pod.Namespace, e.Pod.Name, e.Node, e.NodeID = p.Namespace, p.Name, name, c.id
		}
	}
	d = Decision{Group: g.Key(), Status: Scheduled, Placement: Placement{Name: dom, Nodes: nodes}, Assignments: out,
		Required: 1, MostFit: M, Steps: int64(k), Proven: true}
	if g.IsGang() {
		d.Required = int(g.MinCount)
	}
	d.Score = fastScore(req, scored, sums, want)
	if !h.deferMsg {
		var b [64]byte
		d.Message = string(appendFastMessage(b[:0], &d))
	}
	return d, true
}

// noneBound reports whether no member is bound in h.s of any leaf under
// root that fastLeaf may take (members ascending in one namespace,
// hnode.sorted), shown with one search (Snapshot.noneBoundIn) over the
// range of keys from the least such member to the greatest, when those
// leaves share a namespace; false otherwise (each leaf is then checked
// by itself). The search binds only the tree's own pods, which no other
// leaf lists (uniquePods), so a member is bound on the search's snapshot
// exactly when it is on h.s.
func (h *hsolver) noneBound(root *hnode) bool {
	var ns, lo, hi string
	ok, any := true, false
	root.walkLeaves(func(l *hnode) {
		ms := l.src.Group.Members
		if !ok || len(ms) == 0 || !l.sorted {
			return
		}
		if any && ms[0].Namespace != ns {
			ok = false
			return
		}
		if !any {
			ns, lo, hi, any = ms[0].Namespace, ms[0].Name, ms[len(ms)-1].Name, true
		}
		lo, hi = min(lo, ms[0].Name), max(hi, ms[len(ms)-1].Name)
	})
	return ok && (!any || h.s.noneBoundIn(ns, lo, hi))
}

// fastScore is DefaultScorer.ScoreSums for placed members of request row
// req, all of a group with none bound, on nodes (not every node) whose
// summed allocatable and used quantities of the resources scored (those
// req asks for but the pod count, ascending) are sums[2j] and sums[2j+1].
func fastScore(req []int64, scored []int, sums []int64, placed int64) int64 {
	const scale = 1_000_000
	var sum, n int64
	for j, r := range scored {
		used := arith.SatAdd(sums[2*j+1], arith.MulSat(req[r], placed))
		sum += arith.MulDiv(used, scale, sums[2*j])
		n++
	}
	var most int64
	if n > 0 {
		most = sum / n
	}
	return most + min(placed, math.MaxInt64/scale)*scale/placed
}
