package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// A PodGroup or CompositePodGroup that names no class and sets no
// priority gets the global default class's, as the Priority admission
// plugin sets it on the object (and on the pods beside it); without a
// default it stays unset. Before, it stayed unset with a default too,
// and since v1.37's rule holds every member to its group's priority (0
// when unset), a gang whose pods got the default failed its cycle.
func TestObjectPriority_GlobalDefault(t *testing.T) {
	def := []schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Value: 50, GlobalDefault: true},
	}
	for _, c := range []struct {
		name    string
		classes []schedulingv1.PriorityClass
		class   string
		want    *int32
	}{
		{"no default", def[:1], "", nil},
		{"default", def, "", new(int32(50))},
		{"a class over the default", def, "high", new(int32(1000))},
	} {
		t.Run(c.name, func(t *testing.T) {
			pcs, err := NewPriorityClasses(c.classes)
			require.NoError(t, err)
			pg, err := ConvertPodGroupV1beta1(&schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g"},
				Spec: schedulingv1beta1.PodGroupSpec{PriorityClassName: c.class, SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1}}},
			}, pcs)
			require.NoError(t, err)
			require.Equal(t, c.want, pg.Spec.Priority)
			cpg, err := ConvertCompositePodGroupV1alpha3(&schedulingv1alpha3.CompositePodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "root"},
				Spec: schedulingv1alpha3.CompositePodGroupSpec{WorkloadRef: &schedulingv1alpha3.WorkloadReference{WorkloadName: "w", TemplateName: "root"},
					PriorityClassName: c.class, SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{
						Basic: &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}}},
			}, pcs)
			require.NoError(t, err)
			require.Equal(t, c.want, cpg.Spec.Priority)

			// The gang and its pod, both without a class, bind under v1.38.
			pod := basePod()
			pod.Spec.PriorityClassName = c.class
			pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("g")}
			p, err := ConvertPod(pod, pcs)
			require.NoError(t, err)
			s := gang.NewScheduler(gang.Options{})
			require.NoError(t, s.SetPodGroup(pg))
			require.NoError(t, s.AddPod(p))
			snap, err := placement.NewSnapshot([]placement.Node{{Name: "n1", Allocatable: placement.ResourceList{"cpu": 4000, "nvidia.com/gpu": 1, "pods": 10}}}, nil)
			require.NoError(t, err)
			r, ok := s.Cycle(snap, p.QueuedAt)
			require.True(t, ok)
			require.NoError(t, r.Err)
			require.Len(t, r.Bind, 1)
		})
	}
}

// A Job's stamped PodGroup passes the Priority admission plugin as its
// pods do: with no class in the pod template, the global default's, so
// the pods (which get it too) carry their group's priority.
func TestStampJob_GlobalDefaultPriority(t *testing.T) {
	pcs, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Value: 50, GlobalDefault: true}})
	require.NoError(t, err)
	got, err := StampJobAs(job("train", new(int32(2)), new(int32(2)), batchv1.IndexedCompletion), pcs, gang.ProfileV138)
	require.NoError(t, err)
	require.NotNil(t, got.PodGroup)
	require.Equal(t, new(int32(50)), got.PodGroup.Spec.Priority)
	require.Equal(t, new(int32(50)), got.Workload.Spec.PodGroupTemplates[0].Priority)
	for _, p := range got.Pods {
		cp, err := ConvertPod(p, pcs)
		require.NoError(t, err)
		require.Equal(t, int32(50), cp.Priority)
	}
}

// A tree stamped with the global default (PriorityClasses.GlobalDefault)
// carries, object by object, the priority the adapter reads for the same
// object created without one (as a controller creates it, before
// admission): the stamped tree and the converted one queue and hold their
// pods alike. Without a default class GlobalDefault is nil, and so are
// both.
func TestStampHierarchy_GlobalDefaultMatchesAdapter(t *testing.T) {
	withDefault, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "standard"}, Value: 50, GlobalDefault: true}})
	require.NoError(t, err)
	noDefault, err := NewPriorityClasses([]schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "gold"}, Value: 900}})
	require.NoError(t, err)
	require.Nil(t, noDefault.GlobalDefault())
	require.Nil(t, (*PriorityClasses)(nil).GlobalDefault())
	w := &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"},
		Spec: schedulingv1beta1.WorkloadSpec{CompositePodGroupTemplates: []schedulingv1beta1.CompositePodGroupTemplate{{
			Name:             "root",
			SchedulingPolicy: schedulingv1beta1.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1beta1.CompositeGangSchedulingPolicy{MinGroupCount: 1}},
			PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{
				{Name: "a", SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}},
			},
		}}},
	}
	for _, tc := range []struct {
		pcs  *PriorityClasses
		want *int32
	}{{withDefault, new(int32(50))}, {noDefault, nil}} {
		gw, err := ConvertWorkloadV1beta1(w, tc.pcs)
		require.NoError(t, err)
		require.Equal(t, tc.want, tc.pcs.GlobalDefault())
		cpgs, pgs, err := gang.StampHierarchy(gw, "root", "job", gang.StampOptions{DefaultPriority: tc.pcs.GlobalDefault()})
		require.NoError(t, err)
		for _, c := range cpgs {
			require.Equal(t, tc.want, c.Spec.Priority, c.Name)
			created := CompositePodGroupV1alpha3(c)
			created.Spec.Priority = nil
			read, err := ConvertCompositePodGroupV1alpha3(created, tc.pcs)
			require.NoError(t, err)
			require.Equal(t, c.Spec.Priority, read.Spec.Priority, c.Name)
		}
		for _, pg := range pgs {
			require.Equal(t, tc.want, pg.Spec.Priority, pg.Name)
			created := PodGroupV1beta1(pg)
			created.Spec.Priority = nil
			read, err := ConvertPodGroupV1beta1(created, tc.pcs)
			require.NoError(t, err)
			require.Equal(t, pg.Spec.Priority, read.Spec.Priority, pg.Name)
		}
	}
}
