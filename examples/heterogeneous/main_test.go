package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
)

// TestHeterogeneousGolden runs the heterogeneous example and compares its output with
// testdata/heterogeneous.golden; run with -update to accept a new output.
func TestHeterogeneousGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(&buf))
	golden.Check(t, filepath.Join("testdata", "heterogeneous.golden"), buf.Bytes())
}
