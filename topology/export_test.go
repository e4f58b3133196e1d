package topology

import (
	"cmp"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// GenerateSortingTiers is Generate with the first tier cut as before
// 88ed355 — every candidate sorted by score bound, the tier ending at the
// first that holds every member, both tiers sorted back by ID — as the
// reference TestProp_TiersAsBySorting compares Generate with.
func (gen *Generator) GenerateSortingTiers(s *placement.Snapshot, g *placement.Group) ([]placement.Placement, error) {
	t := gen.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.capacityFor(s)
	if err != nil {
		return nil, err
	}
	bm := t.boundOf(s, g.Key())
	b := &builder{t: t, c: c, s: s, g: g, sh: newShape(c, len(bm.nodes), g), scorer: gen.scorer, scope: -1,
		bound: bm.nodes, boundPods: bm.pods}
	b.static(g)
	b.constrained = bm.affinity || len(g.SubGroups) > 0
	for i := range g.Members {
		b.constrained = b.constrained || g.Members[i].Affinity != nil
	}
	if gen.required >= 0 && len(b.bound) > 0 {
		if b.scope, err = b.boundDomain(gen.required); err != nil {
			return nil, err
		}
	}
	first := max(gen.required, gen.preferred)
	if first < 0 {
		return []placement.Placement{{Nodes: t.allNodes}}, nil
	}
	doms := b.candidates(first)
	b.out = make([]placement.Placement, 0, len(doms)+1)
	b.tieredBySorting(doms, gen.preferred < 0)
	if gen.preferred >= 0 {
		for q := first - 1; q >= max(gen.required, 0); q-- {
			b.widen(b.candidates(q), q+1, q == gen.required)
		}
		if gen.required < 0 {
			b.widen([]DomainID{-1}, 0, true)
		}
	}
	return b.out, nil
}

func (b *builder) tieredBySorting(doms []DomainID, diagnose bool) {
	type cand struct {
		d  DomainID
		ub int64
	}
	var ok []cand
	var short []DomainID
	for _, d := range doms {
		if b.canHold(d) {
			ok = append(ok, cand{d, b.scorer.upper(b.c, b.sh, d)})
		} else {
			short = append(short, d)
		}
	}
	slices.SortFunc(ok, func(x, y cand) int {
		if c := cmp.Compare(y.ub, x.ub); c != 0 {
			return c
		}
		return cmp.Compare(x.d, y.d)
	})
	cut := len(ok)
	for i := range ok {
		if b.holdsAll(ok[i].d) {
			cut = i + 1
			break
		}
	}
	for _, part := range [][]cand{ok[:cut], ok[cut:]} {
		if len(part) == 0 {
			continue
		}
		slices.SortFunc(part, func(x, y cand) int { return cmp.Compare(x.d, y.d) })
		for _, c := range part {
			b.emit(c.d, b.t.doms[c.d].nodes, b.rank)
		}
		b.rank++
	}
	if diagnose && len(short) > 0 {
		d := b.closest(short)
		b.emit(d, b.t.doms[d].nodes, b.rank)
		b.rank++
	}
}
