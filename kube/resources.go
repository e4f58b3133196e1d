package kube

import (
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gangsched/gangsched/placement"
)

var (
	maxValue = *resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
	maxMilli = *resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)
)

// Quantity converts one resource.Quantity to the canonical int64 unit of
// resource r: millicores for "cpu", whole units (bytes for memory, storage
// and hugepages; devices for extended resources) for everything else, a
// fractional value rounded up as resource.Quantity.Value does.
//
// Errors (a [*placement.FieldError] wrapping [placement.ErrInvalid], with
// obj and field as given): a negative quantity; one above math.MaxInt64 in
// its canonical unit; a fractional quantity of an extended resource (a name
// with a domain outside kubernetes.io, e.g. "nvidia.com/gpu"), which the
// API server rejects as well (core/v1 validation of extended resources).
func Quantity(obj, field string, r corev1.ResourceName, q resource.Quantity) (int64, error) {
	if q.Sign() < 0 {
		return 0, placement.Errorf(placement.ErrInvalid, obj, field, "%s is negative", q.String())
	}
	if r == corev1.ResourceCPU {
		if q.Cmp(maxMilli) > 0 {
			return 0, placement.Errorf(placement.ErrInvalid, obj, field, "%s does not fit in int64 millicores", quoted(q))
		}
		return q.MilliValue(), nil
	}
	if q.Cmp(maxValue) > 0 {
		return 0, placement.Errorf(placement.ErrInvalid, obj, field, "%s does not fit in int64", quoted(q))
	}
	v := q.Value()
	if isExtended(r) && q.CmpInt64(v) != 0 {
		return 0, placement.Errorf(placement.ErrInvalid, obj, field, "%s: an extended resource must be a whole number", q.String())
	}
	return v, nil
}

// quoted writes q for an error message. A binary-suffixed quantity past
// int64 (100Ei) is clamped to math.MaxInt64 when apimachinery parses it, so
// the value as written is gone by the time it reaches us; the message says so
// instead of quoting a number the user never wrote.
func quoted(q resource.Quantity) string {
	if q.Cmp(maxValue) == 0 {
		return q.String() + " (the largest quantity apimachinery reads; a larger one, such as 100Ei, is clamped to it)"
	}
	return q.String()
}

// isExtended reports whether r is an extended resource: a domain-qualified
// name outside the kubernetes.io domain (core/v1 helper
// IsExtendedResourceName, less the quota prefix that pods never use).
func isExtended(r corev1.ResourceName) bool {
	s := string(r)
	return strings.Contains(s, "/") && !strings.HasPrefix(s, "kubernetes.io/") && !strings.Contains(s, ".kubernetes.io/")
}

// ResourceList converts a core/v1 ResourceList to a [placement.ResourceList]
// in canonical units (see [Quantity]); zero quantities are dropped. Field is
// the list's API path, e.g. "status.allocatable"; an error names
// field[resource].
func ResourceList(obj, field string, rl corev1.ResourceList) (placement.ResourceList, error) {
	if len(rl) == 0 {
		return nil, nil
	}
	out := make(placement.ResourceList, len(rl))
	for _, r := range sortedNames(rl) {
		if r == "" {
			return nil, placement.Errorf(placement.ErrInvalid, obj, field, "empty resource name")
		}
		v, err := Quantity(obj, field+"["+string(r)+"]", r, rl[r])
		if err != nil {
			return nil, err
		}
		if v != 0 {
			out[placement.ResourceName(r)] = v
		}
	}
	return out, nil
}

// sortedNames returns the keys of rl in order, so that the first error
// reported for a list with several bad entries is always the same one.
func sortedNames(rl corev1.ResourceList) []corev1.ResourceName {
	return slices.Sorted(maps.Keys(rl))
}

// podLevelResources are the resources that a pod's spec.resources may set
// (KEP-2837 pod-level resources): cpu, memory and hugepages.
func podLevelResource(r placement.ResourceName) bool {
	return r == placement.ResourceCPU || r == placement.ResourceMemory || strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix)
}

// PodRequests returns the effective requests of a pod spec as kube-scheduler
// computes them (k8s.io/component-helpers resource.PodRequests), in
// canonical units:
//
//   - each container's requests, with a request missing for a resource
//     that has a limit defaulted to the limit (as the API server's
//     defaulting does);
//   - regular containers and restartable init containers (sidecars,
//     restartPolicy: Always, KEP-753) add up, since they run together;
//   - each regular init container runs alone with the sidecars started
//     before it, so the pod needs at least the largest of those sums;
//   - the effective request per resource is the larger of the two;
//   - pod-level requests (spec.resources, KEP-2837) replace the aggregate
//     for the resources they set (cpu, memory, hugepages);
//   - spec.overhead (RuntimeClass pod overhead, KEP-688) is added.
//
// obj names the pod in errors. Errors: any bad quantity (see [Quantity]);
// a request for the "pods" resource, which containers may not request; a
// sum that overflows int64.
func PodRequests(obj string, spec *corev1.PodSpec) (placement.ResourceList, error) {
	return podRequests(obj, spec, nil)
}

// podRequests is PodRequests with nonMissing added to every container
// (init containers included) for each resource it neither requests nor
// limits (k8s.io/component-helpers PodResourcesOptions.
// NonMissingContainerRequests).
func podRequests(obj string, spec *corev1.PodSpec, nonMissing placement.ResourceList) (placement.ResourceList, error) {
	if spec == nil {
		return nil, placement.Errorf(placement.ErrInvalid, obj, "spec", "is nil")
	}
	sum := placement.ResourceList{}
	for i := range spec.Containers {
		c := &spec.Containers[i]
		req, err := containerRequests(obj, "spec.containers["+itoa(i)+"]", c, nonMissing)
		if err != nil {
			return nil, err
		}
		if err := addTo(obj, "spec.containers["+itoa(i)+"].resources.requests", sum, req); err != nil {
			return nil, err
		}
	}
	initMax := placement.ResourceList{}
	sidecars := placement.ResourceList{}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		field := "spec.initContainers[" + itoa(i) + "]"
		req, err := containerRequests(obj, field, c, nonMissing)
		if err != nil {
			return nil, err
		}
		var peak placement.ResourceList
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			if err := addTo(obj, field+".resources.requests", sum, req); err != nil {
				return nil, err
			}
			if err := addTo(obj, field+".resources.requests", sidecars, req); err != nil {
				return nil, err
			}
			peak = sidecars
		} else {
			peak = placement.ResourceList{}
			if err := addTo(obj, field+".resources.requests", peak, sidecars); err != nil {
				return nil, err
			}
			if err := addTo(obj, field+".resources.requests", peak, req); err != nil {
				return nil, err
			}
		}
		for r, q := range peak {
			initMax[r] = max(initMax[r], q)
		}
	}
	for r, q := range initMax {
		sum[r] = max(sum[r], q)
	}
	if spec.Resources != nil {
		pl, err := requestsWithLimits(obj, "spec.resources", &spec.Resources.Requests, spec.Resources.Limits)
		if err != nil {
			return nil, err
		}
		for _, r := range slices.Sorted(maps.Keys(pl)) {
			q := pl[r]
			if !podLevelResource(r) {
				return nil, placement.Errorf(placement.ErrInvalid, obj, "spec.resources.requests["+string(r)+"]", "pod-level resources support only cpu, memory and hugepages")
			}
			sum[r] = q
		}
	}
	oh, err := ResourceList(obj, "spec.overhead", spec.Overhead)
	if err != nil {
		return nil, err
	}
	if err := addTo(obj, "spec.overhead", sum, oh); err != nil {
		return nil, err
	}
	for r, q := range sum {
		if q == 0 {
			delete(sum, r)
		}
	}
	if len(sum) == 0 {
		return nil, nil
	}
	return sum, nil
}

func containerRequests(obj, field string, c *corev1.Container, nonMissing placement.ResourceList) (placement.ResourceList, error) {
	field += ".resources"
	req, err := requestsWithLimits(obj, field, &c.Resources.Requests, c.Resources.Limits)
	if err != nil {
		return nil, err
	}
	for r, q := range nonMissing {
		// A request defaulted from a limit is there, as the API server
		// writes it; an explicit 0 is there too.
		_, asked := c.Resources.Requests[corev1.ResourceName(r)]
		_, limited := c.Resources.Limits[corev1.ResourceName(r)]
		if !asked && !limited {
			if req == nil {
				req = placement.ResourceList{}
			}
			req[r] = q
		}
	}
	return req, nil
}

// requestsWithLimits converts requests, defaulting each resource that has a
// limit but no request to the limit (core/v1 defaulting of container and
// pod-level resources).
func requestsWithLimits(obj, field string, requests *corev1.ResourceList, limits corev1.ResourceList) (placement.ResourceList, error) {
	req, err := ResourceList(obj, field+".requests", *requests)
	if err != nil {
		return nil, err
	}
	for _, r := range sortedNames(limits) {
		if _, ok := (*requests)[r]; ok {
			continue
		}
		v, err := Quantity(obj, field+".limits["+string(r)+"]", r, limits[r])
		if err != nil {
			return nil, err
		}
		if v != 0 {
			if req == nil {
				req = placement.ResourceList{}
			}
			req[placement.ResourceName(r)] = v
		}
	}
	if _, ok := req[placement.ResourcePods]; ok {
		return nil, placement.Errorf(placement.ErrInvalid, obj, field+".requests[pods]", "the pods resource cannot be requested; each pod counts 1 implicitly")
	}
	return req, nil
}

// addTo adds src into dst, failing on int64 overflow.
func addTo(obj, field string, dst, src placement.ResourceList) error {
	for _, r := range slices.Sorted(maps.Keys(src)) {
		q := src[r]
		if dst[r] > math.MaxInt64-q {
			return placement.Errorf(placement.ErrInvalid, obj, field+"["+string(r)+"]", "sum of requests overflows int64")
		}
		dst[r] += q
	}
	return nil
}

// CanonicalQuantity is the inverse of [Quantity]: it writes v, in the
// canonical unit of r, as a resource.Quantity (millicores for "cpu";
// for memory, storage and hugepages a binary suffix when v is a whole
// number of one (3Gi), else the decimal form Kubernetes reads the plain
// number back as (3G for 3000000000); plain numbers otherwise), so that
// Quantity(CanonicalQuantity(r, v)) == v. It is the form Kueue v0.17
// writes in status.admission.podSetAssignments[].resourceUsage and its
// messages (pkg/resources ResourceQuantity, which reparses a binary
// quantity's string so that it round-trips): a quantity written so reads
// back as itself, and gangsim's -o yaml on its own output writes it
// unchanged. Read, not copied.
func CanonicalQuantity(r placement.ResourceName, v int64) resource.Quantity {
	switch {
	case r == placement.ResourceCPU:
		return *resource.NewMilliQuantity(v, resource.DecimalSI)
	case r == placement.ResourceMemory || r == placement.ResourceEphemeralStorage || strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix):
		q := resource.NewQuantity(v, resource.BinarySI)
		// A value that is no whole number of a binary suffix is written
		// as a plain number, which reads back as DecimalSI: the quantity
		// read back is the canonical one.
		if back, err := resource.ParseQuantity(q.String()); err == nil {
			return back
		}
		return *q
	}
	return *resource.NewQuantity(v, resource.DecimalSI)
}

// APIResourceList is the inverse of [ResourceList].
func APIResourceList(rl placement.ResourceList) corev1.ResourceList {
	if len(rl) == 0 {
		return nil
	}
	out := make(corev1.ResourceList, len(rl))
	for r, v := range rl {
		out[corev1.ResourceName(r)] = CanonicalQuantity(r, v)
	}
	return out
}
