package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

func load(t *testing.T, in string) (*Cluster, error) {
	t.Helper()
	objs, err := manifest.Decode("in.yaml", strings.NewReader(in), manifest.Options{})
	require.NoError(t, err)
	return Load(objs)
}

const node1 = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"4\"}}\n"

func pod(name, extra string) string {
	return "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n" + extra
}

func TestLoad(t *testing.T) {
	c, err := load(t, node1+
		pod("bound", "  nodeName: n1\n")+
		pod("done", "  nodeName: n1\nstatus: {phase: Succeeded}\n")+
		pod("gated", "  schedulingGates: [{name: example.com/quota}]\n")+
		pod("pending", "  schedulingGroup: {podGroupName: pg}\n")+
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n"+
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2, completions: 2, completionMode: Indexed, template: {spec: {containers: [{name: c}]}}}\n")
	require.NoError(t, err)
	require.Equal(t, 1, c.Snapshot.NumPods(), "the finished pod holds nothing")
	require.Equal(t, []placement.Key{{Namespace: "default", Name: "gated"}}, c.Gated)
	var pending []string
	for _, p := range c.Pending {
		pending = append(pending, p.Name+"@"+p.SchedulingGroup)
	}
	require.Len(t, c.PodGroups, 1)
	stamped := c.PodGroups[0].Name
	require.Equal(t, []string{"pending@pg", "j-0@" + stamped, "j-1@" + stamped}, pending)
	require.Len(t, c.Unused, 1)
	require.Equal(t, "Service", c.Unused[0].Kind)
	require.Nil(t, c.Ledger)

	require.True(t, c.Bind(placement.Key{Namespace: "default", Name: "j-0"}, "n1"))
	require.False(t, c.Bind(placement.Key{Namespace: "default", Name: "nope"}, "n1"))
	p, _ := c.Pod(placement.Key{Namespace: "default", Name: "j-0"})
	require.Equal(t, "n1", p.Spec.NodeName)
	require.Equal(t, 6+4, len(c.Objects()), "6 typed inputs (the Service is not typed) + the Job's Workload, PodGroup and 2 pods")
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, in, err string
	}{
		{"job pod exists", node1 + pod("j-0", "") + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 1, template: {spec: {containers: [{name: c}]}}}\n",
			`in.yaml: document 3 (line 15): Job "default/j": spec: the Job controller would create pod "default/j-0", which the input already has`},
		{"unknown node", pod("p", "  nodeName: gone\n"), `in.yaml: document 1 (line 7): pod "default/p": spec.nodeName: node "gone" is not in the snapshot`},
		{"missing claim template", node1 + pod("p", "  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]\n"),
			`in.yaml: document 2 (line 11): pod "default/p": spec.resourceClaims[0].resourceClaimTemplateName: no ResourceClaimTemplate "gpu" in namespace "default"`},
		{"bad CEL", node1 + "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {selectors: [{cel: {expression: 'device.driver =='}}]}\n",
			`in.yaml: document 2 (line 9): DeviceClass "gpu": spec.selectors[0].cel.expression: compilation failed`},
		{"job pod with bad request", node1 + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: '-1'}}}]}}}\n",
			`in.yaml: document 2 (line 9): pod "default/j-0": spec.containers[0].resources.requests[cpu]: -1 is negative`},
		// The API server accepts a class that does not exist yet; in a fixed
		// input it never will, and every cycle would fail on it.
		{"unknown device class", node1 + "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {spec: {devices: {requests: [{name: r, firstAvailable: [{name: a, deviceClassName: gpu}]}]}}}\n",
			`in.yaml: document 2 (line 9): ResourceClaimTemplate "default/t": spec.spec.devices.requests[0].firstAvailable[0].deviceClassName: no DeviceClass "gpu"`},
		// A lone pod is scheduled as gangsim's implicit group "pod:<name>";
		// the API's name rules keep a pod from joining it.
		{"schedulingGroup not a DNS subdomain", node1 + pod("p", "  schedulingGroup: {podGroupName: 'pod:q'}\n"),
			`in.yaml: document 2 (line 11): pod "default/p": spec.schedulingGroup.podGroupName: "pod:q": a lowercase RFC 1123 subdomain`},
		// Two billion pods would be created up front: an error, at once.
		{"job too parallel", node1 + "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2000000000, completions: 2000000000, template: {spec: {containers: [{name: c}]}}}\n",
			`in.yaml: document 2 (line 9): Job "default/j": spec.parallelism: 2000000000 is above 100000`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := load(t, c.in)
			require.Nil(t, got)
			require.ErrorContains(t, err, c.err)
		})
	}
}

func TestConvertPodDisruptionBudget(t *testing.T) {
	bound := []placement.Pod{
		{Namespace: "ns", Name: "a", Labels: map[string]string{"app": "web"}},
		{Namespace: "ns", Name: "b", Labels: map[string]string{"app": "web"}},
		{Namespace: "ns", Name: "c", Labels: map[string]string{"app": "web"}},
		{Namespace: "other", Name: "d", Labels: map[string]string{"app": "web"}},
	}
	pdb := func(spec string) *policyv1.PodDisruptionBudget {
		objs, err := manifest.Decode("p.yaml", strings.NewReader("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: ns}\nspec: "+spec+"\n"), manifest.Options{})
		require.NoError(t, err)
		return objs[0].Obj.(*policyv1.PodDisruptionBudget)
	}
	cases := []struct {
		spec    string
		allowed int32
	}{
		{"{maxUnavailable: 1, selector: {matchLabels: {app: web}}}", 1},
		{"{maxUnavailable: 50%, selector: {matchLabels: {app: web}}}", 2},
		{"{minAvailable: 2, selector: {matchLabels: {app: web}}}", 1},
		{"{minAvailable: 100%, selector: {}}", 0},
		{"{minAvailable: 5, selector: {matchLabels: {app: web}}}", 0},
	}
	for _, c := range cases {
		b, ok, err := ConvertPodDisruptionBudget(pdb(c.spec), bound)
		require.NoError(t, err, c.spec)
		require.True(t, ok)
		require.Equal(t, c.allowed, b.DisruptionsAllowed, c.spec)
	}
	_, ok, err := ConvertPodDisruptionBudget(pdb("{maxUnavailable: 1}"), bound)
	require.NoError(t, err)
	require.False(t, ok, "no selector guards nothing")
	p := pdb("{maxUnavailable: 1, selector: {matchLabels: {app: web}}}")
	p.Status.ObservedGeneration, p.Status.DisruptionsAllowed = 1, 0
	b, _, err := ConvertPodDisruptionBudget(p, bound)
	require.NoError(t, err)
	require.Zero(t, b.DisruptionsAllowed, "a written status wins")
	_, _, err = ConvertPodDisruptionBudget(pdb("{maxUnavailable: 'x%', selector: {}}"), bound)
	require.ErrorContains(t, err, `PodDisruptionBudget "ns/web": spec.maxUnavailable:`)
}
