package harness

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// RunKubelet stands in for the kubelets of the cluster's nodes in the one
// duty the tests need: a bound pod deleted gracefully (a preemption
// victim) stays, terminating, until its kubelet confirms it stopped; this
// confirms at once, deleting it with grace period zero. It runs until t
// ends.
func (c *Cluster) RunKubelet(t testing.TB) {
	ctx, cancel := context.WithCancel(context.Background())
	client := c.Client()
	f := informers.NewSharedInformerFactory(client, 0)
	finish := func(o any) {
		p, ok := o.(*corev1.Pod)
		if !ok || p.DeletionTimestamp == nil || p.Spec.NodeName == "" {
			return
		}
		zero := int64(0)
		uid := p.UID
		// Errors are retried by the next update or resync of the pod; a
		// NotFound means it is gone already.
		_ = client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
			GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid},
		})
	}
	inf := f.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    finish,
		UpdateFunc: func(_, o any) { finish(o) },
	}); err != nil {
		t.Fatalf("harness: kubelet: %v", err)
	}
	f.Start(ctx.Done())
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
}
