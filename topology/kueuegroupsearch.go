package topology

import (
	"cmp"
	"slices"
	"strings"
)

// kgDom is one domain as Kueue v0.17's TAS sees it while it places a
// PodSetGroup of a one-pod leader and workers as one request (no slices:
// Kueue's slice counts are then its pod counts): the workers that fit
// (sliceState), the workers that fit beside the leader (its
// sliceStateWithLeader) and whether the leader fits (leaderState, 0 or
// 1), then, as the search takes the domain, the workers it is given
// (state) and its leader count. Kueue overwrites these fields as it goes
// and reads them back, so the search keeps them in one place per
// domain, as Kueue keeps one struct per domain.
type kgDom struct {
	slice, wl, lead int64
	state           int64
}

// kgSearch is Kueue v0.17's leader-aware search (findTopologyAssignment
// with a leader, without TASBalancedPlacement) over a tree whose
// narrowest domains are Kueue's leaves: d holds every domain's counts, n
// is the workers' count.
type kgSearch struct {
	t *Tree
	d []kgDom
	n int64
}

// kgResult is the search's answer: the leaves Kueue lists for the
// workers and for the leader (a leaf may come twice, as in Kueue's list),
// or, when Kueue's phase 2a finds no domain, why (fail), with best the
// first domain of the failed level in Kueue's order (-1: none).
type kgResult struct {
	fitLevel int
	fit      []int
	leaves   []int
	fail     string
	best     int
	lost     bool // a level's split did not complete: Kueue then keeps no domain
	// kfit, when fail is set, is how many workers Kueue's failure
	// reason says fit (its slicesFitCount): the domain it last looked at
	// for a required level, what its split of the widest level placed
	// for a preferred one (0 when no domain takes the leader).
	kfit int64
}

// sum fills every domain above the leaves from its children as Kueue
// sums them: the workers added up; beside the leader, all but the least
// that any child gives up to it (a child without the leader's room, or a
// full one, gives up nothing, so its domain then counts every worker
// beside the leader — Kueue's overcount, kept); the leader where any
// child takes it.
func (s *kgSearch) sum() {
	t := s.t
	L := len(t.keys)
	for l := L - 2; l >= 0; l-- {
		for d := t.levelStart[l]; d < t.levelStart[l+1]; d++ {
			var c kgDom
			first := true
			var least int64
			for _, k := range t.doms[d].children {
				kd := s.d[k]
				c.slice += kd.slice
				c.lead = max(c.lead, kd.lead)
				if g := kd.slice - kd.wl; first || g < least {
					least, first = g, false
				}
			}
			c.wl = c.slice - least
			c.state = c.slice
			s.d[d] = c
		}
	}
}

// compareValues orders two domains of one level by their values from
// the widest level down, as Kueue orders its levelValues (a path with a
// "/" between values orders values with characters below "/" otherwise).
func (t *Tree) compareValues(a, b DomainID) int {
	if a == b {
		return 0
	}
	pa, pb := t.doms[a].parent, t.doms[b].parent
	if pa != pb && pa >= 0 && pb >= 0 {
		if c := t.compareValues(pa, pb); c != 0 {
			return c
		}
	}
	if c := strings.Compare(t.doms[a].value, t.doms[b].value); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// byLeader sorts us as Kueue sorts a level's domains for a group: the
// leader's room first, then the most workers beside it, then the fewest
// (a no-op there, kept as Kueue's key), then values.
func (s *kgSearch) byLeader(us []int) {
	slices.SortFunc(us, func(a, b int) int {
		x, y := &s.d[a], &s.d[b]
		if c := cmp.Compare(y.lead, x.lead); c != 0 {
			return c
		}
		if c := cmp.Compare(y.wl, x.wl); c != 0 {
			return c
		}
		return s.t.compareValues(DomainID(a), DomainID(b))
	})
}

// byWorkers sorts us as Kueue's BestFit sorts domains without a leader:
// the most workers first (its slices), then the fewest (its pods: equal
// here), then values.
func (s *kgSearch) byWorkers(us []int) {
	slices.SortFunc(us, func(a, b int) int {
		x, y := &s.d[a], &s.d[b]
		if c := cmp.Compare(y.slice, x.slice); c != 0 {
			return c
		}
		if c := cmp.Compare(x.state, y.state); c != 0 {
			return c
		}
		return s.t.compareValues(DomainID(a), DomainID(b))
	})
}

// bestFit is Kueue's best fit of a last domain: the first of us whose
// count by f is the least of those at or above need, us[0] when none
// is below us[0]'s. It looks at f alone, not at the leader's room, so
// that it may pick a domain without it — Kueue's quirk, kept.
func (s *kgSearch) bestFit(us []int, need int64, f func(*kgDom) int64) int {
	best := us[0]
	for _, u := range us {
		if v := f(&s.d[u]); v >= need && v < f(&s.d[best]) {
			best = u
		}
	}
	return best
}

func kgWL(d *kgDom) int64    { return d.wl }
func kgSlice(d *kgDom) int64 { return d.slice }

// findLevel is Kueue's phase 2a for the group at level q: the first
// domain in leader order, or the best fit of the workers beside a
// leader; if that one lacks the room or the leader, a required level
// fails, a preferred one widens, and at the widest level the group is
// split: the leader's domains first (the first in leader order, or the
// best fit when it holds the rest), then the others in workers order.
// Failing, it also returns the workers Kueue's reason says fit
// ([kgResult].kfit).
func (s *kgSearch) findLevel(q int, required bool) (int, []int, int, int64, bool) {
	t := s.t
	var us []int
	for d := t.levelStart[q]; d < t.levelStart[q+1]; d++ {
		us = append(us, int(d))
	}
	s.byLeader(us)
	top := us[0]
	if s.d[top].wl >= s.n && s.d[top].lead >= 1 {
		top = s.bestFit(us, s.n, kgWL)
	}
	if s.d[top].wl >= s.n && s.d[top].lead >= 1 {
		return q, []int{top}, top, 0, true
	}
	if required {
		// Kueue reports the workers of the domain it looked at, the best
		// fit it may have swapped in (without the leader's room) too.
		return q, nil, us[0], s.d[top].slice, false
	}
	if q > 0 {
		return s.findLevel(q-1, required)
	}
	var res []int
	rem, remL := s.n, int64(1)
	i := 0
	for ; remL > 0 && i < len(us) && s.d[us[i]].lead > 0; i++ {
		u := us[i]
		if s.d[u].wl >= rem {
			u = s.bestFit(us[i:], rem, kgWL)
		}
		res = append(res, u)
		remL -= s.d[u].lead
		rem -= s.d[u].wl
	}
	if remL > 0 {
		return q, nil, us[0], 0, false
	}
	rest := slices.Clone(us[i:])
	s.byWorkers(rest)
	for j := 0; rem > 0 && j < len(rest); j++ {
		u := rest[j]
		if s.d[u].slice >= rem {
			u = s.bestFit(rest[j:], rem, kgSlice)
		}
		res = append(res, u)
		rem -= s.d[u].slice
	}
	if rem > 0 {
		return q, nil, us[0], s.n - rem, false
	}
	return q, res, us[0], 0, true
}

// split is Kueue's split of n workers and leaders leaders among us, in
// order (updateCountsToMinimumGeneric counting slices of one pod): while
// the leader is unplaced a domain takes the workers beside it, and the
// one that holds the rest with the leader is swapped for the best fit
// of the rest (which may lack the leader: the leader then stays
// unplaced); once placed, the others take all their workers, the last
// by best fit. It writes each domain's state and leader count, and
// returns the domains taken, or false when they do not hold n.
func (s *kgSearch) split(us []int, n, leaders int64) ([]int, bool) {
	var res []int
	rem, remL := n, leaders
	for i, u := range us {
		if remL > 0 {
			d := &s.d[u]
			if d.wl >= rem && d.lead >= remL {
				u = s.bestFit(us[i:], rem, kgWL)
				d = &s.d[u]
			}
			if d.wl >= rem && d.lead >= remL {
				d.slice, d.lead, d.state = rem, remL, rem
				return append(res, u), true
			}
			d.wl = min(d.wl, rem)
			d.lead = min(d.lead, remL)
			d.state = d.wl
			remL -= d.lead
			rem -= d.wl
			res = append(res, u)
			continue
		}
		if s.d[u].slice >= rem {
			u = s.bestFit(us[i:], rem, kgSlice)
		}
		d := &s.d[u]
		d.lead = 0
		if d.slice >= rem {
			d.state, d.slice = rem, rem
			return append(res, u), true
		}
		d.state = d.slice
		rem -= d.slice
		res = append(res, u)
	}
	return nil, false
}

// run is the whole search from the group's level q: phase 2a, the split
// of the domains found, and the descent to the leaves, where at each
// level the children of every domain taken are sorted together and the
// whole group split among them again, whatever each parent was given
// (Kueue's greedy descent above the slice level, which without slices
// is the leaves' level).
func (s *kgSearch) run(q int, required bool) kgResult {
	lv, fit, best, kfit, ok := s.findLevel(q, required)
	if !ok {
		return kgResult{fitLevel: lv, best: best, fail: "no domain", kfit: kfit}
	}
	res := kgResult{fitLevel: lv, fit: slices.Clone(fit), best: -1}
	cur, ok := s.split(fit, s.n, 1)
	L := len(s.t.keys)
	for l := lv; ok && l < L-1; l++ {
		var kids []int
		for _, u := range cur {
			for _, c := range s.t.doms[u].children {
				kids = append(kids, int(c))
			}
		}
		s.byWorkers(kids)
		cur, ok = s.split(kids, s.n, 1)
	}
	if !ok {
		res.lost = true
		return res
	}
	res.leaves = cur
	return res
}
