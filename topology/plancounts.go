package topology

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// recountAbove is how many changed nodes of n a plan moves its kept counts
// for; beyond it, it counts every node. Measured (BENCHMARKS.md "Pod sets
// planned", next=… cells): with 1 % of the nodes changed, one in a rack,
// moving costs about a recount; with every node changed, 1.3–1.8× one. At
// least 16, so that small clusters (and the properties' snapshots, of at
// most 12 nodes) always move.
func recountAbove(n int) int { return max(16, n/100) }

// moveCounts brings the kept counts (planScratch.counted, taken on from)
// to p.s, which must descend from the same snapshot as from, and reports
// whether it did. Only the nodes whose usage differs change counts: each
// one's unit at the cut level (its domain there, summed from its nodes
// again, or the node itself when the cut is the nodes' level) is counted
// again, then its domains above, deepest first, from their children; the
// descents' deep marks (planScratch.deep) of their domains are dropped,
// since the units under them hold the old counts. Cost: O(the nodes of the
// changed nodes' cut domains + changed nodes × levels × children), never
// more than counting every node in order, against O(nodes) for
// fillScope. It returns false, moving nothing, when the snapshots do not
// descend from one, or when more nodes changed than [recountAbove] allows:
// the move's sorting and per-domain reads then cost what counting afresh
// does, or more, so the caller counts afresh.
func (p *planner) moveCounts(from *placement.Snapshot) bool {
	changed, ok := p.t.changedNodes(p.s, from)
	if !ok || len(changed) > recountAbove(p.s.NumNodes()) {
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
