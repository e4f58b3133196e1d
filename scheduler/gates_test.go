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

// The profile and the gate decide which preemption policy a PodGroup's
// pods are held to. Under profile v1.37 with featureGates
// PodGroupPreemptionPolicy on, to the group's spec.preemptionPolicy,
// PreemptLowerPriority when unset, so a group without one whose two pods
// both say Never fails (as kube-scheduler v1.37.2 with the gate on does:
// kube/cmd/gangsim/testdata/preemption-policy-all-never.yaml); with the
// gate off, to the first pod's, the group's field ignored. Under v1.38
// (the default), which has no such gate, to the group's when it sets one,
// else to the first pod's (v1.38.0-beta.0 validatePodGroupHierarchy).
func TestFeatureGate_PodGroupPreemptionPolicy(t *testing.T) {
	lower := schedulingv1beta1.PreemptLowerPriority
	for _, c := range []struct {
		name    string
		profile string
		gate    bool
		policy  *schedulingv1beta1.PreemptionPolicy
		want    metav1.ConditionStatus
	}{
		{"v1.37/unset/off", "v1.37", false, nil, metav1.ConditionTrue},
		{"v1.37/unset/on", "v1.37", true, nil, metav1.ConditionFalse},
		{"v1.37/PreemptLowerPriority/off", "v1.37", false, &lower, metav1.ConditionTrue},
		{"v1.37/PreemptLowerPriority/on", "v1.37", true, &lower, metav1.ConditionFalse},
		{"v1.38/unset", "", false, nil, metav1.ConditionTrue},
		{"v1.38/PreemptLowerPriority", "", false, &lower, metav1.ConditionFalse},
	} {
		t.Run(c.name, func(t *testing.T) {
			never := corev1.PreemptNever
			pg := &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "g", UID: "uid-g"},
				Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2},
				}, PreemptionPolicy: c.policy},
			}
			member := func(name string) *corev1.Pod {
				p := cpuPod(name, "", "1")
				p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("g")}
				p.Spec.PreemptionPolicy = &never
				return p
			}
			client := fake.NewClientset(cpuNode("n1"), pg, member("p0"), member("p1"))
			cfg := DefaultConfig()
			cfg.Profile = c.profile
			cfg.FeatureGates = map[string]bool{gang.GatePodGroupPreemptionPolicy: c.gate}
			runFakeWith(t, client, cfg)
			var got *metav1.Condition
			require.Eventually(t, func() bool {
				g, err := client.SchedulingV1beta1().PodGroups("default").Get(context.Background(), "g", metav1.GetOptions{})
				if err != nil {
					return false
				}
				got = meta.FindStatusCondition(g.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
				return got != nil && got.Status == c.want
			}, 10*time.Second, 5*time.Millisecond)
			if c.want == metav1.ConditionFalse {
				require.Contains(t, got.Message, "spec.preemptionPolicy")
			}
		})
	}
}
