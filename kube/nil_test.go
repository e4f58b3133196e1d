package kube_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

// TestNilObjects: every conversion given a nil object returns an error
// (writers return nil), and Load rejects a nil object at its place in the
// input; none panics.
func TestNilObjects(t *testing.T) {
	errs := map[string]error{}
	var err error
	_, err = kube.ConvertNode(nil)
	errs["ConvertNode"] = err
	_, err = kube.ConvertPod(nil, nil)
	errs["ConvertPod"] = err
	_, err = kube.ConvertPodGroupV1alpha2(nil, nil)
	errs["ConvertPodGroupV1alpha2"] = err
	_, err = kube.ConvertPodGroupV1beta1(nil, nil)
	errs["ConvertPodGroupV1beta1"] = err
	_, err = kube.ConvertWorkloadV1alpha2(nil, nil)
	errs["ConvertWorkloadV1alpha2"] = err
	_, err = kube.ConvertWorkloadV1beta1(nil, nil)
	errs["ConvertWorkloadV1beta1"] = err
	_, _, err = kube.ConvertPodDisruptionBudget(nil, nil)
	errs["ConvertPodDisruptionBudget"] = err
	_, err = kube.ConvertResourceClaim(nil)
	errs["ConvertResourceClaim"] = err
	_, err = kube.ConvertResourceClaimTemplate(nil)
	errs["ConvertResourceClaimTemplate"] = err
	_, err = kube.ConvertResourceSlice(nil)
	errs["ConvertResourceSlice"] = err
	_, err = kube.ConvertDeviceClass(nil)
	errs["ConvertDeviceClass"] = err
	_, err = kube.ClaimSpec("x", "spec", nil)
	errs["ClaimSpec"] = err
	_, err = kube.PodRequests("x", nil)
	errs["PodRequests"] = err
	_, err = kube.LabelSelector("x", "selector", nil)
	errs["LabelSelector"] = err
	_, err = kube.RequiredNodeAffinity(nil)
	errs["RequiredNodeAffinity"] = err
	_, err = kube.StampJob(nil, nil)
	errs["StampJob"] = err
	for name, err := range errs {
		require.ErrorIs(t, err, placement.ErrInvalid, name)
	}

	require.Nil(t, kube.Bind(nil, "n1"))
	require.Nil(t, kube.Binding(nil, "n1"))
	require.Nil(t, kube.PodGroupV1alpha2(nil))
	require.Nil(t, kube.PodGroupV1beta1(nil))
	require.Nil(t, kube.WorkloadV1alpha2(nil))
	require.Nil(t, kube.WorkloadV1beta1(nil))
	require.Nil(t, kube.NewClaim(nil, nil))
	require.Equal(t, resourcev1.ResourceClaimStatus{}, kube.ClaimStatus(nil))
	kube.SetConditionV1alpha2(nil, gang.Condition{})
	kube.SetConditionV1beta1(nil, gang.Condition{})

	for _, o := range []any{(*corev1.Node)(nil), (*corev1.Pod)(nil), (*batchv1.Job)(nil), (*v1alpha2.PodGroup)(nil),
		(*schedulingv1beta1.Workload)(nil), (*resourcev1.ResourceSlice)(nil), (*policyv1.PodDisruptionBudget)(nil)} {
		c, err := kube.Load([]manifest.Object{{Source: "in.yaml", Doc: 1, Line: 1, Kind: "X", Name: "x", Obj: o}})
		require.Nil(t, c)
		require.ErrorIs(t, err, placement.ErrInvalid, "%T", o)
		require.ErrorContains(t, err, "in.yaml: document 1 (line 1)")
	}

	_, err = manifest.Decode("in.yaml", nil, manifest.Options{})
	require.ErrorContains(t, err, "in.yaml")
	_, err = manifest.Read([]string{"-"}, nil, manifest.Options{})
	require.Error(t, err)
}
