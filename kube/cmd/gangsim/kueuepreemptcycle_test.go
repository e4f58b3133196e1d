package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A preemptor that meets the same victims again over another set of
// Workloads holding quota is Kueue's next step, not a cycle: gangsim goes
// on, admits it, and its -o yaml output is a fixed point.
func TestKueuePreemptionCycleFixedPoint(t *testing.T) {
	out, code := yamlPass(t, "-f", "testdata/kueue-preemption-cycle.yaml")
	require.NotContains(t, string(out), "a preemption cycle")
	fixedPoint(t, t.TempDir(), "kueue", out, code) // the profile of the first pass
}
