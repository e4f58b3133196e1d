package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	configv1 "k8s.io/kube-scheduler/config/v1"
	kueueconfigv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	kueueconfigv1beta2 "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
	"github.com/gangsched/gangsched/placement"
)

// Object is one Kubernetes object read from a manifest, with where it came
// from.
type Object struct {
	// Source is the file the object was read from ("-" for standard
	// input).
	Source string
	// Doc is the 1-based number of the YAML document in Source; documents
	// are separated by "---" lines, empty ones included in the count. In
	// a JSON stream it is the number of the top-level value.
	Doc int
	// Line is the 1-based line of Source where the document starts.
	Line int
	// Item is the object's index in a List document's items, or -1.
	Item int
	// APIVersion and Kind are the object's type, e.g. "v1" and "Pod".
	APIVersion string
	Kind       string
	// Namespace (after defaulting; "" for cluster-scoped kinds) and Name
	// identify the object.
	Namespace string
	Name      string
	// Obj is the decoded object, a pointer to its k8s.io/api type (e.g.
	// *corev1.Pod, *schedulingv1beta1.PodGroup) or to a mirrored
	// [v1alpha2] type; nil when the kind is not one this package decodes
	// (see [Supported]), in which case the object was only identified.
	Obj any

	// doc is the document the object was read from, so that Wrap can
	// name the line of a field; nil for objects built by a caller.
	doc *chunk
}

// String names the object as error messages do: `pod "default/p1"`,
// `node "n1"`, `PodGroup "default/pg1"`; a kind without metadata
// (KubeSchedulerConfiguration) by its kind alone.
func (o *Object) String() string {
	if info, ok := known[o.APIVersion][o.Kind]; ok && !reflect.PointerTo(info.typ).Implements(metaObject) {
		return o.Kind
	}
	return ObjectName(o.Kind, o.Namespace, o.Name)
}

// ObjectName names an object of kind as error messages do. Pods and Nodes
// are written in lower case, as package placement writes them.
func ObjectName(kind, namespace, name string) string {
	switch kind {
	case "Pod":
		kind = "pod"
	case "Node":
		kind = "node"
	}
	return fmt.Sprintf("%s %q", kind, placement.Key{Namespace: namespace, Name: name}.String())
}

// Where returns the object's location: "pods.yaml: document 2 (line 14)",
// with ": items[3]" for an item of a List.
func (o *Object) Where() string { return where(o.Source, o.Doc, o.Line, o.Item) }

// Wrap locates err (typically a [*placement.FieldError] from converting
// the object) at the object's place in the input: the line of the field
// it names when the object was read by this package and has that field,
// else the line its document starts on. It returns nil for a nil err.
func (o *Object) Wrap(err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Source: o.Source, Doc: o.Doc, Line: o.Line, Item: o.Item, Err: err}
	if o.doc != nil {
		return locateField(e, *o.doc)
	}
	return e
}

func where(source string, doc, line, item int) string {
	if source == "-" {
		source = "<stdin>"
	}
	s := source
	if doc > 0 {
		s += fmt.Sprintf(": document %d (line %d)", doc, line)
	}
	if item >= 0 {
		s += fmt.Sprintf(": items[%d]", item)
	}
	return s
}

// Error is bad input located in the manifests: Err (usually a
// [*placement.FieldError] naming the object and field) happened in
// document Doc of Source. Doc is 0 for an error about a whole file.
type Error struct {
	Source string
	Doc    int
	Line   int
	Item   int
	Err    error
}

// Error formats as "<file>: document <n> (line <l>): <object>: <field>:
// <detail>".
func (e *Error) Error() string { return where(e.Source, e.Doc, e.Line, e.Item) + ": " + e.Err.Error() }

// Unwrap returns the located error.
func (e *Error) Unwrap() error { return e.Err }

// Options configures reading. The zero value is ready to use.
type Options struct {
	// Namespace is given to namespaced objects that set none; "" means
	// "default", as kubectl does without -n.
	Namespace string
}

type kindInfo struct {
	typ       reflect.Type
	clustered bool
}

func kindOf[T any](clustered bool) kindInfo { return kindInfo{reflect.TypeFor[T](), clustered} }

var metaObject = reflect.TypeFor[metav1.Object]()

// known lists the kinds decoded into typed objects, by apiVersion.
var known = map[string]map[string]kindInfo{
	"v1": {
		"Node":      kindOf[corev1.Node](true),
		"Pod":       kindOf[corev1.Pod](false),
		"Namespace": kindOf[corev1.Namespace](true),
		// Read for what admission adds to pods and Kueue to pod sets
		// (kube.NewAdmission).
		"LimitRange": kindOf[corev1.LimitRange](false),
	},
	"node.k8s.io/v1":       {"RuntimeClass": kindOf[nodev1.RuntimeClass](true)},
	"batch/v1":             {"Job": kindOf[batchv1.Job](false)},
	"policy/v1":            {"PodDisruptionBudget": kindOf[policyv1.PodDisruptionBudget](false)},
	"scheduling.k8s.io/v1": {"PriorityClass": kindOf[schedulingv1.PriorityClass](true)},
	v1alpha2.GroupVersion:  {"Workload": kindOf[v1alpha2.Workload](false), "PodGroup": kindOf[v1alpha2.PodGroup](false)},
	// KEP-6012 hierarchies: k8s.io/api v0.37 has CompositePodGroup only in
	// v1alpha3 (Kubernetes v1.37 and v1.38); v1.38's v1beta1 one is the
	// adapter's mirror (kube/api/scheduling/v1beta1).
	"scheduling.k8s.io/v1beta1": {"Workload": kindOf[schedulingv1beta1.Workload](false), "PodGroup": kindOf[schedulingv1beta1.PodGroup](false),
		"CompositePodGroup": kindOf[kubev1beta1.CompositePodGroup](false)},
	"scheduling.k8s.io/v1alpha3": {"CompositePodGroup": kindOf[schedulingv1alpha3.CompositePodGroup](false)},
	// kube-scheduler's configuration file, read by a simulator for its
	// profiles (kube.ReadSchedulerConfiguration); it has no metadata.
	configv1.SchemeGroupVersion.String(): {"KubeSchedulerConfiguration": kindOf[configv1.KubeSchedulerConfiguration](true)},
	// Kueue's admission objects (sigs.k8s.io/kueue's own types): a
	// Workload, its pod sets admitted with topology assignments, the
	// Topologies whose levels they are assigned over, and the
	// ResourceFlavors, ClusterQueues, LocalQueues and Cohorts that route
	// and quota them, and the AdmissionChecks that gate their admission. kueue.x-k8s.io/v1beta1 is refused, naming v1beta2.
	kueuev1beta2.GroupVersion.String(): {"Workload": kindOf[kueuev1beta2.Workload](false), "Topology": kindOf[kueuev1beta2.Topology](true),
		"ResourceFlavor": kindOf[kueuev1beta2.ResourceFlavor](true), "ClusterQueue": kindOf[kueuev1beta2.ClusterQueue](true),
		"LocalQueue": kindOf[kueuev1beta2.LocalQueue](false), "Cohort": kindOf[kueuev1beta2.Cohort](true),
		"AdmissionCheck": kindOf[kueuev1beta2.AdmissionCheck](true), "WorkloadPriorityClass": kindOf[kueuev1beta2.WorkloadPriorityClass](true)},
	// Kueue's own configuration file, read for its fairSharing
	// (kube.ConvertKueueConfiguration); it has no metadata.
	kueueconfigv1beta1.GroupVersion.String(): {"Configuration": kindOf[kueueconfigv1beta1.Configuration](true)},
	kueueconfigv1beta2.GroupVersion.String(): {"Configuration": kindOf[kueueconfigv1beta2.Configuration](true)},
	"resource.k8s.io/v1": {
		"ResourceClaim":         kindOf[resourcev1.ResourceClaim](false),
		"ResourceClaimTemplate": kindOf[resourcev1.ResourceClaimTemplate](false),
		"ResourceSlice":         kindOf[resourcev1.ResourceSlice](true),
		"DeviceClass":           kindOf[resourcev1.DeviceClass](true),
		"DeviceTaintRule":       kindOf[resourcev1.DeviceTaintRule](true),
	},
}

// Supported returns the apiVersion/kind pairs this package decodes, e.g.
// "v1/Pod", "scheduling.k8s.io/v1beta1/PodGroup", sorted.
func Supported() []string {
	var out []string
	for gv, kinds := range known {
		for k := range kinds {
			out = append(out, gv+"/"+k)
		}
	}
	slices.Sort(out)
	return out
}

// Read reads manifests from paths, in order: a file; a directory, whose
// *.yaml, *.yml and *.json files are read in name order (not recursively, as
// kubectl -f does), skipping documents that set neither apiVersion nor kind
// (such as a gangsim -o json report beside the manifests); or "-" for stdin.
// Each file holds YAML documents separated by "---" lines, each an object or
// a List of objects, as Kubernetes documentation writes them; or, when its
// first non-blank byte opens a JSON object ("{" and a quoted key), a JSON
// stream: objects or Lists one after another, each a document, as
// `kubectl get -o json` and tools writing one object a line produce.
//
// Objects of the kinds in [Supported] are decoded strictly, as the API
// server does: unknown or misspelt fields, values of the wrong type and
// malformed quantities are errors naming the field. Objects of other kinds
// (a Service, a ConfigMap) are returned with a nil Obj, so the
// caller can say that it ignored them. A namespaced object without a
// namespace gets opts.Namespace; an object with metadata.generateName and
// no name is named generateName plus a counter per prefix (1, 2, …), so
// runs are reproducible.
//
// Errors: an [*Error] giving file, document and line, and, where the
// object is known, a [*placement.FieldError] naming object and field:
// unreadable files; YAML syntax; JSON syntax (with its line and column);
// a duplicate field; a document that is not an object; a
// missing apiVersion, kind or name; a known kind in an unknown version; a
// field the type does not have or a value it cannot hold; two objects of
// the same kind, namespace and name; "-" given twice. Read returns no
// objects with an error.
func Read(paths []string, stdin io.Reader, opts Options) ([]Object, error) {
	d := newDecoder(opts)
	stdinUsed := false
	for _, p := range paths {
		if p == "-" {
			if stdinUsed {
				return nil, &Error{Source: "-", Item: -1, Err: errors.New("standard input given twice")}
			}
			stdinUsed = true
			if err := d.decode("-", stdin); err != nil {
				return nil, err
			}
			continue
		}
		files, err := expand(p)
		if err != nil {
			return nil, err
		}
		// A directory holds other files too (a gangsim -o json report):
		// its documents that are not objects of any kind are skipped.
		d.skipForeign = len(files) != 1 || files[0] != p
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				return nil, &Error{Source: f, Item: -1, Err: err}
			}
			err = d.decode(f, fh)
			fh.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return d.objs, nil
}

// Decode reads the YAML documents, or JSON stream, of one source (see
// [Read]); source names it in errors and in each [Object].
func Decode(source string, r io.Reader, opts Options) ([]Object, error) {
	d := newDecoder(opts)
	if err := d.decode(source, r); err != nil {
		return nil, err
	}
	return d.objs, nil
}

func expand(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, &Error{Source: p, Item: -1, Err: err}
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, &Error{Source: p, Item: -1, Err: err}
	}
	var out []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if !e.IsDir() {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
	}
	return out, nil // os.ReadDir sorts by name
}

type decoder struct {
	opts Options
	// slow sends every document down the path of YAML to JSON to the typed
	// object, which the fast path (see fast.go) must agree with.
	slow bool
	// yamlOnly reads a JSON stream as YAML, for tests that compare the
	// two readings.
	yamlOnly  bool
	objs      []Object
	seen      map[objectKey]place // where each object was first defined
	generated map[string]int      // generateName -> last counter
	// skipForeign skips documents with neither apiVersion nor kind (files
	// read from a directory).
	skipForeign bool
}

func newDecoder(opts Options) *decoder {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	return &decoder{opts: opts, seen: map[objectKey]place{}, generated: map[string]int{}}
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// chunk is one YAML document of a source.
type chunk struct {
	data  []byte
	first int // line of the source where data starts
	// pre is the source before data when data may start mid-line (a JSON
	// value after another on its line): read for an error's column only.
	pre  []byte
	line int // line of the document's first content (what errors show)
}

// split cuts a source into YAML documents at separator lines ("---",
// optionally followed by blanks or a comment). Documents with no content
// (blank or comment lines only) are dropped, so document numbers count
// objects' documents only; a separator before any content, as at the top of
// many files, opens the first document. Text after "---" on the same line
// is refused, as the Kubernetes YAML reader refuses it.
func split(src []byte) ([]chunk, error) {
	var out []chunk
	cur := chunk{first: 1}
	flush := func() {
		if cur.line > 0 {
			out = append(out, cur)
		}
	}
	lineNo := 0
	for len(src) > 0 {
		lineNo++
		var ln []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			ln, src = src[:i+1], src[i+1:]
		} else {
			ln, src = src, nil
		}
		if rest, ok := bytes.CutPrefix(ln, []byte("---")); ok {
			t := bytes.TrimSpace(rest)
			if len(t) > 0 && t[0] != '#' {
				return nil, fmt.Errorf("line %d: text after the document separator: %q", lineNo, t)
			}
			flush()
			cur = chunk{first: lineNo + 1}
			continue
		}
		t := bytes.TrimSpace(ln)
		if cur.line == 0 && len(t) > 0 && t[0] != '#' {
			cur.line = lineNo
		}
		cur.data = append(cur.data, ln...)
	}
	flush()
	return out, nil
}

func (d *decoder) decode(source string, r io.Reader) error {
	if r == nil {
		return &Error{Source: source, Item: -1, Err: errors.New("no reader to read from")}
	}
	src, err := io.ReadAll(r)
	if err != nil {
		return &Error{Source: source, Item: -1, Err: err}
	}
	if isJSONStream(src) && !d.yamlOnly {
		return d.jsonSource(source, src)
	}
	chunks, err := split(src)
	if err != nil {
		return &Error{Source: source, Item: -1, Err: err}
	}
	for i, c := range chunks {
		if err := d.document(source, i+1, c); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) document(source string, doc int, c chunk) error {
	if !d.slow {
		if objs, ok := d.fastDocument(source, doc, c); ok {
			for _, f := range objs {
				if err := d.name(&f.o, f.generateName, true); err != nil {
					return err
				}
				if err := d.add(f.o); err != nil {
					return err
				}
			}
			return nil
		}
	}
	line := c.line
	fail := func(err error) error { return &Error{Source: source, Doc: doc, Line: line, Item: -1, Err: err} }
	js, err := yaml.YAMLToJSONStrict(c.data)
	if err != nil {
		// Line numbers in YAML errors count from the document's start;
		// make them lines of the file, and drop the converter's prefix.
		msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
		if strings.HasPrefix(msg, "unsupported map key") {
			// The converter names the first such key it meets in a Go
			// map's order, which changes from run to run; say what is
			// wrong without it.
			msg = "a mapping key must be a string, a number or a boolean (not null, a list or a mapping)"
		}
		msg = lineRE.ReplaceAllStringFunc(msg, func(m string) string {
			n, _ := strconv.Atoi(m[len("line "):])
			return "line " + strconv.Itoa(n+c.first-1)
		})
		return fail(errors.New(d.yamlDuplicate(c, msg)))
	}
	var data any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		return fail(err)
	}
	return d.generic(source, doc, c, data)
}

// generic decides document c from its generic tree (JSON values as
// encoding/json decodes them with UseNumber): a null document is skipped,
// a List's items are objects, anything else one object.
func (d *decoder) generic(source string, doc int, c chunk, data any) error {
	fail := func(err error) error { return &Error{Source: source, Doc: doc, Line: c.line, Item: -1, Err: err} }
	if data == nil {
		return nil // "null" or "~"
	}
	m, ok := data.(map[string]any)
	if !ok {
		return fail(fmt.Errorf("a document must be an object, not %s", jsonKind(data)))
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if _, hasKind := m["kind"]; d.skipForeign && !hasKind && m["apiVersion"] == nil {
		return nil
	}
	if strings.HasSuffix(kind, "List") {
		if items, ok := m["items"]; ok {
			return d.list(source, doc, &c, apiVersion, kind, items)
		}
	}
	return d.object(source, doc, &c, -1, m)
}

// list decodes the items of a List (v1 List, or a typed list such as
// PodList, whose items may omit apiVersion and kind).
func (d *decoder) list(source string, doc int, c *chunk, apiVersion, kind string, items any) error {
	line := c.line
	fail := func(err error) error { return &Error{Source: source, Doc: doc, Line: line, Item: -1, Err: err} }
	a, ok := items.([]any)
	if !ok && items != nil {
		return fail(placement.Errorf(placement.ErrInvalid, kind, "items", "want a list, got %s", jsonKind(items)))
	}
	for i, it := range a {
		m, ok := it.(map[string]any)
		if !ok {
			return &Error{Source: source, Doc: doc, Line: line, Item: i, Err: fmt.Errorf("an item must be an object, not %s", jsonKind(it))}
		}
		if kind != "List" {
			if _, ok := m["apiVersion"]; !ok {
				m["apiVersion"] = apiVersion
			}
			if _, ok := m["kind"]; !ok {
				m["kind"] = strings.TrimSuffix(kind, "List")
			}
		}
		if err := d.object(source, doc, c, i, m); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) object(source string, doc int, c *chunk, item int, m map[string]any) error {
	o := Object{Source: source, Doc: doc, Line: c.line, Item: item, doc: c}
	meta, _ := m["metadata"].(map[string]any)
	o.Name, _ = meta["name"].(string)
	o.Namespace, _ = meta["namespace"].(string)
	var ok bool
	if o.APIVersion, ok = m["apiVersion"].(string); !ok || o.APIVersion == "" {
		return o.Wrap(placement.Errorf(placement.ErrInvalid, ObjectName("object", o.Namespace, o.Name), "apiVersion", "must be set"))
	}
	if o.Kind, ok = m["kind"].(string); !ok || o.Kind == "" {
		return o.Wrap(placement.Errorf(placement.ErrInvalid, ObjectName("object", o.Namespace, o.Name), "kind", "must be set"))
	}
	info, typed := known[o.APIVersion][o.Kind]
	switch {
	case !typed:
		if other := versionsOf(o.APIVersion, o.Kind); len(other) > 0 {
			return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "apiVersion", "%s is not supported for %s; use %s", o.APIVersion, o.Kind, strings.Join(other, " or ")))
		}
	case info.clustered:
		o.Namespace = ""
	case o.Namespace == "":
		o.Namespace = d.opts.Namespace
	}
	if typed {
		if field, detail := check(m, info.typ, ""); field != "" {
			return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), field, "%s", detail))
		}
	} else if field, detail := checkIdentity(m); field != "" {
		return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), field, "%s", detail))
	}
	// A kind without metadata (a component configuration) has no name;
	// there is at most one of it.
	if nameless := typed && !reflect.PointerTo(info.typ).Implements(metaObject); !nameless {
		gen, _ := meta["generateName"].(string)
		if err := d.name(&o, gen, typed); err != nil {
			return err
		}
	}
	if typed {
		raw, err := json.Marshal(m)
		if err != nil {
			return o.Wrap(err)
		}
		v := reflect.New(info.typ)
		if err := json.Unmarshal(raw, v.Interface()); err != nil {
			return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "", "%v", err))
		}
		o.Obj = v.Interface()
	}
	return d.add(o)
}

// checkIdentity checks the metadata an object of a kind that is not
// decoded is named by, as [check] checks a typed object's: metadata an
// object, its name, generateName and namespace strings. Without it a name
// that is not a string (YAML 1.1 reads `name: y` as true) was refused as
// unset. It returns the field and what is wrong, or "".
func checkIdentity(m map[string]any) (field, detail string) {
	v, ok := m["metadata"]
	if !ok || v == nil {
		return "", ""
	}
	meta, ok := v.(map[string]any)
	if !ok {
		return "metadata", "want an object, got " + jsonKind(v)
	}
	for _, k := range []string{"name", "generateName", "namespace"} {
		if v, ok := meta[k]; ok && v != nil {
			if _, ok := v.(string); !ok {
				return "metadata." + k, "want a string, got " + jsonKind(v)
			}
		}
	}
	return "", ""
}

// name gives o a name from generateName when it has none and, for a typed
// object, checks its name and namespace.
func (d *decoder) name(o *Object, generateName string, typed bool) error {
	if o.Name == "" {
		if generateName == "" {
			return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "metadata.name", "must be set (or metadata.generateName)"))
		}
		d.generated[o.Kind+"/"+generateName]++
		o.Name = generateName + strconv.Itoa(d.generated[o.Kind+"/"+generateName])
	}
	if !typed {
		return nil
	}
	// The API server's rules: names are DNS subdomains (a Namespace's a
	// DNS label), namespaces DNS labels. Without them "a/b" + "c" and "a" +
	// "b/c" would print alike, and names could take forms that callers
	// reserve (gangsim's "pod:<name>").
	// isDNSSubdomain and isDNSLabel pass the valid names quickly;
	// package validation words what is wrong with the others.
	nameOK, quick := validation.IsDNS1123Subdomain, isDNSSubdomain(o.Name)
	if o.Kind == "Namespace" {
		nameOK, quick = validation.IsDNS1123Label, isDNSLabel(o.Name)
	}
	if !quick {
		if errs := nameOK(o.Name); len(errs) > 0 {
			return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "metadata.name", "%q: %s", o.Name, errs[0]))
		}
	}
	if o.Namespace == "" || isDNSLabel(o.Namespace) {
		return nil
	}
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), "metadata.namespace", "%q: %s", o.Namespace, errs[0]))
	}
	return nil
}

// add sets a typed object's name and namespace to o's (generated and
// defaulted) and appends o, refusing a second object of the same group,
// kind, namespace and name.
func (d *decoder) add(o Object) error {
	if mo, ok := o.Obj.(metav1.Object); ok {
		mo.SetName(o.Name)
		mo.SetNamespace(o.Namespace)
	}
	key := objectKey{o.APIVersion[:strings.LastIndex(o.APIVersion, "/")+1], o.Kind, o.Namespace, o.Name}
	if first, dup := d.seen[key]; dup {
		again := ""
		if first.source == o.Source && first.doc == o.Doc && first.item == o.Item {
			// Only a file read twice (given twice, or in a directory
			// given too) meets one document again; the message would
			// otherwise read as two objects in one document.
			again = " (the same document: the file is read twice)"
		}
		return o.Wrap(placement.Errorf(placement.ErrDuplicate, o.String(), "metadata.name", "already defined at %s%s", where(first.source, first.doc, first.line, first.item), again))
	}
	d.objs = append(d.objs, o)
	d.seen[key] = place{o.Source, o.Doc, o.Line, o.Item}
	return nil
}

// objectKey identifies an object: its API group (with the "/"; "" for
// the core group), kind, namespace and name.
type objectKey struct{ group, kind, namespace, name string }

// place is where an object was read, kept to name it in errors (and
// worded only then: every object is added, few are refused).
type place struct {
	source          string
	doc, line, item int
}

// versionsOf returns the supported apiVersions of kind in the API group of
// apiVersion, other than apiVersion itself.
func versionsOf(apiVersion, kind string) []string {
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = ""
	}
	var out []string
	for gv, kinds := range known {
		g, _, _ := strings.Cut(gv, "/")
		if !strings.Contains(gv, "/") {
			g = ""
		}
		if _, ok := kinds[kind]; ok && g == group && gv != apiVersion {
			out = append(out, gv)
		}
	}
	slices.Sort(out)
	return out
}
