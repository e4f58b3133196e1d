package placement

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this module returns for bad input is a
// [*FieldError] that wraps one of them, so callers can test with errors.Is
// and still print a message that names the object and the field.
var (
	// ErrInvalid marks a value that is malformed or out of range.
	ErrInvalid = errors.New("placement: invalid value")
	// ErrDuplicate marks a second object with a name that must be unique.
	ErrDuplicate = errors.New("placement: duplicate")
	// ErrNotFound marks a reference to an object that does not exist.
	ErrNotFound = errors.New("placement: not found")
)

// ErrHook marks an error of a caller's hook that stopped a [Solve] or a
// [Verify]: a [Rejection] with Err set, or an error other than a
// [*FieldError] from a generator, a scorer or a NewReserverFunc. The error
// names the hook and wraps the hook's own too.
var ErrHook = errors.New("placement: hook failed")

// hookError is the error of hook (e.g. "Options.Filters[1]") on group g,
// pod p and the node of ni, wrapping [ErrHook] and err.
func hookError(g *Group, hook string, p *Pod, ni NodeInfo, err error) error {
	on := ""
	if n := ni.Node(); n != nil {
		on = fmt.Sprintf(", node %q", n.Name)
	}
	who := ""
	if p != nil {
		who = " on pod " + p.Key().String()
	}
	return fmt.Errorf("%w: PodGroup %s: %s%s%s: %w", ErrHook, g.Key(), hook, who, on, err)
}

// hookFailure is what Solve returns for the error of a generator or a
// NewReserverFunc: a [*FieldError] as it is (bad input the hook found, such
// as bound members in two domains of a required level); any other error,
// the hook's own failure, as hookError names it.
func hookFailure(g *Group, hook string, err error) error {
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return err
	}
	return hookError(g, hook, nil, NodeInfo{}, err)
}

// FieldError reports bad input: which object, which field, what is wrong.
// Object reads like `pod "default/p1"` or `node "n1"`; Field is the API
// path (e.g. "spec.nodeName", "status.allocatable[cpu]").
type FieldError struct {
	Object string
	Field  string
	Detail string
	Err    error // one of the sentinels
}

// Error formats as `<object>: <field>: <detail>`.
func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Object, e.Field, e.Detail)
}

// Unwrap returns the sentinel.
func (e *FieldError) Unwrap() error { return e.Err }

// Errorf builds a [*FieldError]; the detail is formatted with fmt.Sprintf.
// Other packages of this module use it so that all input errors share one
// shape.
func Errorf(sentinel error, object, field, format string, args ...any) *FieldError {
	return &FieldError{Object: object, Field: field, Detail: fmt.Sprintf(format, args...), Err: sentinel}
}

func podObj(k Key) string     { return fmt.Sprintf("pod %q", k.String()) }
func nodeObj(n string) string { return fmt.Sprintf("node %q", n) }
