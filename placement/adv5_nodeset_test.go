package placement

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAdv5_NodeSetMinAndAscendToTheEnd: Min and an ascend to the largest
// NodeID find the set's nodes on every platform — on one with 32-bit int
// too, where rounding math.MaxInt32 up to whole chunks must not overflow.
func TestAdv5_NodeSetMinAndAscendToTheEnd(t *testing.T) {
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

// TestAdv5_FreeRowsInNodeOrderOnceClassed: once a solve has built the
// snapshot's classes, FreeRows still yields its rows in the order of each
// class's smallest NodeID (never the order of the class map), on every
// platform.
func TestAdv5_FreeRowsInNodeOrderOnceClassed(t *testing.T) {
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
