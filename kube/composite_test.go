package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func TestConvertCompositePodGroupV1alpha3(t *testing.T) {
	prio := int32(5)
	in := &schedulingv1alpha3.CompositePodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1alpha3", Kind: "CompositePodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			ParentCompositePodGroupName: ptr("root"),
			WorkloadRef:                 &schedulingv1alpha3.WorkloadReference{WorkloadName: "w", TemplateName: "t"},
			SchedulingPolicy:            schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints:       &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "block"}}},
			DisruptionMode:              &schedulingv1alpha3.CompositeDisruptionMode{All: &schedulingv1alpha3.AllCompositeDisruptionMode{}},
			Priority:                    &prio,
			PreemptionPolicy:            ptr(schedulingv1alpha3.PreemptNever),
		},
	}
	c, err := ConvertCompositePodGroupV1alpha3(in, nil)
	require.NoError(t, err)
	require.Equal(t, "root", c.Spec.ParentCompositePodGroupName)
	require.Equal(t, placement.PreemptNever, c.Spec.PreemptionPolicy)
	require.Equal(t, gang.CompositeDisruptionAll, c.Spec.DisruptionMode)
	require.Equal(t, int32(2), c.Spec.SchedulingPolicy.Gang.MinGroupCount)
	require.True(t, equality.Semantic.DeepEqual(in, CompositePodGroupV1alpha3(c)), "round trip")

	in.Spec.PreemptionPolicy = ptr(schedulingv1alpha3.PreemptionPolicy("Sometimes"))
	_, err = ConvertCompositePodGroupV1alpha3(in, nil)
	require.EqualError(t, err, `CompositePodGroup "ns/c": spec.preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	in.Spec.PreemptionPolicy = nil
	in.Spec.DisruptionMode = &schedulingv1alpha3.CompositeDisruptionMode{}
	_, err = ConvertCompositePodGroupV1alpha3(in, nil)
	require.EqualError(t, err, `CompositePodGroup "ns/c": spec.disruptionMode: must set exactly one of single and all; neither is set`)
	in.Spec.DisruptionMode = nil
	in.Spec.SchedulingPolicy.Gang.MinGroupCount = 0
	_, err = ConvertCompositePodGroupV1alpha3(in, nil)
	require.EqualError(t, err, `CompositePodGroup "ns/c": spec.schedulingPolicy.gang.minGroupCount: 0 is below 1`)
	in.Spec.SchedulingPolicy.Gang.MinGroupCount = 1
	in.Spec.WorkloadRef = nil
	_, err = ConvertCompositePodGroupV1alpha3(in, nil)
	require.EqualError(t, err, `CompositePodGroup "ns/c": spec.workloadRef: must be set`)
	_, err = ConvertCompositePodGroupV1alpha3(nil, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)
}

// A v1beta1 Workload's compositePodGroupTemplates convert both ways, and
// a leaf PodGroup keeps its parent.
func TestConvertWorkloadV1beta1Composite(t *testing.T) {
	w := &schedulingv1beta1.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name:             "root",
			SchedulingPolicy: schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			DisruptionMode:   &schedulingv1beta1.CompositeDisruptionMode{Single: &schedulingv1beta1.SingleCompositeDisruptionMode{}},
			PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{
				{Name: "a", SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}},
				{Name: "b", SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}},
			},
		}}},
	}
	gw, err := ConvertWorkloadV1beta1(w, nil)
	require.NoError(t, err)
	require.Len(t, gw.Spec.CompositePodGroupTemplates[0].PodGroupTemplates, 2)
	require.True(t, equality.Semantic.DeepEqual(w, WorkloadV1beta1(gw)), "round trip")
	cpgs, pgs, err := gang.StampHierarchy(gw, "root", "job", gang.StampOptions{})
	require.NoError(t, err)
	require.Len(t, cpgs, 1)
	back := PodGroupV1beta1(pgs[0])
	require.Equal(t, "job", *back.Spec.ParentCompositePodGroupName)
	again, err := ConvertPodGroupV1beta1(back, nil)
	require.NoError(t, err)
	require.Equal(t, "job", again.Spec.ParentCompositePodGroupName)

	w.Spec.CompositePodGroupTemplates[0].PodGroupTemplates = nil
	_, err = ConvertWorkloadV1beta1(w, nil)
	require.EqualError(t, err, `Workload "ns/w": spec.compositePodGroupTemplates[0]: must list at least one child template`)
}
