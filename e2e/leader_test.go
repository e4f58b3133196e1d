package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gangsched/gangsched/e2e/harness"
)

// Two replicas under leader election: only the holder of the Lease
// schedules (the other never starts its informers); when the leader is
// killed, the standby takes the Lease over and schedules what came after.
func TestLeaderElectionTwoReplicas(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	cfg := testConfig()
	cfg.LeaderElection.LeaderElect = new(true)
	cfg.LeaderElection.ResourceNamespace = "default"
	cfg.LeaderElection.LeaseDuration.Duration = 3 * time.Second
	cfg.LeaderElection.RenewDeadline.Duration = 2 * time.Second
	cfg.LeaderElection.RetryPeriod.Duration = 200 * time.Millisecond

	a := startScheduler(t, c, cfg, "replica-a")
	eventually(t, "replica-a leads", func(ctx context.Context) (bool, error) {
		l, err := client.CoordinationV1().Leases("default").Get(ctx, "gangsched-scheduler", metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == "replica-a", nil
	})
	b := startScheduler(t, c, cfg, "replica-b")
	createNodes(t, client, 2)
	createGangs(t, client, 0, 2)
	eventually(t, "replica-a is ready and schedules", func(ctx context.Context) (bool, error) {
		n, err := boundCount(ctx, client, "g00")
		return a.s.Ready() && n == 4, err
	})
	require.False(t, b.s.Ready(), "the standby never started deciding")

	a.stop() // releases the Lease on the way out
	eventually(t, "replica-b leads and is ready", func(ctx context.Context) (bool, error) {
		return b.s.Ready(), nil
	})
	create(t, client, podGroup("late", 4))
	for _, n := range []string{"late-0", "late-1", "late-2", "late-3"} {
		create(t, client, member(n, "late", "", 1))
	}
	create(t, client, node("n-late-0", "rack-9", 8, 2), node("n-late-1", "rack-9", 8, 2))
	eventually(t, "the late gang bound by replica-b", func(ctx context.Context) (bool, error) {
		n, err := boundCount(ctx, client, "late")
		return n == 4, err
	})
}
