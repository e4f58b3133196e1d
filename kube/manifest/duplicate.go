package manifest

import (
	"encoding/json"
	"errors"
	"strings"

	sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/gangsched/gangsched/placement"
)

// The strict readers refuse a duplicate key before the document's tree
// exists, so their errors name no object; in a dump of thousands of
// objects the user needs to know which one. These read the document
// again leniently (the last value of a key wins) only to name it.

// yamlDuplicate prefixes msg, the strict YAML reader's refusal of
// document c, with the object c holds, when the refusal is a duplicate
// key and a lenient reading finds an object other than a List.
func (d *decoder) yamlDuplicate(c chunk, msg string) string {
	if !strings.Contains(msg, "already set in map") {
		return msg
	}
	js, err := yaml.YAMLToJSON(c.data)
	if err != nil {
		return msg
	}
	var m map[string]any
	if json.Unmarshal(js, &m) != nil {
		return msg
	}
	if o, ok := d.identify(m); ok {
		return o.String() + ": " + msg
	}
	return msg
}

// jsonDuplicate is the strict JSON reader's refusal strict of object v
// (item of a List when item >= 0) as a field error of the object it is
// in, located at the field's line, when it names a field and a lenient
// reading finds an object other than a List; else nil.
func (d *decoder) jsonDuplicate(j *jsonDoc, item int, v *skimmed, listAPIVersion, listKind string, strict error) error {
	var fe sjson.FieldError
	if !errors.As(strict, &fe) {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(j.bytes(v), &m) != nil {
		return nil
	}
	if item >= 0 && listKind != "List" {
		if _, ok := m["apiVersion"]; !ok {
			m["apiVersion"] = listAPIVersion
		}
		if _, ok := m["kind"]; !ok {
			m["kind"] = strings.TrimSuffix(listKind, "List")
		}
	}
	o, ok := d.identify(m)
	if !ok {
		return nil
	}
	o.Source, o.Doc, o.Line, o.Item, o.doc = j.source, j.doc, j.c.line, item, j.c
	return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), fe.FieldPath(), "duplicate field"))
}

// identify is the identity object m would get (its namespace defaulted
// as [decoder.object] defaults it), and false when m has no kind or name
// or is a List, whose items are the objects.
func (d *decoder) identify(m map[string]any) (Object, bool) {
	var o Object
	o.APIVersion, _ = m["apiVersion"].(string)
	o.Kind, _ = m["kind"].(string)
	if o.Kind == "" || strings.HasSuffix(o.Kind, "List") {
		return Object{}, false
	}
	meta, _ := m["metadata"].(map[string]any)
	o.Name, _ = meta["name"].(string)
	o.Namespace, _ = meta["namespace"].(string)
	if o.Name == "" {
		return Object{}, false // nothing to tell it by
	}
	if info, typed := known[o.APIVersion][o.Kind]; typed {
		switch {
		case info.clustered:
			o.Namespace = ""
		case o.Namespace == "":
			o.Namespace = d.opts.Namespace
		}
	}
	return o, true
}
