// Package buffers holds the one helper the decision packages use to carve
// an answer from memory a caller keeps between calls
// (placement.HierarchyBuffers, topology.PlanBuffers).
package buffers

// Take returns an empty slice with room for n entries: kept's memory,
// zeroed (a solver may write an entry field by field), when kept is set,
// else new memory. kept grows to n when it is smaller; a slice Take
// returned before from the same kept is overwritten.
func Take[T any](kept *[]T, n int) []T {
	if kept == nil {
		return make([]T, 0, n)
	}
	if cap(*kept) < n {
		*kept = make([]T, n)
		return (*kept)[:0]
	}
	a := (*kept)[:n]
	clear(a)
	return a[:0]
}

// Overwrite is Take for a caller that writes every field of each of the
// n entries before anyone reads them: kept's memory is not zeroed, since
// clearing entries that hold strings costs about what writing them does
// (a plan's 512 ranks and assignments: 6 % of its time).
func Overwrite[T any](kept *[]T, n int) []T {
	if kept == nil || cap(*kept) < n {
		return Take(kept, n)
	}
	return (*kept)[:0]
}
