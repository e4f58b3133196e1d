package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIHabits: -h is not an error; no -f says what to give; a stray
// argument or a bad flag value is bad usage; an empty report's lists are
// []; -f DIR skips a report written beside the manifests.
func TestCLIHabits(t *testing.T) {
	runArgs := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb, false)
		return out.String(), errb.String(), code
	}
	_, errOut, code := runArgs("-h")
	require.Equal(t, exitPlaced, code)
	require.Contains(t, errOut, "usage: gangsim")

	_, errOut, code = runArgs()
	require.Equal(t, exitInput, code)
	require.Contains(t, errOut, "gangsim: no manifests: give files or directories with -f")

	_, errOut, code = runArgs("-f", "x", "extra")
	require.Equal(t, exitInput, code)
	require.Contains(t, errOut, `gangsim: unexpected argument "extra"`)

	_, _, code = runArgs("-max-cycles", "many", "-f", "x")
	require.Equal(t, exitInput, code)

	out, _, code := runArgs("-o", "json", "-f", "-")
	require.Equal(t, exitPlaced, code)
	require.Contains(t, out, `"cycles": [],`)
	require.Contains(t, out, `"allocation": []`)

	dir := t.TempDir()
	for _, f := range []string{"nodes.yaml", "node-d.yaml", "training-job.yaml"} {
		b, err := os.ReadFile(td + "seed/" + f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	report, _, code := runArgs("-o", "json", "-f", dir)
	require.Equal(t, exitPlaced, code)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "report.json"), []byte(report), 0o644))
	again, errOut, code := runArgs("-o", "json", "-f", dir)
	require.Equal(t, exitPlaced, code, errOut)
	require.Equal(t, report, again)
}
