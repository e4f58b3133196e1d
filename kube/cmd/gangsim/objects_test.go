package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
)

// viaJSONToYAML writes objs as writeObjects did before it marshalled
// YAML straight: pruned, to JSON and through sigs.k8s.io/yaml's
// JSONToYAML.
func viaJSONToYAML(t *testing.T, objs []any) string {
	var b strings.Builder
	for _, o := range objs {
		js, err := json.Marshal(o)
		require.NoError(t, err)
		d := json.NewDecoder(bytes.NewReader(js))
		d.UseNumber()
		var m any
		require.NoError(t, d.Decode(&m))
		y, err := yaml.Marshal(jsonFields{}.prune(m, reflect.TypeOf(o)))
		require.NoError(t, err)
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.String()
}

// TestWriteObjects_AsJSONToYAML: writeObjects writes the bytes the route
// through JSON wrote, on numbers of every kind and on every object of the
// Kueue and Kubernetes testdata loaded, and integers beyond float64's
// precision exactly.
func TestWriteObjects_AsJSONToYAML(t *testing.T) {
	numbers := map[string]any{"int": 3, "neg": -7, "zero": 0, "half": 0.5, "tiny": 1.5e-7, "big": 1e21,
		"maxSafe": int64(1) << 53, "frac": 2.25, "word": "123", "yes": "yes", "list": []any{1, 2.5, "x"}}
	var got bytes.Buffer
	require.NoError(t, writeObjects(&got, []any{numbers}))
	require.Equal(t, viaJSONToYAML(t, []any{numbers}), got.String())

	got.Reset()
	require.NoError(t, writeObjects(&got, []any{map[string]any{"i": int64(math.MaxInt64), "u": uint64(math.MaxUint64)}}))
	require.Equal(t, "---\ni: 9223372036854775807\nu: 18446744073709551615\n", got.String())

	files, err := filepath.Glob(td + "kueue-workloads/*.yaml")
	require.NoError(t, err)
	more, err := filepath.Glob(td + "*.yaml")
	require.NoError(t, err)
	read := 0
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		objs, err := manifest.Decode(f, bytes.NewReader(b), manifest.Options{})
		require.NoError(t, err)
		c, err := kube.Load(objs)
		if err != nil {
			continue // a file that needs others beside it
		}
		got.Reset()
		require.NoError(t, writeObjects(&got, c.Objects()))
		require.Equal(t, viaJSONToYAML(t, c.Objects()), got.String(), "%s", f)
		read++
	}
	require.Greater(t, read, 20)
}
