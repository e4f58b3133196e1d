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
// With no group that fits at all, the set is placed as without the gate
// (BestFit, widening). Once a group fits, a failure later in steps 3 and
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
// always gives the one of the first paths.

// kbCount is a domain's pods and slices as Kueue's balanced placement
// sees them (its state and sliceState), pruned or not.
type kbCount struct{ pods, slices int64 }

// kueueBalanced is KueueBalanced's placement of p.r inside scope (-1:
// the cluster; a scope at or below the preferred level leaves it to the
// ordinary search). applied is false when no group fits (the caller
// then places the set as without the gate); otherwise it returns the
// lower domains with their takes set and their level, or a failure.
func (p *planner) kueueBalanced(scope int) (units []int, fl int, applied bool, f *failure) {
	r := p.r
	P := r.level
	if scope >= 0 && p.level(scope) >= P {
		return nil, 0, false, nil
	}
	z := r.sliceUnit()
	n := r.count / z
	S := min(r.layers[0].level, p.L-1)
	kb := kbSearch{p: p, P: P, S: S, z: z, n: n}
	var groups [][]int
	if P == 0 {
		groups = [][]int{p.unitsAt(0, -1)}
	} else {
		for _, u := range p.unitsAt(P-1, scope) {
			groups = append(groups, p.appendKids(nil, u))
		}
	}
	var best kbGroup
	for _, g := range groups {
		for _, u := range g {
			p.fill(u, P, true) // the counts one level down, too
		}
		c := kb.group(g)
		lower := g
		if P < S {
			lower = kb.children(g)
		}
		fits, m, last := kb.greedy(lower, c)
		if !fits {
			continue
		}
		th := min(n/int64(m), c[last].slices)
		if th < best.threshold {
			continue
		}
		kb.prune(g, c, th)
		_, cnt, _ := kb.greedy(g, c)
		if th > best.threshold || cnt < best.count {
			best = kbGroup{doms: g, counts: c, threshold: th, count: cnt}
		}
	}
	if best.threshold == 0 {
		return nil, 0, false, nil
	}
	fail := func(why string) (units []int, fl int, applied bool, f *failure) {
		return nil, 0, true, &failure{msg: fmt.Sprintf("%s needs %s: TAS Balanced Placement (Kueue v0.17): %s", r.obj(), plural(n, "slice"), why)}
	}
	lower, fl := best.doms, P
	if P < S {
		chosen := kb.fewest(best.doms, best.counts, true)
		if chosen == nil {
			return fail("cannot find an optimal domain set to fit the request")
		}
		lower, fl = kb.children(chosen), P+1
	}
	chosen := kb.fewest(lower, best.counts, false)
	if chosen == nil {
		return fail("cannot find an optimal domain set to fit the request")
	}
	th := best.threshold
	if n < int64(len(chosen))*th {
		return fail(fmt.Sprintf("%d domains at a threshold of %d slices need more slices than the set has", len(chosen), th))
	}
	c := best.counts
	slices.SortFunc(chosen, func(a, b int) int { return kb.largestFirst(a, b, c) })
	extra := n - int64(len(chosen))*th
	for _, u := range chosen {
		e := min(c[u].slices-th, extra)
		p.setTake(u, (th+e)*z)
		extra -= e
	}
	if extra > 0 {
		p.clearTakes()
		return fail(fmt.Sprintf("%s are left over after the threshold and the largest domains' room", plural(extra, "slice")))
	}
	slices.Sort(chosen)
	return chosen, fl, true, nil
}

// kbGroup is the best group so far: its domains of the preferred level,
// their pruned counts, threshold and the number of them a largest-first
// fill takes (0 when they no longer hold the set).
type kbGroup struct {
	doms      []int
	counts    map[int]kbCount
	threshold int64
	count     int
}

// kbSearch is one balanced search: the set's levels, slice size and
// slices.
type kbSearch struct {
	p    *planner
	P, S int
	z, n int64
}

// group returns the counts of g's domains and, when P < S, their
// children, as Kueue sees them: slices counted at S and above only.
func (kb *kbSearch) group(g []int) map[int]kbCount {
	c := make(map[int]kbCount, 4*len(g))
	for _, u := range g {
		c[u] = kb.count(u, kb.P)
		if kb.P < kb.S {
			for _, k := range kb.p.appendKids(nil, u) {
				c[k] = kb.count(k, kb.P+1)
			}
		}
	}
	return c
}

// count is unit u's Kueue counts at level lv: below the slice level
// Kueue counts no slices.
func (kb *kbSearch) count(u, lv int) kbCount {
	p := kb.p
	switch {
	case lv < kb.S:
		return kbCount{p.pods[u], p.slice[u]}
	case lv == kb.S:
		return kbCount{p.pods[u], p.pods[u] / kb.z}
	}
	return kbCount{p.pods[u], 0}
}

// children returns the children of us, in order.
func (kb *kbSearch) children(us []int) []int {
	var out []int
	for _, u := range us {
		out = kb.p.appendKids(out, u)
	}
	return out
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

// greedy fills the set's slices into us, largest first, while they have
// slices; it reports whether they hold the set, how many it took and the
// last one taken.
func (kb *kbSearch) greedy(us []int, c map[int]kbCount) (bool, int, int) {
	order := slices.Clone(us)
	slices.SortFunc(order, func(a, b int) int { return kb.largestFirst(a, b, c) })
	left, m, last := kb.n, 0, -1
	for _, u := range order {
		if left <= 0 || c[u].slices <= 0 {
			break
		}
		left -= c[u].slices
		m++
		last = u
	}
	return left <= 0, m, last
}

// prune empties, in group g, the lower domains below threshold th and
// recounts g's domains from the rest, emptying those below th too.
// Recounted pods are the plain sum of the children's (Kueue's recount
// does not round to inner slice layers).
func (kb *kbSearch) prune(g []int, c map[int]kbCount, th int64) {
	p := kb.p
	for _, u := range g {
		if kb.P == p.L-1 { // a leaf of Kueue's tree: nothing below it
			k := c[u]
			if k.pods/kb.z < th {
				c[u] = kbCount{}
			}
			continue
		}
		var pods, sl int64
		for _, k := range p.appendKids(nil, u) {
			kc, ok := c[k]
			if !ok { // below the slice level: no slices, so below th
				continue
			}
			if kc.slices < th {
				c[k] = kbCount{}
				continue
			}
			pods += kc.pods
			sl += kc.slices
		}
		if kb.P == kb.S {
			sl = pods / kb.z
		}
		if sl < th {
			pods, sl = 0, 0
		}
		c[u] = kbCount{pods, sl}
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
// set's by the least, the first met when candidates are tried in order
// (us, or by slices then entropy descending when byEntropy, path last);
// nil when the fill does not hold the set or no subset of size m holds
// its pods. The search is a knapsack over the pods left to place, as
// Kueue's: a domain with no slice is never taken, and a subset whose pods
// already cover the set grows no further.
func (kb *kbSearch) fewest(us []int, c map[int]kbCount, byEntropy bool) []int {
	fits, m, _ := kb.greedy(us, c)
	if !fits {
		return nil
	}
	order := us
	if byEntropy {
		order = slices.Clone(us)
		ent := make(map[int]float64, len(us))
		for _, u := range us {
			ent[u] = kb.entropy(u, c)
		}
		slices.SortStableFunc(order, func(a, b int) int {
			if x := cmp.Compare(c[b].slices, c[a].slices); x != 0 {
				return x
			}
			if x := cmp.Compare(ent[b], ent[a]); x != 0 {
				return x
			}
			return cmp.Compare(a, b)
		})
	}
	// at[i] maps the pods left after i domains to the first subset met.
	at := make([]map[int64][]int, m+1)
	for i := range at {
		at[i] = map[int64][]int{}
	}
	at[0][kb.n*kb.z] = nil
	for _, u := range order {
		if c[u].slices <= 0 {
			continue
		}
		for i := m; i > 0; i-- {
			for _, left := range slices.Sorted(maps.Keys(at[i-1])) {
				if left <= 0 {
					continue
				}
				after := left - c[u].pods
				if _, ok := at[i][after]; !ok {
					at[i][after] = append(slices.Clip(at[i-1][left]), u)
				}
			}
		}
	}
	var best []int
	bestLeft := int64(math.MinInt64)
	for left, set := range at[m] {
		if left <= 0 && left > bestLeft {
			best, bestLeft = set, left
		}
	}
	return slices.Clone(best)
}
