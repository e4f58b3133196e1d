package manifest

import (
	"errors"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gangsched/gangsched/placement"
)

// fieldLine returns the line of data (counted from 1) that holds the API
// field at path, as check and the converters name fields
// ("spec.containers[0].resources.requests[cpu]"), or of the deepest part
// of the path that data has; 0 when data does not parse or path is empty.
// It is only called on the error path, so it parses data again.
func fieldLine(data []byte, path string) int {
	if path == "" {
		return 0
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return 0
	}
	n, line := root.Content[0], 0
	for _, seg := range splitPath(path) {
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg {
					line, next = n.Content[i].Line, n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

// splitPath cuts "a.b[0].c[x.y]" into a, b, 0, c, x.y.
func splitPath(path string) []string {
	var out []string
	for path != "" {
		switch i := strings.IndexAny(path, ".["); {
		case i < 0:
			out, path = append(out, path), ""
		case path[i] == '.':
			if i > 0 {
				out = append(out, path[:i])
			}
			path = path[i+1:]
		default:
			if i > 0 {
				out = append(out, path[:i])
			}
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return append(out, path[i+1:])
			}
			out, path = append(out, path[i+1:i+j]), path[i+j+1:]
		}
	}
	return out
}

// locateField moves err, an [*Error] about document c, from the line the
// document starts on to the line of the field it names, when it names one
// that the document has.
func locateField(err error, c chunk) error {
	var e *Error
	var fe *placement.FieldError
	if !errors.As(err, &e) || !errors.As(e.Err, &fe) {
		return err
	}
	path := fe.Field
	if e.Item >= 0 {
		path = "items[" + strconv.Itoa(e.Item) + "]." + path
	}
	if l := fieldLine(c.data, path); l > 0 {
		e.Line = l + c.first - 1
	}
	return err
}
