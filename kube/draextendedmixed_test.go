package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// nicClass serves example.com/nic through DRA alone: no node has it in
// allocatable.
const nicClass = "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: nic.example.com}\nspec:\n  extendedResourceName: example.com/nic\n  selectors: [{cel: {expression: 'device.driver == \"nic.example.com\"'}}]\n"

func nicSlice(node string) string {
	return fmt.Sprintf("---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s-nics}\nspec: {driver: nic.example.com, pool: {name: %s, generation: 1, resourceSliceCount: 1}, nodeName: %s, devices: [{name: nic-0}]}\n", node, node, node)
}

// written is what a pod ended with after write-back: its node, and its
// implicit claim's devices and requests (none when no claim is written).
type written struct {
	node     string
	devices  []string // pool/device of the written claim, in order
	requests []string // the written claim's request names
	mappings []string // the pod status' container/resource→request
}

// TestServeExtendedResources_PerNode: a resource that device plugins serve
// on some nodes (dp, in allocatable) and DRA on others (d1, ResourceSlice)
// is served per node, as v1.37's kube-scheduler does: a pod placed on dp
// takes dp's device-plugin units and gets no claim, or a claim with only
// the requests DRA serves there; a pod placed on d1 gets DRA devices.
func TestServeExtendedResources_PerNode(t *testing.T) {
	world := gpuNode("dp", 2) + gpuNode("d1", 0) + gpuClass + gpuSlice("d1", 2)
	for _, tc := range []struct {
		name string
		docs string
		want map[string]written // per pending pod; absent: not placed
	}{
		{"two pods of two: one on each, the plugin one without a claim",
			world + gpuPod("a", "", 2) + gpuPod("b", "", 2),
			map[string]written{
				"a": {node: "dp"},
				"b": {node: "d1", devices: []string{"d1/gpu-0", "d1/gpu-1"}, requests: []string{"container-0-request-0"}, mappings: []string{"w/example.com/gpu→container-0-request-0"}},
			}},
		{"a bound pod holds dp's units: the pod goes to d1",
			world + gpuPod("old", "  nodeName: dp\n", 2) + gpuPod("a", "", 1),
			map[string]written{"a": {node: "d1", devices: []string{"d1/gpu-0"}, requests: []string{"container-0-request-0"}, mappings: []string{"w/example.com/gpu→container-0-request-0"}}}},
		{"three units fit neither node's way",
			world + gpuPod("a", "", 3), map[string]written{}},
		{"a plugin GPU and a DRA NIC on dp: the claim keeps only the NIC request",
			world + nicClass + nicSlice("dp") +
				"---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: w, resources: {limits: {example.com/gpu: 1, example.com/nic: 1}}}]\n",
			map[string]written{"a": {node: "dp", devices: []string{"dp/nic-0"}, requests: []string{"container-0-request-1"}, mappings: []string{"w/example.com/nic→container-0-request-1"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, d, _ := solveExtended(t, tc.docs)
			got := map[string]written{}
			for _, a := range d.Assignments {
				got[a.Pod.Name] = written{node: a.Node}
			}
			for _, o := range c.Objects() {
				cl, ok := o.(*resourcev1.ResourceClaim)
				if !ok || cl.Annotations[resourcev1.ExtendedResourceClaimAnnotation] != "true" {
					continue
				}
				w := got[cl.OwnerReferences[0].Name]
				for _, r := range cl.Status.Allocation.Devices.Results {
					require.Equal(t, r.Pool, w.node, "a device off the pod's node")
					w.devices = append(w.devices, r.Pool+"/"+r.Device)
				}
				for _, r := range cl.Spec.Devices.Requests {
					w.requests = append(w.requests, r.Name)
				}
				pod, _ := c.Pod(placement.Key{Namespace: "default", Name: cl.OwnerReferences[0].Name})
				require.Equal(t, cl.Name, pod.Status.ExtendedResourceClaimStatus.ResourceClaimName)
				for _, m := range pod.Status.ExtendedResourceClaimStatus.RequestMappings {
					w.mappings = append(w.mappings, m.ContainerName+"/"+m.ResourceName+"→"+m.RequestName)
				}
				got[cl.OwnerReferences[0].Name] = w
			}
			require.Equal(t, tc.want, got)
			for _, o := range c.Objects() {
				if p, ok := o.(*corev1.Pod); ok && tc.want[p.Name].node == "dp" && slices.Equal(tc.want[p.Name].requests, nil) {
					require.Nil(t, p.Status.ExtendedResourceClaimStatus, "pod %s is served by the device plugin alone", p.Name)
				}
			}
		})
	}
}

// TestServeExtendedResources_PerNodeRefused: a device of the serving
// class on a node whose device plugin serves the resource cannot be
// modelled (its class would depend on the node): refused, naming it.
func TestServeExtendedResources_PerNodeRefused(t *testing.T) {
	_, err := load(t, gpuNode("dp", 2)+gpuNode("d1", 0)+gpuClass+gpuSlice("d1", 2)+gpuSlice("dp", 1)+gpuPod("a", "", 1))
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, `ResourceSlice "dp-gpus": spec.devices[0]: device gpu-0 of DeviceClass "gpu.example.com" reaches node dp, whose device plugin serves example.com/gpu`)
}

// TestProp_PerNodeServing: in a cluster where device plugins serve
// example.com/gpu on some nodes (1–4 units each, some taken by bound
// pods) and DRA on others (0–4 GPUs each), every pod placed on a plugin
// node gets no claim and the units asked there stay within what bound
// pods left free;
// every pod placed on a DRA node gets a claim of exactly its count of
// devices of its node, and no device goes to two pods.
func TestProp_PerNodeServing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		b.WriteString(gpuClass)
		units := map[string]int64{}
		for i := range rapid.IntRange(1, 2).Draw(t, "pluginNodes") {
			n := fmt.Sprintf("dp%d", i)
			units[n] = int64(rapid.IntRange(1, 4).Draw(t, "units"))
			b.WriteString(gpuNode(n, int(units[n])))
		}
		for i := range rapid.IntRange(1, 2).Draw(t, "draNodes") {
			n := fmt.Sprintf("d%d", i)
			b.WriteString(gpuNode(n, 0))
			if k := rapid.IntRange(0, 4).Draw(t, "gpus"); k > 0 {
				b.WriteString(gpuSlice(n, k))
			}
		}
		used := map[string]int64{}
		for i := range rapid.IntRange(0, 2).Draw(t, "bound") {
			n := fmt.Sprintf("dp%d", rapid.IntRange(0, len(units)-1).Draw(t, "on"))
			q := int64(rapid.IntRange(1, 2).Draw(t, "boundAsks"))
			b.WriteString(gpuPod(fmt.Sprintf("old%d", i), "  nodeName: "+n+"\n", int(q)))
			used[n] += q
		}
		asks := map[string]int64{}
		for i := range rapid.IntRange(1, 4).Draw(t, "pods") {
			name := fmt.Sprintf("p%d", i)
			asks[name] = int64(rapid.IntRange(1, 3).Draw(t, "asks"))
			b.WriteString(gpuPod(name, "", int(asks[name])))
		}
		c, d, _ := solveExtended(t, b.String())
		claims := map[string]*resourcev1.ResourceClaim{}
		for _, o := range c.Objects() {
			if cl, ok := o.(*resourcev1.ResourceClaim); ok {
				claims[cl.OwnerReferences[0].Name] = cl
			}
		}
		owner := map[string]string{}
		placed := map[string]int64{}
		for _, a := range d.Assignments {
			name := a.Pod.Name
			cl, hasClaim := claims[name]
			if _, plugin := units[a.Node]; plugin {
				require.False(t, hasClaim, "pod %s on plugin node %s got a claim", name, a.Node)
				placed[a.Node] += asks[name]
				continue
			}
			require.True(t, hasClaim, "pod %s on DRA node %s has no claim", name, a.Node)
			res := cl.Status.Allocation.Devices.Results
			require.Len(t, res, int(asks[name]), "pod %s", name)
			for _, r := range res {
				require.Equal(t, a.Node, r.Pool, "pod %s got a device of another node", name)
				id := r.Pool + "/" + r.Device
				require.Empty(t, owner[id], "device %s given to %s and %s", id, owner[id], name)
				owner[id] = name
			}
		}
		for n, k := range units {
			require.LessOrEqual(t, placed[n], max(0, k-used[n]), "plugin node %s: more placed than its free units", n)
		}
	})
}

// TestVisibleUpdate: what of a claim update is written back when plugin
// devices ([PluginDriver]) serve some of its requests: nothing when they
// serve all; otherwise the claim without them and the requests they
// served; unchanged when none is theirs.
func TestVisibleUpdate(t *testing.T) {
	reqs := []dra.DeviceRequest{{Name: "gpu"}, {Name: "nic"}}
	update := func(drivers ...string) dra.ClaimUpdate {
		u := dra.ClaimUpdate{Claim: dra.ResourceClaim{Name: "c", Spec: dra.ClaimSpec{Requests: reqs}, Status: dra.ClaimStatus{Allocation: &dra.AllocationResult{NodeName: "n"}}}}
		for i, d := range drivers {
			u.Claim.Status.Allocation.Devices = append(u.Claim.Status.Allocation.Devices, dra.DeviceResult{Request: reqs[i].Name, DeviceID: dra.DeviceID{Driver: d, Pool: "n", Device: "d"}})
		}
		return u
	}
	t.Run("plugin devices serve every request: not written", func(t *testing.T) {
		_, ok := VisibleUpdate(update(PluginDriver, PluginDriver))
		require.False(t, ok)
	})
	t.Run("a plugin GPU and a DRA NIC: the NIC alone", func(t *testing.T) {
		u := update(PluginDriver, "nic.example.com")
		v, ok := VisibleUpdate(u)
		require.True(t, ok)
		require.Equal(t, []dra.DeviceRequest{{Name: "nic"}}, v.Claim.Spec.Requests)
		require.Equal(t, []dra.DeviceResult{{Request: "nic", DeviceID: dra.DeviceID{Driver: "nic.example.com", Pool: "n", Device: "d"}}}, v.Claim.Status.Allocation.Devices)
		require.Len(t, u.Claim.Spec.Requests, 2, "u is not modified")
		require.Len(t, u.Claim.Status.Allocation.Devices, 2, "u is not modified")
	})
	t.Run("no plugin device: unchanged", func(t *testing.T) {
		u := update("gpu.example.com", "nic.example.com")
		v, ok := VisibleUpdate(u)
		require.True(t, ok)
		require.Equal(t, u, v)
	})
}
