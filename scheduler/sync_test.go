package scheduler

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func cpuNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}},
	}
}

func cpuPod(name, node, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{
			SchedulerName: DefaultConfig().SchedulerName,
			NodeName:      node,
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)},
			}}},
		},
	}
}

// A restarted scheduler lists node n1 full with a pod bound to it, node n2
// empty, and a pending pod listed before the bound one. The pod handler
// is held back at the bound pod while the pod informer's store already
// has the whole list: the scheduler must not count as synced (nor decide)
// until its handler has seen that list, and then binds the pending pod to
// n2. A scheduler that waited on the informers' own HasSynced went ahead
// (within one poll of cache.WaitForCacheSync, 100 ms, when it polled) with
// n1 looking empty and bound the pending pod to n1, overcommitting it.
func TestNoCycleBeforeHandlersSawTheList(t *testing.T) {
	client := fake.NewClientset(cpuNode("n1"), cpuNode("n2"), cpuPod("z-bound", "n1", "2"), cpuPod("a-pending", "", "1"))
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return a.GetSubresource() == "binding", nil, nil // a binding succeeds
	})
	s, err := New(client, DefaultConfig(), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	held, release := make(chan struct{}), make(chan struct{})
	var heldOnce, releaseOnce sync.Once
	s.beforeEvent = func(o any) {
		if p, ok := o.(*corev1.Pod); ok && p.Name == "z-bound" {
			heldOnce.Do(func() { close(held) })
			<-release
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		releaseOnce.Do(func() { close(release) })
		cancel()
		<-done
	})

	<-held
	podInformer := s.factory.Core().V1().Pods().Informer()
	require.Eventually(t, podInformer.HasSynced, 10*time.Second, 5*time.Millisecond, "the pod informer's store has the list")
	time.Sleep(300 * time.Millisecond) // long enough to go ahead wrongly
	require.False(t, s.Ready(), "ready while the pod handler has not seen the bound pod")
	releaseOnce.Do(func() { close(release) })

	require.Eventually(t, s.Ready, 10*time.Second, 5*time.Millisecond)
	bindings := func() []string {
		var targets []string
		for _, a := range client.Actions() {
			if c, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "binding" {
				targets = append(targets, c.GetObject().(*corev1.Binding).Target.Name)
			}
		}
		return targets
	}
	require.Eventually(t, func() bool { return len(bindings()) > 0 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, []string{"n2"}, bindings(), "the pending pod is bound to the node with room, once")
}
