package kube

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gangsched/gangsched/placement"
)

// The API server checks the form of the names and keys a workload-API
// object refers by (v1.36.3, v1.37.2 and v1.38.0-beta.0 alike, in their generated
// validation: a parent or Workload name is a DNS subdomain, a template
// name a DNS label, a topology key a label key). gangsched's model takes
// any non-empty string, so the adapter checks them when it converts,
// naming the object's own field; kube/testdata/v138/validation.yaml and
// kube/testdata/v136/validation.yaml hold each rule to the API server's
// answer.

// The most entries a group's or template's lists may hold at the API server
// (+k8s:maxItems, v1alpha2 to v1beta1 alike). gangsched's model takes more
// (a preferred or slice layer is an entry of its own, from Kueue's
// annotations), so an upstream object is held to them as it is read.
const (
	maxTopologyConstraints = 1
	maxGroupClaims         = 4
)

// checkListSizes refuses a group's or template's topology constraints or
// resource claims beyond what the API server takes; path ends in ".".
func checkListSizes(obj, path string, topology, claims int) error {
	if topology > maxTopologyConstraints {
		return placement.Errorf(placement.ErrInvalid, obj, path+"schedulingConstraints.topology", "lists %d constraints; at most one is allowed", topology)
	}
	if claims > maxGroupClaims {
		return placement.Errorf(placement.ErrInvalid, obj, path+"resourceClaims", "lists %d claims; at most %d are allowed", claims, maxGroupClaims)
	}
	return nil
}

// checkControllerRef refuses a Workload's spec.controllerRef (when set)
// whose kind or name is empty or not a path segment name, or whose
// apiGroup, when set, is not a DNS subdomain. gangsched reads no owner
// from it; the API server refuses such a Workload.
func checkControllerRef(obj, apiGroup, kind, name string) error {
	if apiGroup != "" {
		if err := checkName(obj, "spec.controllerRef.apiGroup", apiGroup, validation.IsDNS1123Subdomain); err != nil {
			return err
		}
	}
	if err := checkName(obj, "spec.controllerRef.kind", kind, isPathSegment); err != nil {
		return err
	}
	return checkName(obj, "spec.controllerRef.name", name, isPathSegment)
}

// isPathSegment is the API server's k8s-path-segment-name form: a name
// that can stand as one segment of a URL path.
func isPathSegment(s string) []string { return path.IsValidPathSegmentName(s) }

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

// checkLabels refuses a key of labels (field, a map of label keys to
// values) that is not a label key, or a value that is not a label value;
// the error names field[key], keys taken in sorted order.
func checkLabels(obj, field string, labels map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		f := field + "[" + k + "]"
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return placement.Errorf(placement.ErrInvalid, obj, f, "%q is not a label key: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(labels[k]); len(errs) > 0 {
			return placement.Errorf(placement.ErrInvalid, obj, f, "%q is not a label value: %s", labels[k], strings.Join(errs, "; "))
		}
	}
	return nil
}

// checkAnnotations refuses a key of annotations (field, a map of
// annotation keys to values) that is not a label key once lowercased (the
// API server's rule for annotations: case does not matter), and keys and
// values together longer than the API server's total for annotations
// (256 KiB); the error names field[key], keys taken in sorted order, or
// field for the total.
func checkAnnotations(obj, field string, annotations map[string]string) error {
	var size int
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		if errs := validation.IsQualifiedName(strings.ToLower(k)); len(errs) > 0 {
			return placement.Errorf(placement.ErrInvalid, obj, field+"["+k+"]", "%q is not an annotation key: %s", k, strings.Join(errs, "; "))
		}
		size += len(k) + len(annotations[k])
	}
	if size > apivalidation.TotalAnnotationSizeLimitB {
		return placement.Errorf(placement.ErrInvalid, obj, field, "keys and values take %d bytes: at most %d", size, apivalidation.TotalAnnotationSizeLimitB)
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
