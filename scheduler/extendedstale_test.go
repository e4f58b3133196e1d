package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// staleWorld is node n1 with two DRA GPUs that DeviceClass gpu serves as
// example.com/gpu, pending pod p asking one, and p's implicit claim from
// an earlier attempt (a bind that failed after the claim was written):
// allocated n1/gpu-1, reserved for p, with the finalizer, owned by a pod
// p of UID owner.
func staleWorld(owner types.UID) []runtime.Object {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: new("example.com/gpu")}}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: new("n1"), Pool: resourcev1.ResourcePool{Name: "n1", ResourceSliceCount: 1},
		Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}},
	}}
	pod := cpuPod("p", "", "1")
	pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	stale := &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "p-extended-resources-old", UID: "uid-old", Finalizers: []string{resourcev1.Finalizer},
			Annotations:     map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: owner, Controller: new(true)}},
		},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "container-0-request-1",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}}}},
		Status: resourcev1.ResourceClaimStatus{
			Allocation: &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
				{Request: "container-0-request-1", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"}}}},
			ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: owner}},
		},
	}
	return []runtime.Object{cpuNode("n1"), class, slice, pod, stale}
}

// claimWrites lists the writes to claims and pods, deletions with the
// name, in order.
func claimWrites(client *fake.Clientset) []string {
	var writes []string
	for _, a := range client.Actions() {
		switch {
		case a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch":
		case a.GetResource().Resource == "resourceclaims" || a.GetResource().Resource == "pods":
			w := a.GetVerb() + " " + a.GetResource().Resource + "/" + a.GetSubresource()
			if d, ok := a.(k8stesting.DeleteAction); ok {
				w += " " + d.GetName()
			}
			writes = append(writes, w)
		}
	}
	return writes
}

// A pending pod's implicit claim left from an earlier attempt is not
// reused, as in v1.37's kube-scheduler: its finalizer is dropped and it is
// deleted, and only then is the pod placed, with a new claim.
func TestExtendedResourceStaleClaimDeleted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		owner  types.UID
		writes []string
		claims []string // names left, sorted
	}{
		{"the pod's own claim: deleted first", "uid-p", []string{
			"update resourceclaims/", "delete resourceclaims/ p-extended-resources-old",
			"create resourceclaims/", "update resourceclaims/", "update resourceclaims/status", "patch pods/status",
			"create pods/binding",
		}, []string{"p-extended-resources-x1"}},
		{"an earlier pod's of the same name: kept, and the pod gets a new claim beside it", "uid-p-before", []string{
			"create resourceclaims/", "update resourceclaims/", "update resourceclaims/status", "patch pods/status",
			"create pods/binding",
		}, []string{"p-extended-resources-old", "p-extended-resources-x1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(staleWorld(tc.owner)...)
			generateClaimNames(client)
			runFake(t, client)
			bound := func() bool { return len(bindingsOf(client)) > 0 }
			require.Eventually(t, bound, 10*time.Second, 5*time.Millisecond)
			require.Equal(t, tc.writes, claimWrites(client))
			list, err := client.ResourceV1().ResourceClaims("default").List(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
			var names []string
			for _, c := range list.Items {
				names = append(names, c.Name)
			}
			require.Equal(t, tc.claims, names)
			require.Equal(t, []string{"n1/gpu-0"}, readClaim(t, client, "p-extended-resources-x1").Devices, "gpu-1 is the old claim's")
		})
	}
}
