package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// TestProp_StatusOnlyKeepsTheDecision checks Options.StatusOnly: a
// Scheduled decision is unchanged; any other keeps its placement, counts
// and waiting members and loses only its Reasons and explanation, an
// Unresolvable one possibly reading Unschedulable.
func TestProp_StatusOnlyKeepsTheDecision(t *testing.T) {
	seen := map[Status]bool{}
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t, true)
		full, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		in.opts.StatusOnly = true
		brief, err := Solve(in.s, in.g, in.opts)
		require.NoError(t, err)
		seen[full.Status] = true
		if full.Status != Scheduled {
			require.Empty(t, brief.Reasons)
			if full.Status == Unresolvable {
				require.Contains(t, []Status{Unresolvable, Unschedulable}, brief.Status)
			}
			brief.Status, brief.Reasons, brief.Message = full.Status, full.Reasons, full.Message
		}
		require.Equal(t, full, brief)
	})
	// The generator yields each status this property distinguishes.
	for _, st := range []Status{Scheduled, Unschedulable, Unresolvable} {
		require.True(t, seen[st], "no %s decision drawn", st)
	}
}
