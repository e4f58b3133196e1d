package placement

import (
	"fmt"
	"slices"
)

// SelectorOperator is a label selector requirement's operator
// (metav1.LabelSelectorOperator).
type SelectorOperator string

// Selector operators.
const (
	SelectorOpIn           SelectorOperator = "In"
	SelectorOpNotIn        SelectorOperator = "NotIn"
	SelectorOpExists       SelectorOperator = "Exists"
	SelectorOpDoesNotExist SelectorOperator = "DoesNotExist"
)

// SelectorRequirement is one metav1.LabelSelectorRequirement.
type SelectorRequirement struct {
	Key      string
	Operator SelectorOperator
	Values   []string
}

// LabelSelector is metav1.LabelSelector: every MatchLabels pair and every
// requirement must hold. The zero value selects everything, as in
// Kubernetes; use a nil *LabelSelector where "nothing" is meant.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []SelectorRequirement
}

// Matches reports whether labels satisfy the selector. A nil selector
// matches nothing.
func (s *LabelSelector) Matches(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		v, ok := labels[r.Key]
		switch r.Operator {
		case SelectorOpIn:
			if !ok || !slices.Contains(r.Values, v) {
				return false
			}
		case SelectorOpNotIn:
			if ok && slices.Contains(r.Values, v) {
				return false
			}
		case SelectorOpExists:
			if !ok {
				return false
			}
		case SelectorOpDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Validate checks the selector as the API server would: operators are
// known, In/NotIn have values, Exists/DoesNotExist have none. object and
// field name the selector in the error (a [*FieldError] wrapping
// [ErrInvalid]). A nil selector is valid.
func (s *LabelSelector) Validate(object, field string) error {
	if s == nil {
		return nil
	}
	for i, r := range s.MatchExpressions {
		f := fmt.Sprintf("%s.matchExpressions[%d]", field, i)
		if r.Key == "" {
			return Errorf(ErrInvalid, object, f+".key", "must not be empty")
		}
		switch r.Operator {
		case SelectorOpIn, SelectorOpNotIn:
			if len(r.Values) == 0 {
				return Errorf(ErrInvalid, object, f+".values", "must be non-empty for operator %s", r.Operator)
			}
		case SelectorOpExists, SelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				return Errorf(ErrInvalid, object, f+".values", "must be empty for operator %s", r.Operator)
			}
		default:
			return Errorf(ErrInvalid, object, f+".operator", "unknown operator %q", r.Operator)
		}
	}
	return nil
}
