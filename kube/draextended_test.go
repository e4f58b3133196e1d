package kube

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

func gpuContainer(name string, gpus int64, sidecar bool) corev1.Container {
	c := corev1.Container{Name: name, Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		Limits:   corev1.ResourceList{"example.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)},
	}}
	if sidecar {
		c.RestartPolicy = ptrTo(corev1.ContainerRestartPolicyAlways)
	}
	return c
}

func devReq(name, class string, n int64) resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{Name: name, Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n}}
}

func mapping(container, res, req string) corev1.ContainerExtendedResourceRequest {
	return corev1.ContainerExtendedResourceRequest{ContainerName: container, ResourceName: res, RequestName: req}
}

// TestExtendedResourceClaim_Requests checks the implicit claim's requests
// and mappings against v1.37's rules, case by case.
func TestExtendedResourceClaim_Requests(t *testing.T) {
	const gpu = "example.com/gpu"
	fpga := corev1.Container{Name: "f", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"deviceclass.resource.kubernetes.io/fpga": resource.MustParse("1")}}}
	cases := []struct {
		name         string
		init, main   []corev1.Container
		wantReqs     []resourcev1.DeviceRequest
		wantMappings []corev1.ContainerExtendedResourceRequest
	}{
		{"one container: index 1 among its sorted names (cpu, example.com/gpu)",
			nil, []corev1.Container{gpuContainer("w", 2, false)},
			[]resourcev1.DeviceRequest{devReq("container-0-request-1", "gpu", 2)},
			[]corev1.ContainerExtendedResourceRequest{mapping("w", gpu, "container-0-request-1")}},
		{"two containers: a request each",
			nil, []corev1.Container{gpuContainer("a", 1, false), gpuContainer("b", 3, false)},
			[]resourcev1.DeviceRequest{devReq("container-0-request-1", "gpu", 1), devReq("container-1-request-1", "gpu", 3)},
			[]corev1.ContainerExtendedResourceRequest{mapping("a", gpu, "container-0-request-1"), mapping("b", gpu, "container-1-request-1")}},
		{"an init container borrows the worker's devices",
			[]corev1.Container{gpuContainer("warm", 1, false)}, []corev1.Container{gpuContainer("w", 2, false)},
			[]resourcev1.DeviceRequest{devReq("container-1-request-1", "gpu", 2)},
			[]corev1.ContainerExtendedResourceRequest{mapping("w", gpu, "container-1-request-1"), mapping("warm", gpu, "container-1-request-1")}},
		{"two init containers asking more than the worker: the larger own request stands for both",
			[]corev1.Container{gpuContainer("i0", 3, false), gpuContainer("i1", 5, false)}, []corev1.Container{gpuContainer("w", 2, false)},
			[]resourcev1.DeviceRequest{devReq("container-1-request-1", "gpu", 3), devReq("container-2-request-1", "gpu", 2)},
			[]corev1.ContainerExtendedResourceRequest{mapping("w", gpu, "container-2-request-1"),
				mapping("i0", gpu, "container-2-request-1"), mapping("i0", gpu, "container-1-request-1"),
				mapping("i1", gpu, "container-2-request-1"), mapping("i1", gpu, "container-1-request-1")}},
		{"a sidecar started before an init container is not borrowed",
			[]corev1.Container{gpuContainer("side", 1, true), gpuContainer("init", 2, false)}, []corev1.Container{gpuContainer("w", 1, false)},
			[]resourcev1.DeviceRequest{devReq("container-0-request-1", "gpu", 1), devReq("container-1-request-1", "gpu", 1), devReq("container-2-request-1", "gpu", 1)},
			[]corev1.ContainerExtendedResourceRequest{mapping("side", gpu, "container-0-request-1"), mapping("w", gpu, "container-2-request-1"),
				mapping("init", gpu, "container-2-request-1"), mapping("init", gpu, "container-1-request-1")}},
		{"a class's implicit name, beside a resource the classes do not serve",
			nil, []corev1.Container{fpga, {Name: "x", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"example.com/other": resource.MustParse("1")}}}},
			[]resourcev1.DeviceRequest{devReq("container-0-request-0", "fpga", 1)},
			[]corev1.ContainerExtendedResourceRequest{mapping("f", "deviceclass.resource.kubernetes.io/fpga", "container-0-request-0")}},
	}
	classes := ExtendedResourceClasses{gpu: "gpu", "deviceclass.resource.kubernetes.io/fpga": "fpga"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{InitContainers: c.init, Containers: c.main}}
			spec, mappings, err := ExtendedResourceClaim(p, func(r corev1.ResourceName) (string, bool) { n, ok := classes[r]; return n, ok })
			require.NoError(t, err)
			require.Equal(t, c.wantReqs, spec.Devices.Requests)
			require.Equal(t, c.wantMappings, mappings)
			// The claim asks as many devices as the pod's effective request.
			req, err := PodRequests("pod", &p.Spec)
			require.NoError(t, err)
			var n int64
			for _, r := range spec.Devices.Requests {
				if r.Exactly.DeviceClassName == "gpu" {
					n += r.Exactly.Count
				}
			}
			require.Equal(t, req[gpu], n)
		})
	}
}

// TestNewExtendedResourceClasses: the expected mappings are what
// upstream's extendedresourcecache (dynamic-resource-allocation v0.37.2)
// answered when fed the same classes in name order: the newest class
// serves a contested name, at equal times the first name, and a loser
// keeps its implicit name only when it sorts before the winner. The
// answer does not depend on the order of the input.
func TestNewExtendedResourceClasses(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Unix(int64(s), 0)) }
	dc := func(name string, created int, res string) *resourcev1.DeviceClass {
		c := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: at(created)}}
		if res != "" {
			c.Spec.ExtendedResourceName = ptrTo(res)
		}
		return c
	}
	const gpu, implicit = "x.com/gpu", "deviceclass.resource.kubernetes.io/"
	for _, tc := range []struct {
		name    string
		classes []*resourcev1.DeviceClass
		want    ExtendedResourceClasses
	}{
		{"first name newer: the loser b has no implicit name",
			[]*resourcev1.DeviceClass{dc("a", 2, gpu), dc("b", 1, gpu)},
			ExtendedResourceClasses{gpu: "a", implicit + "a": "a"}},
		{"later name newer: the loser a keeps its implicit name",
			[]*resourcev1.DeviceClass{dc("a", 1, gpu), dc("b", 2, gpu)},
			ExtendedResourceClasses{gpu: "b", implicit + "a": "a", implicit + "b": "b"}},
		{"same time: the first name wins, b loses all",
			[]*resourcev1.DeviceClass{dc("b", 1, gpu), dc("a", 1, gpu)},
			ExtendedResourceClasses{gpu: "a", implicit + "a": "a"}},
		{"three, the first newest",
			[]*resourcev1.DeviceClass{dc("c", 2, gpu), dc("b", 1, gpu), dc("a", 3, gpu)},
			ExtendedResourceClasses{gpu: "a", implicit + "a": "a"}},
		{"three, the middle newest: c arrives after b and loses",
			[]*resourcev1.DeviceClass{dc("a", 1, gpu), dc("b", 3, gpu), dc("c", 2, gpu)},
			ExtendedResourceClasses{gpu: "b", implicit + "a": "a", implicit + "b": "b"}},
		{"three in creation order: each keeps its implicit name",
			[]*resourcev1.DeviceClass{dc("a", 1, gpu), dc("b", 2, gpu), dc("c", 3, gpu)},
			ExtendedResourceClasses{gpu: "c", implicit + "a": "a", implicit + "b": "b", implicit + "c": "c"}},
		{"a class naming nothing keeps its implicit name; nil is skipped",
			[]*resourcev1.DeviceClass{dc("a", 1, gpu), nil, dc("b", 1, ""), dc("c", 1, gpu)},
			ExtendedResourceClasses{gpu: "a", implicit + "a": "a", implicit + "b": "b"}},
		{"two resources are weighed apart",
			[]*resourcev1.DeviceClass{dc("a", 1, gpu), dc("b", 2, "x.com/nic"), dc("c", 1, "x.com/nic")},
			ExtendedResourceClasses{gpu: "a", "x.com/nic": "b", implicit + "a": "a", implicit + "b": "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, NewExtendedResourceClasses(tc.classes))
			rev := slices.Clone(tc.classes)
			slices.Reverse(rev)
			require.Equal(t, tc.want, NewExtendedResourceClasses(rev), "reversed input")
		})
	}
}

const gpuClass = "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.example.com}\nspec:\n  extendedResourceName: example.com/gpu\n  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n"

func gpuNode(name string, plugin int) string {
	alloc := ""
	if plugin > 0 {
		alloc = fmt.Sprintf(", example.com/gpu: %d", plugin)
	}
	return fmt.Sprintf("---\napiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {allocatable: {cpu: '16', pods: '110'%s}}\n", name, alloc)
}

func gpuSlice(node string, n int) string {
	var devs []string
	for i := range n {
		devs = append(devs, fmt.Sprintf("{name: gpu-%d}", i))
	}
	return fmt.Sprintf("---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: %s-gpus}\nspec: {driver: gpu.example.com, pool: {name: %s, generation: 1, resourceSliceCount: 1}, nodeName: %s, devices: [%s]}\n",
		node, node, node, strings.Join(devs, ", "))
}

func gpuPod(name, extra string, gpus int) string {
	return fmt.Sprintf("---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n%s  containers: [{name: w, resources: {limits: {example.com/gpu: %d}}}]\n", name, extra, gpus)
}

// TestServeExtendedResources_Load: how Load serves an extended resource
// a DeviceClass names, and what it refuses.
func TestServeExtendedResources_Load(t *testing.T) {
	t.Run("no node has it in allocatable: DRA", func(t *testing.T) {
		c, err := load(t, gpuNode("n1", 0)+gpuClass+gpuSlice("n1", 2)+gpuPod("p", "", 2))
		require.NoError(t, err)
		p := c.Pending[0]
		require.NotContains(t, p.Requests, placement.ResourceName("example.com/gpu"))
		require.Len(t, p.ResourceClaims, 1)
		require.Equal(t, ExtendedResourceClaimName, p.ResourceClaims[0].Name)
		tmpl, ok := c.Ledger.Template(placement.Key{Namespace: "default", Name: p.ResourceClaims[0].ResourceClaimTemplateName})
		require.True(t, ok)
		require.Equal(t, "example.com/gpu: 2 devices of DeviceClass gpu.example.com", tmpl.Serves)
	})
	t.Run("every node has it: the device plugin", func(t *testing.T) {
		c, err := load(t, gpuNode("n1", 4)+gpuClass+gpuPod("p", "", 2))
		require.NoError(t, err)
		require.Equal(t, int64(2), c.Pending[0].Requests["example.com/gpu"])
		require.Empty(t, c.Pending[0].ResourceClaims)
	})
	t.Run("plugin nodes, and other nodes no slice reaches: the device plugin", func(t *testing.T) {
		c, err := load(t, gpuNode("n1", 4)+gpuNode("cpu", 0)+gpuClass+gpuPod("p", "", 2))
		require.NoError(t, err)
		require.Empty(t, c.Pending[0].ResourceClaims)
	})
	t.Run("both ways in one cluster: per node, through the plugin class", func(t *testing.T) {
		c, err := load(t, gpuNode("n1", 4)+gpuNode("n2", 0)+gpuClass+gpuSlice("n2", 2)+gpuPod("p", "", 2))
		require.NoError(t, err)
		p := c.Pending[0]
		// The pod asks the plugin node's units, as NodeResourcesFit
		// checks them there; the DRA node sets no limit on them.
		require.Equal(t, int64(2), p.Requests["example.com/gpu"])
		require.NotContains(t, p.ScoreRequests, placement.ResourceName("example.com/gpu"))
		require.Equal(t, int64(4), c.Snapshot.Allocatable(0, "example.com/gpu"))
		require.Equal(t, int64(math.MaxInt64), c.Snapshot.Allocatable(1, "example.com/gpu"))
		tmpl, ok := c.Ledger.Template(placement.Key{Namespace: "default", Name: p.ResourceClaims[0].ResourceClaimTemplateName})
		require.True(t, ok)
		require.Equal(t, "<device-plugin or DRA>/gpu.example.com", tmpl.Spec.Requests[0].Exactly.DeviceClassName)
	})
	t.Run("the pod names the kept entry itself: refused", func(t *testing.T) {
		_, err := load(t, gpuNode("n1", 0)+gpuClass+gpuSlice("n1", 2)+
			"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}}\n"+
			gpuPod("p", "  resourceClaims: [{name: extended-resources, resourceClaimTemplateName: t}]\n", 1))
		require.ErrorIs(t, err, ErrUnsupported)
		require.ErrorContains(t, err, `pod "default/p": spec.resourceClaims[0].name: "extended-resources" is the entry gangsched keeps`)
	})
	t.Run("a bound pod on a node without it holds devices through its claim", func(t *testing.T) {
		c, err := load(t, gpuNode("n1", 0)+gpuClass+gpuSlice("n1", 2)+gpuPod("p", "  nodeName: n1\n", 2))
		require.NoError(t, err)
		p, ok := c.Snapshot.Pod(placement.Key{Namespace: "default", Name: "p"})
		require.True(t, ok)
		require.NotContains(t, p.Requests, placement.ResourceName("example.com/gpu"))
		require.Zero(t, c.Snapshot.Requested(0, "example.com/gpu"))
	})
	t.Run("more devices than a request may ask: the pod's field is named", func(t *testing.T) {
		_, err := load(t, gpuNode("n1", 0)+gpuClass+gpuSlice("n1", 2)+gpuPod("p", "", 1<<40))
		require.ErrorIs(t, err, placement.ErrInvalid)
		require.ErrorContains(t, err, `pod "default/p": spec.containers[0].resources.limits[example.com/gpu]: 1099511627776 devices of DeviceClass gpu.example.com, more than one request may ask (1073741824)`)
	})
	t.Run("a bad extendedResourceName", func(t *testing.T) {
		_, err := ConvertDeviceClass(&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: ptrTo("gpu")}})
		require.ErrorIs(t, err, placement.ErrInvalid)
		require.ErrorContains(t, err, `DeviceClass "gpu": spec.extendedResourceName: "gpu" is not an extended resource name`)
	})
}

// solveExtended loads docs, places the pending pods as one group of
// policy Basic (as many as fit) with the ledger's hook, commits, and
// returns the cluster (with the updates written back), decision and claim
// updates.
func solveExtended(t require.TestingT, docs string) (*Cluster, placement.Decision, []dra.ClaimUpdate) {
	objs, err := manifest.Decode("in.yaml", strings.NewReader(docs), manifest.Options{})
	require.NoError(t, err)
	c, err := Load(objs)
	require.NoError(t, err)
	for i := range c.Pending {
		c.Pending[i].SchedulingGroup = "pg"
	}
	g := &placement.Group{Namespace: "default", Name: "pg", Policy: placement.PolicyBasic, MinCount: 1, Members: c.Pending}
	pg := dra.PodGroup{Namespace: "default", Name: "pg"}
	d, err := placement.Solve(c.Snapshot, g, placement.Options{Reservers: []placement.NewReserverFunc{c.Ledger.Reserver(pg, dra.Options{})}})
	require.NoError(t, err)
	l, ups, err := c.Ledger.Commit(c.Snapshot, pg, g, d, dra.Options{})
	require.NoError(t, err)
	c.SetLedger(l, ups)
	return c, d, ups
}

// TestScenario_ExtendedGPUs: two nodes of three and two GPUs, pods asking
// 2, 2 and 1 example.com/gpu: exact devices per pod.
func TestScenario_ExtendedGPUs(t *testing.T) {
	_, d, ups := solveExtended(t, gpuNode("n1", 0)+gpuNode("n2", 0)+gpuClass+gpuSlice("n1", 3)+gpuSlice("n2", 2)+
		gpuPod("a", "", 2)+gpuPod("b", "", 2)+gpuPod("c", "", 1))
	require.Equal(t, placement.Scheduled, d.Status)
	got := map[string][]string{}
	for _, u := range ups {
		for _, dv := range u.Claim.Status.Allocation.Devices {
			got[u.Claim.Name] = append(got[u.Claim.Name], dv.Request+"="+dv.DeviceID.String())
		}
	}
	require.Equal(t, map[string][]string{
		"a-extended-resources": {"container-0-request-0=gpu.example.com/n1/gpu-0", "container-0-request-0=gpu.example.com/n1/gpu-1"},
		"b-extended-resources": {"container-0-request-0=gpu.example.com/n2/gpu-0", "container-0-request-0=gpu.example.com/n2/gpu-1"},
		"c-extended-resources": {"container-0-request-0=gpu.example.com/n1/gpu-2"},
	}, got)
}

// extendedWorld draws 1–3 nodes with 0–5 DRA GPUs each and 1–4 pods
// asking 1–4 example.com/gpu each, some through an init container or a
// sidecar as well; it returns the manifests and each pod's effective
// request.
func extendedWorld(t *rapid.T) (string, map[string]int64) {
	var b strings.Builder
	b.WriteString(gpuClass)
	nodes := rapid.IntRange(1, 3).Draw(t, "nodes")
	for i := range nodes {
		n := fmt.Sprintf("n%d", i)
		b.WriteString(gpuNode(n, 0))
		if k := rapid.IntRange(0, 5).Draw(t, "gpus"); k > 0 {
			b.WriteString(gpuSlice(n, k))
		}
	}
	want := map[string]int64{}
	for i := range rapid.IntRange(1, 4).Draw(t, "pods") {
		name := fmt.Sprintf("p%d", i)
		w := rapid.IntRange(1, 3).Draw(t, "worker")
		extra, total := "", int64(w)
		switch rapid.IntRange(0, 2).Draw(t, "shape") {
		case 1: // an init container, borrowing the worker's devices first
			k := rapid.IntRange(1, 4).Draw(t, "init")
			extra, total = fmt.Sprintf("  initContainers: [{name: i, resources: {limits: {example.com/gpu: %d}}}]\n", k), int64(max(k, w))
		case 2: // a sidecar, running beside the worker
			k := rapid.IntRange(1, 2).Draw(t, "sidecar")
			extra, total = fmt.Sprintf("  initContainers: [{name: s, restartPolicy: Always, resources: {limits: {example.com/gpu: %d}}}]\n", k), int64(k+w)
		}
		b.WriteString(gpuPod(name, extra, w))
		want[name] = total
	}
	return b.String(), want
}

// TestProp_ExtendedResourcesGetDistinctDevices: every pod placed gets, on
// its node, exactly its effective request's number of distinct devices of
// the class, and no device goes to two pods.
func TestProp_ExtendedResourcesGetDistinctDevices(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		docs, want := extendedWorld(t)
		_, d, ups := solveExtended(t, docs)
		node := map[string]string{}
		for _, a := range d.Assignments {
			node[a.Pod.Name] = a.Node
		}
		owner := map[dra.DeviceID]string{}
		claimed := map[string]bool{}
		for _, u := range ups {
			pod := strings.TrimSuffix(u.Claim.Name, "-"+ExtendedResourceClaimName)
			claimed[pod] = true
			devs := u.Claim.Status.Allocation.Devices
			require.Len(t, devs, int(want[pod]), "pod %s", pod)
			for _, dv := range devs {
				require.Equal(t, "gpu.example.com", dv.Driver)
				require.Equal(t, node[pod], dv.Pool, "pod %s got a device of another node", pod)
				prev, taken := owner[dv.DeviceID]
				require.False(t, taken, "device %s given to %s and %s", dv.DeviceID, prev, pod)
				owner[dv.DeviceID] = pod
			}
		}
		for p := range node {
			require.True(t, claimed[p], "pod %s placed without its claim", p)
		}
	})
}

// TestGenExtendedWorldCompanion: the generator yields worlds where every
// pod is placed and worlds where some are not.
func TestGenExtendedWorldCompanion(t *testing.T) {
	all, some := false, false
	rapid.Check(t, func(t *rapid.T) {
		docs, want := extendedWorld(t)
		_, d, _ := solveExtended(t, docs)
		if len(d.Assignments) == len(want) {
			all = true
		} else {
			some = true
		}
	})
	require.True(t, all && some, "all placed seen %v, some unplaced seen %v", all, some)
}
