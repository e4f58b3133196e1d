package placement

import "github.com/gangsched/gangsched/internal/arith"

// DefaultScorer is upstream's default placement scoring (KEP-5732): the
// NodeResourcesFit MostAllocated score of the whole placement after the
// assignment — the mean over the resources the group requests (the pods
// count excluded) of requested/allocatable summed over the placement's
// nodes — plus the PodGroupPodsCount score, members placed (bound included)
// over all members, with equal weights. Each part is scaled to 0..1,000,000,
// so the score is in 0..2,000,000.
type DefaultScorer struct{}

var _ PlacementScorer = DefaultScorer{}

// Score implements [PlacementScorer]. It costs O(members × resources +
// assignments), plus O(nodes in p) unless p holds every node (the sums over
// the whole cluster are kept by the snapshot).
func (DefaultScorer) Score(s *Snapshot, g *Group, p *Placement, a []Assignment) int64 {
	const scale = 1_000_000
	R := len(s.b.res)
	requested := make([]bool, R)
	for row := range g.RequestCounts(s) {
		for r, q := range row {
			if q > 0 && r != s.b.podsR {
				requested[r] = true
			}
		}
	}
	alloc := make([]int64, R)
	used := make([]int64, R)
	if len(p.Nodes) == len(s.b.nodes) {
		copy(alloc, s.b.allocSum)
		copy(used, s.usedSum)
	} else {
		for _, id := range p.Nodes {
			ar, ur := s.allocRow(id), s.usedRow(id)
			for r := range R {
				if requested[r] {
					alloc[r] = arith.SatAdd(alloc[r], ar[r])
					used[r] = arith.SatAdd(used[r], max(ur[r], 0))
				}
			}
		}
	}
	var placed int64
	var vec []int64
	idx := g.PendingIndexes(a)
	for j, i := range idx {
		placed += a[j].Pods()
		if i < 0 {
			continue
		}
		if j == 0 || i != idx[j-1] {
			vec = g.RequestVector(s, i) // a pod set's entries share one
		}
		for r, q := range vec {
			if requested[r] {
				used[r] = arith.SatAdd(used[r], arith.MulSat(q, a[j].Pods()))
			}
		}
	}
	var sum, n int64
	for r := range R {
		if requested[r] {
			sum += arith.MulDiv(used[r], scale, alloc[r])
			n++
		}
	}
	var most int64
	if n > 0 {
		most = sum / n
	}
	bound := int64(g.BoundCount(s))
	total := bound + int64(g.NumPending())
	if total == 0 { // a group with no members has nothing to count
		return most
	}
	count := (bound + placed) * scale / total
	return most + count
}
