package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/golden"
)

// TestTopologyGolden runs the topology example and compares its output with
// testdata/topology.golden; run with -update to accept a new output.
func TestTopologyGolden(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(&buf))
	golden.Check(t, filepath.Join("testdata", "topology.golden"), buf.Bytes())
}
