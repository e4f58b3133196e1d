package placement

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestAdv6_NodeSetCountMatchesAscend: count(from, to) is the number of
// nodes ascend visits in [from, to), for sets with empty chunks, deleted
// nodes, ranges across and at the 512-node chunk and 64-node word
// boundaries, empty and inverted ranges, and bounds past the set's end.
func TestAdv6_NodeSetCountMatchesAscend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.SampledFrom([]int{1, 63, 64, 65, 511, 512, 513, 1024, 1100, 1600}).Draw(t, "nodes")
		s := newNodeSet(nodes)
		for range rapid.IntRange(0, 80).Draw(t, "inserts") {
			s.insert(NodeID(rapid.IntRange(0, nodes-1).Draw(t, "id")))
		}
		if rapid.Bool().Draw(t, "dense") {
			lo := rapid.IntRange(0, nodes-1).Draw(t, "lo")
			for id := lo; id < min(nodes, lo+rapid.IntRange(0, 700).Draw(t, "len")); id++ {
				s.insert(NodeID(id))
			}
		}
		for range rapid.IntRange(0, 10).Draw(t, "deletes") {
			s.delete(NodeID(rapid.IntRange(0, nodes-1).Draw(t, "del")))
		}
		from, to := drawRangeEdge(t, "from", nodes), drawRangeEdge(t, "to", nodes)
		var want int64
		s.ascend(from, to, func(NodeID) bool { want++; return true })
		var brute int64
		for id := max(from, 0); id < NodeID(min(int64(to), int64(nodes))); id++ {
			if s.has(id) {
				brute++
			}
		}
		if brute != want {
			t.Fatalf("ascend(%d, %d) visits %d, has finds %d", from, to, want, brute)
		}
		if got := s.count(from, to); got != want {
			t.Fatalf("count(%d, %d) = %d, ascend visits %d (set of %d over %d nodes)", from, to, got, want, s.Len(), nodes)
		}
	})
}

// drawRangeEdge draws a bound of a node range over a set of nodes IDs:
// at or next to a 64-node word or 512-node chunk boundary, the set's end,
// MaxInt32, negative, or anywhere up to 600 past the end.
func drawRangeEdge(t *rapid.T, label string, nodes int) NodeID {
	switch rapid.IntRange(0, 5).Draw(t, label+"Kind") {
	case 0:
		return NodeID(rapid.SampledFrom([]int{0, 1, 63, 64, 65, 127, 128, 511, 512, 513, 1023, 1024, 1025}).Draw(t, label))
	case 1:
		return NodeID(nodes)
	case 2:
		return math.MaxInt32
	case 3:
		return NodeID(-rapid.IntRange(0, 3).Draw(t, label))
	default:
		return NodeID(rapid.IntRange(0, nodes+600).Draw(t, label))
	}
}
