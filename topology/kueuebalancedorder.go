package topology

import (
	"cmp"
	"slices"
)

// Kueue v0.17's balanced placement sorts the preferred-level children
// of the domain it chose (sortDomainsByCapacityAndEntropy) in place: the
// tree's own list of that domain's children, which its TAS snapshot
// keeps while it places the Workload's later pod sets. Its sort returns
// 0 for domains of equal leader, room beside it and entropy, so a later
// sort of the same children keeps such domains in the order the earlier
// one left them, not in the map order the tree was built in. Seen from
// outside, a set that ties racks r1 and r2 of a block takes the one that
// an earlier set of the Workload, balanced in that block, sorted first,
// and never the other. The planner keeps, per domain whose children a
// set of this plan sorted, that order (kbKids) and sorts the next set's
// by Kueue's keys from it, as Kueue's sort does; a domain not sorted yet
// is first ordered by preferred node affinity (while the planner
// prefers), then path, which is one of the map orders Kueue may meet.

// entropyOrder returns the children us of parent (-1: the top level's
// domains, a fresh list in Kueue) in Kueue's order for its subset
// search: the most leaders, then the most slices beside the leader, then
// the highest entropy of their children's pods; equals as this plan's
// earlier sort of parent's children left them (see above), else by
// preferred node affinity and path.
func (kb *kbSearch) entropyOrder(us []int, c map[int]kbCount, parent int) []int {
	ent := make(map[int]float64, len(us))
	for _, u := range us {
		ent[u] = kb.entropy(u, c)
	}
	keys := func(a, b int) int {
		if x := cmp.Compare(c[b].leader, c[a].leader); x != 0 {
			return x
		}
		if x := cmp.Compare(c[b].slicesWL, c[a].slicesWL); x != 0 {
			return x
		}
		return cmp.Compare(ent[b], ent[a])
	}
	if prev, ok := kb.p.kbKids[parent]; ok {
		// Kueue's own sort (not stable beyond 12 domains) from the
		// order it left: the same function of the same input.
		order := slices.Clone(prev)
		slices.SortFunc(order, keys)
		return order
	}
	order := slices.Clone(us)
	slices.SortStableFunc(order, func(a, b int) int {
		if x := keys(a, b); x != 0 {
			return x
		}
		if x := cmp.Compare(kb.affinity([]int{b}), kb.affinity([]int{a})); x != 0 {
			return x
		}
		return cmp.Compare(a, b)
	})
	return order
}

// keepKidsOrder records order as the order of parent's children that a
// set kept in this plan left (Kueue sorted them in place).
func (p *planner) keepKidsOrder(parent int, order []int) {
	if p.kbKids == nil {
		p.kbKids = map[int][]int{}
	}
	p.kbKids[parent] = order
}
