package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	"github.com/gangsched/gangsched/placement"
)

const mixed = `# a cluster and a gang
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  namespace: ignored-for-nodes
status:
  allocatable: {cpu: "4", memory: 16Gi}
---
# comments only
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: training-job-workers-pg
spec:
  podGroupTemplateRef:
    workload: {workloadName: training-job-workload, podGroupTemplateName: workers}
  schedulingPolicy:
    gang: {minCount: 4}
  disruptionMode: PodGroup
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: other, namespace: team-a}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  disruptionMode: {all: {}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {anything: goes}
---
apiVersion: v1
kind: PodList
items:
- metadata: {name: worker-0}
  spec:
    schedulingGroup: {podGroupName: training-job-workers-pg}
    containers: [{name: c, resources: {requests: {cpu: 100m}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: worker-1, namespace: team-a}
  spec: {containers: [{name: c}]}
---
apiVersion: batch/v1
kind: Job
metadata: {generateName: tas-sample-}
spec: {template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {generateName: tas-sample-}
spec: {template: {spec: {containers: [{name: c}]}}}
`

func TestDecode(t *testing.T) {
	objs, err := Decode("cluster.yaml", strings.NewReader(mixed), Options{})
	require.NoError(t, err)
	type row struct {
		where, kind, name string
		typed             bool
	}
	var got []row
	for _, o := range objs {
		got = append(got, row{o.Where(), o.APIVersion + " " + o.Kind, o.String(), o.Obj != nil})
	}
	require.Equal(t, []row{
		{"cluster.yaml: document 1 (line 3)", "v1 Node", `node "n1"`, true},
		{"cluster.yaml: document 2 (line 13)", "scheduling.k8s.io/v1alpha2 PodGroup", `PodGroup "default/training-job-workers-pg"`, true},
		{"cluster.yaml: document 3 (line 24)", "scheduling.k8s.io/v1beta1 PodGroup", `PodGroup "team-a/other"`, true},
		{"cluster.yaml: document 4 (line 31)", "v1 Service", `Service "web"`, false},
		{"cluster.yaml: document 5 (line 36): items[0]", "v1 Pod", `pod "default/worker-0"`, true},
		{"cluster.yaml: document 5 (line 36): items[1]", "v1 Pod", `pod "team-a/worker-1"`, true},
		{"cluster.yaml: document 6 (line 48)", "batch/v1 Job", `Job "default/tas-sample-1"`, true},
		{"cluster.yaml: document 7 (line 53)", "batch/v1 Job", `Job "default/tas-sample-2"`, true},
	}, got)

	n := objs[0].Obj.(*corev1.Node)
	require.Equal(t, "", n.Namespace)
	q := n.Status.Allocatable[corev1.ResourceMemory]
	require.Equal(t, int64(16<<30), q.Value())
	pg := objs[1].Obj.(*v1alpha2.PodGroup)
	require.Equal(t, "default", pg.Namespace)
	require.Equal(t, int32(4), pg.Spec.SchedulingPolicy.Gang.MinCount)
	require.Equal(t, v1alpha2.DisruptionModePodGroup, *pg.Spec.DisruptionMode)
	require.Equal(t, "workers", pg.Spec.PodGroupTemplateRef.Workload.PodGroupTemplateName)
	pg2 := objs[2].Obj.(*schedulingv1beta1.PodGroup)
	require.NotNil(t, pg2.Spec.DisruptionMode.All)
	pod := objs[4].Obj.(*corev1.Pod)
	require.Equal(t, "training-job-workers-pg", *pod.Spec.SchedulingGroup.PodGroupName)
	require.Equal(t, resource.MustParse("100m"), pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU])

	// Another default namespace.
	objs, err = Decode("cluster.yaml", strings.NewReader(mixed), Options{Namespace: "sim"})
	require.NoError(t, err)
	require.Equal(t, "sim", objs[1].Namespace)
	require.Equal(t, "sim", objs[1].Obj.(*v1alpha2.PodGroup).Namespace)
	require.Equal(t, "team-a", objs[2].Namespace)
}

func TestDecodeErrors(t *testing.T) {
	pod := func(spec string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec:\n" + spec
	}
	cases := []struct {
		name     string
		in       string
		sentinel error
		err      string
	}{
		{"unknown field", pod("  containers:\n  - name: c\n    resourcez: {}\n"), placement.ErrInvalid,
			`in.yaml: document 1 (line 7): pod "default/p1": spec.containers[0].resourcez: unknown field`},
		{"field names are case-sensitive", pod("  NodeName: n1\n"), placement.ErrInvalid,
			`in.yaml: document 1 (line 5): pod "default/p1": spec.NodeName: unknown field`},
		{"bad quantity", "---\n" + pod("  containers:\n  - name: c\n    resources: {requests: {cpu: lots}}\n"), placement.ErrInvalid,
			`in.yaml: document 1 (line 8): pod "default/p1": spec.containers[0].resources.requests[cpu]: "lots": quantities must match the regular expression`},
		{"wrong type", pod("  priority: high\n"), placement.ErrInvalid,
			`pod "default/p1": spec.priority: want an integer, got string "high"`},
		{"int32 overflow", pod("  priority: 3000000000\n"), placement.ErrInvalid,
			`pod "default/p1": spec.priority: 3000000000 is not an int32`},
		{"bool", pod("  hostNetwork: 1\n"), placement.ErrInvalid,
			`pod "default/p1": spec.hostNetwork: want true or false, got number 1`},
		{"list expected", pod("  containers: {name: c}\n"), placement.ErrInvalid,
			`pod "default/p1": spec.containers: want a list, got an object`},
		{"object expected", pod("  nodeSelector: [a]\n"), placement.ErrInvalid,
			`pod "default/p1": spec.nodeSelector: want an object, got a list`},
		{"map value", pod("  nodeSelector: {rack: 3}\n"), placement.ErrInvalid,
			`pod "default/p1": spec.nodeSelector[rack]: want a string, got number 3`},
		{"bad timestamp", "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, creationTimestamp: yesterday}\n", placement.ErrInvalid,
			`pod "default/p1": metadata.creationTimestamp: "yesterday": parsing time`},
		{"yaml syntax, line counted in the file", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n\nkind: Pod\nmetadata: {name: a\n", nil,
			`in.yaml: document 2 (line 6): yaml: line 7: did not find expected ',' or '}'`},
		{"duplicate key", "apiVersion: v1\nkind: Pod\nkind: Node\n", nil,
			"in.yaml: document 1 (line 1): yaml: unmarshal errors:\n  line 3: key \"kind\" already set in map"},
		{"duplicate key of a named object", "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec:\n  nodeName: a\n  nodeName: b\n", nil,
			"in.yaml: document 2 (line 5): pod \"default/p1\": yaml: unmarshal errors:\n  line 10: key \"nodeName\" already set in map"},
		{"not an object", "- a\n- b\n", nil, `in.yaml: document 1 (line 1): a document must be an object, not a list`},
		{"not YAML at all", strings.Repeat("root:x:0:0:root:/root:/bin/bash ", 10), nil,
			`in.yaml: document 1 (line 1): a document must be an object, not string "root:x:0:0:root:/root:/bin/bash root:x:0:0:root:/root:/bin/b"… (319 characters)`},
		{"no apiVersion", "kind: Pod\nmetadata: {name: p1}\n", placement.ErrInvalid,
			`in.yaml: document 1 (line 1): object "p1": apiVersion: must be set`},
		{"no kind", "apiVersion: v1\nmetadata: {name: p1}\n", placement.ErrInvalid, `object "p1": kind: must be set`},
		{"no name", "apiVersion: v1\nkind: Pod\n", placement.ErrInvalid, `pod "default/": metadata.name: must be set (or metadata.generateName)`},
		// A kind gangsim does not decode is still named by its metadata:
		// YAML 1.1 reads `name: y` as true, which is not "unset".
		{"an unknown kind's name is not a string", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n", placement.ErrInvalid,
			`in.yaml: document 1 (line 3): ConfigMap "": metadata.name: want a string, got true`},
		{"an unknown kind's metadata is not an object", "apiVersion: example.com/v1\nkind: Widget\nmetadata: [w]\n", placement.ErrInvalid,
			`in.yaml: document 1 (line 3): Widget "": metadata: want an object, got a list`},
		{"unknown version of a known kind", "apiVersion: scheduling.k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\n", placement.ErrInvalid,
			`PodGroup "g": apiVersion: scheduling.k8s.io/v1alpha1 is not supported for PodGroup; use scheduling.k8s.io/v1alpha2 or scheduling.k8s.io/v1beta1`},
		{"v1alpha2 disruptionMode is a string", "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\nspec: {disruptionMode: {all: {}}}\n", placement.ErrInvalid,
			`PodGroup "default/g": spec.disruptionMode: want a string, got an object`},
		{"v1beta1 has no podGroupTemplateRef", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\nspec: {podGroupTemplateRef: {}}\n", placement.ErrInvalid,
			`PodGroup "default/g": spec.podGroupTemplateRef: unknown field`},
		{"duplicate object", pod("  containers: []\n") + "---\n" + pod("  containers: []\n"), placement.ErrDuplicate,
			`in.yaml: document 2 (line 9): pod "default/p1": metadata.name: already defined at in.yaml: document 1 (line 1)`},
		// Names as the API server takes them: "pod:x" is what gangsim calls
		// a lone pod's implicit group, "a/b" would print like a namespace.
		{"name not a DNS subdomain", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: 'pod:p1'}\nspec: {schedulingPolicy: {basic: {}}}\n", placement.ErrInvalid,
			`in.yaml: document 1 (line 3): PodGroup "default/pod:p1": metadata.name: "pod:p1": a lowercase RFC 1123 subdomain`},
		{"namespace not a DNS label", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n" + "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a/b}\nspec: {containers: []}\n", placement.ErrInvalid,
			`in.yaml: document 2 (line 7): pod "a/b/p": metadata.namespace: "a/b": a lowercase RFC 1123 label`},
		{"list item not an object", "apiVersion: v1\nkind: List\nitems: [3]\n", nil, `in.yaml: document 1 (line 1): items[0]: an item must be an object, not number 3`},
		{"list item error", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n9}, spec: {taints: 3}}\n", placement.ErrInvalid,
			`in.yaml: document 1 (line 4): items[0]: node "n9": spec.taints: want a list, got number 3`},
		{"items not a list", "apiVersion: v1\nkind: List\nitems: {a: 1}\n", placement.ErrInvalid, `List: items: want a list, got an object`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requireDecodeError(t, "in.yaml", c.in, c.err, false, c.sentinel)
		})
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	node := func(name string) string { return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\n" }
	write("cluster/b.yaml", node("b"))
	write("cluster/a.yml", node("a1")+"---\n"+node("a2"))
	write("cluster/c.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "c"}}`)
	write("cluster/notes.txt", "not a manifest")
	write("cluster/sub/d.yaml", node("d"))
	extra := write("extra.yaml", node("e"))

	objs, err := Read([]string{filepath.Join(dir, "cluster"), "-", extra}, strings.NewReader(node("stdin")), Options{})
	require.NoError(t, err)
	var names []string
	for _, o := range objs {
		names = append(names, o.Name+"@"+filepath.Base(o.Source))
	}
	require.Equal(t, []string{"a1@a.yml", "a2@a.yml", "b@b.yaml", "c@c.json", "stdin@-", "e@extra.yaml"}, names)

	_, err = Read([]string{"-", "-"}, strings.NewReader(""), Options{})
	require.EqualError(t, err, "<stdin>: standard input given twice")
	_, err = Read([]string{filepath.Join(dir, "missing.yaml")}, nil, Options{})
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = Read([]string{extra, extra}, nil, Options{})
	require.ErrorIs(t, err, placement.ErrDuplicate)
	require.ErrorContains(t, err, `node "e": metadata.name: already defined at `+extra+": document 1 (line 1) (the same document: the file is read twice)")
	// A directory and a file in it, likewise.
	_, err = Read([]string{filepath.Join(dir, "cluster"), filepath.Join(dir, "cluster", "b.yaml")}, nil, Options{})
	require.ErrorContains(t, err, "(the same document: the file is read twice)")

	// An error on stdin names it.
	_, err = Read([]string{"-"}, strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: x}\nspec: {unschedulable: maybe}\n"), Options{})
	require.EqualError(t, err, `<stdin>: document 1 (line 4): node "x": spec.unschedulable: want true or false, got string "maybe"`)
}

const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
`

// TestDecodeSchedulerConfiguration: kube-scheduler's configuration file,
// which has no metadata, decodes strictly into the upstream type, once.
func TestDecodeSchedulerConfiguration(t *testing.T) {
	objs, err := Decode("cfg.yaml", strings.NewReader(schedulerConfig), Options{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, "KubeSchedulerConfiguration", objs[0].String())
	cfg := objs[0].Obj.(*configv1.KubeSchedulerConfiguration)
	require.Len(t, cfg.Profiles, 1)
	require.JSONEq(t, `{"scoringStrategy":{"type":"MostAllocated"}}`, string(cfg.Profiles[0].PluginConfig[0].Args.Raw))
	_, err = Decode("cfg.yaml", strings.NewReader(schedulerConfig+"---\n"+schedulerConfig), Options{})
	require.EqualError(t, err, "cfg.yaml: document 2 (line 8): KubeSchedulerConfiguration: metadata.name: already defined at cfg.yaml: document 1 (line 1)")
	_, err = Decode("cfg.yaml", strings.NewReader(schedulerConfig+"percentageOfNodes: 5\n"), Options{})
	require.EqualError(t, err, "cfg.yaml: document 1 (line 7): KubeSchedulerConfiguration: percentageOfNodes: unknown field")
}

func TestSupported(t *testing.T) {
	s := Supported()
	require.Contains(t, s, "v1/Pod")
	require.Contains(t, s, "scheduling.k8s.io/v1alpha2/PodGroup")
	require.Contains(t, s, "scheduling.k8s.io/v1beta1/Workload")
	require.Contains(t, s, "resource.k8s.io/v1/DeviceClass")
	require.Contains(t, s, "kueue.x-k8s.io/v1beta2/Workload")
	require.Contains(t, s, "kueue.x-k8s.io/v1beta2/Topology")
	require.Contains(t, s, "v1/LimitRange")
	require.Contains(t, s, "node.k8s.io/v1/RuntimeClass")
	require.IsIncreasing(t, s)
}

// FuzzDecode: the reader never panics, its fast path decodes (or refuses)
// exactly as the path of YAML to JSON to the typed object does, and
// whatever it accepts survives a round trip: each typed object written
// back as YAML decodes to an equal object at the same place.
func FuzzDecode(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1e3m}}}]}\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Node, metadata: {name: n}}]\n"))
	f.Add([]byte("---\n---\n{}\n"))
	f.Add([]byte(schedulerConfig))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsSlow(t, data)
		objs, err := Decode("f.yaml", strings.NewReader(string(data)), Options{})
		if err != nil {
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, o := range objs {
			// Only a kind without metadata (KubeSchedulerConfiguration) is nameless.
			if (o.Name == "" && o.String() != o.Kind) || o.Kind == "" || o.APIVersion == "" {
				t.Fatalf("accepted an object without identity: %+v", o)
			}
			if o.Obj == nil {
				continue
			}
			out, err := yaml.Marshal(o.Obj)
			if err != nil {
				t.Fatalf("%s: marshal: %v", o.String(), err)
			}
			doc := string(out)
			back, err := Decode("f.yaml", strings.NewReader(doc), Options{})
			if err != nil {
				t.Fatalf("%s: re-decode: %v\n%s", o.String(), err, doc)
			}
			if len(back) != 1 || !equality.Semantic.DeepEqual(back[0].Obj, o.Obj) {
				t.Fatalf("%s: round trip changed the object:\n%s", o.String(), doc)
			}
		}
	})
}

// requireDecodeError decodes in as file name and requires that it fails
// with a *Error whose text is want (exact) or contains it, wrapping
// sentinel and a *placement.FieldError when sentinel is set.
func requireDecodeError(t *testing.T, name, in, want string, exact bool, sentinel error) {
	t.Helper()
	objs, err := Decode(name, strings.NewReader(in), Options{})
	require.Nil(t, objs)
	if exact {
		require.EqualError(t, err, want)
	} else {
		require.ErrorContains(t, err, want)
	}
	var me *Error
	require.True(t, errors.As(err, &me), "want *manifest.Error, got %T", err)
	if sentinel != nil {
		require.ErrorIs(t, err, sentinel)
		var fe *placement.FieldError
		require.True(t, errors.As(err, &fe))
	}
}
