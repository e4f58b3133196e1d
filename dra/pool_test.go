package dra_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/internal/concurrent"
	"github.com/gangsched/gangsched/placement"
)

// poolCase is one solve of the pool property.
type poolCase struct {
	l  *dra.Ledger
	s  *placement.Snapshot
	pg dra.PodGroup
	g  *placement.Group
	// oneByOne adds a caller Filter that accepts every node: the solver
	// then asks the hook's Filter about each member (the memo's path)
	// rather than placing runs.
	oneByOne bool
}

func (c poolCase) solve() (placement.Decision, error) {
	opts := placement.Options{Reservers: []placement.NewReserverFunc{c.l.Reserver(c.pg, dra.Options{})}}
	if c.oneByOne {
		opts.Filters = []placement.Filter{placement.FilterFunc(func(*placement.Pod, placement.NodeInfo) placement.Rejection { return placement.Rejection{} })}
	}
	return placement.Solve(c.s, c.g, opts)
}

// poolCases draws the solves of one inventory: a random world's group
// (two generators: shared and per-pod claims with fallbacks, and
// per-pod claims that fill nodes), the same group after its decision is
// committed, its first members alone, and its members renamed (so their
// claims are named otherwise), each placed in runs and one by one, so
// that the reservers the inventory pools pass between solves of
// different groups and states.
func poolCases(t *rapid.T, seed int) []poolCase {
	var c poolCase
	if seed%2 == 0 {
		w := genHookWorld(t)
		c = poolCase{l: w.l, s: w.s, pg: w.pg, g: w.g}
	} else {
		c.l, c.s, c.pg, c.g = genSaturatedWorld(t)
	}
	cs := []poolCase{c}
	if d, err := c.solve(); err == nil && d.Status == placement.Scheduled {
		n, _, err := c.l.Commit(c.s, c.pg, c.g, d, dra.Options{})
		require.NoError(t, err)
		cs = append(cs, poolCase{l: n, s: c.s, pg: c.pg, g: c.g})
	}
	if len(c.g.Members) > 1 {
		part := *c.g
		part.Members = c.g.Members[:len(c.g.Members)/2]
		part.MinCount = int32(len(part.Members))
		cs = append(cs, poolCase{l: c.l, s: c.s, pg: c.pg, g: &part})
	}
	renamed := *c.g
	renamed.Members = slices.Clone(c.g.Members)
	for i := range renamed.Members {
		renamed.Members[i].Name = "x" + renamed.Members[i].Name
	}
	cs = append(cs, poolCase{l: c.l, s: c.s, pg: c.pg, g: &renamed})
	for _, c := range cs[:len(cs):len(cs)] {
		c.oneByOne = true
		cs = append(cs, c)
	}
	return cs
}

// TestProp_DecisionSameAfterOtherSolves: the hook's reservers go back to
// their inventory's pool when a solve is done with them
// (placement.ReserverReleaser). A decision must hold none of their
// memory, and a reused reserver must decide as a new one: every decision
// is kept and still reads the same after all the other solves (one after
// another, then on four goroutines at once, which -race checks), and
// each solve again decides the same.
func TestProp_DecisionSameAfterOtherSolves(t *testing.T) {
	var cs []poolCase
	var kept []placement.Decision
	var keptErr []error
	var want []string
	show := func(d placement.Decision, err error) string { return fmt.Sprintf("%#v %v", d, err) }
	for seed := range 60 {
		for _, c := range rapid.Custom(func(t *rapid.T) []poolCase { return poolCases(t, seed) }).Example(seed) {
			d, err := c.solve()
			cs, kept, keptErr, want = append(cs, c), append(kept, d), append(keptErr, err), append(want, show(d, err))
		}
	}
	check := func(who string) {
		t.Helper()
		for i, d := range kept {
			require.Equal(t, want[i], show(d, keptErr[i]), "case %d's first decision %s", i, who)
		}
	}
	for i := len(cs) - 1; i >= 0; i-- {
		got := show(cs[i].solve())
		require.Equal(t, want[i], got, "case %d solved again after the others", i)
	}
	check("after the others")
	concurrent.Same(t, want, func(i int) string { return show(cs[i].solve()) })
	check("after solves on four goroutines")
}
