package kube

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// ExtendedResourceClaimName is the spec.resourceClaims entry under which
// a pod's implicit claim for extended resources backed by DRA (KEP-5004)
// is resolved, and so the suffix of the claim generated for it:
// "<pod>-extended-resources", where upstream writes that base plus a
// random suffix. The pod's own spec never carries the entry; a pod that
// names an entry so itself while asking for such a resource is refused.
const ExtendedResourceClaimName = "extended-resources"

// ExtendedResourceClasses maps an extended resource name to the
// DeviceClass that serves it through DRA (KEP-5004, v1.37): a class's
// spec.extendedResourceName, and the implicit name
// "deviceclass.resource.kubernetes.io/<class>".
type ExtendedResourceClasses map[corev1.ResourceName]string

// NewExtendedResourceClasses builds the mapping from the DeviceClasses of
// a cluster, as v1.37's kube-scheduler holds it after it starts: its
// cache (k8s.io/dynamic-resource-allocation extendedresourcecache) takes
// the classes in the order the API server lists them, by name, and a
// class that names a resource another class already serves must win
// against that class, or it gets no mapping at all, not even its implicit
// name. A class wins when it was created later, or at the same time with
// a name that sorts first. So the newest class serves a contested
// resource, and a losing class keeps its implicit name only when its name
// sorts before the winner's (it arrived, and took its mappings, first).
// nil classes are skipped; the order of classes does not matter.
//
// A scheduler that was running while the classes were created saw them in
// creation order instead, where every loser keeps its implicit name;
// this mapping is the one after a restart.
func NewExtendedResourceClasses(classes []*resourcev1.DeviceClass) ExtendedResourceClasses {
	byName := slices.DeleteFunc(slices.Clone(classes), func(dc *resourcev1.DeviceClass) bool { return dc == nil })
	slices.SortStableFunc(byName, func(a, b *resourcev1.DeviceClass) int { return cmp.Compare(a.Name, b.Name) })
	out := ExtendedResourceClasses{}
	holder := map[corev1.ResourceName]*resourcev1.DeviceClass{}
	for _, dc := range byName {
		if dc.Spec.ExtendedResourceName != nil {
			r := corev1.ResourceName(*dc.Spec.ExtendedResourceName)
			if h, ok := holder[r]; ok && !newerClass(dc, h) {
				continue
			}
			holder[r], out[r] = dc, dc.Name
		}
		out[corev1.ResourceName(resourcev1.ResourceDeviceClassPrefix+dc.Name)] = dc.Name
	}
	return out
}

// newerClass reports whether DeviceClass a takes an extended resource
// name from b: created later, or at the same time (to the nanosecond, as
// upstream compares) with a name that sorts first.
func newerClass(a, b *resourcev1.DeviceClass) bool {
	if c := cmp.Compare(a.CreationTimestamp.UnixNano(), b.CreationTimestamp.UnixNano()); c != 0 {
		return c > 0
	}
	return a.Name < b.Name
}

// Class returns the DeviceClass that serves extended resource r.
func (e ExtendedResourceClasses) Class(r corev1.ResourceName) (string, bool) {
	name, ok := e[r]
	return name, ok
}

// isDRAExtended reports whether r may be served by a DeviceClass: an
// extended resource, or a class's implicit name (upstream's
// IsDRAExtendedResourceName).
func isDRAExtended(r corev1.ResourceName) bool {
	return isExtended(r) || strings.HasPrefix(string(r), resourcev1.ResourceDeviceClassPrefix)
}

// checkExtendedResourceName checks a DeviceClass's
// spec.extendedResourceName: an extended resource name as a pod may
// request it.
func checkExtendedResourceName(obj, name string) error {
	if !isExtended(corev1.ResourceName(name)) || strings.HasPrefix(name, "requests.") {
		return placement.Errorf(placement.ErrInvalid, obj, "spec.extendedResourceName", "%q is not an extended resource name (domain-qualified, outside kubernetes.io)", name)
	}
	return nil
}

// ExtendedResourceClaim returns the device requests of the implicit claim
// that serves pod's extended resources through DRA, and the pod's
// status.extendedResourceClaimStatus request mappings. class says which
// DeviceClass serves a resource on the node at hand; resources it does
// not serve are left to the node's allocatable.
//
// The requests follow v1.37's scheduler: every long-lived container (a
// regular container, or an init container with restartPolicy Always)
// asking n units of a served resource gets a request
// "container-<i>-request-<j>" of exactly n devices of the class, i its
// index among init containers then containers, j the resource's index
// among the container's sorted request names. A short-lived init
// container runs before the long-lived containers that come after it, so
// it borrows their requests first and asks only for what they lack; of
// the short-lived containers' own requests only the largest is kept, and
// the others' mappings point to it, since they run one at a time.
// Requests are sorted by name. A claim with no request means the pod
// needs no device. Errors: a quantity [PodRequests] refuses; a container
// asking more units of a served resource than [dra.MaxRequestCount].
func ExtendedResourceClaim(pod *corev1.Pod, class func(corev1.ResourceName) (string, bool)) (resourcev1.ResourceClaimSpec, []corev1.ContainerExtendedResourceRequest, error) {
	var spec resourcev1.ResourceClaimSpec
	obj := podObj(pod.Namespace, pod.Name)
	containers := slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers)
	asks := make([]placement.ResourceList, len(containers))
	served := map[corev1.ResourceName]string{}
	for i := range containers {
		req, err := containerRequests(obj, containerField(pod, i), &containers[i], nil)
		if err != nil {
			return spec, nil, err
		}
		asks[i] = req
		for r := range req {
			if name, ok := class(corev1.ResourceName(r)); ok && isDRAExtended(corev1.ResourceName(r)) {
				served[corev1.ResourceName(r)] = name
			}
		}
	}
	var reqs []resourcev1.DeviceRequest
	var mappings []corev1.ContainerExtendedResourceRequest
	for _, r := range slices.Sorted(maps.Keys(served)) {
		// A request asks one container's units at most. Named here: the
		// claim's own check would word it for a claim the user never wrote.
		for i := range containers {
			if n := asks[i][placement.ResourceName(r)]; n > dra.MaxRequestCount {
				from := ".resources.requests["
				if _, ok := containers[i].Resources.Requests[r]; !ok {
					from = ".resources.limits[" // the request defaulted from it
				}
				return spec, nil, placement.Errorf(placement.ErrInvalid, obj, containerField(pod, i)+from+string(r)+"]",
					"%d devices of DeviceClass %s, more than one request may ask (%d)", n, served[r], dra.MaxRequestCount)
			}
		}
		rq, mp := extendedRequests(pod, containers, asks, r, served[r])
		reqs, mappings = append(reqs, rq...), append(mappings, mp...)
	}
	slices.SortFunc(reqs, func(a, b resourcev1.DeviceRequest) int { return cmp.Compare(a.Name, b.Name) })
	spec.Devices.Requests = reqs
	return spec, mappings, nil
}

// containerField names container i of the init containers followed by
// the containers of pod, as a field path.
func containerField(pod *corev1.Pod, i int) string {
	if i < len(pod.Spec.InitContainers) {
		return "spec.initContainers[" + itoa(i) + "]"
	}
	return "spec.containers[" + itoa(i-len(pod.Spec.InitContainers)) + "]"
}

// extendedRequests makes the requests and mappings of resource r, served
// by class, for ExtendedResourceClaim.
func extendedRequests(pod *corev1.Pod, containers []corev1.Container, asks []placement.ResourceList, r corev1.ResourceName, class string) ([]resourcev1.DeviceRequest, []corev1.ContainerExtendedResourceRequest) {
	nInit := len(pod.Spec.InitContainers)
	request := func(i int, n int64) resourcev1.DeviceRequest {
		c := &containers[i].Resources
		names := slices.Sorted(maps.Keys(c.Requests))
		for k := range c.Limits {
			if _, ok := c.Requests[k]; !ok {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		return resourcev1.DeviceRequest{
			Name:    fmt.Sprintf("container-%d-request-%d", i, slices.Index(names, r)),
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n},
		}
	}
	mapping := func(i int, req string) corev1.ContainerExtendedResourceRequest {
		return corev1.ContainerExtendedResourceRequest{ContainerName: containers[i].Name, ResourceName: string(r), RequestName: req}
	}
	longLived := func(i int) bool {
		rp := containers[i].RestartPolicy
		return i >= nInit || (rp != nil && *rp == corev1.ContainerRestartPolicyAlways)
	}
	long := make([]*resourcev1.DeviceRequest, len(containers))
	var longMaps, shortMaps []corev1.ContainerExtendedResourceRequest
	for i := range containers {
		if n := asks[i][placement.ResourceName(r)]; n > 0 && longLived(i) {
			rq := request(i, n)
			long[i] = &rq
			longMaps = append(longMaps, mapping(i, rq.Name))
		}
	}
	var most *resourcev1.DeviceRequest // the largest short-lived request
	var shortNames []string
	for i := range nInit {
		n := asks[i][placement.ResourceName(r)]
		if n == 0 || longLived(i) {
			continue
		}
		// Long-lived containers after this one have not started yet: their
		// devices are free while it runs.
		for _, l := range long[i:] {
			if l != nil && n > 0 {
				shortMaps = append(shortMaps, mapping(i, l.Name))
				n -= l.Exactly.Count
			}
		}
		if n <= 0 {
			continue
		}
		rq := request(i, n)
		shortMaps = append(shortMaps, mapping(i, rq.Name))
		shortNames = append(shortNames, rq.Name)
		if most == nil || rq.Exactly.Count > most.Exactly.Count {
			most = &rq
		}
	}
	var reqs []resourcev1.DeviceRequest
	if most != nil {
		reqs = append(reqs, *most)
		for k := range shortMaps {
			if slices.Contains(shortNames, shortMaps[k].RequestName) {
				shortMaps[k].RequestName = most.Name
			}
		}
	}
	for _, l := range long {
		if l != nil {
			reqs = append(reqs, *l)
		}
	}
	return reqs, slices.Concat(longMaps, shortMaps)
}

// extendedServes says what an implicit claim serves, per resource in
// name order: "example.com/gpu: 2 devices of DeviceClass gpu.example.com".
func extendedServes(spec *resourcev1.ResourceClaimSpec, mappings []corev1.ContainerExtendedResourceRequest) string {
	class, count := map[string]string{}, map[string]int64{}
	for _, r := range spec.Devices.Requests {
		class[r.Name], count[r.Name] = r.Exactly.DeviceClassName, r.Exactly.Count
	}
	per := map[string]map[string]bool{} // resource → its requests
	for _, m := range mappings {
		if per[m.ResourceName] == nil {
			per[m.ResourceName] = map[string]bool{}
		}
		per[m.ResourceName][m.RequestName] = true
	}
	var parts []string
	for _, res := range slices.Sorted(maps.Keys(per)) {
		n, cl := int64(0), ""
		for _, req := range slices.Sorted(maps.Keys(per[res])) {
			n, cl = n+count[req], class[req]
		}
		parts = append(parts, fmt.Sprintf("%s: %d devices of DeviceClass %s", res, n, cl))
	}
	return strings.Join(parts, ", ")
}

// extendedTemplateName names the template standing for an implicit claim
// spec serving what serves says: pods asking alike share it, so that
// members alike stay alike for batching. The angle brackets keep it apart
// from every API object's name.
func extendedTemplateName(spec *resourcev1.ResourceClaimSpec, serves string) string {
	var b strings.Builder
	for _, r := range spec.Devices.Requests {
		fmt.Fprintf(&b, "%s\x00%s\x00%d\x00", r.Name, r.Exactly.DeviceClassName, r.Exactly.Count)
	}
	h := sha256.Sum256([]byte(b.String() + serves))
	return "<" + ExtendedResourceClaimName + ">-" + hex.EncodeToString(h[:6])
}
