package topology

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// planner is one call of [Tree.PlanPodSets]. Domains and nodes are units
// of one index space: domain d is unit d, node n is unit D+n, at the leaf
// level L = len(keys). Only nodes with a domain at every level are units
// (a node lacking a level's label is outside Kueue's topology too).
type planner struct {
	t     *Tree
	s     *placement.Snapshot
	c     *capacity
	L, D  int
	R     int
	extra []int64 // node*R+r: usage of the sets planned before; nil while none
	pods  []int64 // per unit: pods of r that fit (inner slice layers rounded)
	slice []int64 // per unit: outermost slices of r that fit (at or above the slice level)
	// neg is, per domain while negOn, the sum of Kueue's negative counts
	// of the nodes under it (PlanOptions.KueueNegativeCounts); pods and
	// slice of a domain above the hosts include it, a host's do not.
	neg   []int64
	negOn bool
	// negAt is, while negOn, a unit whose negative count Kueue's TAS
	// writes in r's assignment (-1: none): a least-free-first fill takes
	// the units in deficit first (see negatives).
	negAt   int
	negPods int64 // the count Kueue writes for negAt
	// lfLow and lfExtra are, while negOn, what Kueue's last
	// least-free-first pool of r (fit's, or the descent's above the
	// slice level) appended beyond gangsched's takes: its units of no
	// slice or fewer (taken first, none of their pods written, but their
	// children pooled at the next level with the others'), and the
	// slices their negative counts added to what it took. From the
	// slice level down lfLow are the domains Kueue's split gave 0 pods
	// or fewer, which it splits at the next level (splitLow), and lfLowN
	// the counts it gave them.
	lfLow   []int
	lfLowN  []int64
	lfExtra int64
	negDrop bool // a split dropped a domain given fewer than no pods (splitNeg)
	// negWrites are, while negOn, the nodes whose negative counts
	// negatives found, with those counts as positive ones (in node
	// order once negFailure sorts them).
	negWrites []placement.PodSetAssignment
	take      []int64 // per unit: pods planned
	taken     []int   // units with take set, to clear
	r         *request
	untr      bool // r requests a resource the snapshot does not track
	// The requested resources of r (quantity > 0), and whether r's pods
	// pass every node without taints that is schedulable (no
	// nodeSelector): nodeCount's fast path.
	reqIdx   []int
	reqQ     []int64
	plainPod bool
	// sumQuick's resources, set by use when r has the shape it counts
	// (quickShape): the columns of quantity 1 (padded with the first), and
	// of the others with their quantities (padded with the first unit
	// column, quantity 1, which never bounds further).
	quickShape bool
	unitCols   [3]int
	otherCols  [2]int
	otherQ     [2]int64
	cut        int // see fill
	opts       PlanOptions
	// prefer is set while r's preferred node affinity ranks units
	// (PlanOptions.NodeAffinityPreferred and preferred terms): aff then
	// holds each unit's summed score.
	prefer bool
	aff    []int64
	// kbKids is, per domain whose children KueueBalanced sorted for a
	// set of this plan, the order it left them in (kueuebalancedorder.go);
	// nil while none.
	kbKids map[int][]int
	// hookPod is what opts.Filters see for r's pods; hookErr the first
	// error a filter returned (PlanPodSets returns it).
	hookPod *placement.Pod
	hookErr error
}

// planScratch is the per-unit arrays of a planner, kept by the tree
// between calls so that a plan allocates O(units it uses), not O(units):
// take is all zero between calls, extra too (planOut.plan clears it).
type planScratch struct {
	pods, slice, take, extra []int64
	neg                      []int64 // per unit: planner.neg
	aff                      []int64 // per unit: summed preferred node affinity, while a planner prefers
	taken                    []int   // a planner's taken, kept for its capacity
	// plain marks the nodes without taints that are schedulable, which
	// every pod without a nodeSelector passes (nodes never change across
	// Apply): nodeCount reads no Node for them.
	plain []bool
	// static keeps the nodes' static fit while templates keep their
	// nodeSelector and tolerations.
	static staticMemo
	// full marks the domains whose every node is in the topology (has a
	// domain at every level): fill sums their nodes without asking.
	full []bool
	// counted, when set, says what pods and slice hold (see countKey),
	// so that a plan of the same template on the same snapshot skips
	// counting.
	counted *countKey
	// deep marks the domains whose every unit below holds the kept
	// counts too (a descent filled them while counted was set), listed
	// in deepList: a descent of the same template walks them again
	// without counting.
	deep     []bool
	deepList []int
	// levels and kids are descend's buffers: the units of alternate
	// levels, and the children being ordered; keys, rankNodes and
	// rankTakes rankOrder's.
	levels    [2][]int
	kids      []int
	units     []int // fit's units of the level it searches
	keys      []uint64
	rankNodes []int
	rankTakes []int64
	// tieRank is each node's place in the order of (deepest domain,
	// NodeID), which order breaks ties of nodes by; byRank its inverse;
	// okeys order's and sortBySlices' packed keys.
	tieRank []int32
	byRank  []placement.NodeID
	okeys   []uint64
	// rankBits is rankOrder's bitset of tie ranks, clear between calls.
	rankBits []uint64
	// only is, per domain, its one node when it is a domain of the
	// deepest level with one node (a host), else -1: the descent hands
	// such a domain's take to its node without reading the domain.
	only    []int32
	bal     balanceBufs // balanced's
	classes classCounts // sumQuick's
	// setFit, setNodes and setTakes are the arenas the planned sets'
	// units, nodes and takes are cut from (see finish), emptied at each
	// plan; fitUnits planOut.plan's union of the sets' units; planner is
	// the plan's own, zeroed after it.
	setFit, setNodes, fitUnits []int
	setTakes                   []int64
	planner                    planner
}

// forget drops the kept counts: pods and slice hold another request's, or
// the usage of sets planned before.
func (sc *planScratch) forget() {
	sc.counted = nil
	for _, u := range sc.deepList {
		sc.deep[u] = false
	}
	sc.deepList = sc.deepList[:0]
}

// countKey says what pods and slice hold when counted for a whole tree
// with nothing planned before: a request's counts on snapshot s, cut at
// cut. Units below the cut may hold counts of a descent, which are the
// same.
type countKey struct {
	s            *placement.Snapshot
	req          []int64
	layers       []layer
	untracked    bool
	nodeSelector map[string]string
	tolerations  []placement.Toleration
	affinity     bool // the template had required node affinity
	cut          int
}

// newCountKey copies what it needs of r: the caller's group may change
// after the call.
func newCountKey(s *placement.Snapshot, r *request, cut int) *countKey {
	return &countKey{s: s, req: slices.Clone(r.req), layers: slices.Clone(r.layers), untracked: r.untracked,
		nodeSelector: maps.Clone(r.tmpl.NodeSelector), tolerations: slices.Clone(r.tmpl.Tolerations), affinity: requiresNodes(r.tmpl), cut: cut}
}

// same reports whether k's counts are r's on k.s: the same requests,
// node filters and slice layers count the same.
func (k *countKey) same(r *request, cut int) bool {
	if k == nil || k.cut != cut || k.untracked != r.untracked || !slices.Equal(k.req, r.req) || !slices.Equal(k.layers, r.layers) {
		return false
	}
	// Required node affinity filters nodes too; its counts are not kept.
	if k.affinity || requiresNodes(r.tmpl) {
		return false
	}
	return maps.Equal(k.nodeSelector, r.tmpl.NodeSelector) && slices.Equal(k.tolerations, r.tmpl.Tolerations)
}

// requiresNodes reports whether the template has required node affinity,
// which filters nodes as its nodeSelector does.
func requiresNodes(tmpl *placement.Pod) bool {
	return tmpl.NodeAffinity != nil && len(tmpl.NodeAffinity.Required) > 0
}

func newPlanScratch(t *Tree, s *placement.Snapshot, units, R int) *planScratch {
	N := s.NumNodes()
	sc := &planScratch{pods: make([]int64, units), slice: make([]int64, units), take: make([]int64, units), neg: make([]int64, units),
		extra: make([]int64, N*R), plain: make([]bool, N), aff: make([]int64, units), full: make([]bool, len(t.doms)),
		deep: make([]bool, len(t.doms))}
	for id := range placement.NodeID(N) {
		n := s.Node(id)
		sc.plain[id] = plainNode(n)
	}
	L := len(t.keys)
	sc.byRank = make([]placement.NodeID, N)
	for id := range sc.byRank {
		sc.byRank[id] = placement.NodeID(id)
	}
	slices.SortFunc(sc.byRank, func(a, b placement.NodeID) int {
		if c := cmp.Compare(t.nodeDom[int(a)*L+L-1], t.nodeDom[int(b)*L+L-1]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	sc.tieRank = make([]int32, N)
	for k, id := range sc.byRank {
		sc.tieRank[id] = int32(k)
	}
	sc.only = make([]int32, len(t.doms))
	for d := range t.doms {
		sc.full[d] = !slices.ContainsFunc(t.doms[d].nodes, func(n placement.NodeID) bool { return t.nodeDom[int(n)*L+L-1] < 0 })
		sc.only[d] = -1
		if dom := &t.doms[d]; dom.level == L-1 && len(dom.nodes) == 1 {
			sc.only[d] = int32(dom.nodes[0])
		}
	}
	return sc
}

// use sets p.r to r and prepares nodeCount for it.
func (p *planner) use(r *request) {
	p.r, p.untr = r, r.untracked
	p.reqIdx, p.reqQ = p.reqIdx[:0], p.reqQ[:0]
	for j, q := range r.req {
		if q > 0 {
			p.reqIdx = append(p.reqIdx, j)
		}
	}
	slices.SortStableFunc(p.reqIdx, func(a, b int) int { return cmp.Compare(min(r.req[a], 2), min(r.req[b], 2)) })
	for _, j := range p.reqIdx {
		p.reqQ = append(p.reqQ, r.req[j])
	}
	p.setQuickShape()
	p.prefer = p.opts.NodeAffinityPreferred && r.tmpl.NodeAffinity != nil && len(r.tmpl.NodeAffinity.Preferred) > 0
	p.plainPod = len(r.tmpl.NodeSelector) == 0 && !requiresNodes(r.tmpl) && len(p.opts.Filters) == 0 && !p.prefer
	p.t.plan.static.use(r.tmpl, p.s.NumNodes())
	p.hookPod = nil
	if len(p.opts.Filters) > 0 {
		p.hookPod = r.hookPod
	}
	p.setCut()
	p.negOn = p.opts.KueueNegativeCounts && p.c.negFree > 0 && len(r.layers) == 1
	p.negAt, p.lfLow, p.lfLowN, p.lfExtra, p.negWrites, p.negDrop = -1, p.lfLow[:0], p.lfLowN[:0], 0, p.negWrites[:0], false
}

// cacheable reports whether r's counts may be kept for the next plan:
// caller filters may answer differently next time, and affinity scores
// are not kept, nor counts with Kueue's negative ones (their key does not
// say so).
func (p *planner) cacheable() bool { return len(p.opts.Filters) == 0 && !p.prefer && !p.negOn }

// negCount is Kueue's count of r's pods on node id where it is below zero,
// else 0 (PlanOptions.KueueNegativeCounts): per requested resource its
// free room (less the sets planned before) divided by one pod's request,
// truncated toward zero as Go divides, the least taken. A node r's pods
// do not pass (its template or the caller's filters) counts 0, as Kueue
// leaves it out; the filters run only for a node in deficit.
func (p *planner) negCount(id placement.NodeID) int64 {
	if p.untr {
		return 0
	}
	var k int64
	for i, j := range p.reqIdx {
		free := p.c.nodeFree[int(id)*p.R+j]
		if p.extra != nil {
			free -= p.extra[int(id)*p.R+j]
		}
		if free < 0 {
			k = min(k, free/p.reqQ[i])
		}
	}
	if k == 0 || !p.t.plan.static.fits(p.r.tmpl, p.s.Node(id), id) || len(p.opts.Filters) > 0 && !p.filtersPass(id) {
		return 0
	}
	return k
}

func (p *planner) level(u int) int {
	if u >= p.D {
		return p.L
	}
	return p.t.doms[u].level
}

// appendKids appends u's units one level narrower to dst.
func (p *planner) appendKids(dst []int, u int) []int {
	d := &p.t.doms[u]
	if d.level == p.L-1 {
		for _, n := range d.nodes {
			dst = append(dst, p.D+int(n))
		}
		return dst
	}
	for _, c := range d.children {
		dst = append(dst, int(c))
	}
	return dst
}

// appendTaken appends u's units one level narrower with a take to dst,
// in appendKids' order (the units a split of u used, in order: takeFrom
// leaves them in its own).
func (p *planner) appendTaken(dst []int, u int) []int {
	d := &p.t.doms[u]
	n := len(d.children)
	if d.level == p.L-1 {
		n = len(d.nodes)
	}
	k := len(dst)
	dst = slices.Grow(dst, n)[:k+n]
	// Without a branch: which units took is a coin toss on a
	// fragmented cluster.
	if d.level == p.L-1 {
		for _, id := range d.nodes {
			v := p.D + int(id)
			dst[k] = v
			k += positive(p.take[v])
		}
		return dst[:k]
	}
	for _, c := range d.children {
		dst[k] = int(c)
		k += positive(p.take[c])
	}
	return dst[:k]
}

// sortCurMax is the most units of a level descend sorts into their order
// before splitting each: a level pooled above hands it a few domains in
// its own order (a sliced set's racks); more are left to rankOrder.
const sortCurMax = 32

func (p *planner) path(u int) string {
	if u < 0 {
		return ""
	}
	if u >= p.D {
		return p.s.Node(placement.NodeID(u - p.D)).Name
	}
	return p.t.doms[u].path
}

// nodeCount is how many pods of r fit on node id after the sets planned
// before, at most placement.MaxPending (so that sums over domains cannot
// overflow, and the least free node is told apart from a roomier one
// even when both hold the whole set), and, while p prefers, the node's
// preferred affinity score — counted for every node r's pods pass, with
// room or not, as Kueue sums it over the feasible nodes of a domain.
func (p *planner) nodeCount(id placement.NodeID) (int64, int64) {
	if p.untr {
		return 0, 0
	}
	var aff int64
	if !p.plainPod || !p.t.plan.plain[id] {
		n := p.s.Node(id)
		if !p.t.plan.static.fits(p.r.tmpl, n, id) || !p.filtersPass(id) {
			return 0, 0
		}
		if p.prefer {
			aff = p.r.tmpl.NodeAffinity.Score(n)
		}
	}
	k := int64(placement.MaxPending)
	row := p.c.nodeFree[int(id)*p.R : int(id+1)*p.R]
	var extra []int64
	if p.extra != nil {
		extra = p.extra[int(id)*p.R : int(id+1)*p.R]
	}
	// Resources of quantity 1 come first (use sorts them so): they bound
	// k without a division, and a later resource divides only when it
	// holds fewer than k copies.
	for i, j := range p.reqIdx {
		free, q := row[j], p.reqQ[i]
		if extra != nil {
			free -= extra[j]
		}
		switch {
		case free < q:
			return 0, aff
		case q == 1:
			k = min(k, free)
		case q < 1<<40 && free >= k*q:
		default:
			k = min(k, free/q)
		}
	}
	return k, aff
}

// filtersPass runs the caller's filters on node id for r's pods, as Solve
// does for each pod: the first rejection ends it, and the first error is
// kept for PlanPodSets to return.
func (p *planner) filtersPass(id placement.NodeID) bool {
	for k, f := range p.opts.Filters {
		rj := f.Filter(p.hookPod, placement.NewNodeInfo(p.s, id))
		if rj.Err != nil && p.hookErr == nil {
			p.hookErr = fmt.Errorf("%w: PodGroup %s: PlanOptions.Filters[%d] on pod %s, node %q: %w",
				placement.ErrHook, p.hookPod.SchedulingGroup, k, p.hookPod.Key(), p.s.Node(id).Name, rj.Err)
		}
		if !rj.OK() {
			return false
		}
	}
	return true
}

// setQuickShape sets sumQuick's columns for r's requested resources
// (sorted by use: quantity 1 first): it counts sets that ask at most
// three, at least one of quantity 1 (the pod's own slot, when the
// snapshot tracks pods) and none of 2^40 or more, so that k·q cannot
// overflow for k ≤ placement.MaxPending.
func (p *planner) setQuickShape() {
	p.quickShape = false
	p.t.plan.classes.next()
	if len(p.reqIdx) == 0 || len(p.reqIdx) > 3 || p.reqQ[0] != 1 || slices.Max(p.reqQ) >= 1<<40 {
		return
	}
	p.quickShape = true
	first := p.reqIdx[0]
	p.unitCols = [3]int{first, first, first}
	p.otherCols, p.otherQ = [2]int{first, first}, [2]int64{1, 1}
	u, o := 0, 0
	for i, j := range p.reqIdx {
		if p.reqQ[i] == 1 {
			p.unitCols[u] = j
			u++
		} else {
			p.otherCols[o], p.otherQ[o] = j, p.reqQ[i]
			o++
		}
	}
}

// quick reports whether sumQuick may count r: its pods pass every plain
// node (no node filter, no affinity score), nothing was planned before,
// and its requests have sumQuick's shape.
func (p *planner) quick() bool {
	return p.plainPod && p.extra == nil && !p.untr && p.quickShape
}

// sumQuick is the sum of nodeCount over nodes, while quick: a node
// without a free class (not plain) is asked; the others read their class's
// count (rowCount), each class counted once per template. With few classes
// for the nodes (a quarter or fewer), the first call counts them all, and
// the loop reads a count per node without asking whether it is current.
func (p *planner) sumQuick(nodes []placement.NodeID) int64 {
	fc, cc := p.c.freeClassesOf(), &p.t.plan.classes
	classes := len(fc.rows) / max(p.R, 1)
	cc.fit(classes)
	of, at, cnt, gen := fc.of, cc.at, cc.cnt, cc.gen
	var sum int64
	if classes <= len(of)/4 {
		if cc.all != gen {
			for c := range classes {
				at[c], cnt[c] = gen, p.rowCount(fc.rows[c*p.R:(c+1)*p.R])
			}
			cc.all = gen
		}
		cnt = cnt[:classes]
		for _, n := range nodes {
			if c := of[n]; c >= 0 {
				sum += cnt[c]
			} else {
				k, _ := p.nodeCount(n)
				sum += k
			}
		}
		return sum
	}
	for _, n := range nodes {
		c := of[n]
		if c < 0 {
			k, _ := p.nodeCount(n)
			sum += k
			continue
		}
		if at[c] != gen {
			at[c], cnt[c] = gen, p.rowCount(fc.rows[int(c)*p.R:int(c+1)*p.R])
		}
		sum += cnt[c]
	}
	return sum
}

// rowCount is nodeCount of a plain node whose free row is row, while
// quick, with the template's columns hoisted and no branch per resource:
// the unit columns bound k by a min (a free count ≤ 0 there leaves
// nothing); another column divides only when it holds fewer than k
// copies, and its quotient is what nodeCount takes then (0 for a free
// count below the quantity, negative ones included, after the clamp).
func (p *planner) rowCount(row []int64) int64 {
	k := min(placement.MaxPending, row[p.unitCols[0]], row[p.unitCols[1]], row[p.unitCols[2]])
	if k <= 0 {
		return 0
	}
	for i, j := range p.otherCols {
		if f, q := row[j], p.otherQ[i]; f < k*q {
			k = f / q
		}
	}
	return max(k, 0)
}

// div is a/b, without dividing by 1.
func div(a, b int64) int64 {
	if b == 1 {
		return a
	}
	return a / b
}

// fill counts, bottom up from the nodes, the pods and slices of r that fit
// in unit u of level lv and every unit under it (Kueue's phase 1). Below
// p.cut, where no slice layer rounds and no search reads, a domain's
// pods are summed from its nodes directly, and its units are left
// uncounted unless deep: descend counts the domains it walks into.
func (p *planner) fill(u, lv int, deep bool) {
	if lv < p.L-1 && (deep || lv < p.cut) { // count sums u's children: count them first
		for _, c := range p.t.doms[u].children {
			p.fill(int(c), lv+1, deep)
		}
	}
	p.count(u, lv, deep)
}

// count is fill of unit u alone: its children, where it sums them, hold
// their counts already.
func (p *planner) count(u, lv int, deep bool) {
	r := p.r
	z := r.sliceUnit()
	if lv == p.L {
		n, a := p.nodeCount(placement.NodeID(u - p.D))
		p.pods[u], p.slice[u] = n, div(n, z)
		if p.prefer {
			p.aff[u] = a
		}
		return
	}
	d := &p.t.doms[u]
	var pods, sl, aff, neg, negSl int64
	summed := false // pods and sl hold the children's negative counts already
	kids := false   // the counts are the children's, negSl their slices in deficit
	switch {
	case !deep && lv >= p.cut && p.t.plan.full[u] && p.quick() && !p.negOn:
		pods = p.sumQuick(d.nodes)
		sl = pods
	case !deep && lv >= p.cut:
		for _, n := range d.nodes {
			if p.t.nodeDom[int(n)*p.L+p.L-1] >= 0 { // in the topology: a domain at every level
				c, a := p.nodeCount(n)
				pods += c
				aff += a
				if p.negOn {
					neg += p.negCount(n)
				}
			}
		}
		sl = pods
	case lv == p.L-1:
		unit := r.unitAt(lv + 1)
		for _, n := range d.nodes {
			k := p.D + int(n)
			c, a := p.nodeCount(n)
			p.pods[k], p.slice[k] = c, div(c, z)
			if p.prefer {
				p.aff[k] = a
			}
			pods += div(c, unit) * unit
			sl += div(c, z)
			aff += a
			if p.negOn {
				neg += p.negCount(n)
			}
		}
	default:
		unit := r.unitAt(lv + 1)
		summed, kids = lv < p.L-2, true
		for _, c := range d.children {
			pods += div(p.pods[c], unit) * unit
			sl += p.slice[c]
			if p.prefer {
				aff += p.aff[c]
			}
			if p.negOn {
				neg += p.neg[c]
				// A host at the slice level counts its deficit in
				// slices truncated toward zero, as Kueue divides a
				// leaf's count by the slice size (-2 pods, -1 slice of
				// 2; -1 pod, 0 slices), and its parent sums those.
				negSl += div(p.neg[c], z)
			}
		}
	}
	p.neg[u] = neg
	if lv < p.L-1 && !summed {
		// Above the hosts a domain's total counts its nodes in deficit
		// (Kueue's sum); a host's own count stays what it takes. A
		// domain summing its nodes directly is at or below the slice
		// level, where its slices are recounted from its pods below.
		if !kids {
			negSl = neg
		}
		pods += neg
		sl += negSl
	}
	if p.prefer {
		p.aff[u] = aff
	}
	p.pods[u] = pods
	if lv >= r.layers[0].level {
		sl = div(pods, z)
	}
	p.slice[u] = sl
}

// setCut sets p.cut for r: the narrowest level whose domains the search
// reads (r's level), or deeper where slice layers round the counts.
func (p *planner) setCut() {
	r := p.r
	cut := r.level
	if r.sliceUnit() > 1 {
		cut = max(cut, r.layers[0].level)
	}
	if len(r.layers) > 1 {
		cut = max(cut, r.layers[len(r.layers)-1].level)
	}
	p.cut = cut
}

// fillScope counts every unit under scope (-1: the whole cluster).
func (p *planner) fillScope(scope int) {
	if scope >= 0 {
		p.fill(scope, p.level(scope), false)
		return
	}
	for d := p.t.levelStart[0]; d < p.t.levelStart[1]; d++ {
		p.fill(int(d), 0, false)
	}
}

// unitsAt returns the units of level lv under scope (-1: all), in ID order.
func (p *planner) unitsAt(lv, scope int) []int { return p.appendUnitsAt(nil, lv, scope) }

// appendUnitsAt appends the units of level lv under scope (-1: all) to
// dst, in ID order: depth first, which reaches them in the order a level
// by level walk lists them, without building the levels between (fit
// walks every host of a wide scope, and those levels were a slice each).
func (p *planner) appendUnitsAt(dst []int, lv, scope int) []int {
	if scope < 0 {
		for d := p.t.levelStart[0]; d < p.t.levelStart[1]; d++ {
			dst = p.appendUnitsAt(dst, lv, int(d))
		}
		return dst
	}
	switch l := p.level(scope); {
	case l >= lv:
		return append(dst, scope)
	case l == lv-1:
		return p.appendKids(dst, scope)
	}
	for _, c := range p.t.doms[scope].children {
		dst = p.appendUnitsAt(dst, lv, int(c))
	}
	return dst
}

// hostsOnly reports whether every unit of us is a deepest domain of one
// node.
func (p *planner) hostsOnly(us []int) bool {
	for _, u := range us {
		if p.t.plan.only[u] < 0 {
			return false
		}
	}
	return true
}

func (p *planner) setTake(u int, pods int64) {
	if p.take[u] == 0 {
		p.taken = append(p.taken, u)
	}
	p.take[u] = pods
}

// capMode says how many units a unit holds: its slices, or its pods in
// multiples of unit.
type capMode struct {
	slices bool
	unit   int64
}

func (p *planner) capOf(m capMode, u int) int64 {
	if m.slices {
		return p.slice[u]
	}
	return div(p.pods[u], m.unit)
}

// consume takes need units of unit pods each from us in order, capped per
// unit as m counts; with bestFit, once one unit could take all that is
// left, the first unit of the smallest such capacity takes it instead
// (Kueue "optimizes the last domain"). It appends the units used to dst
// and returns them with what is left.
func (p *planner) consume(dst, us []int, need, unit int64, m capMode, bestFit bool) ([]int, int64) {
	for i := 0; i < len(us) && need > 0; i++ {
		u := us[i]
		if bestFit && p.capOf(m, u) >= need {
			u = p.bestFit(us[i:], need, m)
		}
		k := min(p.capOf(m, u), need)
		if k <= 0 {
			continue
		}
		p.setTake(u, k*unit)
		need -= k
		dst = append(dst, u)
	}
	return dst, need
}

// bestFit returns the first of us with the smallest capacity ≥ need;
// while p prefers, among the units of us[0]'s affinity score only, so
// that a tighter fit never outranks a preferred domain (as Kueue confines
// its best fit to the top affinity tier).
func (p *planner) bestFit(us []int, need int64, m capMode) int {
	if p.prefer {
		tier := 1
		for tier < len(us) && p.aff[us[tier]] == p.aff[us[0]] {
			tier++
		}
		us = us[:tier]
	}
	best, bc := -1, int64(0)
	for _, u := range us {
		if c := p.capOf(m, u); c >= need && (best < 0 || c < bc) {
			best, bc = u, c
		}
	}
	return best
}

// failure says where a set did not fit: the level searched, the best
// unit there and what it holds.
type failure struct {
	level int // the level searched; -1 when the whole scope was pooled
	best  int // unit, or -1
	holds int64
	msg   string // when set, the whole reason
	// assumed, when set, is the set as Kueue's TAS answers it though its
	// Workload API refuses the answer (a negative count written: see
	// planner.negatives); msg then ends in why, [KueueAssumed].Why.
	assumed *setOut
	why     string
	lift    []placement.PodSetAssignment // the negative counts written, as positive ones
	// kfit, when kok, is the slices Kueue v0.17's reason says fit
	// (slicesFitCount, [KueueNotFit].Fit); balanced, when set, is why
	// Kueue's TASBalancedPlacement failed ([KueueNotFit].Balanced).
	kfit     int64
	kok      bool
	balanced KueueBalancedReason
}

// fit finds the units holding r at its level inside scope (Kueue's phase
// 2a): one domain of the level by best fit, or for a preferred level the
// next wider level's when none does, up to the scope; then, unless
// required, the fewest units of the widest level searched. It returns the
// units with their takes set and their level.
func (p *planner) fit(scope int) ([]int, int, *failure) {
	r := p.r
	need := r.count / r.sliceUnit()
	lf := r.unconstrained
	stop := 0
	if scope >= 0 {
		stop = p.level(scope)
	}
	q := max(r.level, stop)
	for {
		us := p.appendUnitsAt(p.t.plan.units[:0], q, scope)
		p.t.plan.units = us
		if !lf && !p.prefer && !r.required && q > stop && !p.anyHolds(us, need) {
			q-- // no unit holds the set: it widens, whatever their order
			continue
		}
		p.order(us, lf)
		if lf {
			for _, u := range us {
				if p.slice[u] >= need {
					p.setTake(u, need*r.sliceUnit())
					return []int{u}, q, nil
				}
			}
		} else if i := p.firstHolding(us, need, r.required); i >= 0 {
			u := p.bestFit(us[i:], need, capMode{slices: true})
			p.setTake(u, need*r.sliceUnit())
			return []int{u}, q, nil
		}
		if r.required {
			f := &failure{level: q, best: -1}
			for _, u := range us {
				if f.best < 0 || p.slice[u] > f.holds {
					f.best, f.holds = u, p.slice[u]
				}
			}
			if f.holds <= 0 {
				p.bestPassed(f, us)
			}
			// Kueue reports the first domain of its order, the most
			// slices, counted with those in deficit.
			for i, u := range us {
				if k := p.kueueSlices(u); i == 0 || k > f.kfit {
					f.kfit = k
				}
			}
			f.kok = len(us) > 0
			return nil, 0, f
		}
		if !lf && q > stop {
			q--
			continue
		}
		if lf && p.negOn {
			// LeastFreeCapacity pools every unit, those in deficit
			// first: they lower what the pool holds, and Kueue writes
			// their counts when it holds the set (negatives).
			var total int64
			for _, u := range us {
				total += p.kueueSlices(u)
			}
			if total < need {
				return nil, 0, &failure{level: -1, best: scope, holds: max(total, 0), kfit: total, kok: true}
			}
			p.lfExtra = p.negatives(us, true)
			need += p.lfExtra
			p.noteLow(us)
		}
		used, left := p.consume(nil, us, need, r.sliceUnit(), capMode{slices: true}, !lf)
		if left > 0 {
			// Kueue's greedy fill of the widest level searched takes
			// every unit before it gives up: its reason counts them all.
			var all int64
			for _, u := range us {
				all += p.kueueSlices(u)
			}
			return nil, 0, &failure{level: -1, best: scope, holds: need - left, kfit: all, kok: true}
		}
		return used, q, nil
	}
}

// bestPassed names as f's best, when no unit of us holds a slice, the
// one holding the most (counted in deficit) among those with a node r's
// pods pass (nodeSelector, affinity, taints, filters), if any does: a
// domain none of whose nodes the set may use holds 0 too, and named
// "the best" it misleads where the set's own domain is overcommitted.
// The count shown is 0 at least.
func (p *planner) bestPassed(f *failure, us []int) {
	best := -1
	for _, u := range us {
		if (best < 0 || p.slice[u] > p.slice[best]) && p.anyPasses(u) {
			best = u
		}
	}
	if best >= 0 {
		f.best = best
	}
	f.holds = max(p.slice[f.best], 0)
}

// anyPasses reports whether r's pods pass one node under unit u, its
// requests aside.
func (p *planner) anyPasses(u int) bool {
	for _, v := range p.unitsAt(p.L, u) {
		id := placement.NodeID(v - p.D)
		if p.t.plan.static.fits(p.r.tmpl, p.s.Node(id), id) && (len(p.opts.Filters) == 0 || p.filtersPass(id)) {
			return true
		}
	}
	return false
}

// anyHolds reports whether one of us holds need slices.
func (p *planner) anyHolds(us []int, need int64) bool {
	for _, u := range us {
		if p.slice[u] >= need {
			return true
		}
	}
	return false
}

// firstHolding returns the index of the first of the ordered units us
// that holds need slices when it is us[0] (Kueue's top domain), else -1;
// while p prefers and the set is required, the first that holds them
// further down the order (Kueue scans past the preferred domains before
// failing a required set; a preferred one widens instead).
func (p *planner) firstHolding(us []int, need int64, required bool) int {
	if len(us) == 0 {
		return -1
	}
	if p.slice[us[0]] >= need {
		return 0
	}
	if p.prefer && required {
		for i := 1; i < len(us); i++ {
			if p.slice[us[i]] >= need {
				return i
			}
		}
	}
	return -1
}

// descend distributes the takes of units at level fl down to the nodes
// (Kueue's phase 2b): above the outermost slice level the children of all
// units are pooled and filled greedily, largest first, the last by best
// fit (fewest lower-level domains), unless perParent; from the slice level
// down each unit's take is split among its own children in multiples of
// the slice layer there, the least free first unless BestFitInSlices. It
// returns the units used at the deepest level with their takes set, in a
// buffer the next descent reuses: nodes, and hosts (deepest domains of
// one node) standing for their node, whose take is the host's — the
// caller reads sc.only for the node, so that no take is set and cleared
// per node of such a host. A unit split alone and taken whole goes to
// its nodes at once, appended with their takes to sc.setNodes and
// sc.setTakes (see whole).
func (p *planner) descend(units []int, fl int, perParent bool) []int {
	r := p.r
	lf := r.unconstrained
	z := r.sliceUnit()
	cur := units
	deep := false
	// The units of each level and the children being ordered live in
	// the scratch's buffers, reused from call to call.
	sc := p.t.plan
	bufs, ks := sc.levels, sc.kids
	for lv := fl; lv < p.L; lv++ {
		if !deep && lv >= p.cut {
			for _, u := range cur {
				if u < p.D && sc.deep[u] {
					continue // filled by a descent of the kept counts
				}
				p.fill(u, lv, true) // the same counts, now for every unit under u
				if sc.counted != nil && u < p.D {
					sc.deep[u] = true
					sc.deepList = append(sc.deepList, u)
				}
			}
			for _, u := range p.lfLow { // split too (splitLow); never kept (negOn)
				if u < p.D {
					p.fill(u, lv, true)
				}
			}
			deep = true
		}
		next := bufs[lv&1][:0] // not cur's buffer: cur is the other one, or units
		switch {
		case lv < r.layers[0].level && !perParent && lv > fl && p.hostsOnly(cur):
			// cur were pooled and taken one level up, and each holds one
			// node of its slices, pods, affinity and place in the order:
			// pooling the nodes takes them as their hosts were taken, so
			// each host stands for its node (the pooled nodes of ~1,000
			// hosts were a fifth of a balanced 5,000-host plan).
			next = append(next, cur...)
		case lv < r.layers[0].level && !perParent:
			var total int64
			ks = ks[:0]
			for _, u := range cur {
				total += p.take[u]
				ks = p.appendKids(ks, u)
			}
			need := total / z
			if lf && p.negOn {
				// Kueue pools the children of every unit its last
				// fill appended, those it took nothing from too, and
				// fills the set's slices again, with this level's
				// negative counts.
				for _, u := range p.lfLow {
					ks = p.appendKids(ks, u)
				}
				need -= p.lfExtra
				p.lfExtra = p.negatives(ks, true)
				need += p.lfExtra
				p.noteLow(ks)
			}
			next, _ = p.takeFrom(next, ks, need, z, capMode{slices: true}, lf)
		default:
			// From the slice level down Kueue splits each domain's count
			// over its children the least free first, negative counts
			// included (splitNeg), and splits on those given none.
			exact := p.negOn && lv >= r.layers[0].level && (lf || !p.opts.BestFitInSlices)
			if exact {
				next = p.splitLow(next)
			}
			// Each unit's children come out in their order (see
			// appendTaken); the units in theirs too — a pooled level
			// above left a few in its own, sorted here — give the set's
			// nodes in rank order, which rankOrder then need not sort.
			if !p.negOn && lv > fl && len(cur) <= sortCurMax && !strictlyAscending(cur) {
				slices.Sort(cur)
			}
			for _, u := range cur {
				if sc.only[u] >= 0 { // a host's domain stands for its node: nothing to choose
					next = append(next, u)
					continue
				}
				if deep && p.whole(u) {
					for _, n := range p.t.doms[u].nodes {
						if c := p.pods[p.D+int(n)]; c > 0 {
							sc.setNodes = append(sc.setNodes, p.D+int(n))
							sc.setTakes = append(sc.setTakes, c)
						}
					}
					continue
				}
				ks = p.appendKids(ks[:0], u)
				m, unit, asc := capMode{slices: true}, z, lf
				if lv >= r.layers[0].level {
					unit = r.unitAt(lv + 1)
					m = capMode{unit: unit}
					// Below the slice level a unit's slices are its pods
					// over the slice size, so the least-free order is
					// Kueue's there: free pods ascending (BestFitInSlices).
					asc = lf || !p.opts.BestFitInSlices
				}
				if exact {
					next = p.splitNeg(next, ks, p.take[u])
					continue
				}
				if len(ks) == 1 { // one child: nothing to choose
					p.setTake(ks[0], p.take[u])
					next = append(next, ks[0])
					continue
				}
				k := len(next)
				next, _ = p.takeFrom(next, ks, p.take[u]/unit, unit, m, asc)
				if !p.negOn {
					next = p.appendTaken(next[:k], u)
				}
			}
		}
		bufs[lv&1] = next
		cur = next
	}
	sc.levels, sc.kids = bufs, ks
	return cur // a scratch buffer (or units): finish copies it
}

// whole reports whether domain u, counted down to its nodes at or below
// the cut, takes every pod its nodes hold: then however the descent
// splits it, each node takes all it holds, since no node takes more than
// it holds and the takes add up to u's. There u's count is its nodes'
// counts summed (no slice layer rounds below the cut, see fill) when
// every node of u is a unit (full), and the descent is spared a take
// set, ordered and cleared per domain and host under u (an empty
// cluster's racks, taken whole).
func (p *planner) whole(u int) bool {
	return p.t.plan.full[u] && p.take[u] == p.pods[u] && (!p.negOn || p.neg[u] == 0)
}

// reason words a failure as Kueue's do, per pod set: the level that failed
// and by how much.
func (p *planner) reason(f *failure) string {
	if f.msg != "" {
		return f.msg
	}
	r := p.r
	z := r.sliceUnit()
	need := r.count / z
	what := func(n int64) string {
		if z == 1 {
			return plural(n, "pod")
		}
		return fmt.Sprintf("%s of %d pods (each in one %s domain)", plural(n, "slice"), z, p.t.keys[r.layers[0].level])
	}
	holds := func(n int64) string {
		if z == 1 {
			return fmt.Sprintf("%d", n)
		}
		return plural(n, "slice")
	}
	var b strings.Builder
	verb := "needs"
	if r.members {
		verb = "need"
	}
	fmt.Fprintf(&b, "%s %s %s", r.obj(), verb, what(need))
	switch {
	case f.level >= 0 && f.best < 0:
		fmt.Fprintf(&b, " in one %s domain; there is none", p.t.keys[f.level])
	case f.level >= 0:
		fmt.Fprintf(&b, " in one %s domain; the best, %s, holds %s", p.t.keys[f.level], p.path(f.best), holds(f.holds))
		p.layerFits(&b, f.best)
	case f.best >= 0:
		fmt.Fprintf(&b, "; %s holds %s", p.path(f.best), holds(f.holds))
	default:
		fmt.Fprintf(&b, "; the cluster holds %s", holds(f.holds))
		switch out := p.t.unlabelled; {
		case out == 1:
			b.WriteString(" (1 node without a domain at every level of the topology takes no part)")
		case out > 1:
			fmt.Fprintf(&b, " (%d nodes without a domain at every level of the topology take no part)", out)
		}
	}
	return b.String()
}

// layerFits adds, for a multi-layer request, how many slices of each
// layer the best domain holds.
func (p *planner) layerFits(b *strings.Builder, best int) {
	r := p.r
	if len(r.layers) < 2 {
		return
	}
	p.fill(best, p.level(best), true)
	for i, l := range r.layers {
		var n int64
		for _, u := range p.unitsAt(l.level, best) {
			n += p.pods[u] / l.size
		}
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(b, "%s%d of %s of %d in one %s domain", sep, min(n, r.count/l.size), plural(r.count/l.size, "slice"), l.size, p.t.keys[l.level])
	}
	b.WriteString(")")
}

// plural words n things: "1 slice", "2 slices", "0 slices".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
