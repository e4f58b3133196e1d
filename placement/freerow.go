package placement

// AppendFree appends to dst node id's free quantity (Allocatable minus
// Requested, negative on an overcommitted node) of every resource of
// [Snapshot.Resources], in that order, and returns the extended slice: a
// row at once, for a caller that reads every node, where [Snapshot.Free]
// looks the resource up by name. Like [Snapshot.Node], it panics if id is
// out of range.
func (s *Snapshot) AppendFree(dst []int64, id NodeID) []int64 {
	alloc, used := s.allocRow(id), s.usedRow(id)
	for r := range alloc {
		dst = append(dst, alloc[r]-used[r])
	}
	return dst
}
