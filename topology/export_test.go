package topology

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

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

// HoldingLeads reports whether GenerateHolding, asked for the
// placements holding nodes, decides their domain's rank by builder.leads
// alone (the share index's bound, or a constrained group), without
// reading the other candidates' bounds.
func (gen *Generator) HoldingLeads(s *placement.Snapshot, g placement.GroupView, nodes []placement.NodeID) bool {
	t := gen.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.gen.forget()
	b, err := gen.builder(s, g)
	if err != nil || gen.preferred >= 0 || gen.required < 0 {
		return false
	}
	d := t.domainOf(nodes[0], gen.required)
	for _, id := range nodes {
		if t.domainOf(id, gen.required) != d {
			return false
		}
	}
	return d >= 0 && b.canHold(d) && slices.Contains(b.candidates(gen.required), d) && b.leads(d, gen.required)
}
