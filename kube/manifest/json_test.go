package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/placement"
)

// toJSON converts a YAML source to the JSON stream of its documents, one
// object a line, as sigs.k8s.io/yaml converts each document; lists, when
// every document is an object other than a List, is the same objects as
// the items of one kubectl-style List ({"apiVersion": "v1", "items": [...],
// "kind": "List", "metadata": {...}}), else nil.
func toJSON(t testing.TB, src []byte) (stream, list []byte) {
	t.Helper()
	chunks, err := split(src)
	require.NoError(t, err)
	var docs [][]byte
	listable := true
	for _, c := range chunks {
		js, err := yaml.YAMLToJSON(c.data)
		require.NoError(t, err)
		docs = append(docs, js)
		listable = listable && js[0] == '{' && !bytes.Contains(js, []byte(`"items":`))
	}
	stream = append(bytes.Join(docs, []byte("\n")), '\n')
	if listable {
		list = append([]byte(`{"apiVersion": "v1", "items": [`), bytes.Join(docs, []byte(",\n"))...)
		list = append(list, `], "kind": "List", "metadata": {"resourceVersion": ""}}`+"\n"...)
	}
	return stream, list
}

// testdataManifests lists the YAML manifests under kube/testdata.
func testdataManifests(t testing.TB) []string {
	var files []string
	require.NoError(t, filepath.WalkDir("../testdata", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	}))
	require.Greater(t, len(files), 10)
	return files
}

// sameObject reports how two readings of one object differ, leaving out
// where they were read.
func sameObject(t testing.TB, want, got Object) {
	t.Helper()
	require.Equal(t, []string{want.APIVersion, want.Kind, want.Namespace, want.Name},
		[]string{got.APIVersion, got.Kind, got.Namespace, got.Name})
	require.True(t, reflect.DeepEqual(want.Obj, got.Obj), "%s decodes differently:\nYAML: %+v\nJSON: %+v", want.String(), want.Obj, got.Obj)
}

// TestJSON_SameAsYAML: every manifest under kube/testdata, converted to a
// JSON stream (and, where it can be, to one kubectl-style List), decodes
// on the JSON path to exactly the objects its YAML decodes to, at the
// same documents and items; a manifest the YAML reader refuses the JSON
// reader refuses too.
func TestJSON_SameAsYAML(t *testing.T) {
	lists := 0
	for _, f := range testdataManifests(t) {
		t.Run(f, func(t *testing.T) {
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			want, wantErr := Decode(f, bytes.NewReader(src), Options{})
			stream, list := toJSON(t, src)
			require.True(t, isJSONStream(stream) || !bytes.HasPrefix(stream, []byte("{")))
			got, err := Decode(f, bytes.NewReader(stream), Options{})
			if wantErr != nil {
				require.Error(t, err, "the YAML reader said: %v", wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, []int{want[i].Doc, want[i].Item}, []int{got[i].Doc, got[i].Item})
				sameObject(t, want[i], got[i])
			}
			if list == nil {
				return
			}
			lists++
			got, err = Decode(f, bytes.NewReader(list), Options{})
			require.NoError(t, err)
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, []int{1, i}, []int{got[i].Doc, got[i].Item})
				sameObject(t, want[i], got[i])
			}
		})
	}
	require.Greater(t, lists, 10)
}

// TestJSON_Stream: the forms a JSON source takes — one object a line,
// pretty-printed objects back to back, a kubectl List, a typed List whose
// items leave out their type — and what each object's place is.
func TestJSON_Stream(t *testing.T) {
	const in = `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"}}{"apiVersion":"v1","kind":"Node",
  "metadata": {"name": "n2"},
  "status": {"allocatable": {"cpu": "4"}}
}
null
{
  "apiVersion": "v1",
  "items": [
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "j-"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team-a"}}
  ],
  "kind": "List",
  "metadata": {"resourceVersion": ""}
}
{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "q"}}]}
`
	objs, err := Decode("in.json", strings.NewReader(in), Options{})
	require.NoError(t, err)
	var got []string
	for _, o := range objs {
		got = append(got, fmt.Sprintf("%s %s %T", o.Where(), o.String(), o.Obj))
	}
	require.Equal(t, []string{
		`in.json: document 1 (line 1) node "n1" *v1.Node`,
		`in.json: document 2 (line 2) Service "web" <nil>`,
		`in.json: document 3 (line 2) node "n2" *v1.Node`,
		`in.json: document 5 (line 7): items[0] Job "default/j-1" *v1.Job`,
		`in.json: document 5 (line 7): items[1] pod "team-a/p" *v1.Pod`,
		`in.json: document 6 (line 16): items[0] pod "default/q" *v1.Pod`,
	}, got)
	pod := objs[len(objs)-1].Obj
	require.Equal(t, "Pod", reflect.ValueOf(pod).Elem().FieldByName("Kind").String(), "a typed List's item gets the List's type")
}

// TestJSON_Errors: bad JSON input gets the error the YAML reader gives the
// same object, naming file, document, item, object and field, at the line
// of the field; syntax errors say line and column.
func TestJSON_Errors(t *testing.T) {
	pod := func(spec string) string {
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1"},` + "\n" + ` "spec": ` + spec + "}\n"
	}
	node := `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}` + "\n"
	cases := []struct {
		name     string
		in       string
		sentinel error
		err      string
	}{
		{"unknown field", node + pod(`{"containers": [{"name": "c",`+"\n"+`"resourcez": {}}]}`), placement.ErrInvalid,
			`in.json: document 2 (line 4): pod "default/p1": spec.containers[0].resourcez: unknown field`},
		{"field names are case-sensitive", pod(`{"NodeName": "n1"}`), placement.ErrInvalid,
			`in.json: document 1 (line 2): pod "default/p1": spec.NodeName: unknown field`},
		{"wrong type", pod(`{"priority": "high"}`), placement.ErrInvalid,
			`in.json: document 1 (line 2): pod "default/p1": spec.priority: want an integer, got string "high"`},
		{"int32 overflow", pod(`{"priority": 3000000000}`), placement.ErrInvalid,
			`in.json: document 1 (line 2): pod "default/p1": spec.priority: 3000000000 is not an int32`},
		{"bad quantity", pod(`{"containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]}`), placement.ErrInvalid,
			`in.json: document 1 (line 2): pod "default/p1": spec.containers[0].resources.requests[cpu]: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		{"duplicate field", `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "name": "p2"}}`, placement.ErrInvalid,
			`in.json: document 1 (line 1): pod "default/p2": metadata.name: duplicate field`},
		{"duplicate field, at its line", node + "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p1\"},\n \"spec\": {\"nodeName\": \"a\",\n \"nodeName\": \"b\"}}", placement.ErrInvalid,
			`in.json: document 2 (line 3): pod "default/p1": spec.nodeName: duplicate field`},
		{"duplicate field of a List item", `{"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": {"name": "n2"}, "spec": {"unschedulable": true, "unschedulable": false}}]}`, placement.ErrInvalid,
			`in.json: document 1 (line 1): items[0]: node "n2": spec.unschedulable: duplicate field`},
		{"duplicate field of a nameless object", `{"apiVersion": "v1", "kind": "Pod", "kind": "Pod"}`, nil,
			`in.json: document 1 (line 1): json: duplicate field "kind"`},
		{"bad apiVersion", `{"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "g"}}`, placement.ErrInvalid,
			`in.json: document 1 (line 1): PodGroup "g": apiVersion: scheduling.k8s.io/v1alpha1 is not supported for PodGroup; use scheduling.k8s.io/v1alpha2 or scheduling.k8s.io/v1beta1`},
		{"apiVersion not a string", `{"apiVersion": 1, "kind": "Pod", "metadata": {"name": "p1"}}`, placement.ErrInvalid,
			`in.json: document 1 (line 1): object "p1": apiVersion: must be set`},
		{"no name", `{"apiVersion": "v1", "kind": "Pod"}`, placement.ErrInvalid,
			`in.json: document 1 (line 1): pod "default/": metadata.name: must be set (or metadata.generateName)`},
		{"truncated", node + `{"apiVersion": "v1", "kind": "Node",` + "\n" + ` "metadata": {"name": "n2"}`, nil,
			`in.json: document 2 (line 2): json: line 3, column 28: unexpected end of JSON input`},
		{"bad literal", node + `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}, "spec": {"unschedulable": tru}}`, nil,
			`in.json: document 2 (line 2): json: line 2, column 95: invalid character '}' in literal true (expecting 'e')`},
		{"stray bracket", node + "]\n", nil,
			`in.json: document 2 (line 2): json: line 2, column 1: invalid character ']' looking for beginning of value`},
		{"garbage after a value on its line", node + `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}} garbage`, nil,
			`in.json: document 3 (line 2): json: line 2, column 66: invalid character 'g' looking for beginning of value`},
		{"number past float64", pod(`{"priority": 1e400}`), placement.ErrInvalid,
			`in.json: document 1 (line 2): pod "default/p1": spec.priority: 1e400 is not an int32`},
		{"not an object", node + "[1]\n", nil,
			`in.json: document 2 (line 2): a document must be an object, not a list`},
		{"List item", `{"apiVersion": "v1", "kind": "List", "items": [` + "\n" + node + `, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},` + "\n" + ` "spec": {"taints": 3}}]}`, placement.ErrInvalid,
			`in.json: document 1 (line 4): items[1]: node "n2": spec.taints: want a list, got number 3`},
		{"List item not an object", `{"apiVersion": "v1", "kind": "List", "items": [3]}`, nil,
			`in.json: document 1 (line 1): items[0]: an item must be an object, not number 3`},
		{"List metadata duplicated", `{"apiVersion": "v1", "kind": "List", "items": [], "kind": "List"}`, nil,
			`in.json: document 1 (line 1): json: duplicate field "kind"`},
		{"List metadata malformed", `{"apiVersion": "v1", "kind": "List", "items": [], "metadata": {"a": tru}}`, nil,
			`in.json: document 1 (line 1): json: line 1, column 72: invalid character '}' in literal true (expecting 'e')`},
		{"duplicate object", node + node, placement.ErrDuplicate,
			`in.json: document 2 (line 2): node "n1": metadata.name: already defined at in.json: document 1 (line 1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireDecodeError(t, "in.json", c.in, c.err, true, c.sentinel)
		})
	}
}

// jsonCases seed FuzzDecodeJSON.
var jsonCases = []string{
	`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"a": "b"}}, "status": {"allocatable": {"cpu": "4", "memory": "1Gi"}}}`,
	`{"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"}, "spec": {"priority": 3, "containers": [{"name": "c", "resources": {"requests": {"cpu": 0.5}}}]}}` + "\n" +
		`{"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "p-"}}`,
	`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}, {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}}]}`,
	`{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "b"}}]}`,
	`{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profiles": [{"schedulerName": "s"}]}`,
	`{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}`,
	`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "2026-01-02T03:04:05Z"}, "spec": {"tolerations": [{"key": "k", "tolerationSeconds": 5}]}}`,
	`{"kind": "Pod"} null {"apiVersion": "v\u0031", "kind": "Node", "metadata": {"name": "n"}}`,
	`{}`,
}

// FuzzDecodeJSON: the JSON reader never panics, its errors are located
// (*Error), what it accepts is an object with an identity, and whatever it
// accepts survives a round trip: the typed objects written back as a JSON
// stream decode to equal objects. When the bytes are one JSON value and
// read as YAML (JSON being YAML) decode too, they decode to the same
// objects.
func FuzzDecodeJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !isJSONStream(data) {
			return
		}
		objs, err := Decode("f.json", bytes.NewReader(data), Options{})
		if err != nil {
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var back []byte
		typed := 0
		for _, o := range objs {
			if (o.Name == "" && o.String() != o.Kind) || o.Kind == "" || o.APIVersion == "" || o.Doc < 1 {
				t.Fatalf("accepted an object without identity: %+v", o)
			}
			if o.Obj == nil {
				continue
			}
			out, err := json.Marshal(o.Obj)
			if err != nil {
				t.Fatalf("%s: marshal: %v", o.String(), err)
			}
			back = append(append(back, out...), '\n')
			typed++
		}
		if typed > 0 {
			again, err := Decode("f.json", bytes.NewReader(back), Options{})
			if err != nil {
				t.Fatalf("re-decode: %v\n%s", err, back)
			}
			i := 0
			for _, o := range objs {
				if o.Obj == nil {
					continue
				}
				if !equality.Semantic.DeepEqual(again[i].Obj, o.Obj) {
					t.Fatalf("%s: round trip changed the object:\n%s", o.String(), back)
				}
				i++
			}
		}
		if values, _, _ := skim(data); len(values) != 1 {
			return // YAML reads one value of a JSON stream
		}
		y := newDecoder(Options{})
		y.yamlOnly = true
		if y.decode("f.json", bytes.NewReader(data)) != nil {
			return // YAML reads some JSON differently (1e3 is a float to it)
		}
		if len(y.objs) != len(objs) {
			t.Fatalf("YAML reads %d objects, JSON %d", len(y.objs), len(objs))
		}
		for i := range objs {
			sameObject(t, y.objs[i], objs[i])
		}
	})
}
