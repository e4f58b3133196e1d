package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sjson "sigs.k8s.io/json"

	"github.com/gangsched/gangsched/placement"
)

// A JSON stream (see isJSONStream) is one JSON value after another: each
// object a document of its own, as `kubectl get -o json` writes a List
// and as tools write one object a line. An object of a kind this package
// decodes goes from its bytes straight into its typed object, with the
// strict decoder the API server uses (sigs.k8s.io/json's UnmarshalStrict:
// field names case-sensitive, unknown and duplicate fields refused); its
// type comes from the apiVersion and kind the quick pass (jsonscan.go)
// found. Everything else — other kinds, objects without a type, values
// that are not objects — and every refusal goes the way of the YAML
// reader's generic tree (generic), so that both say the same thing about
// the same object. Documents are the stream's top-level values, counted
// from 1; a document's line is the line its value starts on.

// jsonSource decodes src, a JSON stream, into d.
func (d *decoder) jsonSource(source string, src []byte) error {
	values, bad, ok := skim(src)
	lines := lineCount{src: src}
	for i := range values {
		v := &values[i]
		line := lines.at(v.start)
		doc := &jsonDoc{source: source, doc: i + 1, base: v.start,
			c: &chunk{data: src[v.start:v.end], first: line, line: line, pre: src[:v.start]}}
		if err := d.jsonDocument(doc, v); err != nil {
			return err
		}
	}
	if ok {
		return nil
	}
	line := lines.at(bad)
	c := chunk{data: src[bad:], first: line, line: line, pre: src[:bad]}
	return &Error{Source: source, Doc: len(values) + 1, Line: line, Item: -1, Err: streamSyntax(c)}
}

// jsonDoc is one top-level value of a JSON stream.
type jsonDoc struct {
	source string
	doc    int
	c      *chunk
	base   int // offset of c.data in the source
}

// bytes returns the source bytes of v, a value within the document.
func (j *jsonDoc) bytes(v *skimmed) []byte { return j.c.data[v.start-j.base : v.end-j.base] }

func (d *decoder) jsonDocument(j *jsonDoc, v *skimmed) error {
	if v.object && v.strKind && strings.HasSuffix(v.kind, "List") && v.hasItems && plainList(j.c.data) {
		listAPIVersion := ""
		if v.strAPIVersion {
			listAPIVersion = v.apiVersion
		}
		for i := range v.items {
			if err := d.jsonObject(j, i, &v.items[i], listAPIVersion, v.kind); err != nil {
				return err
			}
		}
		return nil
	}
	if v.object && !v.hasItems {
		return d.jsonObject(j, -1, v, "", "")
	}
	return d.jsonGeneric(j, -1, v, "", "")
}

// jsonObject decodes object v of document j: item is its index in the
// document's List of kind listKind, or -1.
func (d *decoder) jsonObject(j *jsonDoc, item int, v *skimmed, listAPIVersion, listKind string) error {
	if !v.object {
		return d.jsonGeneric(j, item, v, listAPIVersion, listKind)
	}
	apiVersion, kind := v.apiVersion, v.kind
	strAPIVersion, strKind := v.strAPIVersion, v.strKind
	// A typed List's items may leave their type to the List's (as the
	// YAML reader's list does).
	var setAPIVersion, setKind bool
	if item >= 0 && listKind != "List" {
		if !v.hasAPIVersion {
			apiVersion, strAPIVersion, setAPIVersion = listAPIVersion, true, true
		}
		if !v.hasKind {
			kind, strKind, setKind = strings.TrimSuffix(listKind, "List"), true, true
		}
	}
	info, typed := known[apiVersion][kind]
	if !strAPIVersion || !strKind || !typed {
		return d.jsonGeneric(j, item, v, listAPIVersion, listKind)
	}
	data := j.bytes(v)
	ptr := reflect.New(info.typ)
	strict, err := sjson.UnmarshalStrict(data, ptr.Interface())
	if err != nil || len(strict) > 0 {
		return d.jsonRefused(j, item, v, listAPIVersion, listKind, err, strict)
	}
	if setAPIVersion || setKind {
		tm := ptr.Elem().FieldByName("TypeMeta").Addr().Interface().(*metav1.TypeMeta)
		if setAPIVersion {
			tm.APIVersion = apiVersion
		}
		if setKind {
			tm.Kind = kind
		}
	}
	o := Object{Source: j.source, Doc: j.doc, Line: j.c.line, Item: item, APIVersion: apiVersion, Kind: kind, Obj: ptr.Interface(), doc: j.c}
	// A kind without metadata (a component configuration) has no name.
	if mo, named := o.Obj.(metav1.Object); named {
		o.Name, o.Namespace = mo.GetName(), mo.GetNamespace()
		switch {
		case info.clustered:
			o.Namespace = ""
		case o.Namespace == "":
			o.Namespace = d.opts.Namespace
		}
		if err := d.name(&o, mo.GetGenerateName(), true); err != nil {
			return err
		}
	}
	return d.add(o)
}

// jsonGeneric decides object v of document j (item as for jsonObject; -1
// with v the whole document) on its generic tree, as the YAML reader
// decides a document.
func (d *decoder) jsonGeneric(j *jsonDoc, item int, v *skimmed, listAPIVersion, listKind string) error {
	data := j.bytes(v)
	fail := func(err error) error {
		return &Error{Source: j.source, Doc: j.doc, Line: j.c.line, Item: item, Err: err}
	}
	// The generic tree cannot hold a duplicate field; the strict decoder
	// finds them (and the syntax errors the quick pass let through).
	var strictTree any
	strict, err := sjson.UnmarshalStrict(data, &strictTree)
	if isSyntax, _ := sjson.SyntaxErrorOffset(err); isSyntax {
		return fail(jsonSyntax(*j.c, v.start-j.base, err))
	}
	// Any other error is a number past float64 (1e400): the tree below
	// holds it as a json.Number, and the object's check words it against
	// its field.
	if len(strict) > 0 {
		if err := d.jsonDuplicate(j, item, v, listAPIVersion, listKind, strict[0]); err != nil {
			return err
		}
		return fail(fmt.Errorf("json: %w", strict[0]))
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return fail(err)
	}
	if item < 0 {
		return d.generic(j.source, j.doc, *j.c, tree)
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return fail(fmt.Errorf("an item must be an object, not %s", jsonKind(tree)))
	}
	if listKind != "List" {
		if _, ok := m["apiVersion"]; !ok {
			m["apiVersion"] = listAPIVersion
		}
		if _, ok := m["kind"]; !ok {
			m["kind"] = strings.TrimSuffix(listKind, "List")
		}
	}
	return d.object(j.source, j.doc, j.c, item, m)
}

// jsonRefused says why the strict decoder refused object v: as the
// generic tree's check words it (on a copy of d, as the object is not
// added), or, should that find nothing wrong, as the decoder put it.
func (d *decoder) jsonRefused(j *jsonDoc, item int, v *skimmed, listAPIVersion, listKind string, decodeErr error, strict []error) error {
	scratch := *d
	scratch.seen, scratch.generated = maps.Clone(d.seen), maps.Clone(d.generated)
	if err := scratch.jsonGeneric(j, item, v, listAPIVersion, listKind); err != nil {
		return err
	}
	o := Object{Source: j.source, Doc: j.doc, Line: j.c.line, Item: item, doc: j.c}
	if len(scratch.objs) > len(d.objs) {
		o = scratch.objs[len(scratch.objs)-1]
	}
	field, detail := "", fmt.Sprint(decodeErr)
	var fe sjson.FieldError
	var te *json.UnmarshalTypeError
	switch {
	case decodeErr == nil && errors.As(strict[0], &fe):
		field, detail = fe.FieldPath(), strings.TrimSuffix(fe.Error(), " "+fmt.Sprintf("%q", fe.FieldPath()))
	case errors.As(decodeErr, &te):
		field = te.Field
	case decodeErr == nil:
		detail = strict[0].Error()
	}
	return o.Wrap(placement.Errorf(placement.ErrInvalid, o.String(), field, "%s", detail))
}

// plainList reports whether the members of List document data other than
// its items are valid JSON and its top-level keys unique: the strict
// decoder sees only the items.
func plainList(data []byte) bool {
	s := jsonScan{src: data, pos: 1}
	keys := map[string]bool{}
	for {
		s.space()
		if s.at('}') {
			return true
		}
		ks := s.pos
		if esc, ok := s.str(); !ok || esc {
			return false
		}
		key := string(data[ks+1 : s.pos-1])
		if keys[key] {
			return false
		}
		keys[key] = true
		s.space()
		if !s.at(':') {
			return false
		}
		s.pos++
		s.space()
		vs := s.pos
		if !s.skip() || (key != "items" && !json.Valid(data[vs:s.pos])) {
			return false
		}
		s.space()
		if s.at(',') {
			s.pos++
		}
	}
}

// lineCount gives the line of an offset in src, for offsets met in
// increasing order.
type lineCount struct {
	src       []byte
	off, line int
}

func (l *lineCount) at(off int) int {
	if l.line == 0 {
		l.line = 1
	}
	l.line += bytes.Count(l.src[l.off:off], []byte{'\n'})
	l.off = off
	return l.line
}

// jsonSyntax words a syntax error err of the strict decoder in the value
// at offset rel of c.data with the line and column of the byte it names;
// other errors as they are.
func jsonSyntax(c chunk, rel int, err error) error {
	isSyntax, off := sjson.SyntaxErrorOffset(err)
	if !isSyntax {
		return err
	}
	return syntaxAt(c, rel+int(off), err.Error())
}

// streamSyntax says what is wrong with the JSON value c.data starts with,
// which the quick pass could not cut.
func streamSyntax(c chunk) error {
	var raw json.RawMessage
	err := json.NewDecoder(bytes.NewReader(c.data)).Decode(&raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return syntaxAt(c, int(se.Offset), se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return syntaxAt(c, len(c.data)+1, "unexpected end of JSON input")
	}
	return syntaxAt(c, 0, "not a JSON value")
}

// syntaxAt words msg as about the byte before offset off of c.data (the
// last one a decoder read; the end of the data when off is past it).
func syntaxAt(c chunk, off int, msg string) error {
	off = min(max(off-1, 0), len(c.data))
	before := c.data[:off]
	line := c.first + bytes.Count(before, []byte{'\n'})
	col := off - bytes.LastIndexByte(before, '\n')
	if line == c.first {
		col += len(c.pre) - 1 - bytes.LastIndexByte(c.pre, '\n') // bytes before data on its line
	}
	return fmt.Errorf("json: line %d, column %d: %s", line, col, msg)
}
