package kube

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// DeletedClaim is a ResourceClaim of the input that [Load] deleted before
// the first cycle, as v1.37's kube-scheduler deletes it.
type DeletedClaim struct {
	// Claim is the deleted claim.
	Claim placement.Key
	// Pod is the pending pod it belonged to.
	Pod placement.Key
}

// IsExtendedClaimOf reports whether claim is pod's implicit claim for
// extended resources served by DRA, as kube-scheduler finds it
// (findExtendedResourceClaim, v1.37): it carries
// resource.kubernetes.io/extended-resource-claim: "true" and a controller
// owner reference with the pod's name and UID, in the pod's namespace. A
// claim left by a pod of the same name but another UID is not the pod's.
func IsExtendedClaimOf(claim *resourcev1.ResourceClaim, pod *corev1.Pod) bool {
	if claim.Namespace != pod.Namespace || claim.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
		return false
	}
	return slices.ContainsFunc(claim.OwnerReferences, func(o metav1.OwnerReference) bool {
		return o.Name == pod.Name && o.UID == pod.UID && o.Controller != nil && *o.Controller
	})
}

// deleteStaleExtendedClaims deletes the implicit claims that pending pods
// asking for a resource a DeviceClass serves (classes) have already: a
// claim left from an earlier attempt (a failed bind, a pod sent back
// after its claim was written). kube-scheduler (v1.37, DynamicResources)
// does not check whether such a claim's devices still suit the pod: its
// Filter finds every node unschedulable for a claim that has requests,
// its PostFilter deletes the claim, and the pod is tried again with a new
// claim. Here the claim is deleted at once: its devices are free for the
// first cycle, it leaves the ledger and [Cluster.Objects], and
// [Cluster.DeletedClaims] names it. kube-scheduler places such a pod one
// failed attempt and a backoff later. Gated pods are not seen by the
// scheduler, so their claims stay. A claim owned by an earlier pod of
// the same name (another UID) is not the pod's: it holds its devices as a
// claim of no owner, and the pod gets a new one. Errors: [ErrUnsupported] for such a
// claim with no requests, which kube-scheduler would adopt as its own
// in-memory claim and never writes itself.
func (c *Cluster) deleteStaleExtendedClaims(in *inputs, classes ExtendedResourceClasses) error {
	stale := map[placement.Key]bool{}
	var keys []placement.Key // sorted once, not per pending pod
	for i := range c.Pending {
		p := &c.Pending[i]
		if !classes.AsksFor(p.Requests) {
			continue
		}
		if keys == nil {
			keys = slices.SortedFunc(maps.Keys(c.claims), placement.Key.Compare)
		}
		api := c.pods[p.Key()]
		for _, k := range keys {
			cl, ok := c.claims[k]
			if !ok || !IsExtendedClaimOf(cl, api) { // deleted for an earlier pod
				continue
			}
			if len(cl.Spec.Devices.Requests) == 0 {
				return c.locate(placement.Errorf(ErrUnsupported, objName("ResourceClaim", k.Namespace, k.Name), "spec.devices.requests",
					"the implicit claim of pending pod %q has no requests: kube-scheduler would fill it in rather than delete it, which gangsched does not model", p.Key().String()))
			}
			stale[k] = true
			c.DeletedClaims = append(c.DeletedClaims, DeletedClaim{Claim: k, Pod: p.Key()})
			if c.deleted == nil {
				c.deleted = map[*resourcev1.ResourceClaim]bool{}
			}
			c.deleted[cl] = true
			delete(c.claims, k)
		}
	}
	in.claims = slices.DeleteFunc(in.claims, func(cl dra.ResourceClaim) bool { return stale[cl.Key()] })
	for i := range in.claims {
		o := in.claims[i].Owner
		if o == nil || o.Kind != dra.OwnerPod || o.ClaimName != ExtendedResourceClaimName {
			continue
		}
		// Left by an earlier pod of the same name: kube-scheduler does not
		// take it for this pod's, and makes the pod a new one. It keeps its
		// devices until the garbage collector, not modelled, removes it.
		if p, ok := c.pods[placement.Key{Namespace: in.claims[i].Namespace, Name: o.Name}]; ok && string(p.UID) != o.UID {
			in.claims[i].Owner = nil
		}
	}
	return nil
}

// AsksFor reports whether requests req (a pod's, as [PodRequests] sums
// them) ask for a resource that a DeviceClass serves, whichever way the
// nodes serve it (upstream's hasDeviceClassMappedExtendedResource): the
// pods whose implicit claim from an earlier attempt kube-scheduler
// deletes.
func (e ExtendedResourceClasses) AsksFor(req placement.ResourceList) bool {
	for r, v := range req {
		if _, ok := e[corev1.ResourceName(r)]; ok && v > 0 && isDRAExtended(corev1.ResourceName(r)) {
			return true
		}
	}
	return false
}
