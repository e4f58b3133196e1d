package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/gang"
	kubev1beta1 "github.com/gangsched/gangsched/kube/api/scheduling/v1beta1"
	"github.com/gangsched/gangsched/placement"
)

// A v1beta1 CompositePodGroup (Kubernetes v1.38) converts both ways, with
// the v1alpha3 conversion's errors.
func TestConvertCompositePodGroupV1beta1(t *testing.T) {
	prio := int32(5)
	in := &kubev1beta1.CompositePodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "CompositePodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"},
		Spec: kubev1beta1.CompositePodGroupSpec{
			ParentCompositePodGroupName: ptr("root"),
			WorkloadRef:                 &schedulingv1beta1.WorkloadReference{WorkloadName: "w", TemplateName: "t"},
			SchedulingPolicy:            schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints:       &schedulingv1beta1.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: "block"}}},
			DisruptionMode:              &schedulingv1beta1.CompositeDisruptionMode{All: &schedulingv1beta1.AllCompositeDisruptionMode{}},
			Priority:                    &prio,
			PreemptionPolicy:            ptr(schedulingv1beta1.PreemptNever),
		},
		Status: kubev1beta1.CompositePodGroupStatus{Conditions: []metav1.Condition{{Type: gang.CompositePodGroupScheduled, Status: metav1.ConditionFalse, Reason: "Unschedulable"}}},
	}
	c, err := ConvertCompositePodGroupV1beta1(in, nil)
	require.NoError(t, err)
	require.Equal(t, "root", c.Spec.ParentCompositePodGroupName)
	require.Equal(t, &gang.WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "t"}, c.Spec.TemplateRef)
	require.Equal(t, []gang.TopologyConstraint{{Key: "block"}}, c.Spec.SchedulingConstraints.Topology)
	require.Equal(t, placement.PreemptNever, c.Spec.PreemptionPolicy)
	require.Equal(t, gang.CompositeDisruptionAll, c.Spec.DisruptionMode)
	require.Equal(t, int32(2), c.Spec.SchedulingPolicy.Gang.MinGroupCount)
	require.Equal(t, int32(5), *c.Spec.Priority)
	require.Len(t, c.Status.Conditions, 1)
	require.True(t, equality.Semantic.DeepEqual(in, CompositePodGroupV1beta1(c)), "round trip")

	SetConditionCompositePodGroupV1beta1(in, gang.Condition{Type: gang.CompositePodGroupScheduled, Status: gang.ConditionTrue, Reason: gang.ReasonScheduled})
	require.Equal(t, metav1.ConditionTrue, in.Status.Conditions[0].Status)

	in.Spec.DisruptionMode = &schedulingv1beta1.CompositeDisruptionMode{}
	_, err = ConvertCompositePodGroupV1beta1(in, nil)
	require.EqualError(t, err, `CompositePodGroup "ns/c": spec.disruptionMode: must set exactly one of single and all; neither is set`)
	_, err = ConvertCompositePodGroupV1beta1(nil, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.Nil(t, CompositePodGroupV1beta1(nil))
}

// A tree whose CompositePodGroups are v1beta1 loads as its v1alpha3 twin
// does, and the loaded objects keep their version for the condition
// written back.
func TestLoad_CompositePodGroupV1beta1(t *testing.T) {
	const tree = `---
apiVersion: scheduling.k8s.io/%s
kind: CompositePodGroup
metadata: {name: root}
spec:
  workloadRef: {workloadName: w, templateName: root}
  schedulingPolicy: {gang: {minGroupCount: 1}}
  schedulingConstraints: {topology: [{key: block}]}
  disruptionMode: {single: {}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: a}
spec:
  parentCompositePodGroupName: root
  workloadRef: {workloadName: w, templateName: a}
  schedulingPolicy: {gang: {minCount: 1}}
`
	load := func(version string) *Cluster {
		c, err := LoadWithOptions(decode(t, strings.ReplaceAll(tree, "%s", version)), LoadOptions{})
		require.NoError(t, err)
		return c
	}
	beta, alpha := load("v1beta1"), load("v1alpha3")
	require.Equal(t, alpha.CompositePodGroups, beta.CompositePodGroups)
	require.Len(t, beta.CompositePodGroups, 1)
	require.True(t, beta.SetCompositeCondition(beta.CompositePodGroups[0].Key(),
		gang.Condition{Type: gang.CompositePodGroupScheduled, Status: gang.ConditionTrue, Reason: gang.ReasonScheduled}))
	var found bool
	for _, o := range beta.Objects() {
		if cpg, ok := o.(*kubev1beta1.CompositePodGroup); ok {
			found = true
			require.Equal(t, "CompositePodGroupInitiallyScheduled", cpg.Status.Conditions[0].Type)
		}
	}
	require.True(t, found, "the v1beta1 object is written back")
}
