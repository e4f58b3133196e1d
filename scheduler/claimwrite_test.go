package scheduler

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

func apiClaim(name string) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
}

// committed is claim name as a cycle committed it: allocated device dev
// of node n1 and reserved for pod.
func committed(name, dev, pod string) dra.ClaimUpdate {
	return dra.ClaimUpdate{Claim: dra.ResourceClaim{Namespace: "default", Name: name, UID: "uid-" + name, Status: dra.ClaimStatus{
		Allocation:  &dra.AllocationResult{Devices: []dra.DeviceResult{{Request: "dev", DeviceID: dra.DeviceID{Driver: "gpu.example.com", Pool: "n1", Device: dev}}}, NodeName: "n1"},
		ReservedFor: []dra.ConsumerRef{dra.PodRef(pod, "uid-"+pod)},
	}}}
}

// claimState is what the test reads back of a claim: finalizers, devices,
// reservedFor UIDs.
type claimState struct {
	Finalizers  []string
	Devices     []string
	ReservedFor []types.UID
}

func readClaim(t *testing.T, client *fake.Clientset, name string) claimState {
	c, err := client.ResourceV1().ResourceClaims("default").Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var st claimState
	if len(c.Finalizers) > 0 {
		st.Finalizers = c.Finalizers
	}
	if a := c.Status.Allocation; a != nil {
		for _, r := range a.Devices.Results {
			st.Devices = append(st.Devices, r.Pool+"/"+r.Device)
		}
	}
	for _, r := range c.Status.ReservedFor {
		st.ReservedFor = append(st.ReservedFor, r.UID)
	}
	return st
}

// failStatus makes the first n status updates of claim name fail with err.
func failStatus(client *fake.Clientset, name string, n int, err error) {
	client.PrependReactor("update", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.UpdateAction)
		if a.GetSubresource() != "status" || u.GetObject().(*resourcev1.ResourceClaim).Name != name || n == 0 {
			return false, nil, nil
		}
		n--
		return true, nil, err
	})
}

func claimScheduler(t *testing.T, client *fake.Clientset) *Scheduler {
	s, err := New(client, DefaultConfig(), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.NoError(t, s.registerObjects(context.Background()))
	return s
}

var conflict = apierrors.NewConflict(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "a", nil)

// A gang's two claims are written with the finalizer, the allocation and
// the reservation; a conflict on the first is read again and retried.
func TestWriteClaims(t *testing.T) {
	client := fake.NewClientset(apiClaim("a"), apiClaim("b"))
	failStatus(client, "a", 1, conflict)
	s := claimScheduler(t, client)
	failed := s.writeClaims(context.Background(), []gangWrite{{
		group:  placement.Key{Namespace: "default", Name: "g"},
		claims: []dra.ClaimUpdate{committed("a", "gpu-0", "p0"), committed("b", "gpu-1", "p1")},
	}})
	require.Equal(t, []bool{false}, failed)
	require.Equal(t, claimState{[]string{resourcev1.Finalizer}, []string{"n1/gpu-0"}, []types.UID{"uid-p0"}}, readClaim(t, client, "a"))
	require.Equal(t, claimState{[]string{resourcev1.Finalizer}, []string{"n1/gpu-1"}, []types.UID{"uid-p1"}}, readClaim(t, client, "b"))
}

// The second claim's status cannot be written: the gang is not bound,
// and nothing of its writes is left — the first claim's allocation,
// reservation and finalizer, and the finalizer the second got before its
// status failed, are all taken back.
func TestWriteClaimsUndoneOnFailure(t *testing.T) {
	client := fake.NewClientset(apiClaim("a"), apiClaim("b"))
	failStatus(client, "b", 1, apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "b", nil))
	s := claimScheduler(t, client)
	failed := s.writeClaims(context.Background(), []gangWrite{{
		group:  placement.Key{Namespace: "default", Name: "g"},
		claims: []dra.ClaimUpdate{committed("a", "gpu-0", "p0"), committed("b", "gpu-1", "p1")},
	}})
	require.Equal(t, []bool{true}, failed)
	require.Equal(t, claimState{}, readClaim(t, client, "a"))
	require.Equal(t, claimState{}, readClaim(t, client, "b"))
}

// A claim another scheduler allocated other devices meanwhile is not
// overwritten: the gang fails and the claim keeps its allocation.
func TestWriteClaimsAllocatedElsewhere(t *testing.T) {
	other := apiClaim("a")
	other.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{
		{Request: "dev", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"},
	}}}
	client := fake.NewClientset(other)
	s := claimScheduler(t, client)
	failed := s.writeClaims(context.Background(), []gangWrite{{
		group:  placement.Key{Namespace: "default", Name: "g"},
		claims: []dra.ClaimUpdate{committed("a", "gpu-0", "p0")},
	}})
	require.Equal(t, []bool{true}, failed)
	require.Equal(t, claimState{Devices: []string{"n1/gpu-1"}}, readClaim(t, client, "a"))
}

// A gang whose claim cannot be written the first time is not bound, has
// the finalizer it got taken back, and binds at its retry with the claim
// written whole; its PodGroup's Scheduled condition is written then,
// although the failed cycle had decided it once already.
func TestClaimWriteFailureRetried(t *testing.T) {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: new("n1"), Pool: resourcev1.ResourcePool{Name: "n1", ResourceSliceCount: 1},
		Devices: []resourcev1.Device{{Name: "gpu-0"}},
	}}
	claim := apiClaim("c")
	claim.Spec.Devices.Requests = []resourcev1.DeviceRequest{{Name: "dev", Exactly: &resourcev1.ExactDeviceRequest{
		DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1,
	}}}
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g", UID: "uid-g"},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1},
		}},
	}
	pod := cpuPod("p", "", "1")
	pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("g")}
	pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "dev", ResourceClaimName: new("c")}}
	client := fake.NewClientset(cpuNode("n1"), class, slice, claim, pg, pod)
	failStatus(client, "c", 1, apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "c", nil))
	runFakeWith(t, client, fastRetries())
	ctx := context.Background()

	scheduled := func() bool {
		g, err := client.SchedulingV1beta1().PodGroups("default").Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			return false
		}
		c := meta.FindStatusCondition(g.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
		return c != nil && c.Status == metav1.ConditionTrue
	}
	require.Eventually(t, scheduled, 10*time.Second, 5*time.Millisecond)
	var finalizers [][]string
	binds := 0
	for _, a := range client.Actions() {
		switch {
		case a.GetVerb() == "update" && a.GetResource().Resource == "resourceclaims" && a.GetSubresource() == "":
			finalizers = append(finalizers, a.(k8stesting.UpdateAction).GetObject().(*resourcev1.ResourceClaim).Finalizers)
		case a.GetVerb() == "create" && a.GetSubresource() == "binding":
			binds++
		}
	}
	require.Equal(t, [][]string{{resourcev1.Finalizer}, {}, {resourcev1.Finalizer}}, finalizers, "added, taken back, added again")
	require.Equal(t, 1, binds, "bound once, after the claim was written")
	require.Equal(t, claimState{[]string{resourcev1.Finalizer}, []string{"n1/gpu-0"}, []types.UID{"uid-p"}}, readClaim(t, client, "c"))
}
