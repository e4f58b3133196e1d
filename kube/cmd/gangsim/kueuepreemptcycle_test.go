package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A preemption cycle gangsim stops is stopped at the same state when
// gangsim runs again over its own -o yaml output: the run's output is a
// fixed point although Kueue would go on preempting.
func TestKueuePreemptionCycleFixedPoint(t *testing.T) {
	out, code := yamlPass(t, "-f", "testdata/kueue-preemption-cycle.yaml")
	require.Contains(t, string(out), "a preemption cycle")
	fixedPoint(t, t.TempDir(), "gangsched", out, code)
}
