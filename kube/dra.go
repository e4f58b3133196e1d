package kube

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// Annotations that name the spec.resourceClaims entry a generated claim
// was made for. v1.37's resourceclaim controller writes
// AnnotationPodClaimName (resource.k8s.io/v1 PodResourceClaimAnnotation)
// on the claims it makes for pods and for PodGroups (KEP-5729) alike;
// gangsched writes it too. AnnotationPodGroupClaimName is what earlier
// gangsched versions wrote on a PodGroup's claim: still read, never
// written.
const (
	AnnotationPodClaimName      = "resource.kubernetes.io/pod-claim-name"
	AnnotationPodGroupClaimName = "resource.kubernetes.io/podgroup-claim-name"
)

// podGroupClaimName is the PodGroup's spec.resourceClaims entry that claim
// c was generated for: upstream's annotation, else the one earlier
// gangsched versions wrote.
func podGroupClaimName(c *resourcev1.ResourceClaim) string {
	if n := c.Annotations[AnnotationPodClaimName]; n != "" {
		return n
	}
	return c.Annotations[AnnotationPodGroupClaimName]
}

func objName(kind, namespace, name string) string {
	return fmt.Sprintf("%s %q", kind, placement.Key{Namespace: namespace, Name: name}.String())
}

// CompileSelector compiles a CEL device selector (resource.k8s.io/v1
// CELDeviceSelector) with the Kubernetes DRA CEL environment
// (k8s.io/dynamic-resource-allocation/cel: device.driver,
// device.attributes, device.capacity, quantity and semver functions) into a
// [dra.Selector]. At run time an evaluation error (a missing attribute, the
// cost limit) means the device does not match.
//
// It refuses what the API server refuses when the expression is written
// (pkg/apis/resource/validation, validateCELExpression): an expression
// longer than resourcev1.CELSelectorExpressionMaxLength bytes (10 KiB), or
// one whose worst-case cost, as CEL's estimator with the DRA size limits
// computes it, exceeds resourcev1.CELSelectorExpressionMaxCost (1,000,000).
// Those limits are what keep one evaluation near 0.1 s; without them one
// selector over a large list can hold a solve for minutes.
//
// Errors: an expression that is too long, does not compile, is not
// boolean or is too complex ([placement.ErrInvalid], naming obj and
// field).
func CompileSelector(obj, field, expression string) (dra.Selector, error) {
	if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "%d bytes exceed the limit of %d", len(expression), resourcev1.CELSelectorExpressionMaxLength)
	}
	res := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true}).CompileCELExpression(expression, dracel.Options{})
	if res.Error != nil {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "%s", res.Error.Detail)
	}
	if res.MaxCost > resourcev1.CELSelectorExpressionMaxCost {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field, "too complex: estimated cost %d exceeds the limit of %d", res.MaxCost, resourcev1.CELSelectorExpressionMaxCost)
	}
	return func(driver string, d *dra.Device) bool {
		multi := d.AllowMultipleAllocations
		in := dracel.Device{Driver: driver, AllowMultipleAllocations: &multi, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{}, Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{}}
		for n, a := range d.Attributes {
			if a.List == nil {
				// The CEL environment is v1.37's without
				// DRAListTypeAttributes: a selector does not see lists.
				in.Attributes[resourcev1.QualifiedName(n)] = apiAttribute(a)
			}
		}
		for n, v := range d.Capacity {
			in.Capacity[resourcev1.QualifiedName(n)] = resourcev1.DeviceCapacity{Value: apiQuantity(n, v)}
		}
		ok, _, err := res.DeviceMatches(context.Background(), in)
		return err == nil && ok
	}, nil
}

// capQuantity converts a device capacity or a request for one into
// canonical units: millicores for a capacity named cpu, whole units
// (bytes for memory) otherwise.
func capQuantity(obj, field string, name resourcev1.QualifiedName, q resource.Quantity) (int64, error) {
	return Quantity(obj, field, corev1.ResourceName(name), q)
}

// apiQuantity is capQuantity's inverse.
func apiQuantity(name dra.QualifiedName, v int64) resource.Quantity {
	if name == dra.QualifiedName(corev1.ResourceCPU) {
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	}
	return *resource.NewQuantity(v, resource.BinarySI)
}

// requestPolicy converts a capacity's resource.k8s.io/v1 requestPolicy.
func requestPolicy(obj, f string, name resourcev1.QualifiedName, p *resourcev1.CapacityRequestPolicy) (dra.CapacityRequestPolicy, error) {
	var out dra.CapacityRequestPolicy
	q := func(field string, in *resource.Quantity) (*int64, error) {
		if in == nil {
			return nil, nil
		}
		v, err := capQuantity(obj, f+"."+field, name, *in)
		return &v, err
	}
	var err error
	if out.Default, err = q("default", p.Default); err != nil {
		return out, err
	}
	for i := range p.ValidValues {
		v, err := capQuantity(obj, fmt.Sprintf("%s.validValues[%d]", f, i), name, p.ValidValues[i])
		if err != nil {
			return out, err
		}
		out.ValidValues = append(out.ValidValues, v)
	}
	if r := p.ValidRange; r != nil {
		if r.Min == nil {
			return out, placement.Errorf(placement.ErrInvalid, obj, f+".validRange.min", "must be set")
		}
		out.ValidRange = &dra.CapacityRange{}
		min, err := q("validRange.min", r.Min)
		if err != nil {
			return out, err
		}
		out.ValidRange.Min = *min
		if out.ValidRange.Max, err = q("validRange.max", r.Max); err != nil {
			return out, err
		}
		if out.ValidRange.Step, err = q("validRange.step", r.Step); err != nil {
			return out, err
		}
	}
	return out, nil
}

func apiAttribute(a dra.Attribute) resourcev1.DeviceAttribute {
	switch a.Kind {
	case dra.AttributeInt:
		v := a.Int
		return resourcev1.DeviceAttribute{IntValue: &v}
	case dra.AttributeBool:
		v := a.Bool
		return resourcev1.DeviceAttribute{BoolValue: &v}
	case dra.AttributeVersion:
		v := a.String
		return resourcev1.DeviceAttribute{VersionValue: &v}
	}
	v := a.String
	return resourcev1.DeviceAttribute{StringValue: &v}
}

func selectors(obj, field string, in []resourcev1.DeviceSelector) ([]dra.Selector, error) {
	var out []dra.Selector
	for i, s := range in {
		f := fmt.Sprintf("%s[%d].cel", field, i)
		if s.CEL == nil {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "must be set")
		}
		sel, err := CompileSelector(obj, f+".expression", s.CEL.Expression)
		if err != nil {
			return nil, err
		}
		out = append(out, sel)
	}
	return out, nil
}

// ConvertDeviceClass converts a resource.k8s.io/v1 DeviceClass, compiling
// its CEL selectors. spec.config is not modelled (it does not change
// which devices are allocated). Errors: a selector without cel, or one
// that does not compile; a spec.extendedResourceName that is not an
// extended resource name. Which resource a class serves (KEP-5004) is
// [NewExtendedResourceClasses]' concern, since it weighs classes against
// each other.
func ConvertDeviceClass(dc *resourcev1.DeviceClass) (dra.DeviceClass, error) {
	if dc == nil {
		return dra.DeviceClass{}, errNil("DeviceClass")
	}
	obj := objName("DeviceClass", "", dc.Name)
	if n := dc.Spec.ExtendedResourceName; n != nil {
		if err := checkExtendedResourceName(obj, *n); err != nil {
			return dra.DeviceClass{}, err
		}
	}
	sels, err := selectors(obj, "spec.selectors", dc.Spec.Selectors)
	if err != nil {
		return dra.DeviceClass{}, err
	}
	return dra.DeviceClass{Name: dc.Name, Selectors: sels}, nil
}

// nodeSelector converts a core/v1 NodeSelector of one term with label
// expressions (In, NotIn, Exists, DoesNotExist) into a label selector, the
// form [dra] takes.
func nodeSelector(obj, field string, ns *corev1.NodeSelector) (*placement.LabelSelector, error) {
	if len(ns.NodeSelectorTerms) != 1 || len(ns.NodeSelectorTerms[0].MatchFields) > 0 {
		return nil, placement.Errorf(ErrUnsupported, obj, field, "only a single term of matchExpressions is supported")
	}
	out := &placement.LabelSelector{}
	for i, e := range ns.NodeSelectorTerms[0].MatchExpressions {
		switch e.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		default:
			return nil, placement.Errorf(ErrUnsupported, obj, fmt.Sprintf("%s.nodeSelectorTerms[0].matchExpressions[%d].operator", field, i), "%q is not supported (In, NotIn, Exists, DoesNotExist)", e.Operator)
		}
		out.MatchExpressions = append(out.MatchExpressions, placement.SelectorRequirement{Key: e.Key, Operator: placement.SelectorOperator(e.Operator), Values: slices.Clone(e.Values)})
	}
	return out, nil
}

func attributes(obj, field string, in map[resourcev1.QualifiedName]resourcev1.DeviceAttribute) (map[dra.QualifiedName]dra.Attribute, error) {
	out := make(map[dra.QualifiedName]dra.Attribute, len(in))
	for _, n := range slices.Sorted(maps.Keys(in)) {
		a := in[n]
		f := field + "[" + string(n) + "]"
		set := 0
		for _, p := range []bool{a.IntValue != nil, a.BoolValue != nil, a.StringValue != nil, a.VersionValue != nil,
			a.IntValues != nil, a.BoolValues != nil, a.StringValues != nil, a.VersionValues != nil} {
			if p {
				set++
			}
		}
		if set != 1 {
			return nil, placement.Errorf(placement.ErrInvalid, obj, f, "must set exactly one of int, bool, string, version, ints, bools, strings and versions")
		}
		if l, ok, err := listAttribute(obj, f, a); ok || err != nil {
			if err != nil {
				return nil, err
			}
			out[dra.QualifiedName(n)] = l
			continue
		}
		switch {
		case a.IntValue != nil:
			out[dra.QualifiedName(n)] = dra.IntAttribute(*a.IntValue)
		case a.BoolValue != nil:
			out[dra.QualifiedName(n)] = dra.BoolAttribute(*a.BoolValue)
		case a.StringValue != nil:
			out[dra.QualifiedName(n)] = dra.StringAttribute(*a.StringValue)
		default:
			out[dra.QualifiedName(n)] = dra.VersionAttribute(*a.VersionValue)
		}
	}
	return out, nil
}

// listAttribute converts a list-valued attribute (ints, bools, strings,
// versions: DRAListTypeAttributes); ok is false for a scalar.
func listAttribute(obj, f string, a resourcev1.DeviceAttribute) (dra.Attribute, bool, error) {
	var es []dra.Attribute
	name := ""
	switch {
	case a.IntValues != nil:
		name, es = "ints", attrs(a.IntValues, dra.IntAttribute)
	case a.BoolValues != nil:
		name, es = "bools", attrs(a.BoolValues, dra.BoolAttribute)
	case a.StringValues != nil:
		name, es = "strings", attrs(a.StringValues, dra.StringAttribute)
	case a.VersionValues != nil:
		name, es = "versions", attrs(a.VersionValues, dra.VersionAttribute)
	default:
		return dra.Attribute{}, false, nil
	}
	if len(es) == 0 {
		return dra.Attribute{}, true, placement.Errorf(placement.ErrInvalid, obj, f+"."+name, "must not be empty")
	}
	return dra.ListAttribute(es...), true, nil
}

// attrs makes one attribute of each value.
func attrs[T any](vs []T, attr func(T) dra.Attribute) []dra.Attribute {
	es := make([]dra.Attribute, len(vs))
	for i, v := range vs {
		es[i] = attr(v)
	}
	return es
}

func counters(obj, field string, in map[string]resourcev1.Counter) (map[string]int64, error) {
	out := make(map[string]int64, len(in))
	for _, n := range slices.Sorted(maps.Keys(in)) {
		v, err := Quantity(obj, field+"["+n+"].value", corev1.ResourceName(n), in[n].Value)
		if err != nil {
			return nil, err
		}
		out[n] = v
	}
	return out, nil
}

// ConvertResourceSlice converts a resource.k8s.io/v1 ResourceSlice:
// driver, pool, where its devices are reachable from, shared counters and
// devices (attributes, capacities in canonical units with their request
// policies, allowMultipleAllocations (KEP-5075), counter consumption and
// taints (KEP-5055)). Binding conditions are not modelled, so a device
// that carries them is an error rather than a device wrongly free.
// Errors: an attribute that sets not exactly one value; a bad quantity;
// [ErrUnsupported] for binding conditions and node
// selectors with several terms, matchFields, or Gt/Lt.
func ConvertResourceSlice(s *resourcev1.ResourceSlice) (dra.ResourceSlice, error) {
	if s == nil {
		return dra.ResourceSlice{}, errNil("ResourceSlice")
	}
	obj := objName("ResourceSlice", "", s.Name)
	sp := &s.Spec
	out := dra.ResourceSlice{
		Name:                   s.Name,
		Driver:                 sp.Driver,
		Pool:                   sp.Pool.Name,
		NodeName:               deref(sp.NodeName),
		AllNodes:               deref(sp.AllNodes),
		PerDeviceNodeSelection: deref(sp.PerDeviceNodeSelection),
	}
	var err error
	if sp.NodeSelector != nil {
		if out.NodeSelector, err = nodeSelector(obj, "spec.nodeSelector", sp.NodeSelector); err != nil {
			return dra.ResourceSlice{}, err
		}
	}
	for i, cs := range sp.SharedCounters {
		c, err := counters(obj, fmt.Sprintf("spec.sharedCounters[%d].counters", i), cs.Counters)
		if err != nil {
			return dra.ResourceSlice{}, err
		}
		out.SharedCounters = append(out.SharedCounters, dra.CounterSet{Name: cs.Name, Counters: c})
	}
	for i := range sp.Devices {
		d := &sp.Devices[i]
		f := fmt.Sprintf("spec.devices[%d]", i)
		if len(d.BindingConditions) > 0 {
			return dra.ResourceSlice{}, placement.Errorf(ErrUnsupported, obj, f+".bindingConditions", "binding conditions are not supported")
		}
		dd := dra.Device{Name: d.Name, NodeName: deref(d.NodeName), AllNodes: deref(d.AllNodes), Capacity: map[dra.QualifiedName]int64{},
			AllowMultipleAllocations: deref(d.AllowMultipleAllocations), Taints: deviceTaints(d.Taints)}
		if dd.Attributes, err = attributes(obj, f+".attributes", d.Attributes); err != nil {
			return dra.ResourceSlice{}, err
		}
		for _, n := range slices.Sorted(maps.Keys(d.Capacity)) {
			v, err := capQuantity(obj, f+".capacity["+string(n)+"].value", n, d.Capacity[n].Value)
			if err != nil {
				return dra.ResourceSlice{}, err
			}
			dd.Capacity[dra.QualifiedName(n)] = v
			if p := d.Capacity[n].RequestPolicy; p != nil {
				rp, err := requestPolicy(obj, f+".capacity["+string(n)+"].requestPolicy", n, p)
				if err != nil {
					return dra.ResourceSlice{}, err
				}
				if dd.RequestPolicies == nil {
					dd.RequestPolicies = map[dra.QualifiedName]dra.CapacityRequestPolicy{}
				}
				dd.RequestPolicies[dra.QualifiedName(n)] = rp
			}
		}
		if d.NodeSelector != nil {
			if dd.NodeSelector, err = nodeSelector(obj, f+".nodeSelector", d.NodeSelector); err != nil {
				return dra.ResourceSlice{}, err
			}
		}
		for j, cc := range d.ConsumesCounters {
			c, err := counters(obj, fmt.Sprintf("%s.consumesCounters[%d].counters", f, j), cc.Counters)
			if err != nil {
				return dra.ResourceSlice{}, err
			}
			dd.ConsumesCounters = append(dd.ConsumesCounters, dra.CounterConsumption{CounterSet: cc.CounterSet, Counters: c})
		}
		out.Devices = append(out.Devices, dd)
	}
	return out, nil
}

func exactRequest(obj, field string, className string, sels []resourcev1.DeviceSelector, mode resourcev1.DeviceAllocationMode, count int64, admin *bool, capacity *resourcev1.CapacityRequirements, tols []resourcev1.DeviceToleration) (dra.ExactDeviceRequest, error) {
	s, err := selectors(obj, field+".selectors", sels)
	if err != nil {
		return dra.ExactDeviceRequest{}, err
	}
	out := dra.ExactDeviceRequest{DeviceClassName: className, Selectors: s, AllocationMode: dra.AllocationMode(mode), Count: count, Tolerations: deviceTolerations(tols), AdminAccess: deref(admin)}
	if capacity != nil && len(capacity.Requests) > 0 {
		out.Capacity = map[dra.QualifiedName]int64{}
		for _, n := range slices.Sorted(maps.Keys(capacity.Requests)) {
			v, err := capQuantity(obj, field+".capacity.requests["+string(n)+"]", n, capacity.Requests[n])
			if err != nil {
				return dra.ExactDeviceRequest{}, err
			}
			out.Capacity[dra.QualifiedName(n)] = v
		}
	}
	return out, nil
}

// ClaimSpec converts a resource.k8s.io/v1 ResourceClaimSpec (its device
// requests, with their capacity requests, tolerations and admin access,
// and matchAttribute and distinctAttribute constraints; config is not
// modelled). obj and field name it in errors. Errors: a selector that
// does not compile; a constraint without exactly one attribute. Whether
// the namespace allows admin access is [Load]'s check.
func ClaimSpec(obj, field string, spec *resourcev1.ResourceClaimSpec) (dra.ClaimSpec, error) {
	if spec == nil {
		return dra.ClaimSpec{}, placement.Errorf(placement.ErrInvalid, obj, field, "is nil")
	}
	var out dra.ClaimSpec
	for i, r := range spec.Devices.Requests {
		f := fmt.Sprintf("%s.devices.requests[%d]", field, i)
		dr := dra.DeviceRequest{Name: r.Name}
		if e := r.Exactly; e != nil {
			x, err := exactRequest(obj, f+".exactly", e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count, e.AdminAccess, e.Capacity, e.Tolerations)
			if err != nil {
				return dra.ClaimSpec{}, err
			}
			dr.Exactly = &x
		}
		for j, s := range r.FirstAvailable {
			x, err := exactRequest(obj, fmt.Sprintf("%s.firstAvailable[%d]", f, j), s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count, nil, s.Capacity, s.Tolerations)
			if err != nil {
				return dra.ClaimSpec{}, err
			}
			dr.FirstAvailable = append(dr.FirstAvailable, dra.DeviceSubRequest{Name: s.Name, ExactDeviceRequest: x})
		}
		out.Requests = append(out.Requests, dr)
	}
	for i, c := range spec.Devices.Constraints {
		f := fmt.Sprintf("%s.devices.constraints[%d]", field, i)
		if (c.MatchAttribute == nil) == (c.DistinctAttribute == nil) {
			return dra.ClaimSpec{}, placement.Errorf(placement.ErrInvalid, obj, f, "exactly one of matchAttribute and distinctAttribute must be set")
		}
		out.Constraints = append(out.Constraints, dra.DeviceConstraint{Requests: slices.Clone(c.Requests),
			MatchAttribute: dra.QualifiedName(deref(c.MatchAttribute)), DistinctAttribute: dra.QualifiedName(deref(c.DistinctAttribute))})
	}
	return out, nil
}

// ConvertResourceClaimTemplate converts a resource.k8s.io/v1
// ResourceClaimTemplate. Errors: as [ClaimSpec].
func ConvertResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) (dra.ResourceClaimTemplate, error) {
	if t == nil {
		return dra.ResourceClaimTemplate{}, errNil("ResourceClaimTemplate")
	}
	spec, err := ClaimSpec(objName("ResourceClaimTemplate", t.Namespace, t.Name), "spec.spec", &t.Spec.Spec)
	if err != nil {
		return dra.ResourceClaimTemplate{}, err
	}
	return dra.ResourceClaimTemplate{Namespace: t.Namespace, Name: t.Name, Spec: spec}, nil
}

// ConvertResourceClaim converts a resource.k8s.io/v1 ResourceClaim: spec,
// status.allocation (devices, and a node selector of one term, read as a
// node name when it is matchFields metadata.name In [node]) and
// status.reservedFor. A claim whose controller is a Pod or PodGroup and
// that carries the claim-name annotation is a generated claim
// ([dra.Owner]); so is one whose controller is a Pod and that carries
// upstream's resource.kubernetes.io/extended-resource-claim: "true", the
// pod's implicit claim for extended resources served by DRA (KEP-5004),
// under the entry [ExtendedResourceClaimName]. Errors: as [ClaimSpec]; [ErrUnsupported] for allocation
// node selectors of another shape.
func ConvertResourceClaim(c *resourcev1.ResourceClaim) (dra.ResourceClaim, error) {
	if c == nil {
		return dra.ResourceClaim{}, errNil("ResourceClaim")
	}
	obj := objName("ResourceClaim", c.Namespace, c.Name)
	spec, err := ClaimSpec(obj, "spec", &c.Spec)
	if err != nil {
		return dra.ResourceClaim{}, err
	}
	out := dra.ResourceClaim{Namespace: c.Namespace, Name: c.Name, UID: string(c.UID), Spec: spec}
	for _, o := range c.OwnerReferences {
		if o.Controller == nil || !*o.Controller {
			continue
		}
		switch {
		case o.Kind == "Pod" && c.Annotations[resourcev1.ExtendedResourceClaimAnnotation] == "true":
			out.Owner = &dra.Owner{Kind: dra.OwnerPod, Name: o.Name, UID: string(o.UID), ClaimName: ExtendedResourceClaimName}
		case o.Kind == "Pod" && c.Annotations[AnnotationPodClaimName] != "":
			out.Owner = &dra.Owner{Kind: dra.OwnerPod, Name: o.Name, UID: string(o.UID), ClaimName: c.Annotations[AnnotationPodClaimName]}
		case o.Kind == "PodGroup" && podGroupClaimName(c) != "":
			out.Owner = &dra.Owner{Kind: dra.OwnerPodGroup, Name: o.Name, UID: string(o.UID), ClaimName: podGroupClaimName(c)}
		}
	}
	if a := c.Status.Allocation; a != nil {
		ar := &dra.AllocationResult{}
		for i, r := range a.Devices.Results {
			dr := dra.DeviceResult{Request: r.Request, DeviceID: dra.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}, AdminAccess: deref(r.AdminAccess)}
			for _, n := range slices.Sorted(maps.Keys(r.ConsumedCapacity)) {
				v, err := capQuantity(obj, fmt.Sprintf("status.allocation.devices.results[%d].consumedCapacity[%s]", i, n), n, r.ConsumedCapacity[n])
				if err != nil {
					return dra.ResourceClaim{}, err
				}
				if dr.ConsumedCapacity == nil {
					dr.ConsumedCapacity = map[dra.QualifiedName]int64{}
				}
				dr.ConsumedCapacity[dra.QualifiedName(n)] = v
			}
			ar.Devices = append(ar.Devices, dr)
		}
		if ns := a.NodeSelector; ns != nil {
			t := ns.NodeSelectorTerms
			if len(t) == 1 && len(t[0].MatchExpressions) == 0 && len(t[0].MatchFields) == 1 && t[0].MatchFields[0].Key == "metadata.name" &&
				t[0].MatchFields[0].Operator == corev1.NodeSelectorOpIn && len(t[0].MatchFields[0].Values) == 1 {
				ar.NodeName = t[0].MatchFields[0].Values[0]
			} else {
				sel, err := nodeSelector(obj, "status.allocation.nodeSelector", ns)
				if err != nil {
					return dra.ResourceClaim{}, err
				}
				ar.NodeSelectors = []placement.LabelSelector{*sel}
			}
		}
		out.Status.Allocation = ar
	}
	for _, r := range c.Status.ReservedFor {
		out.Status.ReservedFor = append(out.Status.ReservedFor, dra.ConsumerRef{APIGroup: r.APIGroup, Resource: r.Resource, Name: r.Name, UID: string(r.UID)})
	}
	return out, nil
}

// ClaimStatus writes a [dra.ResourceClaim]'s status in resource.k8s.io/v1
// form: the allocated devices, the node selector that follows from them
// (matchFields metadata.name for a node-local device, the label selectors
// of network-attached ones ANDed in one term, none when every node
// reaches them) and reservedFor, the inverse of [ConvertResourceClaim]'s
// status part.
func ClaimStatus(c *dra.ResourceClaim) resourcev1.ResourceClaimStatus {
	var out resourcev1.ResourceClaimStatus
	if c == nil {
		return out
	}
	if a := c.Status.Allocation; a != nil {
		ar := &resourcev1.AllocationResult{}
		for _, d := range a.Devices {
			r := resourcev1.DeviceRequestAllocationResult{Request: d.Request, Driver: d.Driver, Pool: d.Pool, Device: d.Device}
			if d.AdminAccess {
				r.AdminAccess = &d.AdminAccess
			}
			if d.ConsumedCapacity != nil {
				r.ConsumedCapacity = map[resourcev1.QualifiedName]resource.Quantity{}
				for n, v := range d.ConsumedCapacity {
					r.ConsumedCapacity[resourcev1.QualifiedName(n)] = apiQuantity(n, v)
				}
				id := shareID(c, d)
				r.ShareID = &id
			}
			ar.Devices.Results = append(ar.Devices.Results, r)
		}
		var term corev1.NodeSelectorTerm
		if a.NodeName != "" {
			term.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{a.NodeName}}}
		}
		for _, s := range a.NodeSelectors {
			for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
				term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{s.MatchLabels[k]}})
			}
			for _, r := range s.MatchExpressions {
				term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: r.Key, Operator: corev1.NodeSelectorOperator(r.Operator), Values: slices.Clone(r.Values)})
			}
		}
		if len(term.MatchFields)+len(term.MatchExpressions) > 0 {
			ar.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
		}
		out.Allocation = ar
	}
	for _, r := range c.Status.ReservedFor {
		out.ReservedFor = append(out.ReservedFor, resourcev1.ResourceClaimConsumerReference{APIGroup: r.APIGroup, Resource: r.Resource, Name: r.Name, UID: types.UID(r.UID)})
	}
	return out
}

// shareID names one claim's share of a device that allows multiple
// allocations (resource.k8s.io/v1 DeviceRequestAllocationResult.shareID).
// The scheduler draws a random UID; here it is derived from the claim,
// request and device, so the same decision writes the same objects.
func shareID(c *dra.ResourceClaim, d dra.DeviceResult) types.UID {
	h := sha256.Sum256([]byte(c.Namespace + "\x00" + c.Name + "\x00" + d.Request + "\x00" + d.DeviceID.String()))
	x := hex.EncodeToString(h[:16])
	return types.UID(x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32])
}

// NewClaim writes a claim that [dra.Ledger.Commit] generated from a
// template as a resource.k8s.io/v1 ResourceClaim: spec from the template,
// owned by its pod or PodGroup (controller ownerReference, claim-name
// annotation), and its status.
func NewClaim(c *dra.ResourceClaim, tmpl *resourcev1.ResourceClaimTemplate) *resourcev1.ResourceClaim {
	if c == nil {
		return nil
	}
	out := &resourcev1.ResourceClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: resourcev1.SchemeGroupVersion.String(), Kind: "ResourceClaim"},
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name, UID: types.UID(c.UID)},
		Status:     ClaimStatus(c),
	}
	if tmpl != nil {
		out.Spec = *tmpl.Spec.Spec.DeepCopy()
		out.Labels = maps.Clone(tmpl.Spec.Labels)
		out.Annotations = maps.Clone(tmpl.Spec.Annotations)
	}
	if o := c.Owner; o != nil {
		t := true
		ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: o.Name, UID: types.UID(o.UID), Controller: &t}
		if o.Kind == dra.OwnerPodGroup {
			ref.APIVersion, ref.Kind = "scheduling.k8s.io/v1beta1", "PodGroup"
		}
		out.OwnerReferences = []metav1.OwnerReference{ref}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AnnotationPodClaimName] = o.ClaimName
	}
	return out
}

// keyOf returns the namespace/name key of an API object.
func keyOf(m metav1.Object) placement.Key {
	return placement.Key{Namespace: m.GetNamespace(), Name: m.GetName()}
}

// newestSlices keeps, of each pool, the slices of its newest generation
// (resource.k8s.io/v1 ResourcePool: older generations are stale), sorted
// by name.
func newestSlices(in []*resourcev1.ResourceSlice) []*resourcev1.ResourceSlice {
	type pool struct{ driver, name string }
	newest := map[pool]int64{}
	for _, s := range in {
		p := pool{s.Spec.Driver, s.Spec.Pool.Name}
		if g, ok := newest[p]; !ok || s.Spec.Pool.Generation > g {
			newest[p] = s.Spec.Pool.Generation
		}
	}
	var out []*resourcev1.ResourceSlice
	for _, s := range in {
		if s.Spec.Pool.Generation == newest[pool{s.Spec.Driver, s.Spec.Pool.Name}] {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *resourcev1.ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
	return out
}
