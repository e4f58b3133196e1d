package placement

import (
	"fmt"
	"testing"

	"github.com/gangsched/gangsched/internal/concurrent"
	"pgregory.net/rapid"
)

// TestSolve_TermsSameAfterOtherSolves: a group with affinity terms compiles
// its terms into the pool's cons and solves in the pool's solver; a
// decision must not depend on what earlier solves (other snapshots, terms,
// bound members, sizes) left there, nor on solves running beside it on
// other goroutines, some on the same snapshots (run with -race). Each case
// is solved again after all the others in reverse order, then by four
// goroutines in shuffled orders, and compared field by field.
func TestSolve_TermsSameAfterOtherSolves(t *testing.T) {
	type tcase struct {
		s *Snapshot
		g *Group
	}
	var cs []tcase
	var want []string
	// What is checked is what one solve leaves for the next, which the
	// compile and the first placements show; a small search budget keeps
	// the cases that exhaust the default one from costing most of the run.
	solve := func(c tcase) string {
		d, err := Solve(c.s, c.g, Options{SearchBudget: 1 << 12})
		return fmt.Sprintf("%#v %v", d, err)
	}
	draw := rapid.Custom(func(t *rapid.T) tcase {
		s, g := drawAlikeCase(t)
		return tcase{s, g}
	})
	for seed := range 80 {
		c := draw.Example(seed) // the same case for a seed in every run
		cs = append(cs, c)
		want = append(want, solve(c))
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if got := solve(cs[i]); got != want[i] {
			t.Fatalf("case %d after the others:\ngot  %s\nwant %s", i, got, want[i])
		}
	}
	concurrent.Same(t, want, func(i int) string { return solve(cs[i]) })
}
