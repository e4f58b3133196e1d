package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
)

// TestQuickstartGolden runs the quickstart and compares its output with
// testdata/quickstart.golden; run with -update to accept a new output.
func TestQuickstartGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(&buf))
	golden.Check(t, filepath.Join("testdata", "quickstart.golden"), buf.Bytes())
}
