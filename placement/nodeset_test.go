package placement

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestNodeSet_MinAndAscendToTheEnd: Min and an ascend to the largest
// NodeID find the set's nodes on every platform — on one with 32-bit int
// too, where rounding math.MaxInt32 up to whole chunks must not overflow.
func TestNodeSet_MinAndAscendToTheEnd(t *testing.T) {
	for _, nodes := range []int{1, 511, 512, 513, 1500} {
		s := newNodeSet(nodes)
		last := NodeID(nodes - 1)
		s.insert(last)
		id, ok := s.Min()
		require.True(t, ok, "nodes=%d", nodes)
		require.Equal(t, last, id)
		var seen []NodeID
		s.ascend(0, math.MaxInt32, func(id NodeID) bool { seen = append(seen, id); return true })
		require.Equal(t, []NodeID{last}, seen)
		seen = nil
		s.ascend(last, last+1, func(id NodeID) bool { seen = append(seen, id); return true })
		require.Equal(t, []NodeID{last}, seen)
		seen = nil
		s.ascend(0, last, func(id NodeID) bool { seen = append(seen, id); return true })
		require.Empty(t, seen)
	}
}

// TestFreeRows_InNodeOrderOnceClassed: once a solve has built the
// snapshot's classes, FreeRows still yields its rows in the order of each
// class's smallest NodeID (never the order of the class map), on every
// platform.
func TestFreeRows_InNodeOrderOnceClassed(t *testing.T) {
	var nodes []Node
	for i := range 12 {
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Allocatable: ResourceList{ResourceCPU: int64(1000 * (12 - i))}})
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "ns", Name: "pg", MinCount: 1,
		Members: []Pod{{Namespace: "ns", Name: "p", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1}}}}
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status)
	require.NotNil(t, s.cls.Load(), "the solve built the classes")
	var got []int64
	for row, n := range s.FreeRows() {
		require.Equal(t, 1, n)
		got = append(got, row[slices.Index(s.Resources(), ResourceCPU)])
	}
	var free []int64
	for id := range NodeID(12) {
		free = append(free, s.Free(id, ResourceCPU))
	}
	require.Equal(t, free, got)
}

// TestNodeSet_CountMatchesAscend: count(from, to) is the number of
// nodes ascend visits in [from, to), and next(from) the first node it
// visits from from on, for sets with empty chunks, deleted nodes, ranges
// across and at the 512-node chunk and 64-node word boundaries, empty and
// inverted ranges, and bounds past the set's end.
func TestNodeSet_CountMatchesAscend(t *testing.T) {
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
		first, found := NodeID(0), false
		s.ascend(from, math.MaxInt32, func(id NodeID) bool { first, found = id, true; return false })
		if got, ok := s.next(from); ok != found || got != first {
			t.Fatalf("next(%d) = %d, %v; ascend's first is %d, %v", from, got, ok, first, found)
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
