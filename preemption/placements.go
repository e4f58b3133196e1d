package preemption

import (
	"cmp"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// searchPlacements searches each placement of opts.Generator on the
// snapshot with every candidate removed. It returns nil and the decision
// there when no placement can be freed.
func (f *finder) searchPlacements() (*result, placement.Decision, error) {
	s0, err := f.without(f.q.all())
	if err != nil {
		return nil, placement.Decision{}, err
	}
	d0, err := f.solve(s0, f.opts, false)
	if err != nil || d0.Status != placement.Scheduled {
		return nil, d0, err // never evict in vain
	}
	places, err := f.opts.Generator.Generate(s0, f.g)
	if err != nil {
		return nil, d0, err
	}
	// Candidates per placement, in eviction order: one pass over the
	// candidates' pods through a node → placements index.
	N := f.s.NumNodes()
	onNode := make([][]int32, N)
	for i := range places {
		for _, id := range places[i].Nodes {
			if id >= 0 && int(id) < N {
				onNode[id] = append(onNode[id], int32(i))
			}
		}
	}
	perPlace := make([][]*unit, len(places))
	seen := make([]int, len(places)) // last unit index + 1 added to each placement
	for ui, u := range f.q.all() {
		for _, id := range u.nodeIDs(f.s) {
			for _, pi := range onNode[id] {
				if seen[pi] != ui+1 {
					seen[pi] = ui + 1
					perPlace[pi] = append(perPlace[pi], u)
				}
			}
		}
	}
	inP := make([]bool, N)
	mark := func(p *placement.Placement, on bool) {
		for _, id := range p.Nodes {
			if id >= 0 && int(id) < N {
				inP[id] = on
			}
		}
	}
	type cand struct {
		i     int
		kmin  int
		bound *unit // nil when slots suffice without removing anything
	}
	var cands []cand
	for i := range places {
		if len(perPlace[i]) == 0 {
			continue
		}
		mark(&places[i], true)
		k, ok := f.prefixBound(listOf(perPlace[i]), places[i].Nodes, inP)
		mark(&places[i], false)
		if ok {
			c := cand{i: i, kmin: k}
			if k > 0 {
				c.bound = perPlace[i][k-1]
			}
			cands = append(cands, c)
		}
	}
	// Most promising first (no bound, then the least important bound), so
	// that pruning bites early.
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.bound == nil || b.bound == nil {
			return cmp.Compare(boolInt(a.bound != nil), boolInt(b.bound != nil))
		}
		return VictimOrder(&b.bound.v, &a.bound.v)
	})
	// Without budgets eviction order is the ranking, and a placement whose
	// bound is more important than the best set's most important victim
	// cannot win: it is skipped without a solve.
	prune := len(f.in.Budgets) == 0
	last := d0 // Scheduled: replaced by a placement's failure below
	var best *result
	var bestTop *unit // nil with best set: no victims, nothing beats it
	for _, c := range cands {
		if prune && best != nil && c.bound != nil && (bestTop == nil || VictimOrder(&c.bound.v, &bestTop.v) < 0) {
			break // every later candidate's bound is at least as important
		}
		p, units := places[c.i], perPlace[c.i]
		opts := f.opts
		opts.Generator = placement.PlacementGeneratorFunc(func(*placement.Snapshot, *placement.Group) ([]placement.Placement, error) {
			return []placement.Placement{p}, nil
		})
		mark(&p, true)
		r, err := f.search(opts, listOf(units), inP, c.kmin)
		mark(&p, false)
		if err != nil {
			return nil, d0, err
		}
		if !r.ok {
			last = r.last
			continue
		}
		r.name, r.rank = p.Name, p.Rank
		if best == nil || lessDisruptive(&r, best) {
			best, bestTop = &r, nil
			if len(r.victims) > 0 {
				bestTop = ranked(r.victims)[0]
			}
		}
	}
	if best != nil {
		return best, d0, nil
	}
	return nil, last, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lessDisruptive reports whether a's victims disrupt less than b's: fewer
// beyond a budget, then lower in [VictimOrder] compared most important
// first, a prefix before a longer set; then the lower placement rank, then
// the placement name.
func lessDisruptive(a, b *result) bool {
	over := func(r *result) (n int) {
		for _, u := range r.victims {
			if u.overBudget {
				n++
			}
		}
		return n
	}
	if oa, ob := over(a), over(b); oa != ob {
		return oa < ob
	}
	ra, rb := ranked(a.victims), ranked(b.victims)
	for i := range min(len(ra), len(rb)) {
		if c := VictimOrder(&ra[i].v, &rb[i].v); c != 0 {
			return c > 0
		}
	}
	if len(ra) != len(rb) {
		return len(ra) < len(rb)
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.name < b.name
}

// ranked returns units sorted most important first.
func ranked(units []*unit) []*unit {
	out := slices.Clone(units)
	slices.SortFunc(out, func(a, b *unit) int { return VictimOrder(&a.v, &b.v) })
	return out
}
