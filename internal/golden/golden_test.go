package golden

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder is a require.TestingT that notes a failure instead of stopping.
type recorder struct{ failed bool }

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true; panic(r) }

func check(path string, got []byte) (failed bool) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed = r.failed
	}()
	Check(r, path, got)
	return r.failed
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.golden")
	require.True(t, check(path, []byte("a\n")), "a missing golden file fails")
	*update = true
	require.False(t, check(path, []byte("a\n")), "-update writes it")
	*update = false
	require.False(t, check(path, []byte("a\n")), "the same output passes")
	require.True(t, check(path, []byte("b\n")), "a different output fails")
}
