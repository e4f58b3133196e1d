// Package golden compares a program's output with a committed file, the
// way this project's golden tests (examples, gangsim, ratios, the kube test
// manifests) all do: run the test with -update to accept a new output and
// review the diff in version control.
package golden

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Check compares got with the file at path; with -update it writes got
// there first (creating the directory). The failure message names the
// package to re-run with -update.
func Check(t require.TestingT, path string, got []byte) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "%s is missing: run the test with -update", path)
	require.Equal(t, string(want), string(got), "%s is stale: if the change is intended, run the test with -update and review the diff", path)
}
