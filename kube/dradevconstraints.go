package kube

import (
	"bytes"

	sigsjson "sigs.k8s.io/json"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// AnnotationDeviceConstraints is the PodGroup annotation that carries
// gangsched's constraints across the devices of all the members'
// ResourceClaims ([dra.GroupDeviceConstraint]; no Kubernetes API has
// them). Its value is a JSON list, e.g.
//
//	[{"claims": ["nic"], "matchAttribute": "net.example.com/fabric"},
//	 {"requests": ["gpu"], "distinctAttribute": "gpu.example.com/nvlinkDomain"}]
//
// with the fields claims (spec.resourceClaims entry names), requests
// (request or subrequest names), matchAttribute and distinctAttribute.
const AnnotationDeviceConstraints = "gangsched.io/device-constraints"

// deviceConstraintJSON is one entry of the annotation.
type deviceConstraintJSON struct {
	Claims            []string `json:"claims,omitempty"`
	Requests          []string `json:"requests,omitempty"`
	MatchAttribute    string   `json:"matchAttribute,omitempty"`
	DistinctAttribute string   `json:"distinctAttribute,omitempty"`
}

// DeviceConstraints reads [AnnotationDeviceConstraints] from the
// annotations of obj (e.g. `PodGroup "default/train"`): nil when absent.
//
// The value is decoded strictly: field names are case-sensitive, and an
// unknown or repeated field, a value that is not a JSON list, or trailing
// data is an error. Errors ([placement.ErrInvalid] or
// [placement.ErrDuplicate]) name obj and the field
// metadata.annotations[gangsched.io/device-constraints], with the entry and
// field for what [dra.CheckGroupDeviceConstraints] refuses.
func DeviceConstraints(obj string, annotations map[string]string) ([]dra.GroupDeviceConstraint, error) {
	v, ok := annotations[AnnotationDeviceConstraints]
	if !ok {
		return nil, nil
	}
	field := "metadata.annotations[" + AnnotationDeviceConstraints + "]"
	data := bytes.TrimSpace([]byte(v))
	if len(data) == 0 || data[0] != '[' {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "must be a JSON list of constraints")
	}
	var in []deviceConstraintJSON
	strict, err := sigsjson.UnmarshalStrict(data, &in)
	if err != nil {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "%v", err)
	}
	if len(strict) > 0 {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "%v", strict[0])
	}
	out := make([]dra.GroupDeviceConstraint, len(in))
	for i, c := range in {
		// An empty list means what an absent one does.
		out[i] = dra.GroupDeviceConstraint{Claims: nonEmpty(c.Claims), Requests: nonEmpty(c.Requests),
			MatchAttribute: dra.QualifiedName(c.MatchAttribute), DistinctAttribute: dra.QualifiedName(c.DistinctAttribute)}
	}
	if err := dra.CheckGroupDeviceConstraints(obj, field, out); err != nil {
		return nil, err
	}
	return out, nil
}

// nonEmpty returns l, or nil when it is empty.
func nonEmpty(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	return l
}
