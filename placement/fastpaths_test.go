package placement

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// ascendRef is what appendRange must return: buf, then the nodes ascend
// visits in [from, to), until buf holds limit.
func ascendRef(s *nodeSet, buf []NodeID, from, to NodeID, limit int) []NodeID {
	out := slices.Clone(buf)
	if len(out) >= limit {
		return out
	}
	s.ascend(from, to, func(id NodeID) bool {
		out = append(out, id)
		return len(out) < limit
	})
	return out
}

// TestProp_AppendRangeIsAscend: appendRange, which placeRunClasses uses
// when no node of the run can have been touched, appends exactly the nodes
// ascend visits, in order, up to limit — over sets with empty chunks,
// dense stretches across the 64-node words and 512-node chunks, ranges at
// and past those boundaries and the set's end, and limits that end a word
// or are already reached by what buf holds.
func TestProp_AppendRangeIsAscend(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.SampledFrom([]int{1, 63, 64, 65, 511, 512, 513, 1024, 1100, 1600}).Draw(t, "nodes")
		s := newNodeSet(nodes)
		for range rapid.IntRange(0, 60).Draw(t, "inserts") {
			s.insert(NodeID(rapid.IntRange(0, nodes-1).Draw(t, "id")))
		}
		if rapid.Bool().Draw(t, "dense") {
			lo := rapid.SampledFrom([]int{0, 1, 63, 64, 448, 511, 512, 960}).Draw(t, "denseLo") % nodes
			for id := lo; id < min(nodes, lo+rapid.IntRange(0, 700).Draw(t, "denseLen")); id++ {
				s.insert(NodeID(id))
			}
		}
		for range rapid.IntRange(0, 8).Draw(t, "deletes") {
			s.delete(NodeID(rapid.IntRange(0, nodes-1).Draw(t, "del")))
		}
		from, to := drawRangeEdge(t, "from", nodes), drawRangeEdge(t, "to", nodes)
		buf := rapid.SliceOfN(rapid.Just(NodeID(-7)), 0, 3).Draw(t, "held")
		limit := rapid.SampledFrom([]int{0, 1, 2, 4, 63, 64, 65, 256, math.MaxInt}).Draw(t, "limit")
		want := ascendRef(s, buf, from, to, limit)
		got := s.appendRange(slices.Clone(buf), from, to, limit)
		if !slices.Equal(got, want) {
			t.Fatalf("appendRange(held %d, [%d, %d), limit %d) = %v, ascend gives %v", len(buf), from, to, limit, got, want)
		}
	})
}

// TestAppendRange_Edges: the cases named in the review of appendRange,
// each with the exact nodes it must append.
func TestAppendRange_Edges(t *testing.T) {
	dense := func(nodes, lo, hi int) *nodeSet {
		s := newNodeSet(nodes)
		for id := lo; id < hi; id++ {
			s.insert(NodeID(id))
		}
		return s
	}
	span := func(lo, hi int) []NodeID {
		var out []NodeID
		for id := lo; id < hi; id++ {
			out = append(out, NodeID(id))
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		s        *nodeSet
		buf      []NodeID
		from, to NodeID
		limit    int
		want     []NodeID
	}{
		{name: "empty set", s: dense(1024, 0, 0), from: 0, to: 1024, limit: 10, want: nil},
		{name: "empty range", s: dense(1024, 0, 1024), from: 100, to: 100, limit: 10, want: nil},
		{name: "inverted range", s: dense(1024, 0, 1024), from: 101, to: 100, limit: 10, want: nil},
		{name: "negative from", s: dense(100, 0, 100), from: -5, to: 3, limit: 10, want: span(0, 3)},
		{name: "limit ends a word", s: dense(1024, 0, 1024), from: 0, to: 1024, limit: 64, want: span(0, 64)},
		{name: "limit ends a word from inside it", s: dense(1024, 0, 1024), from: 60, to: 1024, limit: 4, want: span(60, 64)},
		{name: "limit ends a chunk", s: dense(1024, 0, 1024), from: 500, to: 1024, limit: 12, want: span(500, 512)},
		{name: "from at a word start", s: dense(1024, 0, 1024), from: 64, to: 70, limit: 100, want: span(64, 70)},
		{name: "from at the last of a word", s: dense(1024, 0, 1024), from: 63, to: 66, limit: 100, want: span(63, 66)},
		{name: "from at a chunk start", s: dense(1024, 0, 1024), from: 512, to: 515, limit: 100, want: span(512, 515)},
		{name: "from at the last of a chunk", s: dense(1024, 0, 1024), from: 511, to: 514, limit: 100, want: span(511, 514)},
		{name: "to at a word end", s: dense(1024, 0, 1024), from: 60, to: 64, limit: 100, want: span(60, 64)},
		{name: "to at a chunk end", s: dense(1024, 0, 1024), from: 508, to: 512, limit: 100, want: span(508, 512)},
		{name: "to beyond the set", s: dense(600, 590, 600), from: 0, to: 5000, limit: 100, want: span(590, 600)},
		{name: "to MaxInt32", s: dense(600, 595, 600), from: 0, to: math.MaxInt32, limit: 100, want: span(595, 600)},
		{name: "from beyond the set", s: dense(600, 0, 600), from: 1024, to: 2048, limit: 100, want: nil},
		{name: "empty chunk between", s: func() *nodeSet { s := dense(1600, 500, 505); s.insert(1100); return s }(), from: 502, to: 1600, limit: 100, want: []NodeID{502, 503, 504, 1100}},
		{name: "buf already at limit", s: dense(100, 0, 100), buf: []NodeID{9, 9}, from: 0, to: 100, limit: 2, want: []NodeID{9, 9}},
		{name: "buf past limit", s: dense(100, 0, 100), buf: []NodeID{9, 9, 9}, from: 0, to: 100, limit: 2, want: []NodeID{9, 9, 9}},
		{name: "buf one short", s: dense(100, 0, 100), buf: []NodeID{9}, from: 5, to: 100, limit: 2, want: []NodeID{9, 5}},
		{name: "limit zero", s: dense(100, 0, 100), from: 0, to: 100, limit: 0, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.appendRange(slices.Clone(tc.buf), tc.from, tc.to, tc.limit)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("appendRange(%v, %d, %d, %d) = %v, want %v", tc.buf, tc.from, tc.to, tc.limit, got, tc.want)
			}
			if ref := ascendRef(tc.s, tc.buf, tc.from, tc.to, tc.limit); !slices.Equal(got, ref) {
				t.Fatalf("appendRange = %v, ascend gives %v", got, ref)
			}
		})
	}
}

// TestProp_MergeRunsSorts: mergeRuns sorts keys made of any number of
// ascending runs (sortByBits hands it at most maxMergedRuns), equal keys
// and one-key runs included, through a scratch slice holding garbage, and
// returns that scratch.
func TestProp_MergeRunsSorts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "n")
		keys := rapid.SliceOfN(rapid.Uint64Range(0, rapid.SampledFrom([]uint64{3, 1000, math.MaxUint64}).Draw(t, "max")), n, n).Draw(t, "keys")
		runs := rapid.IntRange(1, n).Draw(t, "runs")
		cuts := []int{0}
		for r := 1; r < runs; r++ {
			cuts = append(cuts, rapid.IntRange(0, n).Draw(t, "cut"))
		}
		cuts = append(cuts, n)
		slices.Sort(cuts)
		for i := 1; i < len(cuts); i++ {
			slices.Sort(keys[cuts[i-1]:cuts[i]])
		}
		want := slices.Sorted(slices.Values(keys))
		tmp := make([]uint64, n)
		for i := range tmp {
			tmp[i] = 0xdead
		}
		got := mergeRuns(keys, tmp)
		if &got[0] != &tmp[0] || len(got) != n {
			t.Fatalf("mergeRuns returned another scratch")
		}
		if !slices.Equal(keys, want) {
			t.Fatalf("mergeRuns of %d runs: %v, want %v", runs, keys, want)
		}
	})
}

// TestProp_FormatReasonsIsFmt: formatReasons writes each count as fmt's
// "%d %s" would, joined by ", " — negative and extreme counts, empty and
// non-ASCII reasons included.
func TestProp_FormatReasonsIsFmt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rc := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) ReasonCount {
			n := rapid.OneOf(rapid.IntRange(-3, 20), rapid.SampledFrom([]int{math.MinInt, math.MaxInt, math.MinInt32, math.MaxInt32})).Draw(t, "nodes")
			return ReasonCount{Reason: rapid.SampledFrom([]string{"", "Insufficient cpu", "node(s) didn't match Pod's node affinity/selector", "ünïcode, 100%"}).Draw(t, "reason"), Nodes: n}
		}), 0, 5).Draw(t, "rc")
		parts := make([]string, len(rc))
		for i, r := range rc {
			parts[i] = fmt.Sprintf("%d %s", r.Nodes, r.Reason)
		}
		if got, want := formatReasons(rc), strings.Join(parts, ", "); got != want {
			t.Fatalf("formatReasons(%v) = %q, want %q", rc, got, want)
		}
	})
}
