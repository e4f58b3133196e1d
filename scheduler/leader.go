package scheduler

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// ErrLostLease is returned by [RunElected] when the replica stopped being
// the leader: it must exit, as kube-scheduler does, so that it never
// schedules beside the new leader.
var ErrLostLease = errors.New("scheduler: lost the leader lease")

// RunElected runs s once this replica holds the coordination.k8s.io Lease
// of cfg.LeaderElection under identity id, and until ctx ends or the lease
// is lost; with leaderElect false it runs s at once. Only the leader
// starts informers, so a standby replica costs the API server one Lease
// poll per retryPeriod.
func RunElected(ctx context.Context, s *Scheduler, id string) error {
	le := s.cfg.LeaderElection
	if !*le.LeaderElect {
		return s.Run(ctx)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.ResourceNamespace, Name: le.ResourceName},
		Client:     s.client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	led := false
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration.Duration,
		RenewDeadline:   le.RenewDeadline.Duration,
		RetryPeriod:     le.RetryPeriod.Duration,
		ReleaseOnCancel: true,
		Name:            s.cfg.SchedulerName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				led = true
				s.log.Info("leading", "lease", le.ResourceNamespace+"/"+le.ResourceName, "identity", id)
				runErr = s.Run(ctx)
			},
			OnStoppedLeading: func() { cancel() },
			OnNewLeader: func(leader string) {
				if leader != id {
					s.log.Info("standing by", "leader", leader)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leaderElection: %w", err)
	}
	elector.Run(ctx)
	switch {
	case runErr != nil:
		return runErr
	case led && parent.Err() == nil:
		return ErrLostLease
	}
	return nil
}
