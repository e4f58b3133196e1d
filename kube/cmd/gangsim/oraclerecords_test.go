package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// eachRecord runs check, as a subtest named after the record, on every
// Kueue oracle record that glob (a path under td, "….json") matches: the
// record read into a T, and required to be the real Kueue v0.17.0's. It
// requires at least one record and returns how many it ran.
func eachRecord[T any](t *testing.T, glob string, check func(t *testing.T, name string, c T)) int {
	t.Helper()
	files, err := filepath.Glob(td + glob)
	require.NoError(t, err)
	require.NotEmpty(t, files, glob)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var head struct {
				Kueue string `json:"kueue"`
			}
			require.NoError(t, json.Unmarshal(b, &head))
			require.Equal(t, "v0.17.0", head.Kueue)
			var c T
			require.NoError(t, json.Unmarshal(b, &c))
			check(t, name, c)
		})
	}
	return len(files)
}
