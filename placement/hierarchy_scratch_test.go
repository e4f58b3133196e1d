package placement_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/internal/concurrent"
	"github.com/gangsched/gangsched/placement"
)

// TestSolveHierarchy_SameAfterOtherSolves: SolveHierarchy works in pooled
// memory (the overlay's pages, logs and sums, the split cache); a decision
// must not point into it, nor depend on what earlier solves left there,
// nor on solves running beside it on other goroutines, some on the same
// snapshots (run with -race). Each drawn case (half of them with the
// caller's hooks, so that the overlay indexes pods and hands out views;
// half with leaves of pod sets) is
// solved and its decision kept; after all the others are solved in
// reverse order, the kept decision reads as it did and a new solve gives
// it again; then four goroutines solve every case in shuffled orders.
func TestSolveHierarchy_SameAfterOtherSolves(t *testing.T) {
	type tcase struct {
		s     *placement.Snapshot
		root  *placement.HierarchyNode
		hooks *hookSet
	}
	solve := func(c tcase) (placement.HierarchyDecision, string) {
		var opts placement.Options
		if c.hooks != nil {
			var log []string
			opts = c.hooks.options(&log)
		}
		d, err := placement.SolveHierarchy(c.s, c.root, opts)
		return d, render(d, err)
	}
	draw := rapid.Custom(func(t *rapid.T) tcase {
		var c hCase
		if rapid.Bool().Draw(t, "pod sets") { // leaves lend the Solve's memory too
			pc := drawHPodSetCase(t)
			c = hCase{nodes: pc.nodes, root: pc.sets}
		} else {
			c = drawHCase(t)
		}
		var bound []placement.Pod
		for i, n := range c.nodes {
			if n.Allocatable[placement.ResourceCPU] > 0 && rapid.IntRange(0, 3).Draw(t, "bound") == 0 {
				bound = append(bound, placement.Pod{Namespace: "ns", Name: fmt.Sprintf("b%d", i), NodeName: n.Name,
					Requests: placement.ResourceList{placement.ResourceCPU: 1000}})
			}
		}
		s, err := placement.NewSnapshot(c.nodes, bound)
		if err != nil {
			t.Fatal(err)
		}
		tc := tcase{s: s, root: c.root}
		if rapid.Bool().Draw(t, "hooks") {
			h := drawHookSet(t)
			tc.hooks = &h
		}
		return tc
	})
	var cs []tcase
	var kept []placement.HierarchyDecision
	var want, keptWant []string
	for seed := range 80 {
		c := draw.Example(seed) // the same case for a seed in every run
		d, r := solve(c)
		cs, kept, want, keptWant = append(cs, c), append(kept, d), append(want, r), append(keptWant, render(d, nil))
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if _, got := solve(cs[i]); got != want[i] {
			t.Fatalf("case %d after the others:\ngot  %s\nwant %s", i, got, want[i])
		}
	}
	for i, d := range kept {
		if got := render(d, nil); got != keptWant[i] {
			t.Fatalf("case %d: the decision kept changed after other solves:\ngot  %s\nwant %s", i, got, keptWant[i])
		}
	}
	concurrent.Same(t, want, func(i int) string {
		_, got := solve(cs[i])
		return got
	})
}

// render is a decision in full, through its pointers, and its error.
func render(d placement.HierarchyDecision, err error) string {
	b, jerr := json.Marshal(d)
	if jerr != nil {
		return "render: " + jerr.Error()
	}
	return fmt.Sprintf("%s %v", b, err)
}
