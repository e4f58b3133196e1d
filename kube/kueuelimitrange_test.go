package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Kueue v0.17's reason for a Workload its scheduler will not try, by its
// source (pkg/workload ValidateResources, ValidateLimitRange); the
// single-failure shapes ran on the real Kueue too
// (kueue-oracle/resources/limitrange*.json).
func TestKueueResourcesInvalid(t *testing.T) {
	lr := "apiVersion: v1\nkind: LimitRange\nmetadata: {name: a, namespace: default}\nspec: {limits: [" +
		"{type: Container, max: {cpu: \"2\", memory: 1Gi}, min: {cpu: 100m}, default: {cpu: \"2\", memory: 1Gi}}, {type: Pod, min: {nvidia.com/gpu: \"1\"}, max: {cpu: \"3\"}}]}\n" +
		"---\napiVersion: v1\nkind: LimitRange\nmetadata: {name: b, namespace: default}\nspec: {limits: [{type: Container, max: {cpu: \"4\"}, min: {cpu: 200m}}]}\n"
	for _, tc := range []struct {
		name, lr, sets, want string
	}{
		{name: "no LimitRange, within limits", sets: `[{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}}]}}}]`},
		{name: "no LimitRange, request above limit in a set of count 0",
			sets: `[{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}, {name: idle, count: 0, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}}]}}}]`,
			want: `resources validation failed: spec.podSets[1].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not exceed its limits`},
		{name: "two resources above the max, named in order", lr: lr,
			sets: `[{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 3500m, memory: 2Gi}, limits: {cpu: 3500m, memory: 2Gi}}}]}}}]`,
			want: `resources didn't satisfy LimitRange constraints: [spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu","memory"]: requests must not be above the limitRange max, spec.podSets[0].template.spec: Invalid value: ["cpu"]: requests must not be above the limitRange max]`},
		{name: "the highest min of two LimitRanges; a Pod min of a resource requested at 0", lr: lr,
			sets: `[{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: 150m, nvidia.com/gpu: "0"}, limits: {nvidia.com/gpu: "0"}}}]}}}]`,
			want: `resources didn't satisfy LimitRange constraints: [spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be below the limitRange min, spec.podSets[0].template.spec: Invalid value: ["nvidia.com/gpu"]: requests must not be below the limitRange min]`},
		{name: "a Pod min of a resource not requested is no failure", lr: lr,
			sets: `[{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}}]`},
		{name: "the default limit makes a larger request one above its limit", lr: lr,
			sets: `[{name: main, count: 1, template: {spec: {containers: [{name: c, resources: {requests: {memory: 2Gi}}}]}}}]`,
			want: `resources validation failed: spec.podSets[0].template.spec.containers[0]: Invalid value: ["memory"]: requests must not exceed its limits`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a *Admission
			if tc.lr != "" {
				var err error
				a, err = admissionOf(t, tc.lr)
				require.NoError(t, err)
			}
			objs := decode(t, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: default}\nspec: {podSets: "+tc.sets+"}\n")
			w, err := ConvertKueueWorkloadWith(objs[0].Obj.(*kueue.Workload), nil, KueueReadOptions{Admission: a})
			require.NoError(t, err)
			require.Equal(t, tc.want, w.resourcesInvalid)
		})
	}
}

// A LimitRange's max or min that no quantity reads is an input error
// naming it and the field.
func TestNewAdmission_BadBound(t *testing.T) {
	_, err := admissionOf(t, "apiVersion: v1\nkind: LimitRange\nmetadata: {name: a, namespace: default}\nspec: {limits: [{type: Pod, max: {nvidia.com/gpu: 500m}}]}\n")
	require.ErrorContains(t, err, `LimitRange "default/a"`)
	require.ErrorContains(t, err, "spec.limits[0].max[nvidia.com/gpu]")
}
