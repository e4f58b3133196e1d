package topology

import "github.com/gangsched/gangsched/placement"

// GenerateSortingTiers is Generate with the first tier cut as before
// 88ed355 — every candidate sorted by score bound, the tier ending at the
// first that holds every member, both tiers sorted back by ID — as the
// reference TestProp_TiersAsBySorting compares Generate with.
func (gen *Generator) GenerateSortingTiers(s *placement.Snapshot, g placement.GroupView) ([]placement.Placement, error) {
	ps, _, err := gen.generate(s, g, (*builder).tieredBySorting, nil)
	return ps, err
}

func (b *builder) tieredBySorting(doms []DomainID, diagnose bool) {
	ok, short := b.split(doms)
	b.emitTiers(b.cutBySorting(ok), short, diagnose)
}
