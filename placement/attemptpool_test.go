package placement

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_PooledAttemptsLeaveNoTrace: the attempts a Solve takes from the
// pool (see attemptPool) start as new ones whatever the solves before left
// in it: a group's decision is the same before and after solves of
// another group, tight budgets (many attempts, the search's) included.
func TestProp_PooledAttemptsLeaveNoTrace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s1, g1 := drawAlikeCase(t)
		s2, g2 := drawAlikeCase(t)
		var opts [2]Options
		for k := range opts {
			if rapid.IntRange(0, 2).Draw(t, fmt.Sprint("tightBudget", k)) == 0 {
				opts[k].Budget = int64(rapid.IntRange(1, 200).Draw(t, fmt.Sprint("budget", k)))
			}
		}
		first, err1 := Solve(s1, g1, opts[0])
		_, _ = Solve(s2, g2, opts[1])
		again, err2 := Solve(s1, g1, opts[0])
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("errors differ: %v, after another group's solves %v", err1, err2)
		}
		if got, want := fmt.Sprintf("%#v", again), fmt.Sprintf("%#v", first); got != want {
			t.Fatalf("decisions differ after another group's solves:\nafter: %s\nbefore: %s", got, want)
		}
	})
}
