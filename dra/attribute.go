package dra

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/placement"
)

// ListAttribute returns a list-valued attribute with the given elements,
// scalars of one kind (resource.k8s.io/v1 ints, bools, strings or
// versions; e.g. the NUMA nodes a device is close to, the standard
// resource.kubernetes.io/numaNode). Constraints read it as a set: order
// and duplicates do not matter.
func ListAttribute(elems ...Attribute) Attribute {
	var k AttributeKind
	if len(elems) > 0 {
		k = elems[0].Kind
	}
	return Attribute{Kind: k, List: slices.Clone(elems)}
}

// Equal reports whether a and b are the same attribute: kind and value
// equal, a list's elements equal one by one, in order (CEL's ==).
func (a Attribute) Equal(b Attribute) bool {
	if (a.List == nil) != (b.List == nil) || len(a.List) != len(b.List) {
		return false
	}
	if a.List == nil {
		return a.scalarEqual(b)
	}
	for i := range a.List {
		if !a.List[i].scalarEqual(b.List[i]) {
			return false
		}
	}
	return a.Kind == b.Kind
}

func (a Attribute) scalarEqual(b Attribute) bool {
	return a.Kind == b.Kind && a.Int == b.Int && a.Bool == b.Bool && a.String == b.String
}

// Elements returns the attribute as a set's elements: a list's elements,
// or the scalar alone.
func (a Attribute) Elements() []Attribute {
	if a.List != nil {
		return a.List
	}
	return []Attribute{a}
}

// Overlaps reports whether a and b, read as sets of scalars, share an
// element (v1.37's set semantics, DRAListTypeAttributes: matchAttribute
// holds while the devices' values share an element, distinctAttribute
// while no two overlap; a scalar is a set of one). Elements of different
// kinds never match.
func (a Attribute) Overlaps(b Attribute) bool {
	if a.List == nil && b.List == nil {
		return a.scalarEqual(b)
	}
	for _, x := range a.Elements() {
		if containsElem(b.Elements(), x) {
			return true
		}
	}
	return false
}

// has reports whether scalar x is an element of a (a itself, for a
// scalar), without building a's elements.
func (a Attribute) has(x Attribute) bool {
	if a.List == nil {
		return a.scalarEqual(x)
	}
	return containsElem(a.List, x)
}

// size is the number of a's elements.
func (a Attribute) size() int {
	if a.List == nil {
		return 1
	}
	return len(a.List)
}

// appendElems appends a's elements to out.
func (a Attribute) appendElems(out []Attribute) []Attribute {
	if a.List == nil {
		return append(out, a)
	}
	return append(out, a.List...)
}

// containsElem reports whether scalar x is among elems.
func containsElem(elems []Attribute, x Attribute) bool {
	return slices.ContainsFunc(elems, x.scalarEqual)
}

// intersect returns the elements of set that value also has, in set's
// order, appended to out[:0]; empty when they share none.
func intersect(out, set []Attribute, value Attribute) []Attribute {
	out = out[:0]
	for _, x := range set {
		if value.has(x) {
			out = append(out, x)
		}
	}
	return out
}

// anyIn reports whether some element of value is among elems.
func anyIn(elems []Attribute, value Attribute) bool {
	if value.List == nil {
		return containsElem(elems, value)
	}
	return slices.ContainsFunc(value.List, func(x Attribute) bool { return containsElem(elems, x) })
}

// checkAttribute validates attribute a of object obj at field f: a kind
// set and, for a list, at least one element, every element a scalar of
// the list's kind.
func checkAttribute(obj, f string, a Attribute) error {
	if a.Kind < AttributeInt || a.Kind > AttributeVersion {
		return placement.Errorf(placement.ErrInvalid, obj, f, "no value set (kind %d)", a.Kind)
	}
	if a.List == nil {
		return nil
	}
	if len(a.List) == 0 {
		return placement.Errorf(placement.ErrInvalid, obj, f, "a list must not be empty")
	}
	for i, e := range a.List {
		if e.Kind != a.Kind || e.List != nil {
			return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s[%d]", f, i), "must be a scalar of the list's kind %d", a.Kind)
		}
	}
	return nil
}
