package dra

import (
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// QualifiedName names a device attribute or capacity (resource.k8s.io/v1
// QualifiedName): "domain/id", or a bare "id", which belongs to the domain
// of the driver that publishes the device.
type QualifiedName string

// AttributeKind says which field of an [Attribute] holds its value.
type AttributeKind uint8

// Attribute kinds (resource.k8s.io/v1 DeviceAttribute: exactly one of
// int, bool, string, version is set). The zero kind is invalid.
const (
	AttributeInt AttributeKind = iota + 1
	AttributeBool
	AttributeString
	AttributeVersion
)

// Attribute is one device attribute (resource.k8s.io/v1 DeviceAttribute).
// Build it with [IntAttribute], [BoolAttribute], [StringAttribute],
// [VersionAttribute] or, for a list, [ListAttribute]; compare two with
// [Attribute.Equal] or, as sets, [Attribute.Overlaps].
type Attribute struct {
	Kind AttributeKind
	Int  int64
	Bool bool
	// String holds a string or a semantic version.
	String string
	// List holds the elements of a list-valued attribute
	// (resource.k8s.io/v1 ints, bools, strings, versions; the
	// DRAListTypeAttributes feature, alpha in v1.37), each a scalar of
	// Kind; nil for a scalar.
	List []Attribute
}

// IntAttribute returns an integer attribute.
func IntAttribute(v int64) Attribute { return Attribute{Kind: AttributeInt, Int: v} }

// BoolAttribute returns a boolean attribute.
func BoolAttribute(v bool) Attribute { return Attribute{Kind: AttributeBool, Bool: v} }

// StringAttribute returns a string attribute.
func StringAttribute(v string) Attribute { return Attribute{Kind: AttributeString, String: v} }

// VersionAttribute returns a semantic-version attribute, e.g. "1.2.3".
func VersionAttribute(v string) Attribute { return Attribute{Kind: AttributeVersion, String: v} }

// CounterSet is a named set of counters that partitionable devices draw
// from (resource.k8s.io/v1 CounterSet, KEP-4815): e.g. one physical GPU's
// memory, shared by the partitions the driver publishes for it. Counter
// values are in canonical units (bytes for memory, whole units otherwise).
type CounterSet struct {
	Name     string
	Counters map[string]int64
}

// CounterConsumption is what one device takes from one counter set of its
// pool when it is allocated (resource.k8s.io/v1 DeviceCounterConsumption).
type CounterConsumption struct {
	CounterSet string
	Counters   map[string]int64
}

// Device is one device in a [ResourceSlice] (resource.k8s.io/v1 Device).
type Device struct {
	// Name is unique within the pool.
	Name string
	// Attributes are the device's attributes, read by selectors and by
	// matchAttribute constraints.
	Attributes map[QualifiedName]Attribute
	// Capacity holds the device's capacities in canonical units (bytes for
	// memory).
	Capacity map[QualifiedName]int64
	// AllowMultipleAllocations lets several claims share the device at
	// once, each consuming part of its capacities (KEP-5075 consumable
	// capacity): the sum of what they consume of each capacity stays within
	// it. Without it a device belongs to at most one claim.
	AllowMultipleAllocations bool
	// RequestPolicies constrain what a request may consume of a capacity
	// (resource.k8s.io/v1 DeviceCapacity.requestPolicy), keyed like
	// Capacity; each name must be one of Capacity's.
	RequestPolicies map[QualifiedName]CapacityRequestPolicy
	// ConsumesCounters lists what the device takes from its pool's counter
	// sets while it is allocated (KEP-4815 partitionable devices): two
	// devices that overlap on hardware consume the same counters, so they
	// cannot both be allocated when the counters do not cover both.
	ConsumesCounters []CounterConsumption
	// Taints keep requests that do not tolerate them off the device
	// (KEP-5055; see [DeviceTaint]); a [DeviceTaintRule] adds more.
	Taints []DeviceTaint
	// NodeName, NodeSelector and AllNodes say where this device is
	// reachable from; exactly one is set when the slice sets
	// PerDeviceNodeSelection, none otherwise.
	NodeName     string
	NodeSelector *placement.LabelSelector
	AllNodes     bool
}

// CapacityRequestPolicy says what a request may consume of one capacity of
// a device (resource.k8s.io/v1 CapacityRequestPolicy, KEP-5075): a request
// that names no amount consumes Default (the whole capacity when unset);
// an amount is rounded up to the next of ValidValues (ascending), or up to
// ValidRange's next step from its Min; an amount that then still is not
// valid (above every valid value, above Max) does not fit the device. At
// most one of ValidValues and ValidRange is set. Values are in canonical
// units.
type CapacityRequestPolicy struct {
	Default     *int64
	ValidValues []int64
	ValidRange  *CapacityRange
}

// CapacityRange is a range of valid amounts (resource.k8s.io/v1
// CapacityRequestPolicyRange): from Min, in steps of Step (any amount when
// nil), up to Max (no bound when nil).
type CapacityRange struct {
	Min  int64
	Max  *int64
	Step *int64
}

// ResourceSlice is one driver-published slice of a pool of devices
// (resource.k8s.io/v1 ResourceSlice spec). Exactly one of NodeName,
// NodeSelector, AllNodes and PerDeviceNodeSelection says which nodes can
// reach the devices: one node (node-local devices), the nodes whose labels
// match (network-attached devices), every node, or each device for itself.
//
// Pool generations and resourceSliceCount are the adapter's concern: pass
// only the slices of each pool's newest generation.
type ResourceSlice struct {
	// Name is the slice's metadata.name, unique among slices.
	Name string
	// Driver and Pool identify the pool; a device is identified by driver,
	// pool and device name across all slices of the pool.
	Driver string
	Pool   string

	NodeName               string
	NodeSelector           *placement.LabelSelector
	AllNodes               bool
	PerDeviceNodeSelection bool

	// SharedCounters are counter sets of the pool, usable by the devices
	// of every slice of the pool. Names are unique within the pool.
	SharedCounters []CounterSet
	Devices        []Device
}

// Selector decides whether a device may satisfy a request
// (resource.k8s.io/v1 DeviceSelector). The kube adapter compiles a CEL
// expression into a Selector; a CEL runtime error means false. driver is
// the publishing driver (CEL's device.driver). It must be a pure function
// and must not modify d.
type Selector func(driver string, d *Device) bool

// DeviceClass is a category of devices that requests name
// (resource.k8s.io/v1 DeviceClass): a device belongs to the class when
// every selector accepts it.
type DeviceClass struct {
	Name      string
	Selectors []Selector
}

// Attr returns the attribute called name of device d published by driver.
// A fully qualified name "domain/id" also finds a bare "id" when the domain
// is the driver's, as the API defines.
func Attr(driver string, d *Device, name QualifiedName) (Attribute, bool) {
	if a, ok := d.Attributes[name]; ok {
		return a, true
	}
	if dom, id, ok := strings.Cut(string(name), "/"); ok && dom == driver {
		a, ok := d.Attributes[QualifiedName(id)]
		return a, ok
	}
	return Attribute{}, false
}

// Capacity returns the capacity called name of device d published by
// driver, resolving names like [Attr].
func Capacity(driver string, d *Device, name QualifiedName) (int64, bool) {
	if q, ok := d.Capacity[name]; ok {
		return q, true
	}
	if dom, id, ok := strings.Cut(string(name), "/"); ok && dom == driver {
		q, ok := d.Capacity[QualifiedName(id)]
		return q, ok
	}
	return 0, false
}

// AttributeEquals selects devices whose attribute name equals v (CEL:
// device.attributes[domain].id == v).
func AttributeEquals(name QualifiedName, v Attribute) Selector {
	return func(driver string, d *Device) bool {
		a, ok := Attr(driver, d, name)
		return ok && a.Equal(v)
	}
}

// CapacityAtLeast selects devices whose capacity name is at least q, in
// canonical units (CEL: device.capacity[domain].id.compareTo(quantity(q))
// >= 0).
func CapacityAtLeast(name QualifiedName, q int64) Selector {
	return func(driver string, d *Device) bool {
		c, ok := Capacity(driver, d, name)
		return ok && c >= q
	}
}

// AllocationMode is how a request counts devices (resource.k8s.io/v1
// DeviceAllocationMode).
type AllocationMode string

// Allocation modes. The empty mode means ExactCount.
const (
	// AllocationModeExactCount asks for Count devices (0 means 1).
	AllocationModeExactCount AllocationMode = "ExactCount"
	// AllocationModeAll asks for every matching device reachable from the
	// node; at least one must exist, and allocation fails when any of them
	// is already allocated.
	AllocationModeAll AllocationMode = "All"
)

// ExactDeviceRequest asks for devices of one class (resource.k8s.io/v1
// ExactDeviceRequest).
type ExactDeviceRequest struct {
	// DeviceClassName names a [DeviceClass]; it must exist when the claim
	// is allocated.
	DeviceClassName string
	// Selectors narrow the class further; all must accept a device.
	Selectors      []Selector
	AllocationMode AllocationMode
	// Count is the number of devices for ExactCount (0 means 1, the API's
	// default); it must be 0 for All.
	Count int64
	// Capacity is what each device must provide, per capacity name, in
	// canonical units (resource.k8s.io/v1 CapacityRequirements.requests,
	// KEP-5075): a device lacking a named capacity does not match; on a
	// device that allows multiple allocations the amounts, rounded by the
	// device's request policy, are consumed, and a capacity not named here
	// is consumed by its policy's default or whole.
	Capacity map[QualifiedName]int64
	// Tolerations let the request be allocated devices whose NoSchedule
	// or NoExecute taints they match (KEP-5055); a device with a taint
	// that none tolerates is never allocated for the request.
	Tolerations []DeviceToleration
	// AdminAccess asks for access to devices for monitoring or
	// maintenance (KEP-5018): the request may be allocated devices that
	// other claims hold, and its devices stay free for others — it takes
	// no device, counter or capacity. A claim may still not list one
	// device twice, and taints, selectors and reachability apply as for
	// any request. Upstream allows it only in namespaces labelled
	// resource.kubernetes.io/admin-access: "true", which the host (the
	// kube adapter) checks.
	AdminAccess bool
}

// DeviceSubRequest is one alternative of a prioritized list
// (resource.k8s.io/v1 DeviceSubRequest, KEP-4816). In results it is named
// "<request>/<subrequest>".
type DeviceSubRequest struct {
	Name string
	ExactDeviceRequest
}

// DeviceRequest is one request of a claim (resource.k8s.io/v1
// DeviceRequest): exactly one of Exactly and FirstAvailable is set.
// FirstAvailable lists alternatives in order of preference; the first that
// can be satisfied, together with the claim's other requests, wins
// (KEP-4816).
type DeviceRequest struct {
	Name           string
	Exactly        *ExactDeviceRequest
	FirstAvailable []DeviceSubRequest
}

// DeviceConstraint constrains the devices of several requests of one claim
// (resource.k8s.io/v1 DeviceConstraint), with exactly one of its two
// attributes set: every device allocated for the named requests must carry
// the attribute MatchAttribute, with one value, or the attribute
// DistinctAttribute, each with a value of its own (e.g. shares of
// different GPUs). Requests names requests ("gpu") or subrequests
// ("gpu/small"); empty means every request of the claim.
type DeviceConstraint struct {
	Requests          []string
	MatchAttribute    QualifiedName
	DistinctAttribute QualifiedName
}

// ClaimSpec is what a claim asks for (resource.k8s.io/v1 ResourceClaimSpec
// devices: requests and constraints; config is not modelled).
type ClaimSpec struct {
	Requests    []DeviceRequest
	Constraints []DeviceConstraint
}

// ResourceClaimTemplate yields claims (resource.k8s.io/v1
// ResourceClaimTemplate): one per pod that names it, or one per PodGroup
// whose spec.resourceClaims names it (KEP-5729).
type ResourceClaimTemplate struct {
	Namespace string
	Name      string
	Spec      ClaimSpec
	// Serves, when set, says what the claims made from the template are
	// for, in words a user knows from their own objects: the kube
	// adapter sets it on the template standing for a pod's implicit claim
	// for extended resources served by DRA (KEP-5004), e.g.
	// "example.com/gpu: 2 devices of DeviceClass gpu.example.com".
	// Rejections that name a claim still to be made from the template add
	// it.
	Serves string
}

// Key returns the template's namespace/name.
func (t *ResourceClaimTemplate) Key() placement.Key {
	return placement.Key{Namespace: t.Namespace, Name: t.Name}
}

// OwnerKind is the kind of object a generated claim belongs to.
type OwnerKind string

// Owner kinds of generated claims.
const (
	OwnerPod      OwnerKind = "Pod"
	OwnerPodGroup OwnerKind = "PodGroup"
)

// Owner records which pod or PodGroup a claim was generated for, and from
// which of its spec.resourceClaims entries (upstream: the claim's
// controller ownerReference plus the resource.kubernetes.io/pod-claim-name
// or podgroup-claim-name annotation). A generated claim is deleted with
// its owner.
type Owner struct {
	Kind OwnerKind
	// Name is the owner's name, in the claim's namespace.
	Name string
	UID  string
	// ClaimName is the name of the owner's spec.resourceClaims entry.
	ClaimName string
}

// ConsumerRef is one entry of a claim's status.reservedFor
// (resource.k8s.io/v1 ResourceClaimConsumerReference), in the claim's
// namespace.
type ConsumerRef struct {
	APIGroup string
	Resource string
	Name     string
	UID      string
}

// PodRef returns the reservedFor entry of a pod (core group, resource
// pods).
func PodRef(name, uid string) ConsumerRef {
	return ConsumerRef{Resource: "pods", Name: name, UID: uid}
}

// PodGroupRef returns the reservedFor entry of a PodGroup (KEP-5729:
// apiGroup scheduling.k8s.io, resource podgroups). One such entry stands
// for every member of the group.
func PodGroupRef(name, uid string) ConsumerRef {
	return ConsumerRef{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: name, UID: uid}
}

// IsPod reports whether the entry refers to a pod.
func (c ConsumerRef) IsPod() bool { return c.APIGroup == "" && c.Resource == "pods" }

// same reports whether two entries refer to one object; the UID is not
// compared, since an entry is removed by name when its object goes.
func (c ConsumerRef) same(o ConsumerRef) bool {
	return c.APIGroup == o.APIGroup && c.Resource == o.Resource && c.Name == o.Name
}

// MaxReservedFor is the most entries status.reservedFor may hold
// (resource.k8s.io/v1 ResourceClaimReservedForMaxSize). A PodGroup entry
// counts once however many members it stands for.
const MaxReservedFor = 256

// DeviceID identifies a device: driver, pool, device name.
type DeviceID struct {
	Driver string
	Pool   string
	Device string
}

// String returns "driver/pool/device".
func (id DeviceID) String() string { return id.Driver + "/" + id.Pool + "/" + id.Device }

// DeviceResult is one allocated device (resource.k8s.io/v1
// DeviceRequestAllocationResult): the request ("gpu") or subrequest
// ("gpu/small") it serves and the device.
type DeviceResult struct {
	Request string
	DeviceID
	// ConsumedCapacity is what the claim consumes of a device that allows
	// multiple allocations, per capacity (resource.k8s.io/v1
	// DeviceRequestAllocationResult.consumedCapacity); nil for an
	// exclusive device. The ledger derives it from the request and the
	// device's policies; an input that sets it must agree.
	ConsumedCapacity map[QualifiedName]int64
	// AdminAccess is set when the request has admin access (KEP-5018):
	// the device is not held by the claim. The ledger derives it from the
	// request; an input that sets it must agree.
	AdminAccess bool
}

// AllocationResult is a claim's status.allocation (resource.k8s.io/v1
// AllocationResult). NodeName and NodeSelectors follow from the devices:
// NodeName is set when a device is node-local (every consumer must run on
// that node), NodeSelectors holds the distinct node selectors of the
// network-attached devices (a consumer's node must match all of them), and
// both are empty when every device is reachable from every node.
type AllocationResult struct {
	Devices       []DeviceResult
	NodeName      string
	NodeSelectors []placement.LabelSelector
}

// Reachable reports whether a pod on node n can use the allocated devices.
func (a *AllocationResult) Reachable(n *placement.Node) bool {
	if a.NodeName != "" && a.NodeName != n.Name {
		return false
	}
	for i := range a.NodeSelectors {
		if !a.NodeSelectors[i].Matches(n.Labels) {
			return false
		}
	}
	return true
}

// ClaimStatus is a claim's status (resource.k8s.io/v1 ResourceClaimStatus):
// its allocation, nil while unallocated, and its consumers.
type ClaimStatus struct {
	Allocation  *AllocationResult
	ReservedFor []ConsumerRef
}

// ResourceClaim is a request for devices (resource.k8s.io/v1
// ResourceClaim).
type ResourceClaim struct {
	Namespace string
	Name      string
	UID       string
	// Owner is set on claims generated from a template for a pod or a
	// PodGroup.
	Owner  *Owner
	Spec   ClaimSpec
	Status ClaimStatus
}

// Key returns the claim's namespace/name.
func (c *ResourceClaim) Key() placement.Key {
	return placement.Key{Namespace: c.Namespace, Name: c.Name}
}

// PodGroupResourceClaim is one entry of a PodGroup's spec.resourceClaims
// (scheduling.k8s.io/v1alpha2, KEP-5729): exactly one of ResourceClaimName
// and ResourceClaimTemplateName is set. A member pod uses the group's claim
// for its own spec.resourceClaims entry only when all three fields are
// equal; such a claim is reserved for the PodGroup instead of the pod.
type PodGroupResourceClaim struct {
	Name                      string
	ResourceClaimName         string
	ResourceClaimTemplateName string
}

// PodGroup is the part of a scheduling.k8s.io/v1alpha2 PodGroup that DRA
// reads: its identity and spec.resourceClaims, plus constraints on devices
// across its members' claims, which no Kubernetes API has (the kube
// adapter reads them from an annotation).
type PodGroup struct {
	Namespace      string
	Name           string
	UID            string
	ResourceClaims []PodGroupResourceClaim
	// DeviceConstraints bind the devices of all the members' claims
	// together (see [GroupDeviceConstraint]); at most
	// [MaxGroupDeviceConstraints]. The hook and Commit honour them in the
	// same complete search as the claims' own constraints.
	DeviceConstraints []GroupDeviceConstraint
}

// Key returns the PodGroup's namespace/name.
func (g *PodGroup) Key() placement.Key { return placement.Key{Namespace: g.Namespace, Name: g.Name} }
