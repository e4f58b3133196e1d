package manifest

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v2"
)

// The fast path decodes a document's YAML tree straight into its typed
// objects. The path every document used to take — YAML to JSON text
// (sigs.k8s.io/yaml), JSON to a generic tree, [check] over that tree, the
// tree back to JSON text, and that text into the typed object — parses
// every value three times and allocates each twice; the fast path parses
// the YAML once, with the same parser and the same strictness
// (go.yaml.in/yaml/v2's UnmarshalStrict, as sigs.k8s.io/yaml calls it),
// and fills the typed object from the tree by the same rules as
// encoding/json, checking as [check] does. It handles the common case
// only: whatever it is not sure to decode exactly as the other path would
// — any error, a kind it does not decode, a value whose JSON form is not
// plain — sends the whole document down the other path, which then
// decides and words the error. TestFast_SameAsSlow and FuzzDecode check
// that the two paths agree.

// fastDocument decodes one document on the fast path into objects, without
// touching the decoder's state; ok is false when the document must take the
// other path.
func (d *decoder) fastDocument(source string, doc int, c chunk) (objs []fastObject, ok bool) {
	if !utf8.Valid(c.data) {
		return nil, false // the other path's JSON text would replace the bad bytes
	}
	var tree any
	if err := yaml.UnmarshalStrict(c.data, &tree); err != nil {
		return nil, false
	}
	if tree == nil {
		return nil, true // "null" or "~"
	}
	m, ok := tree.(map[any]any)
	if !ok {
		return nil, false
	}
	kind, _ := m["kind"].(string)
	if items, ok := m["items"]; ok && strings.HasSuffix(kind, "List") {
		apiVersion, _ := m["apiVersion"].(string)
		a, ok := items.([]any)
		if !ok {
			return nil, false
		}
		for i, it := range a {
			im, ok := it.(map[any]any)
			if !ok {
				return nil, false
			}
			if kind != "List" {
				if _, ok := im["apiVersion"]; !ok {
					im["apiVersion"] = apiVersion
				}
				if _, ok := im["kind"]; !ok {
					im["kind"] = strings.TrimSuffix(kind, "List")
				}
			}
			o, ok := d.fastObject(Object{Source: source, Doc: doc, Line: c.line, Item: i, doc: &c}, im)
			if !ok {
				return nil, false
			}
			objs = append(objs, o)
		}
		return objs, true
	}
	o, ok := d.fastObject(Object{Source: source, Doc: doc, Line: c.line, Item: -1, doc: &c}, m)
	if !ok {
		return nil, false
	}
	return []fastObject{o}, true
}

// fastObject is an object decoded on the fast path, before the decoder
// names and registers it.
type fastObject struct {
	o            Object
	generateName string
}

// fastObject decodes the object of tree m into o: its identity and its
// typed object.
func (d *decoder) fastObject(o Object, m map[any]any) (fastObject, bool) {
	var ok bool
	if o.APIVersion, ok = m["apiVersion"].(string); !ok {
		return fastObject{}, false
	}
	if o.Kind, ok = m["kind"].(string); !ok {
		return fastObject{}, false
	}
	info, typed := known[o.APIVersion][o.Kind]
	if !typed {
		return fastObject{}, false // identified only, on the other path
	}
	v := reflect.New(info.typ)
	mo, named := v.Interface().(metav1Object)
	if !named {
		return fastObject{}, false // a component configuration, on the other path
	}
	if !fill(v.Elem(), m) {
		return fastObject{}, false
	}
	o.Name, o.Namespace, o.Obj = mo.GetName(), mo.GetNamespace(), v.Interface()
	switch {
	case info.clustered:
		o.Namespace = ""
	case o.Namespace == "":
		o.Namespace = d.opts.Namespace
	}
	return fastObject{o: o, generateName: mo.GetGenerateName()}, true
}

// metav1Object is the part of metav1.Object the fast path reads.
type metav1Object interface {
	GetName() string
	GetNamespace() string
	GetGenerateName() string
}

// fill sets v, a zero value, from YAML tree value y as encoding/json
// would set it from y's JSON text, and reports whether it could be sure
// to: false for anything [check] or encoding/json would refuse, and for
// the cases the fast path leaves to the other path.
func fill(v reflect.Value, y any) bool {
	if y == nil {
		return true // null leaves any field at its zero value
	}
	t := v.Type()
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) {
		raw, ok := scalarJSON(y)
		return ok && v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw) == nil
	}
	if pt.Implements(textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if !fill(p.Elem(), y) {
			return false
		}
		v.Set(p)
	case reflect.Struct:
		m, ok := y.(map[any]any)
		if !ok {
			return false
		}
		fields := fieldsOf(t)
		if fields == nil {
			return false
		}
		for k, e := range m {
			ks, ok := k.(string)
			if !ok {
				return false
			}
			f, ok := fields[ks]
			if !ok || !fill(v.FieldByIndex(f), e) {
				return false
			}
		}
	case reflect.Map:
		m, ok := y.(map[any]any)
		if !ok || t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			return false
		}
		out := reflect.MakeMapWithSize(t, len(m))
		for k, e := range m {
			ks, ok := k.(string)
			if !ok {
				return false
			}
			ev := reflect.New(t.Elem()).Elem()
			if !fill(ev, e) {
				return false
			}
			out.SetMapIndex(reflect.ValueOf(ks).Convert(t.Key()), ev)
		}
		v.Set(out)
	case reflect.Slice:
		a, ok := y.([]any)
		if !ok || t.Elem().Kind() == reflect.Uint8 {
			return false // []byte is base64 text, left to the other path
		}
		out := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			if !fill(out.Index(i), e) {
				return false
			}
		}
		v.Set(out)
	case reflect.String:
		s, ok := y.(string)
		if !ok {
			return false
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := y.(bool)
		if !ok {
			return false
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := y.(int)
		if !ok || v.OverflowInt(int64(n)) {
			return false
		}
		v.SetInt(int64(n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := y.(int)
		if !ok || n < 0 || v.OverflowUint(uint64(n)) {
			return false
		}
		v.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		var f float64
		switch n := y.(type) {
		case int:
			f = float64(n)
		case float64:
			f = n
		default:
			return false
		}
		if math.IsInf(f, 0) || math.IsNaN(f) || v.OverflowFloat(f) {
			return false
		}
		v.SetFloat(f)
	default:
		return false // interfaces and the rest: the other path
	}
	return true
}

// scalarJSON is the JSON text of a YAML scalar as the other path writes
// it (encoding/json's encoding of the value), for a type's own
// UnmarshalJSON; false for collections and values JSON cannot hold.
func scalarJSON(y any) ([]byte, bool) {
	switch y := y.(type) {
	case string, bool, int:
	case float64:
		if math.IsInf(y, 0) || math.IsNaN(y) {
			return nil, false
		}
	default:
		return nil, false
	}
	raw, err := json.Marshal(y)
	return raw, err == nil
}

var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// fieldsOf maps the JSON keys of struct t to their fields' index paths,
// inlining embedded structs without a JSON name as encoding/json does; nil
// when a field needs what the fast path leaves to the other path (an
// embedded pointer, the ",string" option, two fields of one key).
func fieldsOf(t reflect.Type) map[string][]int {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string][]int)
	}
	m := map[string][]int{}
	if !addFields(m, t, nil) {
		m = nil
	}
	fieldCache.Store(t, m)
	return m
}

// fieldCache holds fieldsOf's answer per type: the k8s.io/api types are
// few and fixed.
var fieldCache sync.Map // reflect.Type -> map[string][]int

func addFields(m map[string][]int, t reflect.Type, index []int) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return false
		}
		at := append(index[:len(index):len(index)], i)
		if f.Anonymous && name == "" {
			if f.Type.Kind() == reflect.Pointer {
				return false
			}
			if f.Type.Kind() == reflect.Struct {
				if !addFields(m, f.Type, at) {
					return false
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; dup {
			return false
		}
		m[name] = at
	}
	return true
}
