package e2e

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangsched/gangsched/e2e/harness"
)

// extGPU is the extended resource a DeviceClass serves through DRA.
const extGPU = corev1.ResourceName("example.com/gpu")

// A gang of two, each member asking example.com/gpu: 1, which a
// DeviceClass serves through DRA (KEP-5004) on nodes without a device
// plugin for it: gangsched-scheduler creates each pod's implicit claim as
// kube-scheduler does (named after the pod, the pod its controller, the
// extended-resource-claim annotation), allocates it one GPU and reserves it
// for the pod, names it in the pod's status.extendedResourceClaimStatus,
// then binds both; the real API server takes every write.
func TestDRAExtendedResource(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	class := deviceClass(gpuDriver)
	class.Spec.ExtendedResourceName = new(string(extGPU))
	createDRA(t, client, class, node("node-0", "rack-0", 8, 0), gpuSlice("node-0"), podGroup("ext-gang", 2))
	createExtMembers(t, client, "ext-gang", 2)
	startScheduler(t, c, testConfig(), "")

	conditionIs(t, client, "ext-gang", metav1.ConditionTrue, "Scheduled")
	ps := boundPods(t, client, "ext-gang", 2, "the gang asking DRA-backed extended resources bound")
	held := map[string]bool{}
	for _, p := range ps {
		st := p.Status.ExtendedResourceClaimStatus
		require.NotNil(t, st, "pod %s names its implicit claim", p.Name)
		require.Equal(t, []corev1.ContainerExtendedResourceRequest{{ContainerName: "work", ResourceName: string(extGPU), RequestName: "container-0-request-1"}}, st.RequestMappings)
		cl, err := client.ResourceV1().ResourceClaims(ns).Get(ctxFor(t), st.ResourceClaimName, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, p.Name+"-extended-resources-", cl.GenerateName)
		require.Equal(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: new(true)}}, cl.OwnerReferences)
		require.Equal(t, "true", cl.Annotations[resourcev1.ExtendedResourceClaimAnnotation])
		require.Contains(t, cl.Finalizers, resourcev1.Finalizer)
		require.Equal(t, []string{fmt.Sprintf("pods/%s/%s", p.Name, p.UID)}, reservedFor(cl))
		d := devices(cl)
		require.Len(t, d, 1, "claim %s", cl.Name)
		held[d[0]] = true
	}
	require.Equal(t, map[string]bool{"node-0/gpu-0": true, "node-0/gpu-1": true}, held, "one GPU each")
}

// A gang of three, each member asking example.com/gpu: 1, on node-dp,
// whose device plugin serves one unit of it, and node-dra, without one and
// with two GPUs a DRA driver publishes that the DeviceClass serves under
// the same name: served per node, as kube-scheduler v1.37 does, the gang
// fits only both ways together. The member on node-dp gets no claim and no
// extendedResourceClaimStatus; each on node-dra gets an implicit claim of
// one of its GPUs, reserved for it.
func TestDRAExtendedResourcePerNode(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	class := deviceClass(gpuDriver)
	class.Spec.ExtendedResourceName = new(string(extGPU))
	dp := node("node-dp", "rack-0", 8, 0)
	dp.Status.Allocatable[extGPU] = resource.MustParse("1")
	createDRA(t, client, class, dp, node("node-dra", "rack-0", 8, 0), gpuSlice("node-dra"), podGroup("mixed", 3))
	createExtMembers(t, client, "mixed", 3)
	startScheduler(t, c, testConfig(), "")

	conditionIs(t, client, "mixed", metav1.ConditionTrue, "Scheduled")
	ps := boundPods(t, client, "mixed", 3, "the gang bound across both ways of serving")
	got := map[string]string{} // pod -> node and its claim's devices
	for _, p := range ps {
		got[p.Name] = p.Spec.NodeName
		st := p.Status.ExtendedResourceClaimStatus
		if st == nil {
			continue
		}
		cl, err := client.ResourceV1().ResourceClaims(ns).Get(ctxFor(t), st.ResourceClaimName, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, []string{fmt.Sprintf("pods/%s/%s", p.Name, p.UID)}, reservedFor(cl))
		got[p.Name] += " " + fmt.Sprint(devices(cl))
	}
	require.Equal(t, map[string]string{"mixed-0": "node-dp", "mixed-1": "node-dra [node-dra/gpu-0]", "mixed-2": "node-dra [node-dra/gpu-1]"}, got)
}

// createExtMembers creates n pending members <group>-<i> of PodGroup
// group, each asking one extGPU (requests and limits).
func createExtMembers(t *testing.T, client kubernetes.Interface, group string, n int) {
	for i := range n {
		p := member(fmt.Sprintf("%s-%d", group, i), group, "", 0)
		r := &p.Spec.Containers[0].Resources
		r.Requests[extGPU], r.Limits[extGPU] = resource.MustParse("1"), resource.MustParse("1")
		createDRA(t, client, p)
	}
}
