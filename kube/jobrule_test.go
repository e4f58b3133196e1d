package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/gang"
)

// TestStampJobAs_Rule: which Jobs get a Workload and PodGroup, and of
// which policy, under v1.36's Job controller and v1.37's (v1.38 and the
// empty profile decide as v1.37): v1.37 stamps every Job that neither
// names a schedulingGroup in its template nor has a controller, basic
// unless spec.scheduling says otherwise, in v1beta1.
func TestStampJobAs_Rule(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	indexed := func() *batchv1.Job { return job("ix", i32(4), i32(4), batchv1.IndexedCompletion) }
	plain := func() *batchv1.Job { return job("plain", i32(3), nil, "") }
	owned := func() *batchv1.Job {
		j := indexed()
		j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "jobset.x-k8s.io/v1alpha2", Kind: "JobSet", Name: "js", Controller: ptr(true)}}
		return j
	}
	ownedNotController := func() *batchv1.Job {
		j := plain()
		j.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm"}}
		return j
	}
	named := func() *batchv1.Job {
		j := indexed()
		j.Spec.Template.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("mine")}
		return j
	}
	ganged := func() *batchv1.Job {
		j := plain()
		j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}}}
		return j
	}
	// want: "" (no PodGroup), "gang N" or "basic"; v1beta1 for the objects.
	for _, c := range []struct {
		name     string
		j        func() *batchv1.Job
		profile  gang.Profile
		want     string
		v1beta1  bool
		reason   string
		podOwner bool // the pods name the PodGroup as a second owner
	}{
		{"v1.36 Indexed", indexed, gang.ProfileV136, "gang 4", false, "", false},
		{"v1.37 Indexed", indexed, gang.ProfileV137, "basic", true, "", true},
		{"v1.38 Indexed", indexed, gang.ProfileV138, "basic", true, "", true},
		{"newest Indexed", indexed, "", "basic", true, "", true},
		{"v1.36 plain", plain, gang.ProfileV136, "", false, "spec.completionMode is not Indexed", false},
		{"v1.37 plain", plain, gang.ProfileV137, "basic", true, "", true},
		{"v1.37 owner, not controller", ownedNotController, gang.ProfileV137, "basic", true, "", true},
		{"v1.36 controlled", owned, gang.ProfileV136, "gang 4", false, "", false},
		{"v1.37 controlled", owned, gang.ProfileV137, "", false, `JobSet "js" controls the Job and manages its scheduling objects (a PodGroup it delegates is not simulated)`, false},
		{"v1.36 schedulingGroup", named, gang.ProfileV136, "", false, "spec.template.spec.schedulingGroup is already set", false},
		{"v1.37 schedulingGroup", named, gang.ProfileV137, "", false, "spec.template.spec.schedulingGroup is already set", false},
		{"v1.36 spec.scheduling", ganged, gang.ProfileV136, "gang 3", true, "", true}, // v1.37's field, v1.37's shapes
		{"v1.37 spec.scheduling", ganged, gang.ProfileV137, "gang 3", true, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := StampJobAs(c.j(), nil, c.profile)
			require.NoError(t, err)
			require.Equal(t, c.reason, got.Reason)
			require.NotEmpty(t, got.Pods)
			if c.want == "" {
				require.Nil(t, got.PodGroup)
				require.Nil(t, got.Workload)
				for _, p := range got.Pods {
					require.Len(t, p.OwnerReferences, 1)
				}
				return
			}
			pol := got.PodGroup.Spec.SchedulingPolicy
			desc := "basic"
			if pol.Gang != nil {
				desc = fmt.Sprintf("gang %d", pol.Gang.MinCount)
			}
			require.Equal(t, c.want, desc)
			require.Equal(t, pol, got.Workload.Spec.PodGroupTemplates[0].SchedulingPolicy)
			require.Equal(t, c.v1beta1, got.V1beta1)
			owners := []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: got.Pods[0].OwnerReferences[0].Name, UID: got.Pods[0].OwnerReferences[0].UID, Controller: ptr(true)}}
			if c.podOwner {
				owners = append(owners, metav1.OwnerReference{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup", Name: got.PodGroup.Name})
			}
			for _, p := range got.Pods {
				require.Equal(t, owners, p.OwnerReferences)
				require.Equal(t, got.PodGroup.Name, *p.Spec.SchedulingGroup.PodGroupName)
			}
			if c.v1beta1 {
				require.Equal(t, gang.OwnerReference{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload", Name: got.Workload.Name}, got.PodGroup.OwnerReferences[1])
			}
		})
	}
}
