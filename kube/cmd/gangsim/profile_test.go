package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCPUProfile: -cpuprofile writes a profile (gzip-compressed, as pprof
// writes them) of a run that otherwise prints as without it, and a path
// that cannot be created is bad usage, named.
func TestCPUProfile(t *testing.T) {
	args := []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "seed/training-job.yaml"}
	var plain, out, stderr bytes.Buffer
	require.Equal(t, exitPlaced, run(args, nil, &plain, &stderr, false))
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	require.Equal(t, exitPlaced, run(append([]string{"-cpuprofile", path}, args...), nil, &out, &stderr, false), stderr.String())
	require.Equal(t, plain.String(), out.String())
	prof, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(prof, []byte{0x1f, 0x8b}), "not a pprof profile")

	stderr.Reset()
	bad := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	require.Equal(t, exitInput, run(append([]string{"-cpuprofile", bad}, args...), nil, &out, &stderr, false))
	require.Contains(t, stderr.String(), "gangsim: -cpuprofile: open "+bad)
}
