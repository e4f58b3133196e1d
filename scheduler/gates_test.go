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

// featureGates.PodGroupPreemptionPolicy is accepted (a v1.37 cluster's
// API server has it) but the decisions are v1.38's, gang's default
// profile, and v1.38.0-beta.0 has no such gate: every pod of a group is
// held to the group's spec.preemptionPolicy when it sets one, else to the
// first pod's (validatePodGroupHierarchy). So a PodGroup without one
// whose two pods both say Never binds whatever the gate (kube-scheduler
// v1.37.2 with the gate on fails it: kube/cmd/gangsim/testdata/
// preemption-policy-all-never.yaml), and one that says
// PreemptLowerPriority fails them whatever the gate.
func TestFeatureGate_PodGroupPreemptionPolicy(t *testing.T) {
	lower := schedulingv1beta1.PreemptLowerPriority
	for _, c := range []struct {
		name   string
		gate   bool
		policy *schedulingv1beta1.PreemptionPolicy
		want   metav1.ConditionStatus
	}{
		{"unset/off", false, nil, metav1.ConditionTrue},
		{"unset/on", true, nil, metav1.ConditionTrue},
		{"PreemptLowerPriority/off", false, &lower, metav1.ConditionFalse},
		{"PreemptLowerPriority/on", true, &lower, metav1.ConditionFalse},
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
