package preemption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// labelled is p with label app=v.
func labelled(p placement.Pod, v string) placement.Pod {
	p.Labels = map[string]string{"app": v}
	return p
}

// crowded is one node of n+1 CPUs running n low pods labelled app=a and
// one pod of priority mid labelled app=b (the last in eviction order),
// each of one CPU.
func crowded(n int) *placement.Snapshot {
	var pods []placement.Pod
	for i := range n {
		pods = append(pods, labelled(bound(fmt.Sprintf("a-%02d", i), "n1", "", low, cpu(1000)), "a"))
	}
	pods = append(pods, labelled(bound("b", "n1", "", mid, cpu(1000)), "b"))
	return snapshot([]placement.Node{node("n1", cpu(int64(n+1)*1000))}, pods)
}

// cutAvoid rejects nodes running a pod labelled app=b, saying its own
// search was cut short: solves that fail there are not proven.
var cutAvoid = placement.FilterFunc(func(_ *placement.Pod, n placement.NodeInfo) placement.Rejection {
	for p := range n.Snapshot().PodsOn(n.ID()) {
		if p.Labels["app"] == "b" {
			return placement.Rejection{Reason: "runs app=b", Cut: true}
		}
	}
	return placement.Rejection{}
})

// Each reason a plan can be unproven, and what the exact search spent.
func TestPlanSaysWhyNotProven(t *testing.T) {
	pair := func() *placement.Group { return gang("pre", 2, 2, high, cpu(1000)) }
	for _, c := range []struct {
		name   string
		s      *placement.Snapshot
		opts   placement.Options
		limit  preemption.Limit
		exact  bool // the exact search ran (Steps > 0)
		solves int  // at least
	}{
		// Four candidates, no filter: the exact search proves its set.
		{name: "proven", s: crowded(3), limit: preemption.NoLimit, exact: true},
		// 21 candidates: the heuristic chooses, the exact search never runs.
		{name: "units", s: crowded(20), limit: preemption.LimitUnits},
		// A budget of 12 steps runs out in the exact search.
		{name: "budget", s: crowded(3), opts: placement.Options{Budget: 12}, limit: preemption.LimitBudget, exact: true},
		// Only b's eviction lets a member in, and b comes last: every set of
		// a-pods is solved first, until MaxExactSolves.
		{name: "solves", s: crowded(19), opts: placement.Options{Filters: []placement.Filter{avoid("app", "b")}}, limit: preemption.LimitSolves, exact: true, solves: preemption.MaxExactSolves},
		// The filter's rejections are cut short: the failed solves are not
		// proven.
		{name: "unproven solve", s: crowded(3), opts: placement.Options{Filters: []placement.Filter{cutAvoid}}, limit: preemption.LimitUnprovenSolve, exact: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := find(t, c.s, pair(), preemption.Input{}, c.opts)
			require.Equal(t, preemption.Preempt, p.Outcome, p.Message)
			require.Equal(t, c.limit, p.Limit, c.limit.String())
			require.Equal(t, c.limit == preemption.NoLimit, p.Proven)
			require.Equal(t, c.exact, p.Steps > 0, "steps %d", p.Steps)
			require.GreaterOrEqual(t, p.Solves, c.solves)
			if c.opts.Budget > 0 {
				require.GreaterOrEqual(t, p.Steps, c.opts.Budget)
			}
		})
	}
	// CannotHelp: proven when the solver proves the group does not fit
	// with every candidate gone, not when its failure was cut short.
	s := snapshot([]placement.Node{node("n1", cpu(2000))}, []placement.Pod{
		labelled(bound("a", "n1", "", low, cpu(1000)), "a"),
		labelled(bound("b", "n1", "", high+1, cpu(1000)), "b"),
	})
	p := find(t, s, gang("pre", 1, 1, high, cpu(2000)), preemption.Input{}, placement.Options{})
	require.Equal(t, preemption.CannotHelp, p.Outcome)
	require.True(t, p.Proven)
	require.Equal(t, preemption.NoLimit, p.Limit)
	p = find(t, s, gang("pre", 1, 1, high, cpu(1000)), preemption.Input{}, placement.Options{Filters: []placement.Filter{cutAvoid}})
	require.Equal(t, preemption.CannotHelp, p.Outcome, p.Message)
	require.False(t, p.Proven)
	require.Equal(t, preemption.LimitUnprovenSolve, p.Limit)
}

func TestLimitString(t *testing.T) {
	for l, want := range map[preemption.Limit]string{
		preemption.NoLimit: "None", preemption.LimitUnits: "MaxExactUnits", preemption.LimitBudget: "Budget",
		preemption.LimitSolves: "MaxExactSolves", preemption.LimitUnprovenSolve: "UnprovenSolve", 9: "Limit(9)",
	} {
		require.Equal(t, want, l.String())
	}
}
