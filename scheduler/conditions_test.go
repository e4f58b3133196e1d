package scheduler

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Of the conditions of one type for one object the last is kept, in the
// order they came; other objects, kinds and types are kept apart.
func TestLatestConditions(t *testing.T) {
	a, b := placement.Key{Namespace: "ns", Name: "a"}, placement.Key{Namespace: "ns", Name: "b"}
	w := func(kind string, k placement.Key, typ, reason string) conditionWrite {
		return conditionWrite{kind: kind, group: k, cond: gang.Condition{Type: typ, Reason: reason}}
	}
	in := []conditionWrite{
		w("", a, gang.PodGroupScheduled, "Unschedulable"),
		w("", b, gang.PodGroupScheduled, "Unschedulable"),
		w(kindComposite, a, gang.CompositePodGroupScheduled, "Unschedulable"),
		w("", a, gang.PodGroupScheduled, "Scheduled"),
		w("", a, "Other", "X"),
	}
	require.Equal(t, []conditionWrite{in[1], in[2], in[3], in[4]}, latestConditions(in))
	require.Empty(t, latestConditions(nil))
}

// 300 gangs of one pod, queued at once, take two rounds (256 cycles, then
// 44). Every binding goes out before the first condition: the first
// round's conditions wait behind the second round's bindings. Each gang's
// condition is written once.
func TestConditionsWaitBehindTheBacklogsBindings(t *testing.T) {
	const gangs = 300
	big := cpuNode("n1")
	big.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse(fmt.Sprint(gangs))
	objs := []runtime.Object{big}
	for i := range gangs {
		name := fmt.Sprintf("g%03d", i)
		objs = append(objs, &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
				Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 1},
			}},
		})
		p := cpuPod(name+"-0", "", "1")
		p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new(name)}
		objs = append(objs, p)
	}
	client := fake.NewClientset(objs...)
	runFake(t, client)

	// calls lists the bindings ("bind") and PodGroup status updates
	// ("condition <name>") in the order they were made.
	calls := func() []string {
		var out []string
		for _, a := range client.Actions() {
			switch {
			case a.GetVerb() == "create" && a.GetSubresource() == "binding":
				out = append(out, "bind")
			case a.GetVerb() == "update" && a.GetSubresource() == "status" && a.GetResource().Resource == "podgroups":
				out = append(out, "condition "+a.(k8stesting.UpdateAction).GetObject().(*schedulingv1beta1.PodGroup).Name)
			}
		}
		return out
	}
	require.Eventually(t, func() bool { return len(calls()) >= 2*gangs }, 30*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // room for a write too many
	got := calls()
	require.Len(t, got, 2*gangs)
	seen := map[string]bool{}
	for i, c := range got {
		if i < gangs {
			require.Equal(t, "bind", c, "call %d", i)
		} else {
			require.NotEqual(t, "bind", c, "call %d", i)
			require.False(t, seen[c], "%s written twice", c)
			seen[c] = true
		}
	}
}
