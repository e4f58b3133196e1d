package placement

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// sortCands orders as SortFunc by cmpCands: candidates in ascending ID
// order or not, in order already or not, with few distinct scores (its
// counting sort) or more than maxCandScores (its fallback), ties of
// score among them.
func TestSortCands_PropIsSortFunc(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "n")
		scores := rapid.IntRange(1, maxCandScores+4).Draw(t, "scores")
		ids := rapid.Permutation(func() []NodeID {
			var out []NodeID
			for i := range n * 2 {
				out = append(out, NodeID(i))
			}
			return out
		}()).Draw(t, "ids")[:n]
		if rapid.IntRange(0, 3).Draw(t, "unordered") > 0 {
			slices.Sort(ids)
		}
		var cands []fastCand
		for _, id := range ids {
			cands = append(cands, fastCand{id: id, score: int64(rapid.IntRange(0, scores-1).Draw(t, "score")) * 1000, cap: int64(rapid.IntRange(1, 8).Draw(t, "cap"))})
		}
		if rapid.IntRange(0, 3).Draw(t, "inOrder") == 0 { // scores descending already, or one score (an empty rack)
			slices.SortStableFunc(cands, func(x, y fastCand) int { return int(y.score - x.score) })
		}
		want := slices.Clone(cands)
		slices.SortFunc(want, cmpCands)
		buf := make([]fastCand, rapid.IntRange(0, 70).Draw(t, "buf"))
		got, other := sortCands(slices.Clone(cands), buf)
		if !slices.Equal(got, want) {
			t.Fatalf("sortCands %v, SortFunc %v", got, want)
		}
		if len(got) > 0 && len(other) > 0 && &got[0] == &other[0] {
			t.Fatal("the two buffers returned are one")
		}
	})
}
