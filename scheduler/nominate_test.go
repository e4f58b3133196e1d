package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangsched/gangsched/placement"
)

// A restarted scheduler finds preemptor big-0 pending with
// status.nominatedNodeName n1 (its gang of two waits for its second
// member) and lone pod small, of lower priority, pending too. The
// nomination is restored, so n1's room stays held: small, which fits only
// there, is decided and not bound. Without the nomination it binds to n1.
func TestNominationRestored(t *testing.T) {
	for _, tc := range []struct {
		nominated string
		bound     []string
	}{
		{nominated: "n1", bound: nil},
		{nominated: "", bound: []string{"n1"}},
	} {
		t.Run("nominated="+tc.nominated, func(t *testing.T) {
			big := cpuPod("big-0", "", "2")
			big.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new("big")}
			big.Spec.Priority = new(int32(10))
			big.Status.NominatedNodeName = tc.nominated
			pg := &schedulingv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "big"},
				Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2},
				}},
			}
			client := fake.NewClientset(cpuNode("n1"), big, pg, cpuPod("small", "", "1"))
			s, _ := runFake(t, client)

			bindings := func() []string {
				var out []string
				for _, a := range client.Actions() {
					if c, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "binding" {
						out = append(out, c.GetObject().(*corev1.Binding).Target.Name)
					}
				}
				return out
			}
			small := implicitGroup(placement.Key{Namespace: "default", Name: "small"})
			require.Eventually(t, func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				st, ok := s.gs.Group(small)
				return s.Ready() && (ok && st.Attempts > 0 || len(bindings()) > 0) // decided: waiting, or bound
			}, 10*time.Second, 5*time.Millisecond)
			s.mu.Lock()
			node, _ := s.gs.Nominated(placement.Key{Namespace: "default", Name: "big-0"})
			s.mu.Unlock()
			require.Equal(t, tc.nominated, node)
			require.Equal(t, tc.bound, bindings())
		})
	}
}

// TestLonePodKeepsItsPriority: a pod in no PodGroup is scheduled in an
// implicit group of one that carries its priority, so the v1.37 rule that
// every member carries its group's priority (0 when the group sets none)
// never refuses it: upstream holds a lone pod to no group. Before, the
// implicit group set none, and a lone pod of priority 100 failed its
// cycle with PodGroupError instead of binding.
func TestLonePodKeepsItsPriority(t *testing.T) {
	lone := cpuPod("lone", "", "1")
	lone.Spec.Priority = new(int32(100))
	client := fake.NewClientset(cpuNode("n1"), lone)
	runFake(t, client)
	require.Eventually(t, func() bool {
		for _, a := range client.Actions() {
			if c, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "binding" {
				return c.GetObject().(*corev1.Binding).Target.Name == "n1"
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)
}
