package kube

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/placement"
)

// The API server checks the form of the names and keys a workload-API
// object refers by (v1.37.2 and v1.38.0-beta.0 alike, in their generated
// validation: a parent or Workload name is a DNS subdomain, a template
// name a DNS label, a topology key a label key). gangsched's model takes
// any non-empty string, so the adapter checks them when it converts,
// naming the object's own field; kube/testdata/v138/validation.yaml holds
// each rule to the API server's answer.

// groupRefs are the names and keys a PodGroup's or CompositePodGroup's
// spec refers by.
type groupRefs struct {
	parent *string // spec.parentCompositePodGroupName
	// needRef says spec.workloadRef must be set, and why: "" (a
	// CompositePodGroup's is required) or a clause the error adds.
	needRef bool
	why     string
	hasRef  bool // spec.workloadRef is set
	// workloadName and templateName are spec.workloadRef's.
	workloadName, templateName string
	keys                       []string // spec.schedulingConstraints.topology[*].key
}

// check refuses, in the API server's order (the hand-written rule that a
// parent needs a workloadRef, then the fields in their order): a missing
// spec.workloadRef when needRef; a set parent name
// that is not a DNS subdomain ("" included: the API server reads a set
// empty name as a name, not as no parent); a workloadRef without a
// workloadName (a DNS subdomain) or templateName (a DNS label); a
// topology key that is not a label key.
func (r groupRefs) check(obj string) error {
	if r.needRef && !r.hasRef {
		return placement.Errorf(placement.ErrInvalid, obj, "spec.workloadRef", "must be set%s", r.why)
	}
	if r.parent != nil {
		if err := checkName(obj, "spec.parentCompositePodGroupName", *r.parent, validation.IsDNS1123Subdomain); err != nil {
			return err
		}
	}
	if r.hasRef {
		if err := checkName(obj, "spec.workloadRef.workloadName", r.workloadName, validation.IsDNS1123Subdomain); err != nil {
			return err
		}
		if err := checkName(obj, "spec.workloadRef.templateName", r.templateName, validation.IsDNS1123Label); err != nil {
			return err
		}
	}
	return checkTopologyKeys(obj, "spec.schedulingConstraints.", r.keys)
}

// checkTopologyKeys refuses a topology key under path (ending in ".")
// that is not a label key.
func checkTopologyKeys(obj, path string, keys []string) error {
	for i, k := range keys {
		if err := checkName(obj, fmt.Sprintf("%stopology[%d].key", path, i), k, validation.IsQualifiedName); err != nil {
			return err
		}
	}
	return nil
}

// checkName refuses an empty value of field, or one form rejects.
func checkName(obj, field, value string, form func(string) []string) error {
	if value == "" {
		return placement.Errorf(placement.ErrInvalid, obj, field, "must be set")
	}
	if errs := form(value); len(errs) > 0 {
		return placement.Errorf(placement.ErrInvalid, obj, field, "%q: %s", value, strings.Join(errs, "; "))
	}
	return nil
}

// topologyKeys lists the keys of a topology constraint list.
func topologyKeys[T any](ts []T, key func(T) string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = key(t)
	}
	return out
}
