package preemption

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// The exact search orders subsets by packed costs (subsetCosts, built
// incrementally, and lessSubset): every packed cost must be the subset's
// hierarchyCost, and two subsets must compare as their Costs do, then by
// mask — over units of mixed priorities, start times (some unset), whole
// units and pods guarded by disruption budgets.
func TestSubsetCosts_AsHierarchyCost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var budgets []DisruptionBudget
		for b := range rapid.IntRange(0, 4).Draw(t, "budgets") {
			// Some budgets guard no candidate (another namespace, or a
			// label no pod has): they add no violation.
			budgets = append(budgets, DisruptionBudget{Namespace: rapid.SampledFrom([]string{"default", "default", "other"}).Draw(t, "namespace"), Name: fmt.Sprint("b", b),
				Selector:           placement.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"a", "b", "d"}).Draw(t, "app")}},
				DisruptionsAllowed: int32(rapid.IntRange(0, 2).Draw(t, "allowed"))})
		}
		var units []*hunit
		for i := range rapid.IntRange(1, 6).Draw(t, "units") {
			u := &hunit{v: Victim{Priority: rapid.SampledFrom([]int32{-5, 1, 7}).Draw(t, "priority"), Whole: rapid.Bool().Draw(t, "whole")}}
			// Starts beyond the years time.UnixNano can hold (1678 to
			// 2262) are valid input and must order as times do.
			if s := rapid.IntRange(0, 5).Draw(t, "start"); s > 3 {
				u.v.StartTime = t0.AddDate(300*(2*s-9), 0, 0)
			} else if s > 0 {
				u.v.StartTime = t0.Add(time.Duration(s) * time.Second)
			}
			for j := range rapid.IntRange(1, 3).Draw(t, "pods") {
				p := &placement.Pod{Namespace: "default", Name: fmt.Sprintf("u%d-%d", i, j),
					Labels: map[string]string{"app": rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "label")}}
				u.pods = append(u.pods, p)
				prio := u.v.Priority
				if !u.v.Whole {
					prio = int32(rapid.IntRange(-5, int(u.v.Priority)).Draw(t, "pod priority"))
				}
				u.prio = append(u.prio, prio)
			}
			units = append(units, u)
		}
		n := len(units)
		set := func(mask uint32) []*hunit {
			var s []*hunit
			for i, u := range units {
				if mask&(1<<(n-1-i)) != 0 {
					s = append(s, u)
				}
			}
			return s
		}
		costs := subsetCosts(units, budgets)
		startKey := startKeys(units)
		if len(costs) != 1<<n-1 {
			t.Fatalf("%d subsets of %d units", len(costs), n)
		}
		for i := range costs {
			c := &costs[i]
			k := hierarchyCost(set(c.mask), budgets)
			if c.mask != uint32(i+1) || c.viol != k.BudgetViolations || c.maxp != k.MaxPriority || c.sum != k.PrioritySum ||
				int(c.pods) != k.Pods || c.start != startKey(k.Start) {
				t.Fatalf("mask %b: packed %+v, hierarchyCost %s", c.mask, *c, k)
			}
		}
		for i := range costs {
			for j := range costs {
				a, b := &costs[i], &costs[j]
				x := hierarchyCost(set(a.mask), budgets).Compare(hierarchyCost(set(b.mask), budgets))
				want := x < 0 || (x == 0 && a.mask < b.mask)
				if lessSubset(a, b) != want {
					t.Fatalf("masks %b, %b: lessSubset %v, Cost.Compare %d", a.mask, b.mask, !want, x)
				}
			}
		}
	})
}
