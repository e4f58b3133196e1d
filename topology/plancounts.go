package topology

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// moveCounts brings the kept counts (planScratch.counted, taken on from)
// to p.s, which must descend from the same snapshot as from, and reports
// whether it did. Only the nodes whose usage differs change counts: each
// one's unit at the cut level (its domain there, summed from its nodes
// again, or the node itself when the cut is the nodes' level) is counted
// again, then its domains above, deepest first, from their children; the
// descents' deep marks (planScratch.deep) of their domains are dropped,
// since the units under them hold the old counts. Cost: O(the nodes of the
// changed nodes' cut domains + changed nodes × levels × children), never
// more than counting every node, against O(nodes) for fillScope. It
// returns false, moving nothing, when the snapshots do not descend from
// one.
func (p *planner) moveCounts(from *placement.Snapshot) bool {
	changed, ok := p.t.changedNodes(p.s, from)
	if !ok {
		return false
	}
	sc, L := p.t.plan, p.L
	top := min(p.cut, L) // the deepest level of units kept: the cut
	perLevel := make([][]int, top+1)
	for _, n := range changed {
		for l := range L {
			d := p.t.nodeDom[int(n)*L+l]
			if d < 0 {
				break
			}
			sc.deep[d] = false
		}
		if p.t.nodeDom[int(n)*L+L-1] < 0 {
			continue // outside the topology: in no count
		}
		for l := range top {
			perLevel[l] = append(perLevel[l], int(p.t.nodeDom[int(n)*L+l]))
		}
		if top == L {
			perLevel[L] = append(perLevel[L], p.D+int(n))
		} else {
			perLevel[top] = append(perLevel[top], int(p.t.nodeDom[int(n)*L+top]))
		}
	}
	for l := top; l >= 0; l-- {
		slices.Sort(perLevel[l])
		for _, u := range slices.Compact(perLevel[l]) {
			p.count(u, l, false)
		}
	}
	return true
}
