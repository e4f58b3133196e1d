package main

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/kube/manifest"
)

// writeObjects writes API objects as multi-document YAML that reads like
// the input and back into the same objects: empty values the types always
// write (null, "", [], a struct of zeros such as a Node's
// status.daemonEndpoints) are left out, but an empty object that a pointer
// field holds stays, since its presence is the value (schedulingPolicy
// {basic: {}}, disruptionMode {all: {}}, an emptyDir volume).
func writeObjects(w io.Writer, objs []any) error {
	fields := jsonFields{}
	for _, o := range objs {
		js, err := json.Marshal(o)
		if err != nil {
			return err
		}
		d := json.NewDecoder(bytes.NewReader(js))
		d.UseNumber()
		var m any
		if err := d.Decode(&m); err != nil {
			return err
		}
		b, err := yaml.Marshal(yamlNumbers(fields.prune(m, reflect.TypeOf(o))))
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// allZero reports whether every value of m is the number 0, as in a Node's
// status.daemonEndpoints.kubeletEndpoint {Port: 0}, which the API types
// always write.
func allZero(m map[string]any) bool {
	for _, e := range m {
		if n, ok := e.(json.Number); !ok || n.String() != "0" {
			return false
		}
	}
	return true
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	durationType  = reflect.TypeFor[metav1.Duration]()
)

// jsonFields keeps manifest.JSONFields by struct type: thousands of
// objects of a few types are written, and walking a type's fields again for
// each object was a fifth of the writing.
type jsonFields map[reflect.Type]map[string]reflect.Type

// of is manifest.JSONFields(t).
func (f jsonFields) of(t reflect.Type) map[string]reflect.Type {
	m, ok := f[t]
	if !ok {
		m = manifest.JSONFields(t)
		f[t] = m
	}
	return m
}

// prune drops the empty values of v, the JSON form of a value of Go type t
// (nil when unknown, as inside a map of any); it returns nil for a value
// that is empty as a whole. A non-nil pointer to a struct is never empty.
func (jf jsonFields) prune(v any, t reflect.Type) any {
	pointer := false
	for t != nil && t.Kind() == reflect.Pointer {
		t, pointer = t.Elem(), true
	}
	if t == durationType && !pointer && v == "0s" {
		return nil // a zero duration, as a KubeSchedulerConfiguration's unset leaderElection
	}
	if t != nil && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)) {
		t = nil // a quantity, a time: its own JSON, not its fields
	}
	switch v := v.(type) {
	case map[string]any:
		var fields map[string]reflect.Type
		var elem reflect.Type
		switch {
		case t != nil && t.Kind() == reflect.Struct:
			fields = jf.of(t)
		case t != nil && t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		for k, e := range v {
			et := elem
			if fields != nil {
				et = fields[k]
			}
			if p := jf.prune(e, et); p == nil {
				delete(v, k)
			} else {
				v[k] = p
			}
		}
		if pointer && t != nil && t.Kind() == reflect.Struct {
			return v
		}
		if len(v) == 0 || allZero(v) {
			return nil
		}
	case []any:
		if len(v) == 0 {
			return nil
		}
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i, e := range v {
			if p := jf.prune(e, elem); p != nil {
				v[i] = p
			} else {
				v[i] = map[string]any{}
			}
		}
	case string:
		if v == "" {
			return nil
		}
	case nil:
		return nil
	}
	return v
}

// yamlNumbers turns the JSON numbers in v into the Go numbers YAML writes
// as they read: an integer as int64 (uint64 above that), any other as
// float64, as sigs.k8s.io/yaml's JSONToYAML types them on its way through
// YAML. Marshalling the pruned value straight to YAML, rather than to JSON
// and through that, halves the writing of -o yaml (a third of a run over
// 8,000 Workloads) and writes the same bytes.
func yamlNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = yamlNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = yamlNumbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(string(v), 10, 64); err == nil {
			return u
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return string(v)
	}
	return v
}
