package placement

import (
	"cmp"
	"iter"
	"slices"
)

// FreeRows yields the free rows of s's nodes grouped: each row (as
// [Snapshot.AppendFree] gives it, over [Snapshot.Resources]; reused, not
// to be modified or kept) with the number of nodes that have it. The
// counts add up to [Snapshot.NumNodes]; a row may come more than once.
// Rows come in the order of the smallest NodeID of each group.
//
// It lets a caller that sums over every node (a bound on how many members
// could fit, say) read O(groups) rows instead of O(nodes): the groups are
// the solver's classes of identical nodes (same allocatable, taints,
// schedulability and usage), which a snapshot has once [Solve] placed a
// run of identical members on it or on a snapshot it derives from with
// [Snapshot.Apply]. Cost: O(classes × log classes) then; without them, one
// row per node in NodeID order, O(nodes).
func (s *Snapshot) FreeRows() iter.Seq2[[]int64, int] {
	return func(yield func([]int64, int) bool) {
		cls := s.cls.Load()
		if cls == nil { // building the classes costs more than reading every node
			row := make([]int64, 0, len(s.b.res))
			for id := range NodeID(len(s.b.nodes)) {
				if !yield(s.AppendFree(row[:0], id), 1) {
					return
				}
			}
			return
		}
		type group struct {
			first NodeID
			n     int
			set   *classSet
		}
		var groups []group
		for _, set := range cls.list {
			first, _ := set.nodes.Min()
			n := set.nodes.Len()
			groups = append(groups, group{first, n, set})
		}
		slices.SortFunc(groups, func(a, b group) int { return cmp.Compare(a.first, b.first) })
		R := len(s.b.res)
		row := make([]int64, R)
		for _, g := range groups {
			alloc := s.allocRow(s.b.typeRep[g.set.typ])
			for r := range R {
				row[r] = alloc[r] - g.set.used[r]
			}
			if !yield(row, g.n) {
				return
			}
		}
	}
}
