package placement

import (
	"math"

	"github.com/gangsched/gangsched/internal/arith"
)

// DefaultScorer is upstream's default placement scoring (KEP-5732): the
// NodeResourcesFit MostAllocated score of the whole placement after the
// assignment — the mean over the resources the group requests (the pods
// count excluded) of requested/allocatable summed over the placement's
// nodes — plus the PodGroupPodsCount score, members placed (bound included)
// over all members, with equal weights. Each part is scaled to 0..1,000,000,
// so the score is in 0..2,000,000.
type DefaultScorer struct{}

var _ SumScorer = DefaultScorer{}

// Score implements [PlacementScorer]: [DefaultScorer.ScoreSums] of a's
// sums, O(assignments × resources). It never fails.
func (d DefaultScorer) Score(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error) {
	placed, requested := AssignedSums(s, g, a)
	return d.ScoreSums(s, g, p, placed, requested)
}

// ScoreSums implements [SumScorer]. It costs O(classes of identical pods ×
// resources) inside a Solve, plus O(nodes in p) unless p holds every node
// (the sums over the whole cluster are kept by the snapshot). It never fails.
func (DefaultScorer) ScoreSums(s *Snapshot, g GroupView, p *Placement, placed int64, requested []int64) (int64, error) {
	// Scored once per attempt: the few resources' arrays stay on the
	// stack.
	var flagBuf [16]bool
	var sumBuf [32]int64
	flags := flagBuf[:0]
	if len(s.b.res) > len(flagBuf) {
		flags = make([]bool, 0, len(s.b.res))
	}
	flags = flags[:len(s.b.res)]
	for row := range g.RequestCounts(s) {
		markRequested(flags, row, s.b.podsR)
	}
	alloc, used := placementSums(s, p, flags, sumBuf[:0])
	addRequests(used, flags, requested[:min(len(requested), len(flags))], 1) // entries past s.Resources() name nothing
	return defaultScore(s, g, flags, alloc, used, placed), nil
}

// AssignedSums returns how many pending pods of g the assignments a place
// and their requests summed per resource (indexed like s.Resources(), the
// pods count included; saturating): what a [SumScorer] reads of an
// assignment. Entries for pods not pending in g count as pods placed with
// no requests. O(len(a) × resources). A host with a [Group] of its own
// passes GroupView{Group: g}.
func AssignedSums(s *Snapshot, g GroupView, a []Assignment) (placed int64, requested []int64) {
	requested = make([]int64, len(s.b.res))
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
			requested[r] = arith.SatAdd(requested[r], arith.MulSat(q, a[j].Pods()))
		}
	}
	return placed, requested
}

// markRequested marks the resources a request row asks for (the pods
// count excluded).
func markRequested(requested []bool, row []int64, podsR int) {
	for r, q := range row {
		if q > 0 && r != podsR {
			requested[r] = true
		}
	}
}

// placementSums returns the allocatable and the usage of the requested
// resources summed over p's nodes (saturating), in buf's memory when it
// has room for both.
func placementSums(s *Snapshot, p *Placement, requested []bool, buf []int64) (alloc, used []int64) {
	R := len(s.b.res)
	both := buf[:0]
	if cap(buf) < 2*R {
		both = make([]int64, 0, 2*R)
	}
	both = both[:2*R]
	clear(both)
	alloc, used = both[:R:R], both[R:]
	if len(p.Nodes) == len(s.b.nodes) {
		copy(alloc, s.b.allocSum)
		copy(used, s.usedSum)
		return alloc, used
	}
	for _, id := range p.Nodes {
		ar, ur := s.allocRow(id), s.usedRow(id)
		for r := range R {
			if requested[r] {
				alloc[r] = arith.SatAdd(alloc[r], ar[r])
				used[r] = arith.SatAdd(used[r], max(ur[r], 0))
			}
		}
	}
	return alloc, used
}

// addRequests adds pods copies of the request row vec to used, for the
// requested resources (saturating: the sum does not depend on grouping).
func addRequests(used []int64, requested []bool, vec []int64, pods int64) {
	for r, q := range vec {
		if requested[r] {
			used[r] = arith.SatAdd(used[r], arith.MulSat(q, pods))
		}
	}
}

// defaultScore is DefaultScorer's score from its sums: the mean MostAllocated
// share over the requested resources plus the share of members placed.
func defaultScore(s *Snapshot, g GroupView, requested []bool, alloc, used []int64, placed int64) int64 {
	const scale = 1_000_000
	var sum, n int64
	for r := range requested {
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
	// A caller's SumScorer call may pass any count: one past what the
	// product can hold counts as that much (no real group comes near).
	count := (bound + min(placed, math.MaxInt64/scale-bound)) * scale / total
	return most + count
}

// placedSums returns the requests of attempt a's placed pods summed per
// resource, from its segments by class: O(segments + classes × resources),
// or O(resources) when every member is of one class.
//
// The sums are the pool's, rewritten by the next call: a SumScorer may
// not keep them.
func (sv *solver) placedSums(a *attempt) []int64 {
	sv.sc.sums = zeroed(sv.sc.sums, sv.classes+sv.R)
	perClass := sv.sc.sums[:sv.classes] // a class's rows request the same
	if sv.classes == 1 {
		perClass[0] = int64(a.placed)
	} else {
		for _, s := range sv.segsOf(a) {
			perClass[sv.class[sv.members[s.start].row]] += int64(s.n)
		}
	}
	sums := sv.sc.sums[sv.classes:]
	for c, pods := range perClass {
		for r, q := range sv.req(int32(sv.prep.classRow[c])) {
			sums[r] = arith.SatAdd(sums[r], arith.MulSat(q, pods))
		}
	}
	return sums
}
