package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// yamlDocs cuts a YAML manifest at its "---" lines and converts each
// document with content to JSON, as sigs.k8s.io/yaml converts it.
func yamlDocs(t testing.TB, src []byte) [][]byte {
	t.Helper()
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---.*\n`).Split(string(src), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(d, "")) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(d))
		require.NoError(t, err)
		docs = append(docs, js)
	}
	return docs
}

// asJSON writes the manifest at path into dir, as its n-th file, as JSON: one object a line
// (list false), or the objects as the items of one List as `kubectl get
// -o json` writes it (list true; documents that are Lists themselves stay
// a stream). It returns the new file's path.
func asJSON(t testing.TB, dir string, n int, path string, list bool) string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	docs := yamlDocs(t, src)
	out := append(bytes.Join(docs, []byte("\n")), '\n')
	for _, d := range docs {
		list = list && !bytes.Contains(d, []byte(`"items":`))
	}
	if list {
		out = append([]byte(`{"apiVersion": "v1", "items": [`), bytes.Join(docs, []byte(",\n"))...)
		out = append(out, `], "kind": "List", "metadata": {"resourceVersion": ""}}`+"\n"...)
	}
	p := filepath.Join(dir, strconv.Itoa(n)+"-"+filepath.Base(path)+".json")
	require.NoError(t, os.WriteFile(p, out, 0o644))
	return p
}

// TestJSONInput: gangsim decides alike on every golden case's manifests
// read as YAML and converted to JSON — one object a line, and the objects
// as one kubectl-style List a file: the same exit code and output,
// byte for byte.
func TestJSONInput(t *testing.T) {
	for _, g := range goldens {
		for _, list := range []bool{false, true} {
			name := g.name + "/stream"
			if list {
				name = g.name + "/list"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				args := append([]string(nil), g.args...)
				for i := 1; i < len(args); i++ {
					if args[i-1] == "-f" {
						args[i] = asJSON(t, dir, i, args[i], list)
					}
				}
				var out, errb bytes.Buffer
				code := run(args, strings.NewReader(""), &out, &errb, false)
				require.Equal(t, g.code, code, "stderr: %s", errb.String())
				want, err := os.ReadFile(filepath.Join("testdata", g.name+".golden"))
				require.NoError(t, err)
				require.Equal(t, string(want), out.String())
			})
		}
	}
}

// TestJSONInput_Stdin: `kubectl get nodes -o json | gangsim -f - -f …`
// decides as the nodes' YAML file does.
func TestJSONInput_Stdin(t *testing.T) {
	list, err := os.ReadFile(asJSON(t, t.TempDir(), 0, td+"seed/nodes.yaml", true))
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(list, []byte(`{"apiVersion": "v1", "items": [`)))
	var out, errb bytes.Buffer
	code := run([]string{"-f", "-", "-f", td + "seed/node-d.yaml", "-f", td + "seed/training-job.yaml"}, bytes.NewReader(list), &out, &errb, false)
	require.Equal(t, exitPlaced, code, "stderr: %s", errb.String())
	want, err := os.ReadFile("testdata/seed-binds.golden")
	require.NoError(t, err)
	require.Equal(t, string(want), out.String())
}
