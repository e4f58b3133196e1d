package topology

import "github.com/gangsched/gangsched/placement"

// prefersNodes reports whether some pending pod of g has preferred node
// affinity. The solver ranks the placements of one rank by it before
// their score (see placement.NodeAffinity), so a generator must not cut
// a domain from the first tier for its score bound: a domain the terms
// prefer may have a lower one.
func prefersNodes(g *placement.Group) bool {
	prefers := func(p *placement.Pod) bool { return p.NodeAffinity != nil && len(p.NodeAffinity.Preferred) > 0 }
	for i := range g.Members {
		if prefers(&g.Members[i]) {
			return true
		}
	}
	for i := range g.PodSets {
		if prefers(&g.PodSets[i].Template) {
			return true
		}
	}
	return false
}
