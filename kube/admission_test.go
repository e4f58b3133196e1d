package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// admissionOf decodes LimitRanges and RuntimeClasses from YAML y and
// builds their Admission.
func admissionOf(t *testing.T, y string) (*Admission, error) {
	t.Helper()
	var lrs []*corev1.LimitRange
	var rcs []*nodev1.RuntimeClass
	for _, o := range decode(t, y) {
		switch v := o.Obj.(type) {
		case *corev1.LimitRange:
			lrs = append(lrs, v)
		case *nodev1.RuntimeClass:
			rcs = append(rcs, v)
		default:
			t.Fatalf("unexpected %T", o.Obj)
		}
	}
	return NewAdmission(lrs, rcs)
}

// podOf decodes the one pod of YAML y.
func podOf(t *testing.T, y string) *corev1.Pod {
	t.Helper()
	objs := decode(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"+y)
	require.Len(t, objs, 1)
	return objs[0].Obj.(*corev1.Pod)
}

const (
	lrCPU2    = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: default}\nspec: {limits: [{type: Container, default: {cpu: \"2\"}, defaultRequest: {cpu: \"1\"}}]}\n"
	rcKata    = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\noverhead: {podFixed: {cpu: 250m, memory: 64Mi}}\nscheduling: {nodeSelector: {pool: kata}, tolerations: [{key: kata, operator: Exists, effect: NoSchedule}]}\n"
	bareSpec  = "spec: {containers: [{name: c}]}\n"
	kataSpec  = "spec: {runtimeClassName: kata, containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n"
	limitSpec = "spec: {containers: [{name: c, resources: {limits: {cpu: \"4\"}}}]}\n"
)

// The API server's LimitRanger and RuntimeClass admission, as AdmitPod
// applies them to a pod it creates: the requests the pod is charged, its
// container limits, and its node selector and tolerations.
func TestAdmitPod(t *testing.T) {
	for _, tc := range []struct {
		name      string
		objs, pod string
		requests  placement.ResourceList
		limits    corev1.ResourceList // of the first container, when checked
		selector  map[string]string
		tolerates int
		unchanged bool
	}{
		{name: "no LimitRange: nothing is charged", objs: rcKata, pod: bareSpec, unchanged: true},
		{name: "default and defaultRequest fill a bare container", objs: lrCPU2, pod: bareSpec,
			requests: placement.ResourceList{"cpu": 1000}, limits: corev1.ResourceList{"cpu": q("2")}},
		{name: "a limit without request is the request, as defaulting ran first", objs: lrCPU2, pod: limitSpec,
			requests: placement.ResourceList{"cpu": 4000}, unchanged: true},
		{name: "a request gets the default limit only", objs: lrCPU2, pod: "spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}\n",
			requests: placement.ResourceList{"cpu": 500}, limits: corev1.ResourceList{"cpu": q("2")}},
		{name: "init containers too", objs: lrCPU2, pod: "spec: {initContainers: [{name: i}], containers: [{name: c, resources: {requests: {cpu: 100m}}}]}\n",
			requests: placement.ResourceList{"cpu": 1000}},
		{name: "another namespace's LimitRange applies not", objs: "apiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: other}\nspec: {limits: [{type: Container, defaultRequest: {cpu: \"1\"}}]}\n",
			pod: bareSpec, unchanged: true},
		{name: "default alone is the default request (LimitRange defaulting)", objs: "apiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: default}\nspec: {limits: [{type: Container, default: {memory: 1Gi}}]}\n",
			pod: bareSpec, requests: placement.ResourceList{"memory": 1 << 30}},
		{name: "max alone is the default limit and request", objs: "apiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: default}\nspec: {limits: [{type: Container, max: {cpu: \"3\"}}]}\n",
			pod: bareSpec, requests: placement.ResourceList{"cpu": 3000}, limits: corev1.ResourceList{"cpu": q("3")}},
		{name: "min alone is the default request, no limit", objs: "apiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: default}\nspec: {limits: [{type: Container, min: {cpu: 200m}}]}\n",
			pod: bareSpec, requests: placement.ResourceList{"cpu": 200}, limits: corev1.ResourceList{}},
		{name: "the first LimitRange by name wins", objs: lrCPU2 + "---\napiVersion: v1\nkind: LimitRange\nmetadata: {name: a, namespace: default}\nspec: {limits: [{type: Container, defaultRequest: {cpu: 300m, memory: 1Mi}}]}\n",
			pod: bareSpec, requests: placement.ResourceList{"cpu": 300, "memory": 1 << 20}, limits: corev1.ResourceList{"cpu": q("2")}},
		{name: "a later item of one LimitRange overrides", objs: "apiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: default}\nspec: {limits: [{type: Container, defaultRequest: {cpu: \"1\"}}, {type: Pod, max: {cpu: \"9\"}}, {type: Container, defaultRequest: {cpu: \"2\"}}]}\n",
			pod: bareSpec, requests: placement.ResourceList{"cpu": 2000}},
		{name: "RuntimeClass overhead, selector and toleration", objs: rcKata, pod: kataSpec,
			requests: placement.ResourceList{"cpu": 1250, "memory": 64 << 20}, selector: map[string]string{"pool": "kata"}, tolerates: 1},
		{name: "an equal overhead, selector and toleration are kept", objs: rcKata,
			pod:      "spec: {runtimeClassName: kata, overhead: {cpu: 250m, memory: 64Mi}, nodeSelector: {pool: kata}, tolerations: [{key: kata, operator: Exists, effect: NoSchedule}], containers: [{name: c}]}\n",
			requests: placement.ResourceList{"cpu": 250, "memory": 64 << 20}, selector: map[string]string{"pool": "kata"}, tolerates: 1, unchanged: true},
		{name: "a RuntimeClass the input lacks adds nothing", objs: lrCPU2, pod: kataSpec, requests: placement.ResourceList{"cpu": 1000}, limits: corev1.ResourceList{"cpu": q("2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := admissionOf(t, tc.objs)
			require.NoError(t, err)
			p := podOf(t, tc.pod)
			before := p.DeepCopy()
			got, err := a.AdmitPod(p)
			require.NoError(t, err)
			require.Equal(t, before, p, "the pod given is not modified")
			require.Equal(t, tc.unchanged, got == p)
			req, err := PodRequests("p", &got.Spec)
			require.NoError(t, err)
			require.Equal(t, tc.requests, req)
			if tc.limits != nil {
				require.Equal(t, len(tc.limits), len(got.Spec.Containers[0].Resources.Limits))
				require.True(t, equalResources(tc.limits, got.Spec.Containers[0].Resources.Limits), "%v", got.Spec.Containers[0].Resources.Limits)
			}
			require.Equal(t, tc.selector, got.Spec.NodeSelector)
			require.Len(t, got.Spec.Tolerations, tc.tolerates)
			again, err := a.AdmitPod(got)
			require.NoError(t, err)
			require.Same(t, got, again, "admission is a fixed point")
		})
	}
}

// The RuntimeClass plugin refuses a pod whose overhead or node selector
// disagrees with its RuntimeClass; AdmitPod names the field.
func TestAdmitPod_Refused(t *testing.T) {
	for _, tc := range []struct{ objs, pod, err string }{
		{rcKata, "spec: {runtimeClassName: kata, overhead: {cpu: \"1\"}, containers: [{name: c}]}\n",
			`pod "p": spec.overhead: differs from RuntimeClass kata's overhead.podFixed (the RuntimeClass admission plugin refuses the pod)`},
		{"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\n", "spec: {runtimeClassName: kata, overhead: {cpu: \"1\"}, containers: [{name: c}]}\n",
			`pod "p": spec.overhead: is set, but RuntimeClass kata has no overhead (the RuntimeClass admission plugin refuses the pod)`},
		{rcKata, "spec: {runtimeClassName: kata, nodeSelector: {pool: gpu}, containers: [{name: c}]}\n",
			`pod "p": spec.nodeSelector[pool]: "gpu" conflicts with RuntimeClass kata's scheduling.nodeSelector "kata" (the RuntimeClass admission plugin refuses the pod)`},
	} {
		a, err := admissionOf(t, tc.objs)
		require.NoError(t, err)
		p := podOf(t, tc.pod)
		p.Namespace = ""
		_, err = a.AdmitPod(p)
		require.EqualError(t, err, tc.err)
		require.ErrorIs(t, err, placement.ErrInvalid)
	}
}

// LimitRanges and RuntimeClasses the API server would refuse are input
// errors naming the object and the field.
func TestNewAdmission_Errors(t *testing.T) {
	lr := func(item string) string {
		return "apiVersion: v1\nkind: LimitRange\nmetadata: {name: l, namespace: default}\nspec: {limits: [" + item + "]}\n"
	}
	for _, tc := range []struct{ objs, err string }{
		{lr(`{type: Container, defaultRequest: {cpu: "-1"}}`), `LimitRange "default/l": spec.limits[0].defaultRequest[cpu]: -1 is negative`},
		{lr(`{type: Container, default: {nvidia.com/gpu: 500m}}`), `LimitRange "default/l": spec.limits[0].default[nvidia.com/gpu]: 500m: an extended resource must be a whole number`},
		{lr(`{type: Container, default: {cpu: "1"}, defaultRequest: {cpu: "2"}}`), `LimitRange "default/l": spec.limits[0].defaultRequest[cpu]: 2 is above the default 1 (the API server refuses it)`},
		{lr(`{type: Container, max: {cpu: "1"}, default: {cpu: "2"}}`), `LimitRange "default/l": spec.limits[0].default[cpu]: 2 is above the max 1 (the API server refuses it)`},
		{lr(`{type: Node}`), `LimitRange "default/l": spec.limits[0].type: "Node" is not Pod, Container or PersistentVolumeClaim`},
		{"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\noverhead: {podFixed: {cpu: \"-1\"}}\n", `RuntimeClass "kata": overhead.podFixed[cpu]: -1 is negative`},
	} {
		_, err := admissionOf(t, tc.objs)
		require.Error(t, err)
		require.Contains(t, err.Error(), tc.err)
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

// FuzzAdmitPod: whatever LimitRanges and RuntimeClasses NewAdmission
// accepts, admitting a pod never panics nor modifies the pod given, and
// admitting the result again changes nothing (a fixed point, so that
// -o yaml output reads back the same); a refusal is a located field error.
func FuzzAdmitPod(f *testing.F) {
	f.Add(lrCPU2 + "---\n" + rcKata + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n" + kataSpec)
	f.Add("apiVersion: v1\nkind: LimitRange\nmetadata: {name: l, namespace: default}\nspec: {limits: [{type: Container, max: {memory: 1Gi}, min: {cpu: 10m}}, {type: Container, defaultRequest: {cpu: 20m}}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {initContainers: [{name: i, resources: {limits: {cpu: 1}}}], containers: [{name: c, resources: {requests: {memory: 1Mi}}}]}\n")
	f.Fuzz(func(t *testing.T, in string) {
		objs, err := manifest.Decode("f.yaml", strings.NewReader(in), manifest.Options{})
		if err != nil {
			return
		}
		var lrs []*corev1.LimitRange
		var rcs []*nodev1.RuntimeClass
		var pods []*corev1.Pod
		for _, o := range objs {
			switch v := o.Obj.(type) {
			case *corev1.LimitRange:
				lrs = append(lrs, v)
			case *nodev1.RuntimeClass:
				rcs = append(rcs, v)
			case *corev1.Pod:
				pods = append(pods, v)
			}
		}
		a, err := NewAdmission(lrs, rcs)
		if err != nil {
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		for _, p := range pods {
			before := p.DeepCopy()
			got, err := a.AdmitPod(p)
			require.Equal(t, before, p)
			if err != nil {
				var fe *placement.FieldError
				require.ErrorAs(t, err, &fe)
				continue
			}
			again, err := a.AdmitPod(got)
			require.NoError(t, err)
			require.Same(t, got, again)
			spec := a.adjustKueueTemplate(p.Namespace, &before.Spec)
			require.Same(t, spec, a.adjustKueueTemplate(p.Namespace, spec))
		}
	})
}
