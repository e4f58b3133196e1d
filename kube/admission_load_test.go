package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gangsched/gangsched/placement"
)

// Load admits the pods it reads pending and those the Job controller
// creates with the namespace's LimitRange and the RuntimeClass they name,
// writing the defaults into the pods (so that Objects reads back the
// same), and leaves bound pods and the Job's template as given; the
// LimitRange and RuntimeClass are used, not listed as unused.
func TestLoad_Admission(t *testing.T) {
	in := node1 + "---\n" + lrCPU2 + "---\n" + rcKata +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: bound}\nspec: {nodeName: n1, containers: [{name: c}]}\n" +
		"---\napiVersion: v1\nkind: Pod\nmetadata: {name: pending}\nspec: {runtimeClassName: kata, containers: [{name: c}]}\n" +
		"---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2, completions: 2, template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}\n"
	c, err := load(t, in)
	require.NoError(t, err)
	require.Empty(t, c.Unused)
	got := map[string]placement.ResourceList{}
	for _, p := range c.Pending {
		got[p.Name] = p.Requests
	}
	require.Equal(t, map[string]placement.ResourceList{
		"pending": {"cpu": 1250, "memory": 64 << 20},
		"j-0":     {"cpu": 1000}, "j-1": {"cpu": 1000},
	}, got)
	bound, ok := c.Snapshot.Pod(placement.Key{Namespace: "default", Name: "bound"})
	require.True(t, ok)
	require.Empty(t, bound.Requests, "a bound pod is taken as given")
	for _, o := range c.Objects() {
		switch v := o.(type) {
		case *batchv1.Job:
			require.Empty(t, v.Spec.Template.Spec.Containers[0].Resources.Requests, "the Job's template is not written")
		case *corev1.Pod:
			if v.Name == "pending" {
				require.Equal(t, map[string]string{"pool": "kata"}, v.Spec.NodeSelector)
				require.Equal(t, "1", v.Spec.Containers[0].Resources.Requests.Cpu().String())
			}
		}
	}

	c, err = load(t, in+"---\n"+"apiVersion: v1\nkind: LimitRange\nmetadata: {name: bad, namespace: default}\nspec: {limits: [{type: Container, default: {cpu: \"1\"}, defaultRequest: {cpu: \"3\"}}]}\n")
	require.Nil(t, c)
	require.EqualError(t, err, `in.yaml: document 7 (line 36): LimitRange "default/bad": spec.limits[0].defaultRequest[cpu]: 3 is above the default 1 (the API server refuses it)`)
}

// Kueue adjusts a Workload's pod set templates before charging them
// (AdjustResources): the RuntimeClass's overhead, the LimitRanges'
// summarized defaults (first by name wins), a default request even where
// a limit is set, and limits as missing requests; with the Configuration's
// excludeResourcePrefixes the excluded resources are not requested.
func TestConvertKueueWorkload_Adjusted(t *testing.T) {
	lrA := "apiVersion: v1\nkind: LimitRange\nmetadata: {name: a, namespace: default}\nspec: {limits: [{type: Container, defaultRequest: {cpu: 300m}}]}\n"
	for _, tc := range []struct {
		name, objs, spec string
		exclude          []string
		want             placement.ResourceList
		zero             []placement.ResourceName
		charge           placement.ResourceList // nil: the requests are the charge
	}{
		{name: "nothing to adjust", spec: "containers: [{name: c}]"},
		{name: "LimitRange defaults", objs: lrCPU2, spec: "containers: [{name: c}]", want: placement.ResourceList{"cpu": 1000}},
		{name: "the default request, not the limit", objs: lrCPU2, spec: `containers: [{name: c, resources: {limits: {cpu: "4"}}}]`, want: placement.ResourceList{"cpu": 1000}},
		{name: "the first LimitRange by name", objs: lrCPU2 + "---\n" + lrA, spec: "containers: [{name: c}]", want: placement.ResourceList{"cpu": 300}},
		{name: "RuntimeClass overhead", objs: rcKata, spec: `runtimeClassName: kata, containers: [{name: c, resources: {requests: {cpu: "1"}}}]`,
			want: placement.ResourceList{"cpu": 1250, "memory": 64 << 20}},
		{name: "a given overhead is kept", objs: rcKata, spec: `runtimeClassName: kata, overhead: {cpu: "2"}, containers: [{name: c}]`,
			want: placement.ResourceList{"cpu": 2000}},
		{name: "excluded prefixes: placed by, not charged", spec: `containers: [{name: c, resources: {requests: {cpu: "1", example.com/nic: "1", example.com/zero: "0", nvidia.com/gpu: "0"}}}]`,
			exclude: []string{"example.com/"}, want: placement.ResourceList{"cpu": 1000, "example.com/nic": 1}, zero: []placement.ResourceName{"example.com/zero", "nvidia.com/gpu"},
			charge: placement.ResourceList{"cpu": 1000, "nvidia.com/gpu": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a *Admission
			if tc.objs != "" {
				var err error
				a, err = admissionOf(t, tc.objs)
				require.NoError(t, err)
			}
			objs := decode(t, "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w, namespace: default}\nspec: {podSets: [{name: main, count: 2, template: {spec: {"+tc.spec+"}}}]}\n")
			given := objs[0].Obj.(*kueue.Workload)
			before := given.DeepCopy()
			w, err := ConvertKueueWorkloadWith(given, nil, KueueReadOptions{Admission: a, ExcludeResourcePrefixes: tc.exclude})
			require.NoError(t, err)
			require.Equal(t, tc.want, w.Group.PodSets[0].Template.Requests)
			require.Equal(t, tc.zero, w.zeroRequests["main"])
			require.Equal(t, tc.charge, w.charges["main"])
			require.Equal(t, before, given, "the Workload is not written")
		})
	}
}
