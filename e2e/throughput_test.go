package e2e

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gangsched/gangsched/e2e/harness"
	"github.com/gangsched/gangsched/scheduler"
)

// Throughput through the real API server: gangs of four one-GPU pods on
// two-GPU nodes (scheduler_perf's gang workload: 250 gangs on 500 nodes,
// scaled down to what two shared cores start in seconds, and 750 gangs on
// 5,000 nodes), all pods created first, then the clock runs from the
// binder's start until every pod is bound. Sub-benchmarks, per size:
//
//   - floor: binds the pods round-robin with no decision at all, as many
//     calls at once as gangsched-scheduler makes (its default parallelism,
//     16) — what the API server itself allows;
//
//   - gangsched: gangsched-scheduler, default configuration;
//
//   - upstream: kube-scheduler v1.37.2 in the test process, its default
//     profile (serving the pods' schedulerName) and default backoff, with
//     the same client QPS and burst as gangsched-scheduler.
//
//     go test -vet=off -run '^$' -bench Throughput -benchtime 1x ./e2e/
func BenchmarkThroughput(b *testing.B) {
	for _, size := range []struct{ gangs, nodes int }{{250, 500}, {750, 5000}} {
		b.Run(fmt.Sprintf("nodes=%d", size.nodes), func(b *testing.B) { throughput(b, size.gangs, size.nodes) })
	}
}

func throughput(b *testing.B, gangs, nodes int) {
	for _, tc := range []struct {
		name string
		run  func(b *testing.B, c *harness.Cluster)
	}{
		{"floor", func(b *testing.B, c *harness.Cluster) { floorBind(b, c.Client(), nodes) }},
		{"gangsched", func(b *testing.B, c *harness.Cluster) {
			cfg := testConfig()
			cfg.InitialBackoff, cfg.MaxBackoff = scheduler.DefaultConfig().InitialBackoff, scheduler.DefaultConfig().MaxBackoff
			startScheduler(b, c, cfg, "")
		}},
		{"upstream", func(b *testing.B, c *harness.Cluster) {
			runKubeSchedulerConfig(b, c, map[string]any{
				"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
				"leaderElection": map[string]any{"leaderElect": false},
				"profiles":       []any{map[string]any{"schedulerName": schedulerName}},
			})
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				c := harness.Start(b, harness.Options{})
				client := c.Client()
				populate(b, client, gangs, nodes)
				b.StartTimer()
				start := time.Now()
				tc.run(b, c)
				waitAllBound(b, client, 4*gangs)
				elapsed := time.Since(start)
				b.ReportMetric(float64(4*gangs)/elapsed.Seconds(), "pods/s")
				b.StopTimer()
				c.StopAPIServer()
			}
		})
	}
}

// populate creates the nodes, PodGroups and pods, 16 creations at a time.
func populate(b *testing.B, client kubernetes.Interface, gangs, nodes int) {
	ctx := ctxFor(b)
	var objs []func() error
	for i := range nodes {
		n := node(fmt.Sprintf("n%04d", i), fmt.Sprintf("rack-%d", i/16), 8, 2)
		objs = append(objs, func() error { _, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); return err })
	}
	for g := range gangs {
		name := fmt.Sprintf("g%04d", g)
		pg := podGroup(name, 4)
		objs = append(objs, func() error {
			_, err := client.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{})
			return err
		})
		for i := range 4 {
			p := member(fmt.Sprintf("%s-%d", name, i), name, "", 1)
			objs = append(objs, func() error { _, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); return err })
		}
	}
	if err := inParallel(16, objs); err != nil {
		b.Fatal(err)
	}
}

func inParallel(n int, calls []func() error) error {
	sem := make(chan struct{}, n)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for _, f := range calls {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(); err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// floorBind binds every pending pod to the nodes n0000… in turn, without
// reading the nodes or deciding anything.
func floorBind(b *testing.B, client kubernetes.Interface, nodes int) {
	ctx := ctxFor(b)
	l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var calls []func() error
	for i, p := range l.Items {
		binding := &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID},
			Target:     corev1.ObjectReference{Kind: "Node", Name: fmt.Sprintf("n%04d", i%nodes)},
		}
		calls = append(calls, func() error { return client.CoreV1().Pods(p.Namespace).Bind(ctx, binding, metav1.CreateOptions{}) })
	}
	if err := inParallel(16, calls); err != nil {
		b.Fatal(err)
	}
}

// waitAllBound waits until n pods are bound, for up to 15 minutes
// (upstream's scheduler at 5,000 nodes on two shared cores needs more than
// five); a run that times out says how many were bound.
func waitAllBound(b *testing.B, client kubernetes.Interface, n int) {
	const limit = 15 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	bound := 0
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		bound = 0
		for _, p := range l.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		return bound == n, nil
	})
	if err != nil {
		b.Fatalf("waiting for %d pods bound: %d bound after %v: %v", n, bound, limit, err)
	}
}
