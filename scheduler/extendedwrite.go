package scheduler

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/placement"
)

// createExtended creates the implicit claim a cycle generated for a pod's
// extended resources served by DRA (KEP-5004), as v1.37's kube-scheduler
// does in PreBind: named "<pod>-extended-resources-" plus the API
// server's suffix, controlled by the pod, annotated
// resource.kubernetes.io/extended-resource-claim: "true", with the spec
// kube.ExtendedResourceClaim builds. The claim's status is written after,
// as any claim's. The assumption made under the ledger's name moves to
// the created name, and u is renamed, so that a failed write undoes and
// unassumes the object created. It returns the pod's implicit claim as
// recorded when it was queued.
func (s *Scheduler) createExtended(ctx context.Context, u *dra.ClaimUpdate) (extendedPod, error) {
	o := u.Claim.Owner
	pod := placement.Key{Namespace: u.Claim.Namespace, Name: o.Name}
	s.mu.Lock()
	ext, ok := s.dra.extended[pod]
	s.mu.Unlock()
	if !ok || o.UID == "" {
		return ext, fmt.Errorf("%w: pod %s no longer asks for extended resources served by DRA", errClaimWrite, pod)
	}
	c := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    pod.Namespace,
			GenerateName: pod.Name + "-" + kube.ExtendedResourceClaimName + "-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: types.UID(o.UID), Controller: new(true),
			}},
			Annotations: map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
		},
	}
	// On a node whose device plugin serves a resource the pod asks, the
	// claim asks no device for it (kube.PerNode).
	c.Spec, ext.mappings = kube.VisibleExtended(ext.tmpl.API, ext.mappings, &u.Claim)
	// Not retried: a create whose answer is lost would leave a second
	// claim; the pod's owner reference lets the garbage collector take it.
	created, err := s.client.ResourceV1().ResourceClaims(pod.Namespace).Create(ctx, c, metav1.CreateOptions{})
	if err != nil {
		return ext, fmt.Errorf("creating the implicit claim of pod %s: %w", pod, err)
	}
	s.mu.Lock()
	delete(s.dra.assumed, u.Claim.Key())
	u.Claim.Name, u.Claim.UID = created.Name, string(created.UID)
	s.dra.assumed[u.Claim.Key()] = u.Claim
	s.mu.Unlock()
	return ext, nil
}

// patchExtendedStatus names pod's implicit claim and its request mappings
// in the pod's status.extendedResourceClaimStatus, which the kubelet reads
// to hand each container its devices.
func (s *Scheduler) patchExtendedStatus(ctx context.Context, u *dra.ClaimUpdate, ext extendedPod) error {
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"extendedResourceClaimStatus": corev1.PodExtendedResourceClaimStatus{
		RequestMappings: ext.mappings, ResourceClaimName: u.Claim.Name,
	}}})
	if err != nil {
		return err
	}
	pods := s.client.CoreV1().Pods(u.Claim.Namespace)
	return retry(ctx, func() error {
		_, err := pods.Patch(ctx, u.Claim.Owner.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	})
}
