package manifest

import (
	"bytes"
	"encoding/json"
)

// A JSON source is read in two steps: one quick pass over its bytes finds
// each top-level value and, in each object, the members that choose its
// Go type (apiVersion, kind, and the items of a List); then each object's
// bytes are decoded strictly, once, straight into that type. The pass
// does not validate the JSON: it only has to cut valid JSON right, and
// the strict decoder refuses whatever is malformed inside a value.

// isJSONStream reports whether src reads as a JSON stream: its first
// non-blank byte opens an object whose first key is quoted (or which is
// empty), as JSON's always are. A YAML flow mapping such as
// "{apiVersion: v1, …}" has bare keys and stays YAML.
func isJSONStream(src []byte) bool {
	s := jsonScan{src: src}
	s.space()
	if !s.at('{') {
		return false
	}
	s.pos++
	s.space()
	return s.at('"') || s.at('}')
}

// skimmed is one JSON value of a source as the quick pass found it.
type skimmed struct {
	// start and end delimit the value: src[start:end].
	start, end int
	// object: the value is a JSON object; only then are the fields below
	// set.
	object bool
	// hasAPIVersion and hasKind: the object has the member, whatever its
	// value; apiVersion and kind hold it when it is a string, and
	// strAPIVersion and strKind say that it is.
	hasAPIVersion, hasKind bool
	strAPIVersion, strKind bool
	apiVersion, kind       string
	// hasItems: the object has a top-level "items" member that is an
	// array (only looked for in a source's top-level values); items are
	// its elements, each skimmed as a value of its own.
	hasItems bool
	items    []skimmed
}

// jsonScan walks the bytes of a JSON source.
type jsonScan struct {
	src []byte
	pos int
}

func (s *jsonScan) at(c byte) bool { return s.pos < len(s.src) && s.src[s.pos] == c }

// space skips JSON's blanks.
func (s *jsonScan) space() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value skims the value at s.pos (after blanks), looking into it when it
// is an object; top says it is a top-level value, whose "items" are
// skimmed too. It returns false when the bytes end or go wrong before the
// value does.
func (s *jsonScan) value(v *skimmed, top bool) bool {
	s.space()
	v.start = s.pos
	if s.at('{') {
		v.object = true
		if !s.object(v, top) {
			return false
		}
	} else if !s.skip() {
		return false
	}
	v.end = s.pos
	return true
}

// object skims the object at s.pos, noting the members that choose its
// type.
func (s *jsonScan) object(v *skimmed, top bool) bool {
	s.pos++ // {
	s.space()
	if s.at('}') {
		s.pos++
		return true
	}
	for {
		s.space()
		ks := s.pos
		esc, ok := s.str()
		if !ok {
			return false
		}
		key := s.src[ks+1 : s.pos-1]
		if esc {
			key = unquote(s.src[ks:s.pos])
		}
		s.space()
		if !s.at(':') {
			return false
		}
		s.pos++
		s.space()
		switch string(key) {
		case "apiVersion":
			v.hasAPIVersion = true
			v.apiVersion, v.strAPIVersion, ok = s.member()
		case "kind":
			v.hasKind = true
			v.kind, v.strKind, ok = s.member()
		case "items":
			if top && s.at('[') {
				v.hasItems, v.items = true, v.items[:0]
				ok = s.items(v)
			} else {
				ok = s.skip()
			}
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if done, ok := s.sep('}'); done || !ok {
			return ok
		}
	}
}

// member reads a member's value: its text when it is a string.
func (s *jsonScan) member() (text string, isString, ok bool) {
	if !s.at('"') {
		return "", false, s.skip()
	}
	start := s.pos
	esc, ok := s.str()
	if !ok {
		return "", false, false
	}
	if esc {
		return string(unquote(s.src[start:s.pos])), true, true
	}
	return string(s.src[start+1 : s.pos-1]), true, true
}

// items skims the elements of the array at s.pos into v.items.
func (s *jsonScan) items(v *skimmed) bool {
	s.pos++ // [
	s.space()
	if s.at(']') {
		s.pos++
		return true
	}
	for {
		v.items = append(v.items, skimmed{})
		if !s.value(&v.items[len(v.items)-1], false) {
			return false
		}
		if done, ok := s.sep(']'); done || !ok {
			return ok
		}
	}
}

// sep moves past what follows a member or an element: a comma (more
// follow) or close (done); anything else is malformed (ok false).
func (s *jsonScan) sep(close byte) (done, ok bool) {
	s.space()
	switch {
	case s.at(','):
		s.pos++
		return false, true
	case s.at(close):
		s.pos++
		return true, true
	}
	return false, false
}

// str moves past the string at s.pos; esc says it holds escapes.
func (s *jsonScan) str() (esc, ok bool) {
	if !s.at('"') {
		return false, false
	}
	for i := s.pos + 1; i < len(s.src); i++ {
		switch s.src[i] {
		case '"':
			s.pos = i + 1
			return esc, true
		case '\\':
			esc = true
			i++
		}
	}
	return false, false
}

// skip moves past the value at s.pos without looking into it: brackets
// are counted, not matched, which is enough to find the end of valid
// JSON.
func (s *jsonScan) skip() bool {
	depth := 0
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return false
			}
			if depth == 0 {
				s.pos++
				return true
			}
		default:
			if depth == 0 {
				return s.scalar()
			}
		}
		s.pos++
	}
	return false
}

// scalar moves past a number, true, false or null.
func (s *jsonScan) scalar() bool {
	start := s.pos
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r', ',', ':', '{', '}', '[', ']', '"':
			return s.pos > start
		}
		s.pos++
	}
	return s.pos > start
}

// unquote returns the text of JSON string q (quotes included), or q's
// bytes unchanged when it does not decode (the strict decoder then says
// what is wrong).
func unquote(q []byte) []byte {
	var out string
	if json.Unmarshal(q, &out) != nil {
		return bytes.Trim(q, `"`)
	}
	return []byte(out)
}

// skim cuts src, a JSON stream, into its top-level values. When the bytes
// go wrong it returns the values before and false; bad is then where the
// value that goes wrong starts.
func skim(src []byte) (values []skimmed, bad int, ok bool) {
	s := jsonScan{src: src}
	for {
		s.space()
		if s.pos == len(src) {
			return values, 0, true
		}
		var v skimmed
		if !s.value(&v, true) {
			return values, v.start, false
		}
		values = append(values, v)
	}
}
