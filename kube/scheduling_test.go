package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/kube/api/scheduling/v1alpha2"
	"github.com/gangsched/gangsched/placement"
)

func TestPodGroupV1alpha2RoundTrip(t *testing.T) {
	mode := v1alpha2.DisruptionModePodGroup
	in := &v1alpha2.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha2.GroupVersion, Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "training-job-workers-pg"},
		Spec: v1alpha2.PodGroupSpec{
			PodGroupTemplateRef: &v1alpha2.PodGroupTemplateReference{Workload: &v1alpha2.WorkloadPodGroupTemplateReference{
				WorkloadName: "training-job-workload", PodGroupTemplateName: "workers",
			}},
			SchedulingPolicy:      v1alpha2.PodGroupSchedulingPolicy{Gang: &v1alpha2.GangSchedulingPolicy{MinCount: 4}},
			SchedulingConstraints: &v1alpha2.PodGroupSchedulingConstraints{Topology: []v1alpha2.TopologyConstraint{{Key: "topology.kubernetes.io/rack"}}},
			ResourceClaims:        []v1alpha2.PodGroupResourceClaim{{Name: "fabric", ResourceClaimTemplateName: ptr("fabric")}},
			DisruptionMode:        &mode,
			PriorityClassName:     "high",
			Priority:              ptr(int32(1000)),
		},
		Status: v1alpha2.PodGroupStatus{Conditions: []metav1.Condition{{
			Type: v1alpha2.PodGroupScheduled, Status: metav1.ConditionFalse, Reason: "Unschedulable", Message: "3 of min 4 members fit",
			LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		}}},
	}
	pcs, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}})
	require.NoError(t, err)
	g, err := ConvertPodGroupV1alpha2(in, pcs)
	require.NoError(t, err)
	require.Equal(t, gang.DisruptionModePodGroup, g.Spec.DisruptionMode)
	require.Equal(t, int32(1000), *g.Spec.Priority)
	require.Equal(t, "workers", g.Spec.PodGroupTemplateRef.Workload.PodGroupTemplateName)
	require.Equal(t, placement.PolicyGang, g.Group(nil).Policy)
	require.True(t, equality.Semantic.DeepEqual(in, PodGroupV1alpha2(g)), "round trip changed the PodGroup")

	// Without a class, the priority stays unset (the pods keep theirs).
	in.Spec.PriorityClassName, in.Spec.Priority = "", nil
	g, err = ConvertPodGroupV1alpha2(in, nil)
	require.NoError(t, err)
	require.Nil(t, g.Spec.Priority)

	in.Spec.PriorityClassName = "gold"
	_, err = ConvertPodGroupV1alpha2(in, pcs)
	require.EqualError(t, err, `PodGroup "default/training-job-workers-pg": spec.priorityClassName: no PriorityClass "gold"`)
	in.Spec.PriorityClassName = ""
	bad := v1alpha2.DisruptionMode("Sometimes")
	in.Spec.DisruptionMode = &bad
	_, err = ConvertPodGroupV1alpha2(in, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, "spec.disruptionMode")
}

func TestWorkloadRoundTrip(t *testing.T) {
	a := &v1alpha2.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha2.GroupVersion, Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "training-job-workload"},
		Spec: v1alpha2.WorkloadSpec{PodGroupTemplates: []v1alpha2.PodGroupTemplate{
			{Name: "workers", SchedulingPolicy: v1alpha2.PodGroupSchedulingPolicy{Gang: &v1alpha2.GangSchedulingPolicy{MinCount: 4}}},
			{Name: "driver", SchedulingPolicy: v1alpha2.PodGroupSchedulingPolicy{Basic: &v1alpha2.BasicSchedulingPolicy{}}},
		}},
	}
	w, err := ConvertWorkloadV1alpha2(a, nil)
	require.NoError(t, err)
	require.True(t, equality.Semantic.DeepEqual(a, WorkloadV1alpha2(w)))
	// Stamping through gang gives the seed's PodGroup.
	pg, err := gang.NewPodGroupFromTemplate(w, "workers", "training-job-workers-pg", gang.StampOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(4), pg.Spec.SchedulingPolicy.Gang.MinCount)

	b := &schedulingv1beta1.Workload{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{
			Name:             "workers",
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}},
			DisruptionMode:   &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}},
		}}},
	}
	wb, err := ConvertWorkloadV1beta1(b, nil)
	require.NoError(t, err)
	require.Equal(t, gang.DisruptionModePod, wb.Spec.PodGroupTemplates[0].DisruptionMode)
	require.True(t, equality.Semantic.DeepEqual(b, WorkloadV1beta1(wb)))

	b.Spec.PodGroupTemplates = append(b.Spec.PodGroupTemplates, b.Spec.PodGroupTemplates[0])
	_, err = ConvertWorkloadV1beta1(b, nil)
	require.ErrorIs(t, err, placement.ErrDuplicate)
	b.Spec.PodGroupTemplates = b.Spec.PodGroupTemplates[:1]
	b.Spec.CompositePodGroupTemplates = []schedulingv1beta1.CompositePodGroupTemplate{{Name: "x"}}
	_, err = ConvertWorkloadV1beta1(b, nil)
	require.EqualError(t, err, `Workload "default/w": spec: must list templates in exactly one of podGroupTemplates and compositePodGroupTemplates; both are set`)
}

// A v1beta1 Workload's templates share one priority (v1.37's
// validateWorkloadPriority, KEP-5710 beta); a v1alpha2 one's may differ,
// as v1.36 (KEP-5710 alpha) let them.
func TestWorkloadTemplatePriorities(t *testing.T) {
	high := int32(1000)
	b := &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{
			{Name: "workers", SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}, Priority: &high},
			{Name: "driver", SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Basic: &schedulingv1beta1.BasicSchedulingPolicy{}}},
		}},
	}
	_, err := ConvertWorkloadV1beta1(b, nil)
	require.EqualError(t, err, `Workload "default/w": spec.podGroupTemplates[1].priority: unset differs from spec.podGroupTemplates[0].priority 1000: every template of a Workload carries one priority`)
	require.ErrorIs(t, err, placement.ErrInvalid)
	b.Spec.PodGroupTemplates[1].Priority = &high
	_, err = ConvertWorkloadV1beta1(b, nil)
	require.NoError(t, err)

	a := &v1alpha2.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"},
		Spec: v1alpha2.WorkloadSpec{PodGroupTemplates: []v1alpha2.PodGroupTemplate{
			{Name: "workers", SchedulingPolicy: v1alpha2.PodGroupSchedulingPolicy{Gang: &v1alpha2.GangSchedulingPolicy{MinCount: 2}}, Priority: &high},
			{Name: "driver", SchedulingPolicy: v1alpha2.PodGroupSchedulingPolicy{Basic: &v1alpha2.BasicSchedulingPolicy{}}},
		}},
	}
	_, err = ConvertWorkloadV1alpha2(a, nil)
	require.NoError(t, err)
}

// v1.37's API server compares the templates' priorityClassName and
// priority as written, before any class is resolved: a template naming
// class "high" and one naming "high" with its value 1000 differ, flat or
// in a hierarchy, though both resolve to 1000.
func TestWorkloadTemplatePrioritiesAsWritten(t *testing.T) {
	pcs, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}})
	require.NoError(t, err)
	high := int32(1000)
	gangOf := func(n int32) schedulingv1beta1.PodGroupSchedulingPolicy {
		return schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: n}}
	}
	flat := &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{
			{Name: "workers", SchedulingPolicy: gangOf(2), PriorityClassName: "high"},
			{Name: "driver", SchedulingPolicy: gangOf(1), PriorityClassName: "high", Priority: &high},
		}},
	}
	_, err = ConvertWorkloadV1beta1(flat, pcs)
	require.EqualError(t, err, `Workload "default/w": spec.podGroupTemplates[1].priority: 1000 differs from spec.podGroupTemplates[0].priority unset: every template of a Workload carries one priority`)
	require.ErrorIs(t, err, placement.ErrInvalid)
	flat.Spec.PodGroupTemplates[1].Priority = nil
	_, err = ConvertWorkloadV1beta1(flat, pcs)
	require.NoError(t, err)

	tree := &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name:              "root",
			SchedulingPolicy:  schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 1}},
			PriorityClassName: "high",
			PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{
				{Name: "leaf", SchedulingPolicy: gangOf(1), PriorityClassName: "high", Priority: &high},
			},
		}}},
	}
	_, err = ConvertWorkloadV1beta1(tree, pcs)
	require.EqualError(t, err, `Workload "default/w": spec.compositePodGroupTemplates[0].podGroupTemplates[0].priority: 1000 differs from spec.compositePodGroupTemplates[0].priority unset: every template of a Workload carries one priority`)
}

// genPodGroupV1beta1 draws v1beta1 PodGroups from a small domain, valid
// and not: minCount 0..3, neither/one/both policies, repeated topology
// keys, disruption modes with zero, one or two members set.
func genPodGroupV1beta1(t *rapid.T) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"},
	}
	s := &pg.Spec
	switch rapid.IntRange(0, 3).Draw(t, "policy") {
	case 1:
		s.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: int32(rapid.IntRange(0, 3).Draw(t, "minCount"))}
	case 2:
		s.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	case 3:
		s.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1}
		s.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	keys := []string{"topology.kubernetes.io/rack", "topology.kubernetes.io/zone"}
	if n := rapid.IntRange(0, 2).Draw(t, "topology"); n > 0 {
		s.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{}
		for i := range n {
			s.SchedulingConstraints.Topology = append(s.SchedulingConstraints.Topology, schedulingv1beta1.TopologyConstraint{Key: rapid.SampledFrom(keys).Draw(t, "key"+itoa(i))})
		}
	}
	switch rapid.IntRange(0, 3).Draw(t, "mode") {
	case 1:
		s.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	case 2:
		s.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	case 3:
		s.DisruptionMode = &schedulingv1beta1.DisruptionMode{}
	}
	if rapid.Bool().Draw(t, "workloadRef") {
		s.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "w", TemplateName: "t"}
	}
	if p := rapid.SampledFrom([]schedulingv1beta1.PreemptionPolicy{"", schedulingv1beta1.PreemptLowerPriority, schedulingv1beta1.PreemptNever, "Sometimes"}).Draw(t, "preemptionPolicy"); p != "" {
		s.PreemptionPolicy = &p
	}
	if rapid.Bool().Draw(t, "condition") {
		pg.Status.Conditions = []metav1.Condition{{
			Type: PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled",
			LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		}}
	}
	return pg
}

// validV1beta1 is the API server's rule for the fields the generator
// varies.
func validV1beta1(pg *schedulingv1beta1.PodGroup) bool {
	s := &pg.Spec
	p := s.SchedulingPolicy
	if (p.Gang == nil) == (p.Basic == nil) || (p.Gang != nil && p.Gang.MinCount < 1) {
		return false
	}
	if c := s.SchedulingConstraints; c != nil && len(c.Topology) > 1 {
		return false // +k8s:maxItems=1
	}
	if m := s.DisruptionMode; m != nil && (m.Single == nil) == (m.All == nil) {
		return false
	}
	return s.PreemptionPolicy == nil || *s.PreemptionPolicy != "Sometimes"
}

// TestProp_PodGroupV1beta1RoundTrip: a valid PodGroup converts and writes
// back to itself (PodGroupInitiallyScheduled survives its rename to
// PodGroupScheduled); an invalid one is an error naming the PodGroup.
func TestProp_PodGroupV1beta1RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genPodGroupV1beta1(t)
		g, err := ConvertPodGroupV1beta1(in, nil)
		if !validV1beta1(in) {
			if err == nil {
				t.Fatalf("accepted an invalid PodGroup: %+v", in.Spec)
			}
			require.ErrorContains(t, err, `PodGroup "ns/pg": spec.`)
			return
		}
		if err != nil {
			t.Fatalf("rejected a valid PodGroup: %v", err)
		}
		if _, ok := g.Condition(gang.PodGroupScheduled); ok != (len(in.Status.Conditions) > 0) {
			t.Fatalf("condition not mapped to %s", gang.PodGroupScheduled)
		}
		if out := PodGroupV1beta1(g); !equality.Semantic.DeepEqual(in, out) {
			t.Fatalf("round trip changed the PodGroup:\nin  %+v\nout %+v", in.Spec, out.Spec)
		}
	})
}

// TestGenPodGroupV1beta1Companion: the generator yields valid and invalid
// PodGroups, so the property sees both branches.
func TestGenPodGroupV1beta1Companion(t *testing.T) {
	var valid, invalid int
	rapid.Check(t, func(t *rapid.T) {
		if validV1beta1(genPodGroupV1beta1(t)) {
			valid++
		} else {
			invalid++
		}
	})
	require.Positive(t, valid)
	require.Positive(t, invalid)
}

func TestConvertPodGroupV1beta1Errors(t *testing.T) {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pg"}}
	pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1}
	pg.Spec.ParentCompositePodGroupName = ptr("parent")
	_, err := ConvertPodGroupV1beta1(pg, nil)
	require.EqualError(t, err, `PodGroup "ns/pg": spec.workloadRef: must be set when spec.parentCompositePodGroupName is set`)
	pg.Spec.ParentCompositePodGroupName = nil
	pg.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}, All: &schedulingv1beta1.AllDisruptionMode{}}
	_, err = ConvertPodGroupV1beta1(pg, nil)
	require.EqualError(t, err, `PodGroup "ns/pg": spec.disruptionMode: must set exactly one of single and all; both are set`)
}

func TestSetCondition(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
	pg.Status.Conditions = []metav1.Condition{{Type: "DisruptionTarget", Status: metav1.ConditionFalse, Reason: "X"}}
	SetConditionV1beta1(pg, gang.Condition{Type: gang.PodGroupScheduled, Status: gang.ConditionFalse, Reason: "Unschedulable", Message: "m1", LastTransitionTime: t0})
	SetConditionV1beta1(pg, gang.Condition{Type: gang.PodGroupScheduled, Status: gang.ConditionFalse, Reason: "Unschedulable", Message: "m2", LastTransitionTime: t0.Add(time.Second)})
	require.Len(t, pg.Status.Conditions, 2)
	c := pg.Status.Conditions[1]
	require.Equal(t, PodGroupInitiallyScheduled, c.Type)
	require.Equal(t, "m2", c.Message)
	require.Equal(t, t0, c.LastTransitionTime.Time.UTC(), "the transition time moves only with the status")
	require.Equal(t, int64(3), c.ObservedGeneration)
	SetConditionV1beta1(pg, gang.Condition{Type: gang.PodGroupScheduled, Status: gang.ConditionTrue, Reason: "Scheduled", LastTransitionTime: t0.Add(2 * time.Second)})
	require.Equal(t, t0.Add(2*time.Second), pg.Status.Conditions[1].LastTransitionTime.Time.UTC())

	a := &v1alpha2.PodGroup{}
	SetConditionV1alpha2(a, gang.Condition{Type: gang.PodGroupScheduled, Status: gang.ConditionTrue, Reason: "Scheduled", LastTransitionTime: t0})
	require.Equal(t, v1alpha2.PodGroupScheduled, a.Status.Conditions[0].Type)

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u"}}
	bound := Bind(pod, "n1")
	require.Equal(t, "n1", bound.Spec.NodeName)
	require.Empty(t, pod.Spec.NodeName, "Bind copies")
	b := Binding(pod, "n1")
	require.Equal(t, corev1.ObjectReference{Kind: "Node", Name: "n1"}, b.Target)
	require.Equal(t, "p", b.Name)
}

func job(name string, parallelism, completions *int32, mode batchv1.CompletionMode) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: batchv1.JobSpec{
			Parallelism: parallelism, Completions: completions,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{ctr("c", rl("cpu", "1"))}},
			},
		},
	}
	if mode != "" {
		j.Spec.CompletionMode = &mode
	}
	return j
}

// TestScenario_J1to5_StampJob: scenarios J1–J5 through the adapter: StampJob
// stamps an eligible batch/v1 Job and leaves every ineligible one unstamped.
func TestScenario_J1to5_StampJob(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	j1 := job("train", i32(8), i32(8), batchv1.IndexedCompletion)
	got, err := StampJob(j1, nil)
	require.NoError(t, err)
	require.NotNil(t, got.PodGroup)
	require.False(t, got.V1beta1)
	require.Equal(t, int32(8), got.PodGroup.Spec.SchedulingPolicy.Gang.MinCount)
	require.Len(t, got.Pods, 8)
	again, err := StampJob(j1, nil)
	require.NoError(t, err)
	require.Equal(t, got.PodGroup.Name, again.PodGroup.Name, "names are deterministic")
	p := got.Pods[3]
	require.Equal(t, "train-3", p.Name)
	require.Equal(t, got.PodGroup.Name, *p.Spec.SchedulingGroup.PodGroupName)
	require.Equal(t, map[string]string{"app": "train", LabelJobName: "train", LabelCompletionIndex: "3"}, p.Labels)
	require.Equal(t, "Job", p.OwnerReferences[0].Kind)
	require.Nil(t, j1.Spec.Template.Spec.SchedulingGroup, "the Job is not modified")

	for _, c := range []struct {
		name string
		j    *batchv1.Job
		pods int
	}{
		{"J2 parallelism 1", job("a", i32(1), i32(1), batchv1.IndexedCompletion), 1},
		{"J2 parallelism unset", job("b", nil, i32(4), batchv1.IndexedCompletion), 1},
		{"J3 completions differ", job("c", i32(4), i32(5), batchv1.IndexedCompletion), 4},
		{"J3 completions unset", job("d", i32(4), nil, batchv1.IndexedCompletion), 4},
		{"J4 NonIndexed", job("e", i32(4), i32(4), batchv1.NonIndexedCompletion), 4},
		{"J4 mode unset", job("f", i32(4), i32(4), ""), 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := StampJob(c.j, nil)
			require.NoError(t, err)
			require.Nil(t, got.PodGroup)
			require.NotEmpty(t, got.Reason)
			require.Len(t, got.Pods, c.pods)
			for _, p := range got.Pods {
				require.Nil(t, p.Spec.SchedulingGroup)
			}
		})
	}
	j5 := job("g", i32(4), i32(4), batchv1.IndexedCompletion)
	j5.Spec.Template.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("mine")}
	got, err = StampJob(j5, nil)
	require.NoError(t, err)
	require.Nil(t, got.PodGroup)
	require.Equal(t, "mine", *got.Pods[0].Spec.SchedulingGroup.PodGroupName, "J5: nothing is overwritten")

	suspended := job("h", i32(4), i32(4), batchv1.IndexedCompletion)
	suspended.Spec.Suspend = ptr(true)
	got, err = StampJob(suspended, nil)
	require.NoError(t, err)
	require.Empty(t, got.Pods)
}

func TestStampJobV137Scheduling(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	j := job("tas", i32(10), i32(10), batchv1.IndexedCompletion)
	j.Spec.Template.Spec.PriorityClassName = "high"
	j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{
		SchedulingPolicy:      &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}},
		SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "cloud.provider.com/topology-rack"}}},
		DisruptionMode:        &schedulingv1alpha3.WorkloadPodGroupDisruptionMode{All: &schedulingv1alpha3.WorkloadPodGroupAllDisruptionMode{}},
	}
	pcs, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 200}})
	require.NoError(t, err)
	got, err := StampJob(j, pcs)
	require.NoError(t, err)
	require.True(t, got.V1beta1)
	s := got.PodGroup.Spec
	require.Equal(t, int32(10), s.SchedulingPolicy.Gang.MinCount, "minCount defaults to parallelism")
	require.Equal(t, []gang.TopologyConstraint{{Key: "cloud.provider.com/topology-rack"}}, s.SchedulingConstraints.Topology)
	require.Equal(t, gang.DisruptionModePodGroup, s.DisruptionMode)
	require.Equal(t, int32(200), *s.Priority)
	require.Equal(t, got.Workload.Name, s.PodGroupTemplateRef.Workload.WorkloadName)
	require.Equal(t, "Job", got.PodGroup.OwnerReferences[0].Kind)

	// An explicit basic policy on a Job that v1.36 would not gang.
	b := job("one", i32(1), i32(1), "")
	b.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Basic: &schedulingv1alpha3.WorkloadPodGroupBasicSchedulingPolicy{}}}
	got, err = StampJob(b, nil)
	require.NoError(t, err)
	require.NotNil(t, got.PodGroup.Spec.SchedulingPolicy.Basic)

	b.Spec.Scheduling.SchedulingPolicy.Gang = &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: i32(1)}
	_, err = StampJob(b, nil)
	require.EqualError(t, err, `Job "default/one": spec.scheduling.schedulingPolicy: must set exactly one of gang and basic`)
	b.Spec.Scheduling.SchedulingPolicy.Basic = nil
	b.Spec.Scheduling.SchedulingPolicy.Gang.MinCount = i32(0)
	_, err = StampJob(b, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, "minCount")
	b.Spec.Scheduling.SchedulingPolicy.Gang.MinCount = nil
	b.Spec.Template.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr("x")}
	_, err = StampJob(b, nil)
	require.EqualError(t, err, `Job "default/one": spec.template.spec.schedulingGroup: must not be set together with spec.scheduling`)
}

// TestStampJobKueueTopology: Kueue's topology annotations on the pod
// template become the stamped group's constraints, on the v1.36 path and
// beside spec.scheduling's own; a key named both ways is required.
func TestStampJobKueueTopology(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	for _, c := range []struct {
		name        string
		annotations map[string]string
		scheduling  bool
		want        []gang.TopologyConstraint
		err         string
	}{
		{"required", map[string]string{KueueRequiredTopology: "rack"}, false, []gang.TopologyConstraint{{Key: "rack"}}, ""},
		{"preferred", map[string]string{KueuePreferredTopology: "block"}, false, []gang.TopologyConstraint{{Key: "block", Preferred: true}}, ""},
		{"beside spec.scheduling", map[string]string{KueuePreferredTopology: "block"}, true, []gang.TopologyConstraint{{Key: "zone"}, {Key: "block", Preferred: true}}, ""},
		{"none", map[string]string{"other": "x"}, false, nil, ""},
		{"required block, preferred rack", map[string]string{KueueRequiredTopology: "block", KueuePreferredTopology: "rack"}, false, []gang.TopologyConstraint{{Key: "block"}, {Key: "rack", Preferred: true}}, ""},
		{"one key both ways is required", map[string]string{KueueRequiredTopology: "rack", KueuePreferredTopology: "rack"}, false, []gang.TopologyConstraint{{Key: "rack"}}, ""},
		{"preferred a key spec.scheduling requires", map[string]string{KueuePreferredTopology: "zone"}, true, []gang.TopologyConstraint{{Key: "zone"}}, ""},
		{"empty key", map[string]string{KueueRequiredTopology: ""}, false, nil,
			`Job "default/k": spec.template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]: "" is not a node label key`},
		{"not a label key", map[string]string{KueuePreferredTopology: "a/b/c!"}, false, nil,
			`Job "default/k": spec.template.metadata.annotations[kueue.x-k8s.io/podset-preferred-topology]: "a/b/c!" is not a node label key`},
		{"required a key spec.scheduling requires", map[string]string{KueueRequiredTopology: "zone"}, true, []gang.TopologyConstraint{{Key: "zone"}}, ""},
		{"ineligible Job, bad annotation", map[string]string{KueueRequiredTopology: " "}, false, nil, `" " is not a node label key`},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := job("k", i32(4), i32(4), batchv1.IndexedCompletion)
			if strings.HasPrefix(c.name, "ineligible") {
				j = job("k", i32(1), i32(1), "")
			}
			j.Spec.Template.Annotations = c.annotations
			if c.scheduling {
				j.Spec.Scheduling = &batchv1.JobSchedulingConfiguration{
					SchedulingPolicy:      &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{}},
					SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: "zone"}}},
				}
			}
			got, err := StampJob(j, nil)
			if c.err != "" {
				var fe *placement.FieldError
				require.ErrorAs(t, err, &fe)
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got.PodGroup.Spec.SchedulingConstraints.Topology)
			require.Equal(t, c.want, got.Workload.Spec.PodGroupTemplates[0].SchedulingConstraints.Topology)
		})
	}
}

// TestWritePreferredTopology: a preferred constraint, which the API cannot
// express, is left out of written objects rather than written as required
// (found by review: it came back as a requirement).
func TestWritePreferredTopology(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	j := job("k", i32(4), i32(4), batchv1.IndexedCompletion)
	j.Spec.Template.Annotations = map[string]string{KueuePreferredTopology: "block"}
	got, err := StampJob(j, nil)
	require.NoError(t, err)
	require.Nil(t, PodGroupV1alpha2(got.PodGroup).Spec.SchedulingConstraints)
	require.Nil(t, PodGroupV1beta1(got.PodGroup).Spec.SchedulingConstraints)
	require.Nil(t, WorkloadV1alpha2(got.Workload).Spec.PodGroupTemplates[0].SchedulingConstraints)
	require.Nil(t, WorkloadV1beta1(got.Workload).Spec.PodGroupTemplates[0].SchedulingConstraints)
	back, err := ConvertPodGroupV1alpha2(PodGroupV1alpha2(got.PodGroup), nil)
	require.NoError(t, err)
	require.Empty(t, back.Spec.SchedulingConstraints.Topology, "never a requirement")
}
