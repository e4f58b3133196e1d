package topology

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Kueue v0.17's balanced placement (feature gate TASBalancedPlacement,
// pkg/cache/scheduler/tas_balanced_placement.go), as [PlanOptions].KueueBalanced
// asks for it. The level P is the set's preferred level; S is its
// outermost slice level, or the tree's narrowest level without slices
// (Kueue's default slice level); "lower" is P+1 when P < S, else P itself.
//
//  1. Each domain of level P-1 (the cluster when P = 0) offers its
//     children at P as a group. A group fits when the largest-first fill
//     of its lower domains (most slices, then fewest pods, then path)
//     holds the set; m is the number of lower domains that fill takes,
//     and the group's threshold is slices/m, capped by the slices of the
//     last one taken.
//  2. A group whose threshold is at least the best so far is pruned: its
//     lower-level domains holding fewer slices than the threshold are
//     emptied, each domain of P is recounted from what is left, and one
//     below the threshold is emptied too. Then the largest-first fill of
//     its P domains is counted again (0 when they no longer hold the
//     set). The highest threshold wins, then the fewest P domains.
//  3. When P < S, the winner's P domains are narrowed to the fewest that
//     hold the set with the least pods of room (a search over subsets of
//     the size the largest-first fill needs, tried in order of slices,
//     then the entropy of their children's pods, both descending), and
//     the lower domains are their children.
//  4. Among the lower domains, the same search picks the fewest with the
//     least room; each takes the threshold, and what is left goes to the
//     largest first (most slices, then fewest pods), each up to its room.
//  5. Below, each domain's pods are split among its children as Kueue's
//     ordinary descent does.
//
// With a PodSetGroup's leader (kueuebalancedgroup.go) every count has a
// second form, the room beside the leader where it fits: the fills take
// the domains where it fits first, by that room, until it is placed; the
// threshold is capped by that room; pruning compares it; the subset
// search places the leader too; and the first domain of step 4, by
// leader and room beside it, takes the leader with its share.
//
// With no group that fits at all (or, with a leader, none whose threshold
// is above 0: the room beside a leader can cap it to 0), the set is
// placed as without the gate (BestFit, widening). Once a group fits, a failure later in steps 3 and
// 4 fails the set: Kueue does not fall back. In particular, a set whose
// preferred level is its slice level and not the narrowest one never
// fits (step 2 empties every domain below the slice level, which count no
// slices, and so every group): Kueue v0.17 answers "TAS Balanced
// Placement: Cannot find optimal domain set to fit the request".
//
// Kueue reads the groups, and their children, in Go map order, and its
// search keeps the first subset it meets of each room; among groups of
// equal threshold and P count it keeps the first. Here groups and
// children come in path order, and the subset search's candidates are
// sorted with path last, so among Kueue's possible answers this one
// always gives the one of the first paths — but for the children of a
// domain that an earlier set of the plan sorted in step 3, which come
// in the order that sort left (kueuebalancedorder.go). With
// [PlanOptions].NodeAffinityPreferred (no gate of Kueue v0.17), the
// summed preferred node affinity breaks those ties before the path — a
// group, a candidate, a domain's children — and nothing else: the answer
// is still one Kueue could give.

// kbCount is a domain's pods and slices as Kueue's balanced placement
// sees them (its state and sliceState), pruned or not, and with a
// PodSetGroup's leader: whether the leader fits (leaderState) and the
// pods and slices left beside it (stateWithLeader, sliceStateWithLeader;
// the same as pods and slices without a leader).
type kbCount struct {
	pods, slices     int64
	podsWL, slicesWL int64
	leader           int64
}

// kbLeader is what KueueBalanced knows of a PodSetGroup's leader: per
// node unit, whether one leader pod fits (fits) and how many of the
// workers fit beside it (with).
type kbLeader struct {
	fits map[int]bool
	with map[int]int64
}

// kueueBalanced is KueueBalanced's placement of p.r inside scope (-1:
// the cluster; a scope at or below the preferred level leaves it to the
// ordinary search), with ld the leader of its PodSetGroup or nil.
// applied is false when no group fits (the caller then places the set
// as without the gate); otherwise it returns the lower domains with
// their takes set and their level, the one given the leader (-1 without
// one), or a failure.
func (p *planner) kueueBalanced(scope int, ld *kbLeader) (units []int, fl int, leaderAt int, applied bool, f *failure) {
	r := p.r
	P := r.level
	if scope >= 0 && p.level(scope) >= P {
		return nil, 0, -1, false, nil
	}
	z := r.sliceUnit()
	n := r.count / z
	leaf := p.L - 1
	if p.opts.KueueHostAppended {
		leaf-- // Kueue's leaves are the hosts' parents
	}
	S := min(r.layers[0].level, leaf)
	kb := kbSearch{p: p, P: P, S: S, leaf: leaf, z: z, n: n, ld: ld}
	var groups [][]int
	parents := []int{-1} // Kueue sorts a fresh list of the top level's domains
	if P == 0 {
		groups = [][]int{p.unitsAt(0, -1)}
	} else {
		parents = p.unitsAt(P-1, scope)
		for _, u := range parents {
			groups = append(groups, p.appendKids(nil, u))
		}
	}
	var cands []kbGroup
	for gi, g := range groups {
		for _, u := range g {
			p.fill(u, P, true) // the counts one level down, too
		}
		c := kb.group(g)
		lower := g
		if P < S {
			lower = kb.children(g)
		}
		fits, fill, lastWL, last := kb.greedy(lower, c)
		if !fits {
			continue
		}
		th := n / int64(len(fill))
		if lastWL >= 0 {
			th = min(th, c[lastWL].slicesWL)
		}
		if last >= 0 {
			// Kueue caps by the room beside a leader here too: it
			// cannot tell yet which domain will hold the leader.
			th = min(th, c[last].slicesWL)
		}
		kb.prune(g, c, th)
		_, fill, _, _ = kb.greedy(g, c)
		cands = append(cands, kbGroup{doms: g, parent: parents[gi], counts: c, threshold: th, count: len(fill), aff: kb.affinity(g)})
	}
	// Kueue keeps the highest threshold, then the fewest P domains (0 when
	// pruning left too few), the first met in map order among equals.
	var best kbGroup
	for _, g := range cands {
		if g.threshold > best.threshold || (g.threshold == best.threshold && g.count < best.count) {
			best = g
		}
	}
	if best.threshold == 0 {
		return nil, 0, -1, false, nil
	}
	cands = slices.DeleteFunc(cands, func(g kbGroup) bool { return g.threshold != best.threshold || g.count != best.count })
	slices.SortStableFunc(cands, func(a, b kbGroup) int { return cmp.Compare(b.aff, a.aff) })
	// Kueue tries a pending set again in later cycles, each in a new map
	// order, so a tie where one choice fails and another fits ends with
	// the set placed: the first equal group that fits wins here, and when
	// none does, the first one's reason.
	var first string
	var kind KueueBalancedReason
	for _, g := range cands {
		units, fl, at, why, k := kb.apply(g)
		if why == "" {
			return units, fl, at, true, nil
		}
		if first == "" {
			first, kind = why, k
		}
	}
	what := plural(n, "slice")
	if z == 1 {
		what = plural(n, "pod")
	}
	return nil, 0, -1, true, &failure{msg: fmt.Sprintf("%s needs %s: TAS Balanced Placement (Kueue v0.17): %s", r.obj(), what, first), balanced: kind}
}

// apply places the set in group best (steps 3 and 4): it returns the
// lower domains with their takes set, their level and the leader's, or
// why it does not fit, with nothing set, and which of Kueue's reasons
// that is.
func (kb *kbSearch) apply(best kbGroup) (units []int, fl int, leaderAt int, why string, kind KueueBalancedReason) {
	p, P, S, n, z := kb.p, kb.P, kb.S, kb.n, kb.z
	lower, fl := best.doms, P
	var sorted []int // best.doms in Kueue's entropy order, when P < S
	if P < S {
		var chosen []int
		chosen, sorted = kb.fewest(best.doms, best.counts, true, best.parent)
		if chosen == nil {
			return nil, 0, -1, "cannot find an optimal domain set to fit the request", KueueBalancedNoDomainSet
		}
		lower, fl = kb.children(chosen), P+1
	}
	chosen, _ := kb.fewest(lower, best.counts, false, -1)
	if chosen == nil {
		return nil, 0, -1, "cannot find an optimal domain set to fit the request", KueueBalancedNoDomainSet
	}
	th := best.threshold
	if n < int64(len(chosen))*th {
		return nil, 0, -1, fmt.Sprintf("%d domains at a threshold of %d slices need more slices than the set has", len(chosen), th), KueueBalancedThreshold
	}
	c := best.counts
	slices.SortFunc(chosen, func(a, b int) int { return kb.leaderFirst(a, b, c) })
	extra := n - int64(len(chosen))*th
	leaderAt = -1
	for _, u := range chosen {
		var e int64
		switch {
		case kb.ld != nil && leaderAt < 0:
			e = min(c[u].slicesWL-th, extra)
			leaderAt = u
		case extra > 0:
			e = min(c[u].slices-th, extra)
		}
		p.setTake(u, (th+e)*z)
		extra -= e
	}
	if extra > 0 {
		p.clearTakes()
		return nil, 0, -1, fmt.Sprintf("%s left over after the threshold and the largest domains' room", plural(extra, "slice")), KueueBalancedLeftOver
	}
	slices.Sort(chosen)
	if sorted != nil && best.parent >= 0 {
		p.keepKidsOrder(best.parent, sorted)
	}
	return chosen, fl, leaderAt, "", 0
}

// kbGroup is the best group so far: its domains of the preferred level,
// their pruned counts, threshold and the number of them a largest-first
// fill takes (0 when they no longer hold the set).
type kbGroup struct {
	doms      []int
	parent    int // the domain of level P-1 whose children doms are, or -1 (P = 0)
	counts    map[int]kbCount
	threshold int64
	count     int
	aff       int64 // summed preferred node affinity, while the planner prefers
}

// kbSearch is one balanced search: the set's levels, slice size and
// slices, and its PodSetGroup's leader, if any.
type kbSearch struct {
	p    *planner
	P, S int
	leaf int // the level of Kueue's leaves: the lowest, or the one above appended hosts
	z, n int64
	ld   *kbLeader
}

// group returns the counts of g's domains and, when P < S, their
// children, as Kueue sees them: slices counted at S and above only.
func (kb *kbSearch) group(g []int) map[int]kbCount {
	c := make(map[int]kbCount, 4*len(g))
	for _, u := range g {
		if kb.P < kb.S {
			for _, k := range kb.p.appendKids(nil, u) {
				c[k] = kb.count(k, kb.P+1)
			}
		}
		c[u] = kb.count(u, kb.P)
	}
	return c
}

// count is unit u's Kueue counts at level lv: below the slice level
// Kueue counts no slices. With a leader, the counts beside it are
// summed up from the nodes as Kueue sums them: a domain keeps all but
// the least that any child gives up to the leader.
func (kb *kbSearch) count(u, lv int) kbCount {
	p := kb.p
	var c kbCount
	switch {
	case lv < kb.S:
		c = kbCount{pods: p.pods[u], slices: p.slice[u]}
	case lv == kb.S:
		c = kbCount{pods: p.pods[u], slices: p.pods[u] / kb.z}
	default:
		c = kbCount{pods: p.pods[u]}
	}
	if len(p.r.layers) > 1 {
		// Kueue's pods of a domain are its hosts' summed, never rounded
		// to an inner slice layer as the planner's count is (its slices
		// are): they break ties of equal slices and measure what a
		// subset leaves.
		c.pods = kb.hostPods(u)
	}
	c.podsWL, c.slicesWL = c.pods, c.slices
	if kb.ld == nil {
		return c
	}
	// A leader comes with no slices (a PodSetGroup's sets take none):
	// slices are pods.
	kids := p.appendKids(nil, u)
	c.podsWL = c.pods
	first := true
	var least int64
	for _, k := range kids {
		var kc kbCount
		if k >= p.D {
			kc = kbCount{pods: p.pods[k], podsWL: p.pods[k]}
			if kb.ld.fits[k] {
				kc.leader, kc.podsWL = 1, kb.ld.with[k]
			}
		} else {
			kc = kb.count(k, lv+1)
		}
		c.leader = max(c.leader, kc.leader)
		if d := kc.pods - kc.podsWL; first || d < least {
			least, first = d, false
		}
	}
	c.podsWL = c.pods - least
	c.slicesWL = c.podsWL
	if lv > kb.S {
		c.slicesWL = 0
	}
	return c
}

// hostPods is the pods unit u's hosts hold, summed.
func (kb *kbSearch) hostPods(u int) int64 {
	p := kb.p
	if u >= p.D {
		return p.pods[u]
	}
	var n int64
	for _, k := range p.appendKids(nil, u) {
		n += kb.hostPods(k)
	}
	return n
}

// children returns the children of us, those of each in turn, by path
// — while the planner prefers, by preferred node affinity first (Kueue
// lists a domain's children in map order) — or, for a domain whose
// children an earlier set of this plan sorted, in the order it left
// them (kueuebalancedorder.go).
func (kb *kbSearch) children(us []int) []int {
	var out []int
	for _, u := range us {
		if kids, ok := kb.p.kbKids[u]; ok {
			out = append(out, kids...)
			continue
		}
		k := len(out)
		out = kb.p.appendKids(out, u)
		if kb.p.prefer {
			slices.SortStableFunc(out[k:], func(a, b int) int { return cmp.Compare(kb.p.aff[b], kb.p.aff[a]) })
		}
	}
	return out
}

// affinity is the summed preferred node affinity of us while the
// planner prefers, else 0.
func (kb *kbSearch) affinity(us []int) int64 {
	var a int64
	if kb.p.prefer {
		for _, u := range us {
			a += kb.p.aff[u]
		}
	}
	return a
}

// largestFirst is Kueue's order of domains to fill: the most slices,
// then the fewest pods, then path.
func (kb *kbSearch) largestFirst(a, b int, c map[int]kbCount) int {
	if x := cmp.Compare(c[b].slices, c[a].slices); x != 0 {
		return x
	}
	if x := cmp.Compare(c[a].pods, c[b].pods); x != 0 {
		return x
	}
	return cmp.Compare(a, b)
}

// leaderFirst is Kueue's order of domains to fill with a leader: those
// where the leader fits first, then largestFirst by the room beside it.
func (kb *kbSearch) leaderFirst(a, b int, c map[int]kbCount) int {
	if x := cmp.Compare(c[b].leader, c[a].leader); x != 0 {
		return x
	}
	if x := cmp.Compare(c[b].slicesWL, c[a].slicesWL); x != 0 {
		return x
	}
	if x := cmp.Compare(c[a].podsWL, c[b].podsWL); x != 0 {
		return x
	}
	return cmp.Compare(a, b)
}

// greedy fills the set's slices into us, largest first, while they have
// slices — with a leader, first the domains where it fits, by the room
// beside it, until it is placed; it reports whether they hold the set,
// the domains it took (nil when they do not hold it), and the last taken
// with the leader and without (-1 for none).
func (kb *kbSearch) greedy(us []int, c map[int]kbCount) (fits bool, fill []int, lastWL, last int) {
	order := slices.Clone(us)
	left, leaders := kb.n, int64(0)
	lastWL, last = -1, -1
	i, m := 0, 0
	if kb.ld != nil {
		leaders = 1
		slices.SortFunc(order, func(a, b int) int { return kb.leaderFirst(a, b, c) })
		for ; leaders > 0 && i < len(order) && c[order[i]].leader > 0; i++ {
			u := order[i]
			m++
			lastWL = u
			leaders -= c[u].leader
			left -= c[u].slicesWL
		}
		if leaders > 0 {
			return false, nil, -1, -1
		}
	}
	rest := order[i:]
	slices.SortFunc(rest, func(a, b int) int { return kb.largestFirst(a, b, c) })
	for _, u := range rest {
		if left <= 0 || c[u].slices <= 0 {
			break
		}
		left -= c[u].slices
		m++
		last = u
	}
	if left > 0 {
		return false, nil, -1, -1
	}
	return true, order[:m], lastWL, last
}

// prune empties, in group g, the lower domains below threshold th (by
// their room beside a leader) and recounts g's domains from the rest,
// emptying those below th too. Recounted pods are the plain sum of the
// children's (Kueue's recount does not round to inner slice layers); an
// emptied child gives up nothing to a leader, so a domain with one keeps
// all its pods beside the leader, as Kueue's recount has it.
func (kb *kbSearch) prune(g []int, c map[int]kbCount, th int64) {
	p := kb.p
	for _, u := range g {
		if kb.P == kb.leaf { // nothing below it in Kueue's tree
			if c[u].slicesWL < th {
				c[u] = kbCount{}
			}
			continue
		}
		var d kbCount
		first := true
		var least, leastSl int64
		for _, k := range p.appendKids(nil, u) {
			kc := c[k] // absent below the slice level: no slices, so below th
			if kc.slicesWL < th {
				kc = kbCount{}
				if _, ok := c[k]; ok {
					c[k] = kc
				}
			}
			d.pods += kc.pods
			d.slices += kc.slices
			d.leader = max(d.leader, kc.leader)
			if first || kc.pods-kc.podsWL < least {
				least = kc.pods - kc.podsWL
			}
			if first || kc.slices-kc.slicesWL < leastSl {
				leastSl = kc.slices - kc.slicesWL
			}
			first = false
		}
		d.podsWL, d.slicesWL = d.pods-least, d.slices-leastSl
		if kb.P == kb.S {
			d.slices, d.slicesWL = d.pods/kb.z, d.podsWL/kb.z
		}
		if d.slicesWL < th {
			d = kbCount{}
		}
		c[u] = d
	}
}

// entropy is the Shannon entropy (bits) of the children's pods of u, as
// counted in c: Kueue's tie-break for domains of equal slices, the more
// evenly filled first.
func (kb *kbSearch) entropy(u int, c map[int]kbCount) float64 {
	var total int64
	kids := kb.p.appendKids(nil, u)
	for _, k := range kids {
		total += c[k].pods
	}
	if total == 0 {
		return 0
	}
	var h float64
	for _, k := range kids {
		if x := c[k].pods; x > 0 {
			q := float64(x) / float64(total)
			h -= q * math.Log2(q)
		}
	}
	return h
}

// fewest returns the subset of us that Kueue's balanced search picks: of
// the size m of the largest-first fill, the one whose pods exceed the
// set's by the least (with the leader placed), the first met when
// candidates are tried in order (us, or kb.entropyOrder's when
// byEntropy: us are then parent's children, and sorted is that order);
// nil when the fill does not hold the set or no subset of size m holds
// its pods. The search is a
// knapsack over the leaders and pods left to place, as Kueue's: a domain
// takes the leader when one is left and it fits there (its pods beside
// it counted), or takes none when it has slices; a subset that already
// covers everything grows no further. Its cost, as Kueue's, is
// O(len(us) × m × distinct pod counts left) map steps: cubic in the
// domains for a set that fills them (half a second for 1,000 pods over
// 512 hosts of uneven sizes, seconds beyond). Past kbSearchBudget steps
// it stops and takes the largest-first fill itself, which holds the set
// with no fewer pods to spare: where Kueue would search for seconds or
// more, gangsched answers at once, and may answer otherwise.
func (kb *kbSearch) fewest(us []int, c map[int]kbCount, byEntropy bool, parent int) (chosen, sorted []int) {
	fits, fill, _, _ := kb.greedy(us, c)
	if !fits {
		return nil, nil
	}
	m := len(fill)
	order := us
	if byEntropy {
		order = kb.entropyOrder(us, c, parent)
		sorted = order
	}
	// at[i][leaders][pods] is the first subset met of i domains that
	// leaves that many leaders and pods to place, as a chain back to its
	// first domain (a subset grows by one link, not by a copy).
	at := make([]map[int64]map[int64]*kbChain, m+1)
	for i := range at {
		at[i] = map[int64]map[int64]*kbChain{}
	}
	var leaders int64
	if kb.ld != nil {
		leaders = 1
	}
	at[0][leaders] = map[int64]*kbChain{kb.n * kb.z: nil}
	put := func(i int, l, left int64, set *kbChain) {
		if at[i][l] == nil {
			at[i][l] = map[int64]*kbChain{}
		}
		if _, ok := at[i][l][left]; !ok {
			at[i][l][left] = set
		}
	}
	var ls, lefts []int64
	steps := 0
	for _, u := range order {
		cu := c[u]
		for i := m; i > 0; i-- {
			ls = slices.AppendSeq(ls[:0], maps.Keys(at[i-1]))
			slices.Sort(ls)
			for _, l := range ls {
				lefts = slices.AppendSeq(lefts[:0], maps.Keys(at[i-1][l]))
				if steps += len(lefts); steps > kbSearchBudget {
					return inOrder(order, fill), sorted
				}
				slices.Sort(lefts)
				for _, left := range lefts {
					if l <= 0 && left <= 0 {
						continue
					}
					set := &kbChain{u: u, prev: at[i-1][l][left]}
					if l > 0 && cu.leader > 0 {
						put(i, l-cu.leader, left-cu.podsWL, set)
					}
					if cu.slices > 0 {
						put(i, l, left-cu.pods, set)
					}
				}
			}
		}
	}
	var best *kbChain
	bestLeft := int64(math.MinInt64)
	for left, set := range at[m][0] {
		if left <= 0 && left > bestLeft {
			best, bestLeft = set, left
		}
	}
	if best == nil {
		return nil, sorted
	}
	out := make([]int, 0, m)
	for ; best != nil; best = best.prev {
		out = append(out, best.u)
	}
	slices.Reverse(out)
	return out, sorted
}

// kbSearchBudget is how many states fewest's search may extend before
// it gives up Kueue's least-spare subset for the largest-first fill: a
// few tens of milliseconds of map steps, so that a set over thousands of
// domains cannot hold a decision for minutes.
const kbSearchBudget = 1 << 18

// inOrder returns the domains of set in the order they come in order.
func inOrder(order, set []int) []int {
	in := make(map[int]bool, len(set))
	for _, u := range set {
		in[u] = true
	}
	out := make([]int, 0, len(set))
	for _, u := range order {
		if in[u] {
			out = append(out, u)
		}
	}
	return out
}

// kbChain is a subset of fewest's search: its last domain and the
// subset before it.
type kbChain struct {
	u    int
	prev *kbChain
}
