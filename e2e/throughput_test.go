package e2e

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/gangsched/gangsched/e2e/harness"
	"github.com/gangsched/gangsched/scheduler"
)

// workload is one of scheduler_perf's PodGroup workloads
// (test/integration/scheduler_perf/podgroup, v1.37.2) as these benchmarks
// run it: gangs of size one-GPU pods, minCount size, on nodes two-GPU
// nodes; with rack, every PodGroup requires topology.kubernetes.io/rack and
// the nodes are labelled into racks of 100, as the tas workload's node
// template labels them (rack-<index/100>).
type workload struct {
	name               string
	gangs, size, nodes int
	rack               bool
}

// rackSize is how many nodes a rack holds: 100 with rack (the tas
// template's), 16 otherwise (a label nothing asks for).
func (w workload) rackSize() int {
	if w.rack {
		return 100
	}
	return 16
}

// throughputWorkloads: gangscheduling's 250 × 4 scaled down to 500 nodes
// (what two shared cores start in seconds), tas's 5000Nodes_750Gangs
// without and with its rack constraint, and both configurations'
// 5000Nodes_3Gangs_3000Pods_1000PerGroup (unconstrained: a rack of 100
// two-GPU nodes cannot hold a gang of 1,000). scheduler_perf's pods ask
// for 100m CPU on four-CPU nodes; these ask for a GPU of two, so that a
// node's capacity binds as tightly as the gangs' sizes do.
var throughputWorkloads = []workload{
	{name: "nodes=500,gangs=250x4", gangs: 250, size: 4, nodes: 500},
	{name: "nodes=5000,gangs=750x4", gangs: 750, size: 4, nodes: 5000},
	{name: "nodes=5000,gangs=3x1000", gangs: 3, size: 1000, nodes: 5000},
	{name: "nodes=5000,gangs=750x4,rack", gangs: 750, size: 4, nodes: 5000, rack: true},
}

// Throughput through the real API server: each workload's nodes,
// PodGroups and pods are all created first, then the clock runs from the
// binder's start until every pod is bound (as an informer of the test's
// sees it). Sub-benchmarks, per workload:
//
//   - floor: binds the pods round-robin with no decision at all, as many
//     calls at once as gangsched-scheduler makes (its default parallelism,
//     16), on a client configured as gangsched-scheduler's (protobuf) —
//     what the API server itself allows;
//
//   - gangsched: gangsched-scheduler, default configuration;
//
//   - upstream: kube-scheduler v1.37.2 in the test process, its default
//     profile (serving the pods' schedulerName) and default backoff, with
//     the same client QPS and burst as gangsched-scheduler, and the
//     cluster's feature gates (harness.FeatureGates: GenericWorkload and
//     TopologyAwareWorkloadScheduling on).
//
// Each reports pods/s, and cpu-s: the CPU time the test process (API
// server, etcd, binder and the test's watch) used within the timed span,
// which a loaded machine moves far less than the wall time; floor and
// gangsched also reads and writes, the
// requests their client sent within the timed span (GETs, which include
// lists and watches, and the rest); gangsched also s-to-ready, the seconds
// its informers took to list and convert the cluster (within the timed
// span), and s-to-conditions, the seconds until every PodGroup says
// PodGroupInitiallyScheduled=True (past the timed span: gangsched-scheduler
// writes conditions after the bindings a backlog asks for); and, for the
// rack workloads, split-gangs: the gangs
// whose pods landed in more than one rack (gangsched's must be none; the
// figure says what upstream did with the constraint).
//
//	go test -vet=off -run '^$' -bench Throughput -benchtime 1x ./e2e/
//
// A workload's name holds no slash, so that -bench 'Throughput//floor$'
// or 'Throughput/rack' selects across workloads.
func BenchmarkThroughput(b *testing.B) {
	for _, w := range throughputWorkloads {
		b.Run(w.name, func(b *testing.B) { throughput(b, w) })
	}
}

func throughput(b *testing.B, w workload) {
	for _, tc := range []struct {
		name string
		// run starts the binder on rc (whose requests are counted, where
		// the binder takes a rest.Config) and c; what it returns, if
		// anything, reports after the timed span.
		run func(b *testing.B, rc *rest.Config, c *harness.Cluster) (report func())
	}{
		{"floor", func(b *testing.B, rc *rest.Config, _ *harness.Cluster) func() {
			floorBind(b, kubernetes.NewForConfigOrDie(scheduler.RESTConfig(rc)), w.nodes)
			return nil
		}},
		{"gangsched", func(b *testing.B, rc *rest.Config, c *harness.Cluster) func() {
			cfg := testConfig()
			cfg.InitialBackoff, cfg.MaxBackoff = scheduler.DefaultConfig().InitialBackoff, scheduler.DefaultConfig().MaxBackoff
			start := time.Now()
			r := startSchedulerOn(b, rc, cfg, "")
			ready := make(chan time.Duration, 1)
			go func() {
				for !r.s.Ready() {
					time.Sleep(5 * time.Millisecond)
				}
				ready <- time.Since(start)
			}()
			return func() {
				b.ReportMetric((<-ready).Seconds(), "s-to-ready")
				waitScheduledConditions(b, c.Client(), w.gangs)
				b.ReportMetric(time.Since(start).Seconds(), "s-to-conditions")
			}
		}},
		{"upstream", func(b *testing.B, _ *rest.Config, c *harness.Cluster) func() {
			runKubeSchedulerConfig(b, c, map[string]any{
				"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
				"leaderElection": map[string]any{"leaderElect": false},
				"profiles":       []any{map[string]any{"schedulerName": schedulerName}},
			})
			return nil
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				c := harness.Start(b, harness.Options{})
				client := c.Client()
				populate(b, client, w)
				bound := watchBound(b, client, w.gangs*w.size)
				var calls callCounter
				b.StartTimer()
				cpu0 := processCPU(b)
				start := time.Now()
				report := tc.run(b, calls.config(c.Config), c)
				bound.wait(b, 15*time.Minute)
				elapsed := time.Since(start)
				cpu := processCPU(b) - cpu0
				reads, writes := calls.reads.Load(), calls.writes.Load()
				b.StopTimer()
				b.ReportMetric(float64(w.gangs*w.size)/elapsed.Seconds(), "pods/s")
				b.ReportMetric(cpu.Seconds(), "cpu-s")
				if tc.name != "upstream" { // its client is built from a kubeconfig, uncounted
					b.ReportMetric(float64(reads), "reads")
					b.ReportMetric(float64(writes), "writes")
				}
				if report != nil {
					report()
				}
				if w.rack {
					split := splitGangs(b, client, w)
					b.ReportMetric(float64(split), "split-gangs")
					if tc.name == "gangsched" && split > 0 {
						b.Errorf("%d gangs span more than one rack", split)
					}
				}
				c.StopAPIServer()
			}
		})
	}
}

// populate creates the workload's nodes, PodGroups and pods, 16 creations
// at a time.
func populate(b *testing.B, client kubernetes.Interface, w workload) {
	ctx := ctxFor(b)
	var objs []func() error
	for i := range w.nodes {
		n := node(fmt.Sprintf("n%04d", i), fmt.Sprintf("rack-%d", i/w.rackSize()), 8, 2)
		objs = append(objs, func() error { _, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); return err })
	}
	for g := range w.gangs {
		name := fmt.Sprintf("g%04d", g)
		pg := podGroup(name, int32(w.size))
		if w.rack {
			pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: rackKey}}}
		}
		objs = append(objs, func() error {
			_, err := client.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{})
			return err
		})
		for i := range w.size {
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

// boundWatch counts bound pods from a pod informer's events, so that
// waiting costs the API server one watch rather than a list of every pod
// per poll (which, at 3,000 pods, would take a share of the two cores the
// binders measured share).
type boundWatch struct {
	want  int
	mu    sync.Mutex
	bound map[string]bool
	done  chan struct{}
}

// watchBound starts the informer and waits for its first list; it stops
// when b ends.
func watchBound(b *testing.B, client kubernetes.Interface, want int) *boundWatch {
	w := &boundWatch{want: want, bound: map[string]bool{}, done: make(chan struct{})}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().Pods().Informer()
	see := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			w.mu.Lock()
			defer w.mu.Unlock()
			if !w.bound[p.Name] {
				w.bound[p.Name] = true
				if len(w.bound) == w.want {
					close(w.done)
				}
			}
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    see,
		UpdateFunc: func(_, obj any) { see(obj) },
	}); err != nil {
		b.Fatal(err)
	}
	stop := make(chan struct{})
	b.Cleanup(func() { close(stop) })
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	return w
}

// wait returns when every wanted pod was seen bound, or fails b after
// limit saying how many were (upstream's scheduler at 5,000 nodes on two
// shared cores needs more than five minutes).
func (w *boundWatch) wait(b *testing.B, limit time.Duration) {
	select {
	case <-w.done:
	case <-time.After(limit):
		w.mu.Lock()
		defer w.mu.Unlock()
		b.Fatalf("waiting for %d pods bound: %d bound after %v", w.want, len(w.bound), limit)
	}
}

// splitGangs counts the gangs whose bound pods sit in more than one rack.
func splitGangs(b *testing.B, client kubernetes.Interface, w workload) int {
	ctx := ctxFor(b)
	l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	racks := map[string]map[string]bool{}
	for _, p := range l.Items {
		var i int
		if _, err := fmt.Sscanf(p.Spec.NodeName, "n%d", &i); err != nil {
			b.Fatalf("pod %s bound to %q: %v", p.Name, p.Spec.NodeName, err)
		}
		g := p.Labels["group"]
		if racks[g] == nil {
			racks[g] = map[string]bool{}
		}
		racks[g][fmt.Sprintf("rack-%d", i/w.rackSize())] = true
	}
	split := 0
	for _, r := range racks {
		if len(r) > 1 {
			split++
		}
	}
	return split
}

// waitScheduledConditions waits until the PodGroups of all the workload's
// gangs say PodGroupInitiallyScheduled=True, polling their list.
func waitScheduledConditions(b *testing.B, client kubernetes.Interface, gangs int) {
	ctx := ctxFor(b)
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := client.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		n := 0
		for _, pg := range l.Items {
			if meta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled) {
				n++
			}
		}
		return n == gangs, nil
	})
	if err != nil {
		b.Fatalf("waiting for %d PodGroups scheduled: %v", gangs, err)
	}
}

// processCPU returns the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
