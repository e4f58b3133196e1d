package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
)

// TestDraGolden runs the dra example and compares its output with
// testdata/dra.golden; run with -update to accept a new output.
func TestDraGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(&buf))
	golden.Check(t, filepath.Join("testdata", "dra.golden"), buf.Bytes())
}
