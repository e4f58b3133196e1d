package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// check walks generic JSON data (as decoded with UseNumber) alongside the Go
// type t and reports the first field, in document order of sorted keys,
// that the API server would reject while decoding: an unknown field (field
// names are case-sensitive, as the API server's decoder is), a value of the
// wrong JSON type, a number out of range, or a value that t's own
// UnmarshalJSON refuses (a malformed quantity or timestamp). It returns the
// field's API path (e.g. "spec.containers[0].resources.requests[cpu]") and a
// detail, or "" and "" when the data decodes cleanly.
func check(data any, t reflect.Type, path string) (field, detail string) {
	if data == nil {
		return "", "" // null leaves any field at its zero value
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		raw, err := json.Marshal(data)
		if err != nil {
			return path, err.Error()
		}
		v := reflect.New(t).Interface().(json.Unmarshaler)
		if err := v.UnmarshalJSON(raw); err != nil {
			return path, fmt.Sprintf("%s: %v", raw, err)
		}
		return "", ""
	}
	switch t.Kind() {
	case reflect.Pointer:
		return check(data, t.Elem(), path)
	case reflect.Struct:
		m, ok := data.(map[string]any)
		if !ok {
			return path, "want an object, got " + jsonKind(data)
		}
		fields := JSONFields(t)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			sub := join(path, k)
			ft, ok := fields[k]
			if !ok {
				return sub, "unknown field"
			}
			if f, d := check(m[k], ft, sub); f != "" {
				return f, d
			}
		}
	case reflect.Map:
		m, ok := data.(map[string]any)
		if !ok {
			return path, "want an object, got " + jsonKind(data)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if f, d := check(m[k], t.Elem(), path+"["+k+"]"); f != "" {
				return f, d
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if _, ok := data.(string); !ok {
				return path, "want a base64 string, got " + jsonKind(data)
			}
			return "", ""
		}
		a, ok := data.([]any)
		if !ok {
			return path, "want a list, got " + jsonKind(data)
		}
		for i, e := range a {
			if f, d := check(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); f != "" {
				return f, d
			}
		}
	case reflect.String:
		if _, ok := data.(string); !ok {
			return path, "want a string, got " + jsonKind(data)
		}
	case reflect.Bool:
		if _, ok := data.(bool); !ok {
			return path, "want true or false, got " + jsonKind(data)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := data.(json.Number)
		if !ok {
			return path, "want an integer, got " + jsonKind(data)
		}
		v, err := strconv.ParseInt(n.String(), 10, 64)
		bits := t.Bits()
		if err != nil || v < -1<<(bits-1) || v > 1<<(bits-1)-1 {
			return path, fmt.Sprintf("%s is not an int%d", n, bits)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := data.(json.Number)
		if !ok {
			return path, "want an integer, got " + jsonKind(data)
		}
		v, err := strconv.ParseUint(n.String(), 10, 64)
		if err != nil || (t.Bits() < 64 && v > 1<<t.Bits()-1) {
			return path, fmt.Sprintf("%s is not a uint%d", n, t.Bits())
		}
	case reflect.Float32, reflect.Float64:
		n, ok := data.(json.Number)
		if !ok {
			return path, "want a number, got " + jsonKind(data)
		}
		if f, err := n.Float64(); err != nil || math.IsInf(f, 0) {
			return path, fmt.Sprintf("%s is not a float%d", n, t.Bits())
		}
	case reflect.Interface:
		// Any JSON value decodes into an interface.
	default:
		return path, "cannot decode into " + t.String()
	}
	return "", ""
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		// A file that is not YAML at all (say, a CSV) is one long string:
		// quote its start, not all of it.
		if r := []rune(v); len(r) > 60 {
			return fmt.Sprintf("string %q… (%d characters)", string(r[:60]), len(r))
		}
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%T", v)
}

// JSONFields maps the JSON keys of struct t to their types, with embedded
// structs that have no JSON name inlined, as encoding/json (and so the API
// server's decoding) does; e.g. a Pod's "metadata", "spec", "status",
// "kind", "apiVersion". t must be a struct type.
func JSONFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				maps.Copy(m, JSONFields(ft))
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}
