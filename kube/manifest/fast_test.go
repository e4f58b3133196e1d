package manifest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeBoth decodes data on the fast path (the default) and on the path
// of YAML to JSON to the typed object alone.
func decodeBoth(data []byte) (fast, slow []Object, fastErr, slowErr error) {
	d := newDecoder(Options{})
	fastErr = d.decode("f.yaml", bytes.NewReader(data))
	s := newDecoder(Options{})
	s.slow = true
	slowErr = s.decode("f.yaml", bytes.NewReader(data))
	return d.objs, s.objs, fastErr, slowErr
}

// sameAsSlow reports how the fast path's answer on data differs from the
// other path's: the same objects, or the same error.
func sameAsSlow(t testing.TB, data []byte) {
	t.Helper()
	fast, slow, fastErr, slowErr := decodeBoth(data)
	if (fastErr == nil) != (slowErr == nil) || (fastErr != nil && fastErr.Error() != slowErr.Error()) {
		t.Fatalf("fast path: %v\nother path: %v\ninput:\n%s", fastErr, slowErr, data)
	}
	if fastErr == nil && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("the paths decode differently:\nfast:  %+v\nother: %+v\ninput:\n%s", fast, slow, data)
	}
}

// TestFast_SameAsSlow: on every manifest under kube/testdata and on this
// package's test documents, the fast path decodes exactly what the path of
// YAML to JSON to the typed object decodes — and most of their documents
// do take the fast path.
func TestFast_SameAsSlow(t *testing.T) {
	var files []string
	require.NoError(t, filepath.WalkDir("../testdata", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return err
	}))
	require.Greater(t, len(files), 10)
	docs, fast := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		t.Run(f, func(t *testing.T) { sameAsSlow(t, data) })
		chunks, err := split(data)
		require.NoError(t, err)
		d := newDecoder(Options{})
		for i, c := range chunks {
			docs++
			if _, ok := d.fastDocument(f, i+1, c); ok {
				fast++
			}
		}
	}
	for _, doc := range fastCases {
		sameAsSlow(t, []byte(doc))
	}
	require.Greater(t, fast, docs*9/10, "%d of %d documents took the fast path", fast, docs)
}

// fastCases are documents at the fast path's edges: values it leaves to
// the other path, and values both take.
var fastCases = []string{
	mixed,
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1e3m}}}]}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: 0.5, memory: 1}}}]}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: 1.0}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: 99999999999}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: 18446744073709551615}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {1: a, true: b}}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {a: yes, b: 1, c: ~}}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p, Labels: {a: b}}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [], nodeSelector: {}}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: null, tolerations: [{key: k, tolerationSeconds: .inf}]}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: 2026-01-02T03:04:05Z}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: null}\n",
	"apiVersion: v1\nkind: Node\nmetadata: {generateName: n-}\n---\napiVersion: v1\nkind: Node\nmetadata: {generateName: n-}\n",
	"apiVersion: v1\nkind: PodList\nitems: [{metadata: {name: a}}, {kind: Pod, metadata: {name: b}}]\n",
	"apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Service, metadata: {name: s}}, {apiVersion: v1, kind: Node, metadata: {name: n}}]\n",
	"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {podCIDRs: [a, 1]}\n",
	"apiVersion: v1\nkind: Node\nmetadata: &m {name: n}\nstatus: {capacity: {cpu: \"4\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
	"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: d, pool: {name: p, generation: 1, resourceSliceCount: 1}, devices: [{name: d, attributes: {a: {int: 1}}, capacity: {m: {value: 1Gi}}}]}\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {name: \"p\\xff\"}\n",
	"null\n",
	"[1]\n",
	// Two null keys: the converter's message named whichever its map gave
	// first.
	"&a: v1\nkind: Pod\nmetadata: {name: p}\nspec: {&b: {requests: {cpu: 0.5}}}\n",
}
