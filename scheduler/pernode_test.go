package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangsched/gangsched/placement"
)

// perNodeCluster is node dp, whose device plugin serves two units of
// example.com/gpu, node dra without it and four GPUs of a DRA driver,
// DeviceClass gpu serving the resource through DRA, and a gang g of three
// pods asking two GPUs each: more than either node's way holds alone.
func perNodeCluster() []runtime.Object {
	dp := cpuNode("dp")
	dp.Status.Allocatable["example.com/gpu"] = resource.MustParse("2")
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{
		ExtendedResourceName: new("example.com/gpu"), Selectors: driverSelector("gpu.example.com"),
	}}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "dra-gpus"}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: new("dra"), Pool: resourcev1.ResourcePool{Name: "dra", ResourceSliceCount: 1},
		Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}, {Name: "gpu-2"}, {Name: "gpu-3"}},
	}}
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g", UID: "uid-g"},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 3},
		}},
	}
	objs := []runtime.Object{dp, cpuNode("dra"), class, slice, pg}
	for _, name := range []string{"p0", "p1", "p2"} {
		pod := cpuPod(name, "", "100m")
		pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("g")}
		pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("2")}
		objs = append(objs, pod)
	}
	return objs
}

// driverSelector selects the devices of driver alone: a class without
// selectors takes every device, of any driver.
func driverSelector(driver string) []resourcev1.DeviceSelector {
	return []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + driver + `"`}}}
}

// generateClaimNames makes the fake client name created claims as the API
// server would (the fake does not generate names).
func generateClaimNames(client *fake.Clientset) {
	generated := 0
	client.PrependReactor("create", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		c := a.(k8stesting.CreateAction).GetObject().(*resourcev1.ResourceClaim)
		if c.Name == "" {
			generated++
			c.Name, c.UID = fmt.Sprintf("%sx%d", c.GenerateName, generated), types.UID(fmt.Sprintf("uid-x%d", generated))
		}
		return false, nil, nil
	})
}

// TestServePerNode: a resource that dp's device plugin serves and DRA
// serves on dra is served per node, as v1.37's kube-scheduler does: the
// gang fits only both ways together. The member on dp takes its two
// units and gets no claim (nor extendedResourceClaimStatus); each member
// on dra gets an implicit claim of two of its GPUs. Served by device
// plugins on every node, as before, dra fitted none and the gang waited.
func TestServePerNode(t *testing.T) {
	client := fake.NewClientset(perNodeCluster()...)
	generateClaimNames(client)
	runFake(t, client)
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 3 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, map[string]string{"p0": "dp", "p1": "dra", "p2": "dra"}, bindingsOf(client))

	ctx := context.Background()
	claims, err := client.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	got := map[string][]string{} // pod -> request/pool/device of its claim
	for _, c := range claims.Items {
		require.Equal(t, []resourcev1.DeviceRequest{{Name: "container-0-request-1", Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 2,
		}}}, c.Spec.Devices.Requests, "the claim asks the real class")
		owner := c.OwnerReferences[0].Name
		for _, r := range c.Status.Allocation.Devices.Results {
			got[owner] = append(got[owner], r.Request+"/"+r.Pool+"/"+r.Device)
		}
		pod, err := client.CoreV1().Pods("default").Get(ctx, owner, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: c.Name, RequestMappings: []corev1.ContainerExtendedResourceRequest{
			{ContainerName: "c", ResourceName: "example.com/gpu", RequestName: "container-0-request-1"},
		}}, pod.Status.ExtendedResourceClaimStatus)
	}
	require.Equal(t, map[string][]string{
		"p1": {"container-0-request-1/dra/gpu-0", "container-0-request-1/dra/gpu-1"},
		"p2": {"container-0-request-1/dra/gpu-2", "container-0-request-1/dra/gpu-3"},
	}, got)
	p0, err := client.CoreV1().Pods("default").Get(ctx, "p0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Nil(t, p0.Status.ExtendedResourceClaimStatus, "served by dp's device plugin alone")
}

// TestServePerNodePreempts: perNodeCluster's gang at priority 100, with
// minCount 1, where low-priority pods hold every GPU: low-dp dp's two
// units, low-dra dra's four devices through its implicit claim. Only
// low-dp is evicted and p0 binds on dp: v1.37's preemption frees a
// victim's device-plugin units (its requests) and not its DRA devices
// (DynamicResources has no PreFilterExtensions; KEP-5690 proposes DRA
// preemption), so evicting low-dra would free nothing; p1 and p2 wait.
func TestServePerNodePreempts(t *testing.T) {
	objs := perNodeCluster()
	for _, o := range objs {
		switch v := o.(type) {
		case *schedulingv1beta1.PodGroup:
			v.Spec.Priority = new(int32(100))
			v.Spec.SchedulingPolicy.Gang.MinCount = 1
		case *corev1.Pod:
			v.Spec.Priority = new(int32(100))
		}
	}
	for _, node := range []string{"dp", "dra"} {
		v := cpuPod("low-"+node, node, "100m")
		v.Spec.Priority = new(int32(5))
		v.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse(map[string]string{"dp": "2", "dra": "4"}[node])}
		if node == "dra" {
			v.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "low-dra-gpus",
				RequestMappings: []corev1.ContainerExtendedResourceRequest{{ContainerName: "c", ResourceName: "example.com/gpu", RequestName: "container-0-request-1"}}}
		}
		objs = append(objs, v)
	}
	var results []resourcev1.DeviceRequestAllocationResult
	for i := range 4 {
		results = append(results, resourcev1.DeviceRequestAllocationResult{Request: "container-0-request-1", Driver: "gpu.example.com", Pool: "dra", Device: fmt.Sprintf("gpu-%d", i)})
	}
	objs = append(objs, &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "low-dra-gpus", UID: "uid-low-dra-gpus",
			Annotations:     map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "low-dra", UID: "uid-low-dra", Controller: new(true)}}},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "container-0-request-1",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 4}}}}},
		Status: resourcev1.ResourceClaimStatus{
			Allocation:  &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: results}},
			ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "low-dra", UID: "uid-low-dra"}},
		},
	})
	client := fake.NewClientset(objs...)
	generateClaimNames(client)
	runFake(t, client)
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 1 }, 10*time.Second, 5*time.Millisecond)
	var deleted []string
	for _, a := range client.Actions() {
		if v, ok := a.(k8stesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
			deleted = append(deleted, v.GetName())
		}
	}
	require.Equal(t, []string{"low-dp"}, deleted)
	require.Equal(t, map[string]string{"p0": "dp"}, bindingsOf(client))
}

// nicCluster is perNodeCluster with p0 alone (in a gang of one), asking
// one GPU and one NIC (example.com/nic), DeviceClass nic serving it, and
// a NIC on dp (ResourceSlice dp-nics).
func nicCluster() []runtime.Object {
	var objs []runtime.Object
	for _, o := range perNodeCluster() {
		if p, ok := o.(*corev1.Pod); !ok || p.Name == "p0" {
			objs = append(objs, o)
		}
	}
	for _, o := range objs {
		switch v := o.(type) {
		case *schedulingv1beta1.PodGroup:
			v.Spec.SchedulingPolicy.Gang.MinCount = 1
		case *corev1.Pod:
			v.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1"), "example.com/nic": resource.MustParse("1")}
		}
	}
	objs = append(objs,
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "nic"}, Spec: resourcev1.DeviceClassSpec{
			ExtendedResourceName: new("example.com/nic"), Selectors: driverSelector("nic.example.com"),
		}},
		&resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "dp-nics"}, Spec: resourcev1.ResourceSliceSpec{
			Driver: "nic.example.com", NodeName: new("dp"), Pool: resourcev1.ResourcePool{Name: "dp", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "nic-0"}},
		}})
	return objs
}

// TestServePerNodeKeepsDRARequests: a pod asking a GPU (served per node)
// and a NIC (served by DRA alone; only dp has one) goes to dp: its
// implicit claim keeps the NIC request alone, with its mapping, since dp's
// device plugin serves the GPU. Each class selects its driver's devices:
// without selectors dra's GPUs would be NICs too (and p0 fit there), and
// dp's NIC a GPU of class gpu, which gangsched refuses to serve per node
// (logged). The pod handler may run before dp's: the first round converts
// p0 again by the nodes then seen (without that it kept the GPU in its
// implicit claim, as if no node had a device plugin, and went to dra
// about one run in three).
func TestServePerNodeKeepsDRARequests(t *testing.T) {
	objs := nicCluster()
	client := fake.NewClientset(objs...)
	generateClaimNames(client)
	_, log := runFake(t, client)
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, map[string]string{"p0": "dp"}, bindingsOf(client))
	require.NotContains(t, log.String(), "level=ERROR", "the GPU is served per node")
	ctx := context.Background()
	claims, err := client.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, claims.Items, 1)
	c := claims.Items[0]
	require.Len(t, c.Spec.Devices.Requests, 1)
	req := c.Spec.Devices.Requests[0]
	require.Equal(t, "container-0-request-2", req.Name)
	require.Equal(t, "nic", req.Exactly.DeviceClassName)
	require.Len(t, c.Status.Allocation.Devices.Results, 1)
	r := c.Status.Allocation.Devices.Results[0]
	require.Equal(t, []string{req.Name, "nic.example.com", "dp", "nic-0"}, []string{r.Request, r.Driver, r.Pool, r.Device})
	pod, err := client.CoreV1().Pods("default").Get(ctx, "p0", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: c.Name, RequestMappings: []corev1.ContainerExtendedResourceRequest{
		{ContainerName: "c", ResourceName: "example.com/nic", RequestName: req.Name},
	}}, pod.Status.ExtendedResourceClaimStatus)
}

// TestServePerNodeFollowsNodes: pod p asks a GPU that DeviceClass gpu
// serves while no node has it in allocatable (DRA alone), and no device
// of the class exists, so it waits. Then dp's device plugin registers two
// units: the GPU is served by it now, not by DRA (no class serves it per
// node, as no slice reaches a node without it), and p binds to dp
// without a claim. A scheduler that converted pending pods again only
// when the classes or the resources served per node changed kept p's
// implicit claim and p waited for ever; the same missed node event, with
// the pod handled before its node, made TestServePerNodeKeepsDRARequests
// flaky.
func TestServePerNodeFollowsNodes(t *testing.T) {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{
		ExtendedResourceName: new("example.com/gpu"), Selectors: driverSelector("gpu.example.com"),
	}}
	p := cpuPod("p", "", "100m")
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	client := fake.NewClientset(cpuNode("dp"), class, p)
	generateClaimNames(client)
	_, log := runFake(t, client)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "gang waits") }, 10*time.Second, 5*time.Millisecond)

	ctx := context.Background()
	dp := cpuNode("dp")
	dp.Status.Allocatable["example.com/gpu"] = resource.MustParse("2")
	_, err := client.CoreV1().Nodes().Update(ctx, dp, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, map[string]string{"p": "dp"}, bindingsOf(client))
	claims, err := client.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Empty(t, claims.Items, "served by dp's device plugin alone")
	require.NotContains(t, log.String(), "level=ERROR")
}

// TestServePerNodePodBeforeItsNode: nicCluster with classes that take
// every device (no selectors), so dp's NIC is a GPU of class gpu too and
// gangsched serves the GPU by device plugins alone (logged), and dra's
// GPUs would serve as NICs. p0's handler runs before node dp's (held back
// until p0 is queued with the classes seen): converted then, p0 asked the GPU through its
// implicit claim, as no node had it in allocatable. The first round must
// convert it again by the nodes it sees, and bind it to dp by its device
// plugin; a scheduler that did so only when the resources served per node
// changed (here none, before and after) bound it to dra.
func TestServePerNodePodBeforeItsNode(t *testing.T) {
	objs := nicCluster()
	for _, o := range objs {
		if c, ok := o.(*resourcev1.DeviceClass); ok {
			c.Spec.Selectors = nil
		}
	}
	client := fake.NewClientset(objs...)
	generateClaimNames(client)
	p0 := placement.Key{Namespace: "default", Name: "p0"}
	_, log := runFakeHolding(t, client, func(s *Scheduler, o any) {
		if n, ok := o.(*corev1.Node); !ok || n.Name != "dp" {
			return
		}
		assert.Eventually(t, func() bool { // not require: this is an informer's goroutine
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.state.queued[p0] && len(s.dra.apiClasses) == 2
		}, 10*time.Second, time.Millisecond, "p0 queued, and both classes seen, before node dp is")
	})

	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, map[string]string{"p0": "dp"}, bindingsOf(client))
	require.Contains(t, log.String(), "extended resources not served per node")
}

// TestServeBoundPodBeforeItsNode: dp's device plugin registers two units
// of example.com/gpu (DeviceClass gpu serves it through DRA on dra, whose
// slice has two GPUs), and pod b, bound to dp by another scheduler that
// saw the registration first, takes them. This scheduler's pod handler
// shows b before its node handler shows dp's new allocatable (held back
// until b is seen bound). dp is full: p, asking two GPUs, binds to dra,
// its implicit claim taking both GPUs there. A scheduler that took b's
// GPUs out of its requests by the node seen when b's handler ran (dp
// without the resource, so served through DRA there) never counted them
// on dp, and bound p to dp beside b, four units on a node of two.
func TestServeBoundPodBeforeItsNode(t *testing.T) {
	var objs []runtime.Object
	for _, o := range perNodeCluster() {
		switch v := o.(type) {
		case *resourcev1.DeviceClass:
			objs = append(objs, v)
		case *resourcev1.ResourceSlice:
			v.Spec.Devices = v.Spec.Devices[:2]
			objs = append(objs, v)
		}
	}
	dra := cpuNode("dra")
	dra.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1")
	objs = append(objs, cpuNode("dp"), dra)
	client := fake.NewClientset(objs...)
	generateClaimNames(client)
	b := placement.Key{Namespace: "default", Name: "b"}
	s, log := runFakeHolding(t, client, func(s *Scheduler, o any) {
		if n, ok := o.(*corev1.Node); !ok || n.Name != "dp" || n.Status.Allocatable.Name("example.com/gpu", resource.DecimalSI).IsZero() {
			return
		}
		assert.Eventually(t, func() bool { // not require: this is an informer's goroutine
			s.mu.Lock()
			defer s.mu.Unlock()
			_, seen := s.c.bound[b]
			return seen
		}, 10*time.Second, time.Millisecond, "b seen bound before dp's device plugin")
	})
	ctx := context.Background()
	require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.c.nodes) == 2 }, 10*time.Second, time.Millisecond)

	dp := cpuNode("dp")
	dp.Status.Allocatable["example.com/gpu"] = resource.MustParse("2")
	_, err := client.CoreV1().Nodes().Update(ctx, dp, metav1.UpdateOptions{})
	require.NoError(t, err)
	bp := cpuPod("b", "dp", "100m")
	bp.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("2")}
	_, err = client.CoreV1().Pods("default").Create(ctx, bp, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.c.nodes["dp"].Allocatable["example.com/gpu"] == 2
	}, 10*time.Second, time.Millisecond, "dp's device plugin seen")

	p := cpuPod("p", "", "100m")
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("2")}
	_, err = client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 1 }, 10*time.Second, 5*time.Millisecond, "p binds")
	require.Equal(t, map[string]string{"p": "dra"}, bindingsOf(client))
	claims, err := client.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	got := map[string][]string{}
	for _, c := range claims.Items {
		for _, r := range c.Status.Allocation.Devices.Results {
			got[c.OwnerReferences[0].Name] = append(got[c.OwnerReferences[0].Name], r.Pool+"/"+r.Device)
		}
	}
	require.Equal(t, map[string][]string{"p": {"dra/gpu-0", "dra/gpu-1"}}, got)
	require.NotContains(t, log.String(), "level=ERROR")
}

// TestServePerNodeFollowsClassSelectors: perNodeCluster with DeviceClass
// gpu selecting another driver's devices, so only dp's two plugin units
// serve the gang's six GPUs and it waits. Then the class is updated to
// select dra's GPUs: the gang binds as in TestServePerNode. The devices of
// a resource served per node are asked for through a class that stands
// for the real one (its selectors and the plugin units); a scheduler that
// rebuilt that class only when the classes' names or the plugin devices'
// counts changed kept the old selectors, and the gang waited for ever.
func TestServePerNodeFollowsClassSelectors(t *testing.T) {
	objs := perNodeCluster()
	for _, o := range objs {
		if c, ok := o.(*resourcev1.DeviceClass); ok {
			c.Spec.Selectors = driverSelector("other.example.com")
		}
	}
	client := fake.NewClientset(objs...)
	generateClaimNames(client)
	_, log := runFake(t, client)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "gang waits") }, 10*time.Second, 5*time.Millisecond)
	require.Empty(t, bindingsOf(client))

	ctx := context.Background()
	class, err := client.ResourceV1().DeviceClasses().Get(ctx, "gpu", metav1.GetOptions{})
	require.NoError(t, err)
	class.Spec.Selectors = driverSelector("gpu.example.com")
	_, err = client.ResourceV1().DeviceClasses().Update(ctx, class, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 3 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, map[string]string{"p0": "dp", "p1": "dra", "p2": "dra"}, bindingsOf(client))
	require.NotContains(t, log.String(), "level=ERROR")
}

// TestServePerNodeForgetsClassSelectors: dp's two plugin units are taken
// by bound pod b, and DeviceClass gpu selects dra's GPUs; once the
// scheduler has built its inventory, the class is updated to select
// another driver's devices, and then pod p asks two GPUs. No node serves
// them now: p waits and is never bound. A scheduler that kept the class
// standing for gpu with its old selectors bound p to dra.
func TestServePerNodeForgetsClassSelectors(t *testing.T) {
	var objs []runtime.Object
	for _, o := range perNodeCluster() {
		if _, ok := o.(*corev1.Pod); !ok {
			objs = append(objs, o)
		}
	}
	b := cpuPod("b", "dp", "100m")
	b.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("2")}
	client := fake.NewClientset(append(objs, b)...)
	generateClaimNames(client)
	s, log := runFake(t, client)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.dra.inv != nil && !s.dra.invDirty && len(s.dra.pluginClasses) == 1
	}, 10*time.Second, time.Millisecond, "the inventory built, with gpu served per node")

	ctx := context.Background()
	class, err := client.ResourceV1().DeviceClasses().Get(ctx, "gpu", metav1.GetOptions{})
	require.NoError(t, err)
	class.Spec.Selectors = driverSelector("other.example.com")
	_, err = client.ResourceV1().DeviceClasses().Update(ctx, class, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		c := s.dra.apiClasses["gpu"]
		return c != nil && len(c.Spec.Selectors) == 1 && strings.Contains(c.Spec.Selectors[0].CEL.Expression, "other.example.com")
	}, 10*time.Second, time.Millisecond, "the class update seen")

	p := cpuPod("p", "", "100m")
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("2")}
	_, err = client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "gang waits") || len(bindingsOf(client)) > 0 }, 10*time.Second, 5*time.Millisecond)
	require.Empty(t, bindingsOf(client), "no device of gpu is left")
	require.NotContains(t, log.String(), "level=ERROR")
}
