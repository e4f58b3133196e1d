package kube

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

func TestCompileSelector(t *testing.T) {
	gpu := &dra.Device{
		Name:       "gpu-0",
		Attributes: map[dra.QualifiedName]dra.Attribute{"model": dra.StringAttribute("A100"), "gpu.example.com/cores": dra.IntAttribute(108), "driverVersion": dra.VersionAttribute("550.1.0")},
		Capacity:   map[dra.QualifiedName]int64{"memory": 80 << 30},
	}
	cases := []struct {
		expr string
		want bool
	}{
		{`device.driver == "gpu.example.com"`, true},
		{`device.driver == "other"`, false},
		{`device.attributes["gpu.example.com"].model == "A100"`, true},
		{`device.attributes["gpu.example.com"].cores >= 100`, true},
		{`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`, true},
		{`device.capacity["gpu.example.com"].memory.compareTo(quantity("100Gi")) >= 0`, false},
		{`device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("500.0.0"))`, true},
		// A missing attribute is a runtime error: no match.
		{`device.attributes["gpu.example.com"].missing == "x"`, false},
	}
	for _, c := range cases {
		sel, err := CompileSelector("DeviceClass \"x\"", "spec.selectors[0].cel.expression", c.expr)
		require.NoError(t, err, c.expr)
		require.Equal(t, c.want, sel("gpu.example.com", gpu), c.expr)
	}
	_, err := CompileSelector(`DeviceClass "x"`, "spec.selectors[0].cel.expression", `device.driver ==`)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, `DeviceClass "x": spec.selectors[0].cel.expression: compilation failed`)
	_, err = CompileSelector(`DeviceClass "x"`, "f", `device.driver`)
	require.ErrorContains(t, err, "must evaluate to bool")
}

// nestedAll is a selector L.all(i, L.all(j, …)) over a
// list literal of n integers, whose estimated cost grows as n².
func nestedAll(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i)
	}
	l := "[" + strings.Join(items, ",") + "]"
	return l + ".all(i, " + l + ".all(j, device.driver == 'gpu.example.com' || i + j >= 0))"
}

// TestRegression_SelectorCost: a selector nesting two all() over 1,000
// elements estimates at 11,014,011, over the API server's 1,000,000, and
// is refused naming its field, as the API server would refuse it; over
// 300 elements it estimates at 994,211 and compiles. A selector longer
// than 10 KiB is refused before compiling.
func TestRegression_SelectorCost(t *testing.T) {
	const obj, field = `ResourceClaimTemplate "ns/t"`, "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"
	_, err := CompileSelector(obj, field, nestedAll(1000))
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.EqualError(t, err, obj+": "+field+": too complex: estimated cost 11014011 exceeds the limit of 1000000")

	sel, err := CompileSelector(obj, field, nestedAll(300))
	require.NoError(t, err)
	require.True(t, sel("gpu.example.com", &dra.Device{Name: "gpu-0"}))

	_, err = CompileSelector(obj, field, `device.driver == "`+strings.Repeat("x", 10*1024)+`"`)
	require.EqualError(t, err, obj+": "+field+": 10259 bytes exceed the limit of 10240")

	// Through the converter, the field is the claim's own.
	_, err = ClaimSpec(`ResourceClaim "ns/c"`, "spec", &resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: nestedAll(1000)}}}},
	}}}})
	require.ErrorContains(t, err, `ResourceClaim "ns/c": spec.devices.requests[0].exactly.selectors[0].cel.expression: too complex`)
}

func TestConvertResourceSlice(t *testing.T) {
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "fabric"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver: "fabric.example.com",
			Pool:   resourcev1.ResourcePool{Name: "rack-a", Generation: 1, ResourceSliceCount: 1},
			NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "rack", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
			}}}},
			SharedCounters: []resourcev1.CounterSet{{Name: "mem", Counters: map[string]resourcev1.Counter{"memory": {Value: resource.MustParse("80Gi")}}}},
			Devices: []resourcev1.Device{{
				Name:             "ib-0",
				Attributes:       map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"gbps": {IntValue: ptr(int64(400))}},
				Capacity:         map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse("1Gi")}},
				ConsumesCounters: []resourcev1.DeviceCounterConsumption{{CounterSet: "mem", Counters: map[string]resourcev1.Counter{"memory": {Value: resource.MustParse("40Gi")}}}},
			}},
		},
	}
	got, err := ConvertResourceSlice(s)
	require.NoError(t, err)
	require.Equal(t, dra.ResourceSlice{
		Name: "fabric", Driver: "fabric.example.com", Pool: "rack-a",
		NodeSelector:   &placement.LabelSelector{MatchExpressions: []placement.SelectorRequirement{{Key: "rack", Operator: placement.SelectorOpIn, Values: []string{"a"}}}},
		SharedCounters: []dra.CounterSet{{Name: "mem", Counters: map[string]int64{"memory": 80 << 30}}},
		Devices: []dra.Device{{
			Name: "ib-0", Attributes: map[dra.QualifiedName]dra.Attribute{"gbps": dra.IntAttribute(400)},
			Capacity:         map[dra.QualifiedName]int64{"memory": 1 << 30},
			ConsumesCounters: []dra.CounterConsumption{{CounterSet: "mem", Counters: map[string]int64{"memory": 40 << 30}}},
		}},
	}, got)

	s.Spec.NodeSelector.NodeSelectorTerms[0].MatchExpressions[0].Operator = corev1.NodeSelectorOpGt
	_, err = ConvertResourceSlice(s)
	require.ErrorIs(t, err, ErrUnsupported)
	require.EqualError(t, err, `ResourceSlice "fabric": spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator: "Gt" is not supported (In, NotIn, Exists, DoesNotExist)`)
	s.Spec.NodeSelector = nil
	s.Spec.Devices[0].Attributes["gbps"] = resourcev1.DeviceAttribute{IntValue: ptr(int64(1)), StringValue: ptr("x")}
	_, err = ConvertResourceSlice(s)
	require.EqualError(t, err, `ResourceSlice "fabric": spec.devices[0].attributes[gbps]: must set exactly one of int, bool, string, version, ints, bools, strings and versions`)
	s.Spec.Devices[0].Attributes["gbps"] = resourcev1.DeviceAttribute{IntValues: []int64{1}, IntValue: ptr(int64(1))}
	_, err = ConvertResourceSlice(s)
	require.EqualError(t, err, `ResourceSlice "fabric": spec.devices[0].attributes[gbps]: must set exactly one of int, bool, string, version, ints, bools, strings and versions`)
	s.Spec.Devices[0].Attributes["gbps"] = resourcev1.DeviceAttribute{StringValues: []string{}}
	_, err = ConvertResourceSlice(s)
	require.EqualError(t, err, `ResourceSlice "fabric": spec.devices[0].attributes[gbps].strings: must not be empty`)
	for _, tc := range []struct {
		in   resourcev1.DeviceAttribute
		want dra.Attribute
	}{
		{resourcev1.DeviceAttribute{IntValues: []int64{0, 1}}, dra.ListAttribute(dra.IntAttribute(0), dra.IntAttribute(1))},
		{resourcev1.DeviceAttribute{BoolValues: []bool{true}}, dra.ListAttribute(dra.BoolAttribute(true))},
		{resourcev1.DeviceAttribute{StringValues: []string{"a"}}, dra.ListAttribute(dra.StringAttribute("a"))},
		{resourcev1.DeviceAttribute{VersionValues: []string{"1.2.3"}}, dra.ListAttribute(dra.VersionAttribute("1.2.3"))},
	} {
		s.Spec.Devices[0].Attributes["gbps"] = tc.in
		got, err := ConvertResourceSlice(s)
		require.NoError(t, err)
		require.Equal(t, tc.want, got.Devices[0].Attributes["gbps"])
	}
	s.Spec.Devices[0].Attributes = nil
	s.Spec.Devices[0].Capacity["memory"] = resourcev1.DeviceCapacity{Value: resource.MustParse("-1")}
	_, err = ConvertResourceSlice(s)
	require.EqualError(t, err, `ResourceSlice "fabric": spec.devices[0].capacity[memory].value: -1 is negative`)
}

func TestResourceClaimRoundTrip(t *testing.T) {
	ctl := true
	in := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "train-fabric", UID: "c1",
			Annotations:     map[string]string{AnnotationPodGroupClaimName: "fabric"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "PodGroup", Name: "train", UID: "g1", Controller: &ctl}},
		},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "fabric", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "fabric.example.com", Count: 1}}},
		}},
		Status: resourcev1.ResourceClaimStatus{
			Allocation: &resourcev1.AllocationResult{
				Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "fabric", Driver: "fabric.example.com", Pool: "rack-a", Device: "ib-0"}}},
				NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "rack", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
				}}}},
			},
			ReservedFor: []resourcev1.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: "train", UID: "g1"}},
		},
	}
	c, err := ConvertResourceClaim(in)
	require.NoError(t, err)
	require.Equal(t, &dra.Owner{Kind: dra.OwnerPodGroup, Name: "train", UID: "g1", ClaimName: "fabric"}, c.Owner)
	// v1.37's resourceclaim controller marks a PodGroup's claim as it
	// marks a pod's; that annotation wins over the older one.
	upstream := in.DeepCopy()
	upstream.Annotations = map[string]string{AnnotationPodClaimName: "fabric", AnnotationPodGroupClaimName: "stale"}
	cu, err := ConvertResourceClaim(upstream)
	require.NoError(t, err)
	require.Equal(t, c.Owner, cu.Owner)
	require.Equal(t, []dra.ConsumerRef{dra.PodGroupRef("train", "g1")}, c.Status.ReservedFor)
	require.True(t, equality.Semantic.DeepEqual(in.Status, ClaimStatus(&c)), "status round trip")

	// A node-local allocation is a matchFields term on metadata.name.
	in.Status.Allocation.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-a"}},
	}}}}
	c, err = ConvertResourceClaim(in)
	require.NoError(t, err)
	require.Equal(t, "node-a", c.Status.Allocation.NodeName)
	require.True(t, equality.Semantic.DeepEqual(in.Status, ClaimStatus(&c)))

	// Admin access (KEP-5018) is read in the request and in the results,
	// and written back.
	in.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr(true)
	for i := range in.Status.Allocation.Devices.Results {
		in.Status.Allocation.Devices.Results[i].AdminAccess = ptr(true)
	}
	c, err = ConvertResourceClaim(in)
	require.NoError(t, err)
	require.True(t, c.Spec.Requests[0].Exactly.AdminAccess)
	require.True(t, c.Status.Allocation.Devices[0].AdminAccess)
	require.True(t, equality.Semantic.DeepEqual(in.Status, ClaimStatus(&c)), "status round trip with admin access")
	in.Spec.Devices.Requests[0].Exactly.AdminAccess = nil
	in.Spec.Devices.Constraints = []resourcev1.DeviceConstraint{{DistinctAttribute: ptr(resourcev1.FullyQualifiedName("x/y"))}}
	c, err = ConvertResourceClaim(in)
	require.NoError(t, err)
	require.Equal(t, []dra.DeviceConstraint{{DistinctAttribute: "x/y"}}, c.Spec.Constraints)
	in.Spec.Devices.Constraints[0].MatchAttribute = ptr(resourcev1.FullyQualifiedName("x/y"))
	_, err = ConvertResourceClaim(in)
	require.EqualError(t, err, `ResourceClaim "default/train-fabric": spec.devices.constraints[0]: exactly one of matchAttribute and distinctAttribute must be set`)
}

func TestNewestSlices(t *testing.T) {
	mk := func(name, pool string, gen int64) *resourcev1.ResourceSlice {
		return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourcev1.ResourceSliceSpec{Driver: "d", Pool: resourcev1.ResourcePool{Name: pool, Generation: gen}}}
	}
	got := newestSlices([]*resourcev1.ResourceSlice{mk("c", "p1", 2), mk("a", "p1", 1), mk("b", "p2", 1), mk("d", "p1", 2)})
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"b", "c", "d"}, names)
}

// TestConvertConsumableCapacity: a shared device's allowMultipleAllocations
// and request policy, a request's capacity and an allocation's
// consumedCapacity convert to canonical units and back, with a shareID
// that depends only on claim, request and device.
func TestConvertConsumableCapacity(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	yes := true
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "n1"}, NodeName: ptrTo("n1"),
		Devices: []resourcev1.Device{{Name: "gpu-0", AllowMultipleAllocations: &yes, Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{
			"memory": {Value: resource.MustParse("40Gi"), RequestPolicy: &resourcev1.CapacityRequestPolicy{
				Default: q("10Gi"), ValidRange: &resourcev1.CapacityRequestPolicyRange{Min: q("5Gi"), Step: q("5Gi")}}},
		}}},
	}}
	got, err := ConvertResourceSlice(s)
	require.NoError(t, err)
	d := got.Devices[0]
	require.True(t, d.AllowMultipleAllocations)
	require.Equal(t, int64(40<<30), d.Capacity["memory"])
	five, ten := int64(5<<30), int64(10<<30)
	require.Equal(t, map[dra.QualifiedName]dra.CapacityRequestPolicy{"memory": {Default: &ten, ValidRange: &dra.CapacityRange{Min: five, Step: &five}}}, d.RequestPolicies)

	s.Spec.Devices[0].Capacity["memory"].RequestPolicy.ValidRange.Min = nil
	_, err = ConvertResourceSlice(s)
	require.EqualError(t, err, `ResourceSlice "gpus": spec.devices[0].capacity[memory].requestPolicy.validRange.min: must be set`)

	spec, err := ClaimSpec(`ResourceClaim "ns/c"`, "spec", &resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", Capacity: &resourcev1.CapacityRequirements{Requests: map[resourcev1.QualifiedName]resource.Quantity{"memory": resource.MustParse("12Gi")}}},
	}}}})
	require.NoError(t, err)
	require.Equal(t, map[dra.QualifiedName]int64{"memory": 12 << 30}, spec.Requests[0].Exactly.Capacity)

	c := &dra.ResourceClaim{Namespace: "ns", Name: "c", Status: dra.ClaimStatus{Allocation: &dra.AllocationResult{Devices: []dra.DeviceResult{{
		Request: "gpu", DeviceID: dra.DeviceID{Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}, ConsumedCapacity: map[dra.QualifiedName]int64{"memory": 15 << 30},
	}}}}}
	st := ClaimStatus(c)
	r := st.Allocation.Devices.Results[0]
	require.Equal(t, "15Gi", ptrTo(r.ConsumedCapacity["memory"]).String())
	require.NotNil(t, r.ShareID)
	require.Equal(t, r.ShareID, ClaimStatus(c).Allocation.Devices.Results[0].ShareID, "the same claim writes the same shareID")
	back, err := ConvertResourceClaim(&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}}}}, Status: st})
	require.NoError(t, err)
	require.Equal(t, c.Status.Allocation.Devices, back.Status.Allocation.Devices)
}

func ptrTo[T any](v T) *T { return &v }

// TestUnsupportedDRAFields: fields the model lacks are errors naming the
// field, never silently dropped: a device waiting on binding conditions
// would otherwise look ready, and a class backed by an extended resource
// would serve nothing.
func TestUnsupportedDRAFields(t *testing.T) {
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "n1"}, NodeName: ptrTo("n1"),
		Devices: []resourcev1.Device{{Name: "gpu-0", BindingConditions: []string{"ready"}}},
	}}
	_, err := ConvertResourceSlice(s)
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, "spec.devices[0].bindingConditions: binding conditions are not supported")

}
