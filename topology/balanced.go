package topology

import (
	"cmp"
	"slices"
)

// balancedChoice is a balanced split of a set over k domains of its
// preferred level inside one domain of the level above.
type balancedChoice struct {
	scope    int   // the domain of the level above, -1 for the cluster
	k        int   // domains used
	leftover int64 // slices of room the chosen domains keep
	more     []int // take q+1 slices
	less     []int // take q slices
	q        int64
	aff      int64 // summed preferred node affinity of the domains used, while the planner prefers
}

// better orders balanced choices: the fewest domains, then (while the
// planner prefers) the highest summed preferred node affinity of the
// domains used, then the tightest, then the first scope.
func (x balancedChoice) better(y balancedChoice) bool {
	if x.k != y.k {
		return x.k < y.k
	}
	if x.aff != y.aff {
		return x.aff > y.aff
	}
	if x.leftover != y.leftover {
		return x.leftover < y.leftover
	}
	return x.scope < y.scope
}

// balanced plans r's slices evenly over the fewest domains of its
// preferred level P inside one domain of level P-1 (the cluster when P is
// the widest): n slices over k domains give each ⌊n/k⌋ or ⌈n/k⌉ (not
// Kueue v0.17's balanced placement: see [PlanOptions].Balanced). Among
// the scopes with the fewest domains, the tightest choice wins — the
// fewest slices of r's room left in the domains used, counted in r's
// pods, not in quantities — then the first path; inside a
// scope the smallest domains that can take ⌈n/k⌉ take it, and the
// smallest of the rest take ⌊n/k⌋. Only the domains inside scope (-1:
// the cluster) are searched, as only they are counted for r: a scope of
// level P (an elastic growth's first try, the domain of its existing
// pods) is its own one choice, also when P is the widest level. It sets
// the takes of the chosen domains and reports false when no scope holds
// the set.
func (p *planner) balanced(scope int) ([]int, bool) {
	r := p.r
	P := r.level
	z := r.sliceUnit()
	n := r.count / z
	// The units outside scope still hold the counts of an earlier set or
	// plan: reading them would plan pods where they may not fit.
	b := &p.t.plan.bal
	scopes := b.scopes[:0]
	switch {
	case scope >= 0 && p.level(scope) >= P-1:
		scopes = append(scopes, scope)
	case P == 0:
		scopes = append(scopes, -1)
	default:
		scopes = p.appendUnitsAt(scopes, P-1, scope)
	}
	b.scopes = scopes
	// Each scope's choice is built in b.more and b.less; the best so far
	// keeps its own two buffers, swapped with those when a better comes.
	var best balancedChoice
	found := false
	for _, u := range scopes {
		c, ok := p.balanceIn(u, P, n, b)
		if ok && (!found || c.better(best)) {
			best, found = c, true
			b.more, b.bestMore = b.bestMore[:0], c.more
			b.less, b.bestLess = b.bestLess[:0], c.less
		} else {
			b.more, b.less = c.more[:0], c.less[:0]
		}
	}
	if !found {
		return nil, false
	}
	out := b.out[:0] // finish copies it before the next plan
	for _, u := range best.more {
		p.setTake(u, (best.q+1)*z)
		out = append(out, u)
	}
	for _, u := range best.less {
		p.setTake(u, best.q*z)
		out = append(out, u)
	}
	slices.Sort(out)
	b.out = out
	return out, true
}

// balanceBufs are balanced's buffers, kept in the plan scratch: the
// scopes searched, a scope's domains and their capacities, the choices'
// domains and the answer's.
type balanceBufs struct {
	scopes, units, out             []int
	caps                           []int64
	used                           []bool
	more, less, bestMore, bestLess []int
}

// balanceIn finds the fewest domains of level P in scope that hold n
// slices split evenly, and the tightest such choice. The choice's more
// and less are b.more and b.less, grown.
func (p *planner) balanceIn(scope, P int, n int64, b *balanceBufs) (balancedChoice, bool) {
	ch := balancedChoice{scope: scope, more: b.more[:0], less: b.less[:0]}
	us := b.units[:0]
	if scope >= 0 && p.level(scope) == P-1 {
		us = p.appendKids(us, scope)
	} else {
		us = p.appendUnitsAt(us, P, scope)
	}
	b.units = us
	// Smallest first, then path: the tightest domains are taken first;
	// while the planner prefers, the most preferred before them. Any order
	// finds k domains below: the q+1 takers all hold q too.
	asc := us
	if p.prefer || !p.sortBySlices(asc) {
		slices.SortFunc(asc, func(a, b int) int {
			if p.prefer && p.aff[a] != p.aff[b] {
				return cmp.Compare(p.aff[b], p.aff[a])
			}
			if c := cmp.Compare(p.slice[a], p.slice[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	// The capacities, largest first: asc backwards unless affinity
	// ordered it, which then sorts them apart.
	caps := b.caps[:0]
	for i := range asc {
		caps = append(caps, p.slice[asc[len(asc)-1-i]])
	}
	b.caps = caps
	if p.prefer {
		slices.SortFunc(caps, func(a, b int64) int { return cmp.Compare(b, a) })
	}
	k := 0
	for c := 1; c <= len(caps) && int64(c) <= n; c++ {
		q, rem := n/int64(c), int(n%int64(c))
		if caps[c-1] >= q && (rem == 0 || caps[rem-1] >= q+1) {
			k = c
			break
		}
	}
	if k == 0 {
		return ch, false
	}
	q, rem := n/int64(k), int(n%int64(k))
	ch.k, ch.q = k, q
	used := slices.Grow(b.used[:0], len(asc))[:len(asc)] // by place in asc
	clear(used)
	b.used = used
	for i, u := range asc {
		if len(ch.more) < rem && p.slice[u] >= q+1 {
			ch.more = append(ch.more, u)
			used[i] = true
			ch.leftover += p.slice[u] - q - 1
			if p.prefer {
				ch.aff += p.aff[u]
			}
		}
	}
	for i, u := range asc {
		if len(ch.less) < k-rem && !used[i] && p.slice[u] >= q {
			ch.less = append(ch.less, u)
			ch.leftover += p.slice[u] - q
			if p.prefer {
				ch.aff += p.aff[u]
			}
		}
	}
	return ch, len(ch.more) == rem && len(ch.less) == k-rem
}

// sortBySlices sorts domains us by slices, then ID, as one key each
// (slices << 32 | ID: integers compared without a comparator call, a
// third of a balanced plan's time over a fragmented cluster's racks when
// sorted by a comparator), and reports true; or reports false, us
// untouched, when a count does not fit 32 bits.
func (p *planner) sortBySlices(us []int) bool {
	sc := p.t.plan
	keys := sc.okeys[:0]
	for _, u := range us {
		if uint64(p.slice[u]) >= 1<<32 {
			return false
		}
		keys = append(keys, uint64(p.slice[u])<<32|uint64(u))
	}
	slices.Sort(keys)
	for i, k := range keys {
		us[i] = int(uint32(k))
	}
	sc.okeys = keys
	return true
}
