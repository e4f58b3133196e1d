package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// A two-pod gang each asking example.com/gpu: 1, which DeviceClass gpu
// serves through DRA (KEP-5004) on a node without a device plugin for it:
// each pod gets its implicit claim, created by the scheduler as upstream
// does (generated name, the pod as controller, the annotation, one request
// per container), allocated one device and reserved for the pod; the
// pod's status names the claim and maps its container to the request;
// then both bind.
func TestExtendedResourceClaimsWritten(t *testing.T) {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: new("example.com/gpu")}}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: new("n1"), Pool: resourcev1.ResourcePool{Name: "n1", ResourceSliceCount: 1},
		Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}},
	}}
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g", UID: "uid-g"},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2},
		}},
	}
	objs := []runtime.Object{cpuNode("n1"), class, slice, pg}
	for _, name := range []string{"p0", "p1"} {
		pod := cpuPod(name, "", "1")
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("g")}
		pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
		objs = append(objs, pod)
	}
	client := fake.NewClientset(objs...)
	generateClaimNames(client)
	runFake(t, client)
	ctx := context.Background()

	bound := func() bool {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "create" && a.GetSubresource() == "binding" {
				n++
			}
		}
		return n == 2
	}
	require.Eventually(t, bound, 10*time.Second, 5*time.Millisecond)

	var order []string // the writes of p0's claim and pod, in order
	for _, a := range client.Actions() {
		switch {
		case a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch":
		case a.GetResource().Resource == "resourceclaims" || a.GetResource().Resource == "pods":
			order = append(order, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	require.Equal(t, []string{
		"create resourceclaims/", "update resourceclaims/", "update resourceclaims/status", "patch pods/status",
		"create resourceclaims/", "update resourceclaims/", "update resourceclaims/status", "patch pods/status",
		"create pods/binding", "create pods/binding",
	}, order)

	claims, err := client.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, claims.Items, 2)
	devices := map[string]bool{}
	for _, c := range claims.Items {
		pod, err := client.CoreV1().Pods("default").Get(ctx, c.OwnerReferences[0].Name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, pod.Name+"-extended-resources-", c.GenerateName)
		require.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: new(true)}}, c.OwnerReferences)
		require.Equal(t, map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"}, c.Annotations)
		require.Equal(t, []resourcev1.DeviceRequest{{Name: "container-0-request-1", Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1,
		}}}, c.Spec.Devices.Requests)
		require.Equal(t, []string{resourcev1.Finalizer}, c.Finalizers)
		require.Len(t, c.Status.Allocation.Devices.Results, 1)
		r := c.Status.Allocation.Devices.Results[0]
		require.Equal(t, []string{"container-0-request-1", "gpu.example.com", "n1"}, []string{r.Request, r.Driver, r.Pool})
		devices[r.Device] = true
		require.Equal(t, []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}, c.Status.ReservedFor)
		require.Equal(t, &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: c.Name, RequestMappings: []corev1.ContainerExtendedResourceRequest{
			{ContainerName: pod.Spec.Containers[0].Name, ResourceName: "example.com/gpu", RequestName: "container-0-request-1"},
		}}, pod.Status.ExtendedResourceClaimStatus)
	}
	require.Equal(t, map[string]bool{"gpu-0": true, "gpu-1": true}, devices, "one device each")
}

// The first implicit claim's status cannot be written: the claim the
// scheduler created is deleted again and the pod not bound; at the retry a
// new claim is created and written, the pod's status names it, and the pod
// binds once.
func TestExtendedResourceClaimUndone(t *testing.T) {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: new("example.com/gpu")}}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: new("n1"), Pool: resourcev1.ResourcePool{Name: "n1", ResourceSliceCount: 1},
		Devices: []resourcev1.Device{{Name: "gpu-0"}},
	}}
	pod := cpuPod("p", "", "1")
	pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	client := fake.NewClientset(cpuNode("n1"), class, slice, pod)
	generateClaimNames(client)
	failStatus(client, "p-extended-resources-x1", 1, apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "x1", nil))
	runFakeWith(t, client, fastRetries())
	ctx := context.Background()

	bound := func() bool { return len(bindingsOf(client)) > 0 }
	require.Eventually(t, bound, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, []string{
		"create resourceclaims/", "update resourceclaims/", "update resourceclaims/status", // refused
		"delete resourceclaims/ p-extended-resources-x1",
		"create resourceclaims/", "update resourceclaims/", "update resourceclaims/status", "patch pods/status",
		"create pods/binding",
	}, claimWrites(client))
	claims, err := client.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, claims.Items, 1)
	require.Equal(t, "p-extended-resources-x2", claims.Items[0].Name)
	require.Equal(t, claimState{[]string{resourcev1.Finalizer}, []string{"n1/gpu-0"}, []types.UID{"uid-p"}}, readClaim(t, client, "p-extended-resources-x2"))
	got, err := client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "p-extended-resources-x2", got.Status.ExtendedResourceClaimStatus.ResourceClaimName)
}
