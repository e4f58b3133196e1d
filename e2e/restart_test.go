package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gangsched/gangsched/e2e/harness"
)

// requireWholeAndFitting checks the end state of many gangs of four: every
// pod bound, every PodGroup's condition True, and no node holding more GPUs
// than it has — a pod bound twice, or a node double-booked by two
// schedulers' views, would break the last.
func requireWholeAndFitting(t *testing.T, client kubernetes.Interface, groups int) {
	t.Helper()
	ctx := ctxFor(t)
	eventually(t, "every pod bound", func(ctx context.Context) (bool, error) {
		l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range l.Items {
			if p.Spec.NodeName == "" {
				return false, nil
			}
		}
		return len(l.Items) == 4*groups, nil
	})
	l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	used := map[string]int64{}
	for _, p := range l.Items {
		q := p.Spec.Containers[0].Resources.Requests[gpu]
		used[p.Spec.NodeName] += q.Value()
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, n := range nodes.Items {
		capacity := n.Status.Allocatable[gpu]
		require.LessOrEqual(t, used[n.Name], capacity.Value(), "node %s is not overcommitted", n.Name)
	}
	// Conditions are written after their bindings.
	eventually(t, "every PodGroup's condition True", func(ctx context.Context) (bool, error) {
		for g := range groups {
			c, err := condition(ctx, client, fmt.Sprintf("g%02d", g))
			if err != nil || c == nil || c.Status != metav1.ConditionTrue {
				return false, err
			}
		}
		return true, nil
	})
}

// createNodes creates two-GPU nodes for groups gangs of four one-GPU pods.
func createNodes(t *testing.T, client kubernetes.Interface, groups int) {
	for i := range 2 * groups {
		create(t, client, node(fmt.Sprintf("n%03d", i), fmt.Sprintf("rack-%d", i/8), 8, 2))
	}
}

// createGangs creates gangs from to to-1 of four one-GPU pods, named g00….
func createGangs(t *testing.T, client kubernetes.Interface, from, to int) {
	for g := from; g < to; g++ {
		name := fmt.Sprintf("g%02d", g)
		create(t, client, podGroup(name, 4))
		for i := range 4 {
			create(t, client, member(fmt.Sprintf("%s-%d", name, i), name, "", 1))
		}
	}
}

// createGangsRetrying is createGangs for a goroutine, retrying each
// creation until the API server takes it.
func createGangsRetrying(ctx context.Context, client kubernetes.Interface, from, to int) error {
	try := func(f func() error) error {
		return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
			err := f()
			return err == nil || apierrors.IsAlreadyExists(err), nil
		})
	}
	for g := from; g < to; g++ {
		name := fmt.Sprintf("g%02d", g)
		if err := try(func() error {
			_, err := client.SchedulingV1beta1().PodGroups(ns).Create(ctx, podGroup(name, 4), metav1.CreateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("PodGroup %s: %w", name, err)
		}
		for i := range 4 {
			p := member(fmt.Sprintf("%s-%d", name, i), name, "", 1)
			if err := try(func() error {
				_, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				return err
			}); err != nil {
				return fmt.Errorf("pod %s: %w", p.Name, err)
			}
		}
	}
	return nil
}

// The scheduler is stopped as soon as its first bindings show (its context
// ends, as on SIGTERM: the calls under way finish, no cycle starts) and a
// new one is started at once: the new one rebuilds its state from the API,
// binds only what is left, and ends with every gang whole and no node
// overcommitted. The gangs that arrive late are named to sort first, so
// the new scheduler lists pending gangs before the pods bound on the nodes
// they fit: a cycle run before its handler has seen the whole list would
// place them there.
func TestSchedulerRestartMidStream(t *testing.T) {
	const groups = 40
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	createNodes(t, client, groups)
	createGangs(t, client, groups/2, groups)

	first := startScheduler(t, c, testConfig(), "")
	eventually(t, "the first bindings", func(ctx context.Context) (bool, error) {
		l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range l.Items {
			if p.Spec.NodeName != "" {
				return true, nil
			}
		}
		return false, nil
	})
	// Gangs keep arriving while the scheduler stops and is replaced.
	stopped := make(chan struct{})
	go func() { first.stop(); close(stopped) }()
	createGangs(t, client, 0, groups/2)
	<-stopped
	l, err := client.CoreV1().Pods(ns).List(ctxFor(t), metav1.ListOptions{})
	require.NoError(t, err)
	bound := 0
	for _, p := range l.Items {
		if p.Spec.NodeName != "" {
			bound++
		}
	}
	t.Logf("stopped with %d of %d pods bound", bound, 4*groups)

	startScheduler(t, c, testConfig(), "")
	requireWholeAndFitting(t, client, groups)
}

// The API server is restarted while gangs are being bound: the scheduler's
// watches and calls fail, are retried, and it ends with every gang whole.
func TestAPIServerRestartUnderLoad(t *testing.T) {
	const groups = 40
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	createNodes(t, client, groups)
	createGangs(t, client, 0, groups/2)
	startScheduler(t, c, testConfig(), "")
	eventually(t, "the first bindings", func(ctx context.Context) (bool, error) {
		n, err := boundCount(ctx, client, "g00")
		return n > 0, err
	})
	// The second half arrives while the API server goes down and comes
	// back; each creation is retried until the server answers.
	created := make(chan error, 1)
	go func() { created <- createGangsRetrying(ctxFor(t), client, groups/2, groups) }()
	c.RestartAPIServer()
	require.NoError(t, <-created)
	requireWholeAndFitting(t, client, groups)
}
