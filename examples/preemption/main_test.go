package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
)

// TestPreemptionGolden runs the preemption example and compares its output with
// testdata/preemption.golden; run with -update to accept a new output.
func TestPreemptionGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(&buf))
	golden.Check(t, filepath.Join("testdata", "preemption.golden"), buf.Bytes())
}
