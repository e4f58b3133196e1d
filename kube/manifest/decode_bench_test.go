package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v2"
	sjson "sigs.k8s.io/json"

	"github.com/gangsched/gangsched/internal/cputime"
)

// BenchmarkDecode reads the Lingjun cluster's 847 Nodes and Kueue's TAS
// set (kube/testdata/kueue-tas/*.yaml: 640 perf Nodes, 500 perf Jobs, the
// kind samples) as gangsim does, and reports the CPU time per document
// (cpu-ns/doc) of each way:
//
//   - other: the generic path alone (YAML to JSON to a generic tree,
//     check, back to JSON, into the typed object), the reader as it was;
//   - fast: the YAML reader today (the YAML tree straight into the typed
//     object, the generic path for what it is unsure of);
//   - json: the same documents as a JSON stream, one object a line;
//   - json-list: the same objects as one kubectl-style List per file;
//   - yaml-only: go.yaml.in/yaml/v2's parse alone, the least any reader
//     on it costs;
//   - strict-only: sigs.k8s.io/json's strict decode of each JSON object
//     into its typed object alone, the least the JSON reader costs.
//
// The JSON forms are converted from the YAML in the set-up (toJSON).
func BenchmarkDecode(b *testing.B) {
	kueue, err := filepath.Glob("../testdata/kueue-tas/*.yaml")
	require.NoError(b, err)
	for _, set := range []struct {
		name  string
		files []string
	}{
		{"lingjun-nodes", []string{"../testdata/clusters/lingjun/nodes.yaml"}},
		{"kueue-perf", kueue},
	} {
		var yamls, streams, lists [][]byte
		var chunks []chunk
		var objs []Object
		for _, f := range set.files {
			src, err := os.ReadFile(f)
			require.NoError(b, err)
			yamls = append(yamls, src)
			cs, err := split(src)
			require.NoError(b, err)
			chunks = append(chunks, cs...)
			stream, list := toJSON(b, src)
			require.NotNil(b, list, f)
			streams, lists = append(streams, stream), append(lists, list)
			read, err := Decode(f, bytes.NewReader(src), Options{})
			require.NoError(b, err)
			objs = append(objs, read...)
		}
		docs := len(chunks)
		read := func(srcs [][]byte, slow bool) func() {
			return func() {
				for i, src := range srcs {
					d := newDecoder(Options{})
					d.slow = slow
					if err := d.decode(set.files[i], bytes.NewReader(src)); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		// The typed objects' own JSON, for strict-only.
		var typed [][]byte
		var types []reflect.Type
		for _, s := range streams {
			for _, line := range bytes.Split(bytes.TrimSpace(s), []byte("\n")) {
				v, _, ok := skim(line)
				require.True(b, ok)
				if info, ok := known[v[0].apiVersion][v[0].kind]; ok {
					typed, types = append(typed, line), append(types, info.typ)
				}
			}
		}
		b.Logf("%s: %d documents, %d objects, %d typed", set.name, docs, len(objs), len(typed))
		for _, way := range []struct {
			name string
			run  func()
		}{
			{"other", read(yamls, true)},
			{"fast", read(yamls, false)},
			{"json", read(streams, false)},
			{"json-list", read(lists, false)},
			{"yaml-only", func() {
				for _, c := range chunks {
					var tree any
					if err := yaml.UnmarshalStrict(c.data, &tree); err != nil {
						b.Fatal(err)
					}
				}
			}},
			{"strict-only", func() {
				for i, data := range typed {
					if _, err := sjson.UnmarshalStrict(data, reflect.New(types[i]).Interface()); err != nil {
						b.Fatal(err)
					}
				}
			}},
		} {
			b.Run(set.name+"/"+way.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu0, _ := cputime.Used()
				for b.Loop() {
					way.run()
				}
				cpu1, _ := cputime.Used()
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N*docs), "cpu-ns/doc")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*docs), "ns/doc")
			})
		}
	}
}
