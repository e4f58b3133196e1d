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
	return gen.generate(s, g, (*builder).tieredBySorting)
}

func (b *builder) tieredBySorting(doms []DomainID, diagnose bool) {
	ok, short := b.split(doms)
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
