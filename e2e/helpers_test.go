package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gangsched/gangsched/e2e/harness"
	"github.com/gangsched/gangsched/scheduler"

	"github.com/gangsched/gangsched/gang"
)

const (
	schedulerName = "gangsched-scheduler"
	ns            = "default"
	rackKey       = "topology.kubernetes.io/rack"
	gpu           = corev1.ResourceName("nvidia.com/gpu")
	// timeout bounds each wait of a test; the whole test binary is
	// bounded by go test's -timeout as well.
	timeout = 60 * time.Second
)

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// testConfig is gangsched-scheduler's configuration in these tests: no
// leader election unless a test turns it on, no HTTP servers (the tests
// read metrics and readiness in-process), quick backoff, and the release
// and feature gates of the harness's API server (v1.37,
// PodGroupPreemptionPolicy on).
func testConfig() scheduler.Config {
	c := scheduler.DefaultConfig()
	c.LeaderElection.LeaderElect = new(false)
	c.HealthAddress, c.MetricsAddress = new(""), new("")
	c.InitialBackoff.Duration = 200 * time.Millisecond
	c.MaxBackoff.Duration = time.Second
	c.Profile = string(gang.ProfileV137)
	c.FeatureGates = map[string]bool{gang.GatePodGroupPreemptionPolicy: true}
	return c
}

// replica is one running gangsched-scheduler.
type replica struct {
	s      *scheduler.Scheduler
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// startScheduler runs gangsched-scheduler in the test process, on its own
// client (configured as the command configures it) and informers, as a
// separate process would; it stops when t ends
// or at stop. With id non-empty it runs under leader election as id.
func startScheduler(t testing.TB, c *harness.Cluster, cfg scheduler.Config, id string) *replica {
	t.Helper()
	return startSchedulerOn(t, c.Config, cfg, id)
}

// startSchedulerOn is startScheduler on the cluster rc reaches.
func startSchedulerOn(t testing.TB, rc *rest.Config, cfg scheduler.Config, id string) *replica {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, nil)).With("replica", id)
	}
	s, err := scheduler.New(kubernetes.NewForConfigOrDie(scheduler.RESTConfig(rc)), cfg, scheduler.Options{Logger: log, Dynamic: dynamic.NewForConfigOrDie(rc)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{s: s, cancel: cancel, done: make(chan error, 1)}
	go func() {
		if id == "" {
			r.done <- s.Run(ctx)
		} else {
			r.done <- scheduler.RunElected(ctx, s, id)
		}
	}()
	t.Cleanup(r.stop)
	return r
}

// stop kills the replica (its context ends: nothing more is sent) and
// waits for it to return.
func (r *replica) stop() {
	r.once.Do(func() {
		r.cancel()
		<-r.done
	})
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(string(b))
	return len(b), nil
}

func node(name, rack string, cpu, gpus int64) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name, rackKey: rack}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), corev1.ResourceMemory: resource.MustParse("64Gi"),
				gpu: *resource.NewQuantity(gpus, resource.DecimalSI), corev1.ResourcePods: resource.MustParse("110"),
			},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
}

// member is a pod of PodGroup group (none when "") asking for gpus GPUs
// and 1 CPU, of priority class class (none when "").
func member(name, group, class string, gpus int64) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"group": group}},
		Spec: corev1.PodSpec{
			SchedulerName:     schedulerName,
			PriorityClassName: class,
			Containers: []corev1.Container{{Name: "work", Image: "registry.example/work:1", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), gpu: *resource.NewQuantity(gpus, resource.DecimalSI)},
				Limits:   corev1.ResourceList{gpu: *resource.NewQuantity(gpus, resource.DecimalSI)},
			}}},
		},
	}
	if group != "" {
		p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &group}
	}
	return p
}

func podGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}},
		},
	}
}

func priorityClass(name string, value int32) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
}

// create makes each object through the API.
func create(t testing.TB, client kubernetes.Interface, objs ...any) {
	t.Helper()
	ctx := ctxFor(t)
	for _, o := range objs {
		var err error
		switch v := o.(type) {
		case *corev1.Node:
			_, err = client.CoreV1().Nodes().Create(ctx, v, metav1.CreateOptions{})
		case *corev1.Pod:
			_, err = client.CoreV1().Pods(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *schedulingv1beta1.PodGroup:
			_, err = client.SchedulingV1beta1().PodGroups(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *schedulingv1alpha3.CompositePodGroup:
			_, err = client.SchedulingV1alpha3().CompositePodGroups(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *schedulingv1beta1.Workload:
			_, err = client.SchedulingV1beta1().Workloads(v.Namespace).Create(ctx, v, metav1.CreateOptions{})
		case *schedulingv1.PriorityClass:
			_, err = client.SchedulingV1().PriorityClasses().Create(ctx, v, metav1.CreateOptions{})
		default:
			t.Fatalf("create: unexpected %T", o)
		}
		require.NoError(t, err, "create %T", o)
	}
}

// eventually polls cond every 50 ms until it holds or timeout passes.
func eventually(t testing.TB, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctxFor(t), 50*time.Millisecond, timeout, true, cond)
	require.NoError(t, err, "waiting until %s", what)
}

// pods lists the pods whose label group is group, by name.
func pods(ctx context.Context, client kubernetes.Interface, group string) (map[string]corev1.Pod, error) {
	l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "group=" + group})
	if err != nil {
		return nil, err
	}
	out := map[string]corev1.Pod{}
	for _, p := range l.Items {
		out[p.Name] = p
	}
	return out, nil
}

// boundCount counts the bound pods of group.
func boundCount(ctx context.Context, client kubernetes.Interface, group string) (int, error) {
	ps, err := pods(ctx, client, group)
	n := 0
	for _, p := range ps {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n, err
}

// condition returns the PodGroupInitiallyScheduled condition of a PodGroup.
func condition(ctx context.Context, client kubernetes.Interface, name string) (*metav1.Condition, error) {
	pg, err := client.SchedulingV1beta1().PodGroups(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return meta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled), nil
}

// conditionIs waits until the PodGroup's condition has status and reason.
func conditionIs(t testing.TB, client kubernetes.Interface, name string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	t.Helper()
	var got *metav1.Condition
	eventually(t, fmt.Sprintf("PodGroup %s is %s/%s", name, status, reason), func(ctx context.Context) (bool, error) {
		c, err := condition(ctx, client, name)
		got = c
		return err == nil && c != nil && c.Status == status && c.Reason == reason, nil
	})
	return got
}

// boundPods waits until n members of group are bound (what names the
// wait) and returns the group's pods.
func boundPods(t testing.TB, client kubernetes.Interface, group string, n int, what string) map[string]corev1.Pod {
	eventually(t, what, func(ctx context.Context) (bool, error) {
		b, err := boundCount(ctx, client, group)
		return b == n, err
	})
	ps, err := pods(ctxFor(t), client, group)
	require.NoError(t, err)
	return ps
}

// seedWalkthrough is the seed's walkthrough on a scheduler that start
// starts: a Workload and its PodGroup with minCount 4, and four members of
// one GPU each; with the three one-GPU nodes all four wait (the condition
// says Unschedulable, no pod is bound); then fourth is created and all four
// bind, one per node; the condition turns True.
func seedWalkthrough(t *testing.T, three [3]*corev1.Node, fourth *corev1.Node, member func(name, group string) *corev1.Pod, start func(testing.TB, *harness.Cluster)) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	create(t, client, three[0], three[1], three[2])
	create(t, client, &schedulingv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "training-job-workload"},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{
			Name:             "workers",
			SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 4}},
		}}},
	})
	pg := podGroup("training-job-workers-pg", 4)
	pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "training-job-workload", TemplateName: "workers"}
	create(t, client, pg)
	for i := range 4 {
		create(t, client, member(fmt.Sprintf("worker-%d", i), pg.Name))
	}
	start(t, c)

	cond := conditionIs(t, client, pg.Name, metav1.ConditionFalse, "Unschedulable")
	t.Logf("while three nodes fit: %s", cond.Message)
	n, err := boundCount(ctxFor(t), client, pg.Name)
	require.NoError(t, err)
	require.Zero(t, n, "no member binds while only three fit")

	create(t, client, fourth)
	conditionIs(t, client, pg.Name, metav1.ConditionTrue, "Scheduled")
	ps := boundPods(t, client, pg.Name, 4, "all four bound")
	nodes := map[string]bool{}
	for _, p := range ps {
		nodes[p.Spec.NodeName] = true
	}
	require.Len(t, nodes, 4, "one member per one-GPU node")
}
