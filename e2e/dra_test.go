package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangsched/gangsched/e2e/harness"
)

const (
	gpuDriver = "gpu.example.com"
	netDriver = "net.example.com"
)

// deviceClass selects every device of driver.
func deviceClass(driver string) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: driver},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)},
		}}},
	}
}

// gpuSlice publishes two GPUs, gpu-0 and gpu-1, on node.
func gpuSlice(node string) *resourcev1.ResourceSlice {
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver: gpuDriver, NodeName: &node,
			Pool:    resourcev1.ResourcePool{Name: node, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}},
		},
	}
}

// netSlice publishes two network devices every node reaches.
func netSlice() *resourcev1.ResourceSlice {
	all := true
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "fabric"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver: netDriver, AllNodes: &all,
			Pool:    resourcev1.ResourcePool{Name: "fabric", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "net-0"}, {Name: "net-1"}},
		},
	}
}

// claimTemplate asks for count devices of class.
func claimTemplate(name, class string, count int64) *resourcev1.ResourceClaimTemplate {
	return &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "dev", Exactly: &resourcev1.ExactDeviceRequest{
				DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count,
			}}},
		}}},
	}
}

// draGroup is a PodGroup of minCount whose entry "net" is one network
// claim shared by its members.
func draGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	pg := podGroup(name, minCount)
	pg.Spec.ResourceClaims = []schedulingv1beta1.PodGroupResourceClaim{{Name: "net", ResourceClaimTemplateName: new("net")}}
	return pg
}

// draMember is a member of group using the group's "net" claim and a
// claim of its own for two GPUs.
func draMember(name, group string) *corev1.Pod {
	p := member(name, group, "", 0)
	p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "net"}, {Name: "gpu"}}}
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{
		{Name: "net", ResourceClaimTemplateName: new("net")},
		{Name: "gpu", ResourceClaimTemplateName: new("gpu-two")},
	}
	return p
}

// createDRA makes DRA and PodGroup objects through the API.
func createDRA(t testing.TB, client kubernetes.Interface, objs ...any) {
	t.Helper()
	ctx := ctxFor(t)
	for _, o := range objs {
		var err error
		switch v := o.(type) {
		case *resourcev1.DeviceClass:
			_, err = client.ResourceV1().DeviceClasses().Create(ctx, v, metav1.CreateOptions{})
		case *resourcev1.ResourceSlice:
			_, err = client.ResourceV1().ResourceSlices().Create(ctx, v, metav1.CreateOptions{})
		case *resourcev1.ResourceClaimTemplate:
			_, err = client.ResourceV1().ResourceClaimTemplates(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		default:
			create(t, client, o)
		}
		require.NoError(t, err, "create %T", o)
	}
}

// podClaim returns the claim that the resourceclaim controller made for
// pod p's entry.
func podClaim(t testing.TB, client kubernetes.Interface, p corev1.Pod, entry string) *resourcev1.ResourceClaim {
	t.Helper()
	i := slices.IndexFunc(p.Status.ResourceClaimStatuses, func(s corev1.PodResourceClaimStatus) bool { return s.Name == entry })
	require.GreaterOrEqual(t, i, 0, "pod %s has a claim for entry %q", p.Name, entry)
	c, err := client.ResourceV1().ResourceClaims(ns).Get(ctxFor(t), *p.Status.ResourceClaimStatuses[i].ResourceClaimName, metav1.GetOptions{})
	require.NoError(t, err)
	return c
}

func devices(c *resourcev1.ResourceClaim) []string {
	if c.Status.Allocation == nil {
		return nil
	}
	var out []string
	for _, r := range c.Status.Allocation.Devices.Results {
		out = append(out, r.Pool+"/"+r.Device)
	}
	slices.Sort(out)
	return out
}

func reservedFor(c *resourcev1.ResourceClaim) []string {
	var out []string
	for _, r := range c.Status.ReservedFor {
		out = append(out, fmt.Sprintf("%s/%s/%s", r.Resource, r.Name, r.UID))
	}
	return out
}

// A gang of four whose members share the PodGroup's network claim and
// each have a claim for two GPUs, on four nodes of two GPUs each: the
// resourceclaim controller creates the claims from the templates, and
// gangsched-scheduler allocates them and reserves them (the network claim
// for the PodGroup, each GPU claim for its pod) before it binds — one
// member per node, each holding both GPUs of its node, the gang one
// network device. A second gang of two, with one node left, stays pending
// whole under a restarted scheduler: its condition names the claim that
// cannot be allocated, and none of its claims is allocated or reserved.
// Once the first gang's pods are deleted and the resourceclaim controller
// releases their claims, it binds.
func TestDRA(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	c.RunResourceClaimController(t)
	client := c.Client()
	createDRA(t, client, deviceClass(gpuDriver), deviceClass(netDriver), netSlice(),
		claimTemplate("net", netDriver, 1), claimTemplate("gpu-two", gpuDriver, 2))
	for i := range 5 {
		n := fmt.Sprintf("node-%d", i)
		createDRA(t, client, node(n, "rack-0", 8, 0), gpuSlice(n))
	}
	createDRA(t, client, draGroup("dra-gang", 4))
	for i := range 4 {
		createDRA(t, client, draMember(fmt.Sprintf("dra-gang-%d", i), "dra-gang"))
	}
	first := startScheduler(t, c, testConfig(), "")

	conditionIs(t, client, "dra-gang", metav1.ConditionTrue, "Scheduled")
	ps := boundPods(t, client, "dra-gang", 4, "the DRA gang bound")
	pg, err := client.SchedulingV1beta1().PodGroups(ns).Get(ctxFor(t), "dra-gang", metav1.GetOptions{})
	require.NoError(t, err)
	var net *resourcev1.ResourceClaim
	nodes := map[string]bool{}
	for _, p := range ps {
		nodes[p.Spec.NodeName] = true
		g := podClaim(t, client, p, "gpu")
		require.Equal(t, []string{p.Spec.NodeName + "/gpu-0", p.Spec.NodeName + "/gpu-1"}, devices(g), "pod %s holds both GPUs of its node", p.Name)
		require.Equal(t, []string{fmt.Sprintf("pods/%s/%s", p.Name, p.UID)}, reservedFor(g), "GPU claim of %s", p.Name)
		require.Contains(t, g.Finalizers, resourcev1.Finalizer)
		n := podClaim(t, client, p, "net")
		if net == nil {
			net = n
		}
		require.Equal(t, net.Name, n.Name, "every member uses the PodGroup's one network claim")
	}
	require.Len(t, nodes, 4, "one member per node")
	require.Equal(t, []string{"fabric/net-0"}, devices(net))
	require.Equal(t, []string{fmt.Sprintf("podgroups/dra-gang/%s", pg.UID)}, reservedFor(net), "the network claim is reserved for the PodGroup")
	require.Contains(t, net.Finalizers, resourcev1.Finalizer)

	// A restarted scheduler knows the allocations from the API alone: it
	// hands none of those devices out again.
	first.stop()
	startScheduler(t, c, testConfig(), "")
	createDRA(t, client, draGroup("dra-short", 2))
	for i := range 2 {
		createDRA(t, client, draMember(fmt.Sprintf("dra-short-%d", i), "dra-short"))
	}
	cond := conditionIs(t, client, "dra-short", metav1.ConditionFalse, "Unschedulable")
	t.Logf("short of devices: %s", cond.Message)
	short, err := pods(ctxFor(t), client, "dra-short")
	require.NoError(t, err)
	named := map[string]int{}
	for _, p := range short {
		require.Empty(t, p.Spec.NodeName, "no member of the short gang binds")
		for _, entry := range []string{"gpu", "net"} {
			cl := podClaim(t, client, p, entry)
			require.Nil(t, cl.Status.Allocation, "claim %s of %s is not allocated", cl.Name, p.Name)
			require.Empty(t, cl.Status.ReservedFor, "claim %s of %s is not reserved", cl.Name, p.Name)
			if strings.Contains(cond.Message, "ResourceClaims "+ns+"/"+cl.Name) || strings.Contains(cond.Message, ", "+ns+"/"+cl.Name) {
				named[entry]++
			}
		}
	}
	require.Equal(t, 2, named["net"], "the condition names the group's network claim (seen by both members): %s", cond.Message)
	require.Equal(t, 1, named["gpu"], "the condition names the GPU claim of the member that does not fit: %s", cond.Message)

	// The first gang's pods go: the resourceclaim controller releases
	// their GPU claims, and the short gang binds on their nodes. The
	// network claim stays reserved for the first PodGroup, which exists
	// still, so the short gang's own gets the other network device.
	zero := int64(0)
	for name := range ps {
		require.NoError(t, client.CoreV1().Pods(ns).Delete(ctxFor(t), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	}
	conditionIs(t, client, "dra-short", metav1.ConditionTrue, "Scheduled")
	short = boundPods(t, client, "dra-short", 2, "the short gang bound once devices were released")
	for _, p := range short {
		require.Len(t, devices(podClaim(t, client, p, "gpu")), 2, "pod %s holds two GPUs", p.Name)
		require.Equal(t, []string{"fabric/net-1"}, devices(podClaim(t, client, p, "net")))
	}
	net, err = client.ResourceV1().ResourceClaims(ns).Get(ctxFor(t), net.Name, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"fabric/net-0"}, devices(net), "the first PodGroup keeps its network device")
}
