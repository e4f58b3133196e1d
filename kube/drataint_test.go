package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// taintManifest: nodes n1 and n2 with one GPU each; n1's gpu-0 carries
// sliceTaint (YAML, may be empty); rules follow; claim c asks for one GPU
// with the tolerations tols (YAML, may be empty).
func taintManifest(sliceTaint, rules, tols string) string {
	out := ""
	for _, n := range []string{"n1", "n2"} {
		out += fmt.Sprintf("---\napiVersion: v1\nkind: Node\nmetadata: {name: %s}\nstatus: {allocatable: {cpu: \"4\"}}\n", n)
		taints := ""
		if n == "n1" {
			taints = sliceTaint
		}
		out += fmt.Sprintf(`---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: %[1]s-gpus}
spec:
  driver: gpu.example.com
  pool: {name: %[1]s, generation: 1, resourceSliceCount: 1}
  nodeName: %[1]s
  devices:
  - name: gpu-0
%[2]s`, n, taints)
	}
	return out + `---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
` + tols + rules
}

// planOn reports whether claim c of the manifest can be allocated on each
// node.
func planOn(t *testing.T, in string) map[string]bool {
	t.Helper()
	c, err := load(t, in)
	require.NoError(t, err)
	out := map[string]bool{}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		res, rej, err := c.Ledger.Plan(n, dra.Options{}, placement.Key{Namespace: "default", Name: "c"})
		require.NoError(t, err)
		out[n.Name] = rej.Reason == "" && len(res) == 1
	}
	return out
}

func TestDeviceTaintsFromManifests(t *testing.T) {
	const noSchedule = "    taints: [{key: example.com/unhealthy, value: ecc, effect: NoSchedule, timeAdded: \"2026-01-01T00:00:00Z\"}]\n"
	const drainN1 = `---
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain-n1}
spec:
  deviceSelector: {driver: gpu.example.com, pool: n1}
  taint: {key: example.com/drain, effect: NoExecute}
`
	const tolerateAll = "        tolerations: [{operator: Exists, tolerationSeconds: 60}]\n"
	for _, tc := range []struct {
		scenario, taint, rules, tols string
		want                         map[string]bool
	}{
		{"no taint: either node's GPU serves the claim", "", "", "", map[string]bool{"n1": true, "n2": true}},
		{"n1's GPU tainted NoSchedule in its slice: only n2", noSchedule, "", "", map[string]bool{"n1": false, "n2": true}},
		{"the taint tolerated by key: both", noSchedule, "", "        tolerations: [{key: example.com/unhealthy, operator: Exists}]\n", map[string]bool{"n1": true, "n2": true}},
		{"a DeviceTaintRule drains pool n1: only n2", "", drainN1, "", map[string]bool{"n1": false, "n2": true}},
		{"the rule's taint tolerated by a wildcard: both", "", drainN1, tolerateAll, map[string]bool{"n1": true, "n2": true}},
		{"a rule of effect None changes nothing", "", "---\napiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: note}\nspec:\n  deviceSelector: {}\n  taint: {key: k, effect: None}\n", "", map[string]bool{"n1": true, "n2": true}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			require.Equal(t, tc.want, planOn(t, taintManifest(tc.taint, tc.rules, tc.tols)))
		})
	}
}

func TestConvertDeviceTaintRule(t *testing.T) {
	r := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: resourcev1.DeviceTaintRuleSpec{
		DeviceSelector: &resourcev1.DeviceTaintSelector{Pool: ptrTo("p"), Device: ptrTo("d")},
		Taint:          resourcev1.DeviceTaint{Key: "k", Value: "v", Effect: resourcev1.DeviceTaintEffectNoSchedule},
	}}
	got, err := ConvertDeviceTaintRule(r)
	require.NoError(t, err)
	require.Equal(t, dra.DeviceTaintRule{Name: "r", DeviceSelector: &dra.DeviceTaintSelector{Pool: "p", Device: "d"},
		Taint: dra.DeviceTaint{Key: "k", Value: "v", Effect: dra.TaintEffectNoSchedule}}, got)

	r.Spec.DeviceSelector.Driver = ptrTo("")
	_, err = ConvertDeviceTaintRule(r)
	require.ErrorContains(t, err, `DeviceTaintRule "r": spec.deviceSelector.driver`)

	r.Spec.DeviceSelector = nil
	got, err = ConvertDeviceTaintRule(r)
	require.NoError(t, err)
	require.Nil(t, got.DeviceSelector, "no selector selects no device")

	_, err = ConvertDeviceTaintRule(nil)
	require.Error(t, err)

	c, err := load(t, taintManifest("", "---\napiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: bad}\nspec:\n  deviceSelector: {}\n  taint: {effect: None}\n", ""))
	require.Nil(t, c)
	require.ErrorContains(t, err, `DeviceTaintRule "bad": spec.taint.key`)
}
