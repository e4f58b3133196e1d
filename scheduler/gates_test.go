package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gangsched/gangsched/gang"
)

// featureGates.PodGroupPreemptionPolicy reaches the decisions: a PodGroup
// without spec.preemptionPolicy whose two pods both say Never binds with
// the gate off (the pods agree with each other) and fails with it on (the
// unset group's policy is PreemptLowerPriority), as kube-scheduler v1.37.2
// decides (kube/cmd/gangsim/testdata/preemption-policy-all-never.yaml,
// checked with kubeoracle).
func TestFeatureGate_PodGroupPreemptionPolicy(t *testing.T) {
	for _, gate := range []bool{false, true} {
		t.Run(map[bool]string{false: "off", true: "on"}[gate], func(t *testing.T) {
			never := corev1.PreemptNever
			pg := &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g", UID: "uid-g"},
				Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2},
				}},
			}
			member := func(name string) *corev1.Pod {
				p := cpuPod(name, "", "1")
				p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("g")}
				p.Spec.PreemptionPolicy = &never
				return p
			}
			client := fake.NewClientset(cpuNode("n1"), pg, member("p0"), member("p1"))
			cfg := DefaultConfig()
			cfg.FeatureGates = map[string]bool{gang.GatePodGroupPreemptionPolicy: gate}
			runFakeWith(t, client, cfg)
			want := metav1.ConditionTrue
			if gate {
				want = metav1.ConditionFalse
			}
			var got *metav1.Condition
			require.Eventually(t, func() bool {
				g, err := client.SchedulingV1beta1().PodGroups("default").Get(context.Background(), "g", metav1.GetOptions{})
				if err != nil {
					return false
				}
				got = meta.FindStatusCondition(g.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
				return got != nil && got.Status == want
			}, 10*time.Second, 5*time.Millisecond)
			if gate {
				require.Contains(t, got.Message, "spec.preemptionPolicy")
			}
		})
	}
}
