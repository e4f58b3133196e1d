package harness

import (
	"context"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/resourceclaim"
)

// RunResourceClaimController runs kube-controller-manager's resourceclaim
// controller of v1.37 in the test binary until t ends: it creates the
// ResourceClaims of pods' and PodGroups' claim templates and names them in
// their status.resourceClaimStatuses, and releases claims whose consumers
// are gone — the work a scheduler waits on and must not do itself. Its
// feature gates (DRAWorkloadResourceClaims for PodGroup claims) are the
// process's, which the in-process kube-apiserver set from
// [FeatureGates].
func (c *Cluster) RunResourceClaimController(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	client := c.Client()
	f := informers.NewSharedInformerFactory(client, 0)
	ctrl, err := resourceclaim.NewController(klog.Background(), client,
		f.Core().V1().Pods(), f.Scheduling().V1beta1().PodGroups(),
		f.Resource().V1().ResourceClaims(), f.Resource().V1().ResourceClaimTemplates())
	if err != nil {
		cancel()
		t.Fatalf("harness: resourceclaim controller: %v", err)
	}
	f.Start(ctx.Done())
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctrl.Run(ctx, 2)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		f.Shutdown()
	})
}
