package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// A v1beta1 Workload's templates carry preemptionPolicy (PodGroupTemplate
// and CompositePodGroupTemplate, k8s.io/api v0.37.2): the adapter reads
// it and writes it back; the objects stamped from the templates, written
// as v1alpha3 CompositePodGroups and v1beta1 PodGroups, carry none under
// v1.37, as its workloadbuilder leaves it to admission, and the
// template's under v1.38, whose builder copies it (written as v1beta1
// CompositePodGroups there).
func TestWorkloadV1beta1_TemplatePreemptionPolicy(t *testing.T) {
	never, lower := schedulingv1beta1.PreemptNever, schedulingv1beta1.PreemptLowerPriority
	gang2 := schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}
	w := &schedulingv1beta1.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name:             "root",
			SchedulingPolicy: schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			PreemptionPolicy: &never,
			PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{
				{Name: "a", SchedulingPolicy: gang2, PreemptionPolicy: &lower},
				{Name: "b", SchedulingPolicy: gang2},
			},
		}}},
	}
	gw, err := ConvertWorkloadV1beta1(w, nil)
	require.NoError(t, err)
	root := gw.Spec.CompositePodGroupTemplates[0]
	require.Equal(t, []placement.PreemptionPolicy{placement.PreemptNever, placement.PreemptLowerPriority, ""},
		[]placement.PreemptionPolicy{root.PreemptionPolicy, root.PodGroupTemplates[0].PreemptionPolicy, root.PodGroupTemplates[1].PreemptionPolicy})
	require.True(t, equality.Semantic.DeepEqual(w, WorkloadV1beta1(gw)), "round trip")

	cpgs, pgs, err := gang.StampHierarchy(gw, "root", "job", gang.StampOptions{Profile: gang.ProfileV138})
	require.NoError(t, err)
	require.Equal(t, new(schedulingv1beta1.PreemptNever), CompositePodGroupV1beta1(cpgs[0]).Spec.PreemptionPolicy)
	require.Equal(t, []*schedulingv1beta1.PreemptionPolicy{&lower, nil},
		[]*schedulingv1beta1.PreemptionPolicy{PodGroupV1beta1(pgs[0]).Spec.PreemptionPolicy, PodGroupV1beta1(pgs[1]).Spec.PreemptionPolicy})

	cpgs, pgs, err = gang.StampHierarchy(gw, "root", "job", gang.StampOptions{Profile: gang.ProfileV137})
	require.NoError(t, err)
	c := CompositePodGroupV1alpha3(cpgs[0])
	require.Nil(t, c.Spec.PreemptionPolicy)
	a, b := PodGroupV1beta1(pgs[0]), PodGroupV1beta1(pgs[1])
	require.Equal(t, []string{"job-a", "job-b"}, []string{a.Name, b.Name})
	require.Nil(t, a.Spec.PreemptionPolicy)
	require.Nil(t, b.Spec.PreemptionPolicy)
	// Written and read again, as a PodGroup's: v1alpha3 and v1beta1 carry it.
	c.Spec.PreemptionPolicy = new(schedulingv1alpha3.PreemptNever)
	cAgain, err := ConvertCompositePodGroupV1alpha3(c, nil)
	require.NoError(t, err)
	require.Equal(t, placement.PreemptNever, cAgain.Spec.PreemptionPolicy)
	a.Spec.PreemptionPolicy = &lower
	aAgain, err := ConvertPodGroupV1beta1(a, nil)
	require.NoError(t, err)
	require.Equal(t, placement.PreemptLowerPriority, aAgain.Spec.PreemptionPolicy)

	// spec.podGroupTemplates: stamped one by one.
	flat := &schedulingv1beta1.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"},
		Spec:       schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{Name: "workers", SchedulingPolicy: gang2, PreemptionPolicy: &never}}},
	}
	fw, err := ConvertWorkloadV1beta1(flat, nil)
	require.NoError(t, err)
	require.True(t, equality.Semantic.DeepEqual(flat, WorkloadV1beta1(fw)), "round trip")
	pg, err := gang.NewPodGroupFromTemplate(fw, "workers", "w-workers", gang.StampOptions{Profile: gang.ProfileV137})
	require.NoError(t, err)
	require.Nil(t, PodGroupV1beta1(pg).Spec.PreemptionPolicy)
	pg, err = gang.NewPodGroupFromTemplate(fw, "workers", "w-workers", gang.StampOptions{Profile: gang.ProfileV138})
	require.NoError(t, err)
	require.Equal(t, &never, PodGroupV1beta1(pg).Spec.PreemptionPolicy)

	bad := schedulingv1beta1.PreemptionPolicy("Sometimes")
	flat.Spec.PodGroupTemplates[0].PreemptionPolicy = &bad
	_, err = ConvertWorkloadV1beta1(flat, nil)
	require.EqualError(t, err, `Workload "ns/w": spec.podGroupTemplates[0].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	w.Spec.CompositePodGroupTemplates[0].PreemptionPolicy = &bad
	_, err = ConvertWorkloadV1beta1(w, nil)
	require.EqualError(t, err, `Workload "ns/w": spec.compositePodGroupTemplates[0].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
}

// A Job's spec.scheduling has no preemptionPolicy, so the PodGroup
// stamped for it (v1.37) leaves it unset even when the pods' class says
// Never, as the Job controller's builder does (the Priority admission
// plugin would fill it from the class only with the alpha
// PodGroupPreemptionPolicy gate on); its pods, all Never, bind.
func TestStampJob_PreemptionPolicyUnset(t *testing.T) {
	pcs, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: 10, PreemptionPolicy: new(corev1.PreemptNever)}})
	require.NoError(t, err)
	j := job("train", new(int32(2)), new(int32(2)), batchv1.IndexedCompletion)
	j.Spec.Template.Spec.PriorityClassName = "batch"
	got, err := StampJobAs(j, pcs, gang.ProfileV137)
	require.NoError(t, err)
	require.NotNil(t, got.PodGroup)
	require.Equal(t, placement.PreemptionPolicy(""), got.PodGroup.Spec.PreemptionPolicy)
	require.Equal(t, placement.PreemptionPolicy(""), got.Workload.Spec.PodGroupTemplates[0].PreemptionPolicy)
	require.Nil(t, PodGroupV1beta1(got.PodGroup).Spec.PreemptionPolicy)
	require.Nil(t, WorkloadV1beta1(got.Workload).Spec.PodGroupTemplates[0].PreemptionPolicy)

	s := gang.NewScheduler(gang.Options{Profile: gang.ProfileV137})
	require.NoError(t, s.SetPodGroup(got.PodGroup))
	var last placement.Pod
	for _, p := range got.Pods {
		cp, err := ConvertPod(p, pcs)
		require.NoError(t, err)
		require.Equal(t, placement.PreemptNever, cp.PreemptionPolicy)
		require.NoError(t, s.AddPod(cp))
		last = cp
	}
	snap, err := placement.NewSnapshot([]placement.Node{{Name: "n1", Allocatable: placement.ResourceList{"cpu": 4000, "pods": 10}}}, nil)
	require.NoError(t, err)
	r, ok := s.Cycle(snap, last.QueuedAt)
	require.True(t, ok)
	require.NoError(t, r.Err)
	require.Len(t, r.Bind, 2)
}
