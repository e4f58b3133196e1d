package manifest

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFieldLine: a field path as the converters name it finds the line of
// its key, of a list item, or of the deepest part the document has.
func TestFieldLine(t *testing.T) {
	doc := []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      requests: {cpu: '-1', nvidia.com/gpu: 1}\n")
	for path, want := range map[string]int{
		"spec":               4,
		"spec.containers[0]": 6,
		"spec.containers[0].resources.requests[cpu]":            8,
		"spec.containers[0].resources.requests[nvidia.com/gpu]": 8,
		"spec.containers[3].name":                               5, // no such item: the list's key
		"spec.nodeName":                                         4,
		"metadata.name":                                         3,
		"":                                                      0,
	} {
		require.Equal(t, want, fieldLine(doc, path), path)
	}
	require.Zero(t, fieldLine([]byte("a: [b"), "a"), "does not parse")
	require.Equal(t, []string{"a", "b", "0", "c", "x.y"}, splitPath("a.b[0].c[x.y]"))
}

// FuzzFieldLine: any document and path give a line within the document,
// or 0, and never a panic.
func FuzzFieldLine(f *testing.F) {
	f.Add([]byte("spec:\n  containers:\n  - name: c\n"), "spec.containers[0].name")
	f.Add([]byte("a: [b, {c: d}]\n"), "a[1].c")
	f.Add([]byte("x"), "[")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		l := fieldLine(data, path)
		require.GreaterOrEqual(t, l, 0)
		require.LessOrEqual(t, l, bytes.Count(data, []byte("\n"))+1)
	})
}
