package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScenario_RequiredBlockPreferredRack: a 6-pod Job asking Kueue's way
// for a required block and a preferred rack, on two blocks of two racks
// of two 2-CPU nodes with b1-r1-x full: no rack holds it, so it spans two
// racks of one block, b1, which it fills. The Job is a gang as v1.36's
// Job controller stamps it (v1.37's would make it basic).
func TestScenario_RequiredBlockPreferredRack(t *testing.T) {
	got, _ := bindingsOf(t, exitPlaced, "-profile", "v1.36", "-f", td+"topology/required-block-preferred-rack.yaml")
	require.Equal(t, map[string]string{"train-0": "b1-r1-y", "train-1": "b1-r1-y", "train-2": "b1-r2-x", "train-3": "b1-r2-x", "train-4": "b1-r2-y", "train-5": "b1-r2-y"}, got)
}
