package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangsched/gangsched/placement"
)

func placementKey(name string) placement.Key { return placement.Key{Namespace: "default", Name: name} }

const (
	blockKey = "example.com/block"
	rackKey  = "example.com/rack"
)

// kepWorkedExample is KEP-6012's worked example: block-A has racks of 3
// and 5 one-CPU slots, block-B two of 5; root CompositePodGroup training
// is a gang of 2 children by block, each child PodGroup a gang of 5 pods
// of one CPU by rack. With bound, the pods are bound already, child-1 in
// rack-B1 and child-2 in rack-B2, and no object has a condition (a
// scheduler killed after its bindings).
func kepWorkedExample(bound bool) []runtime.Object {
	n := func(name, block, rack, cpu string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{blockKey: block, rackKey: rack}},
			Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("110")}},
		}
	}
	objs := []runtime.Object{n("a1", "block-A", "rack-A1", "3"), n("a2", "block-A", "rack-A2", "5"), n("b1", "block-B", "rack-B1", "5"), n("b2", "block-B", "rack-B2", "5")}
	objs = append(objs, &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "training"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:           &schedulingv1alpha3.WorkloadReference{WorkloadName: "training", TemplateName: "training"},
			SchedulingPolicy:      schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints: &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: blockKey}}},
		},
	})
	for i, node := range []string{"b1", "b2"} {
		child := fmt.Sprintf("child-%d", i+1)
		objs = append(objs, &schedulingv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: child},
			Spec: schedulingv1beta1.PodGroupSpec{
				ParentCompositePodGroupName: new("training"),
				WorkloadRef:                 &schedulingv1beta1.WorkloadReference{WorkloadName: "training", TemplateName: child},
				SchedulingPolicy:            schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 5}},
				SchedulingConstraints:       &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: rackKey}}},
			},
		})
		for j := range 5 {
			p := cpuPod(fmt.Sprintf("%s-%d", child, j), "", "1")
			p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: new(child)}
			if bound {
				p.Spec.NodeName = node
			}
			objs = append(objs, p)
		}
	}
	return objs
}

// v1alpha3 and v1beta1 are the versions CompositePodGroups are served in
// by v1.37 (CompositePodGroup gate) and v1.38.
var (
	v1alpha3 = schedulingv1alpha3.SchemeGroupVersion
	v1beta1  = schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1beta1"}
)

// treeClients splits objs into a typed fake clientset and a fake dynamic
// client, which holds the CompositePodGroups (typed v1alpha3 in objs) as
// unstructured objects of version gv, the two shapes being the same; the
// clientset's discovery serves CompositePodGroups in each of served, as a
// v1.37 API server with the CompositePodGroup gate does in v1alpha3 and a
// v1.38 one in v1beta1 (and v1alpha3 when enabled). Served empty, the
// CompositePodGroups are left out.
func treeClients(t *testing.T, objs []runtime.Object, gv schema.GroupVersion, served ...schema.GroupVersion) (*fake.Clientset, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	var typed, trees []runtime.Object
	for _, o := range objs {
		c, ok := o.(*schedulingv1alpha3.CompositePodGroup)
		if !ok {
			typed = append(typed, o)
			continue
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
		require.NoError(t, err)
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion(gv.String())
		u.SetKind("CompositePodGroup")
		if len(served) > 0 {
			trees = append(trees, u)
		}
	}
	client := fake.NewClientset(typed...)
	for _, v := range served {
		client.Resources = append(client.Resources, &metav1.APIResourceList{
			GroupVersion: v.String(),
			APIResources: []metav1.APIResource{{Name: "compositepodgroups", Namespaced: true, Kind: "CompositePodGroup"}},
		})
	}
	lists := map[schema.GroupVersionResource]string{}
	for _, v := range []schema.GroupVersion{v1alpha3, v1beta1} {
		lists[v.WithResource("compositepodgroups")] = "CompositePodGroupList"
	}
	return client, dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, trees...)
}

// compositeWrites returns, per "version/name", the last condition of type
// condType that status updates of CompositePodGroups through dyn wrote.
func compositeWrites(dyn *dynamicfake.FakeDynamicClient, condType string) map[string]metav1.Condition {
	out := map[string]metav1.Condition{}
	for _, a := range dyn.Actions() {
		u, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "status" {
			continue
		}
		o := u.GetObject().(*unstructured.Unstructured)
		var c schedulingv1alpha3.CompositePodGroup
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &c); err != nil {
			panic(err)
		}
		if cond := meta.FindStatusCondition(c.Status.Conditions, condType); cond != nil {
			out[a.GetResource().Version+"/"+o.GetName()] = *cond
		}
	}
	return out
}

// syncBuffer is a log sink safe for the scheduler's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// runFake runs a scheduler with DefaultConfig on client until the test
// ends; bindings succeed (the fake does not bind: the pods stay assumed).
// It returns the scheduler's log.
func runFake(t *testing.T, client *fake.Clientset) (*Scheduler, *syncBuffer) {
	return runFakeWith(t, client, DefaultConfig())
}

// runFakeTree is runFakeWith with dyn as the scheduler's dynamic client
// (CompositePodGroups).
func runFakeTree(t *testing.T, client *fake.Clientset, dyn dynamic.Interface, cfg Config) (*Scheduler, *syncBuffer) {
	return startFake(t, client, dyn, cfg, nil)
}

// fastRetries is DefaultConfig with 10 ms backoffs, for tests whose writes
// fail once and are retried.
func fastRetries() Config {
	cfg := DefaultConfig()
	cfg.InitialBackoff.Duration, cfg.MaxBackoff.Duration = 10*time.Millisecond, 10*time.Millisecond
	return cfg
}

// runFakeWith is runFake with cfg.
func runFakeWith(t *testing.T, client *fake.Clientset, cfg Config) (*Scheduler, *syncBuffer) {
	return startFake(t, client, nil, cfg, nil)
}

// runFakeHolding is runFake with before run ahead of each informer event
// (Scheduler.beforeEvent), so a test can hold one handler back until the
// scheduler has seen others.
func runFakeHolding(t *testing.T, client *fake.Clientset, before func(s *Scheduler, obj any)) (*Scheduler, *syncBuffer) {
	return startFake(t, client, nil, DefaultConfig(), before)
}

// startFake is runFakeWith with dyn as the scheduler's dynamic client and
// before, when not nil, as its beforeEvent.
func startFake(t *testing.T, client *fake.Clientset, dyn dynamic.Interface, cfg Config, before func(s *Scheduler, obj any)) (*Scheduler, *syncBuffer) {
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return a.GetSubresource() == "binding", nil, nil
	})
	log := &syncBuffer{}
	s, err := New(client, cfg, Options{Logger: slog.New(slog.NewTextHandler(log, nil)), Dynamic: dyn})
	require.NoError(t, err)
	if before != nil {
		s.beforeEvent = func(obj any) { before(s, obj) }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	return s, log
}

// bindingsOf returns pod -> node of client's bindings.
func bindingsOf(client *fake.Clientset) map[string]string {
	out := map[string]string{}
	for _, a := range client.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "binding" {
			b := c.GetObject().(*corev1.Binding)
			out[b.Name] = b.Target.Name
		}
	}
	return out
}

// statusWrites returns, per "podgroups/name", the last condition of type
// condType that status updates of PodGroups wrote.
func statusWrites(client *fake.Clientset, condType string) map[string]metav1.Condition {
	out := map[string]metav1.Condition{}
	for _, a := range client.Actions() {
		u, ok := a.(k8stesting.UpdateAction)
		if !ok || a.GetSubresource() != "status" {
			continue
		}
		var conds []metav1.Condition
		var name string
		switch o := u.GetObject().(type) {
		case *schedulingv1beta1.PodGroup:
			conds, name = o.Status.Conditions, "podgroups/"+o.Name
		default:
			continue
		}
		if c := meta.FindStatusCondition(conds, condType); c != nil {
			out[name] = *c
		}
	}
	return out
}

// KEP-6012's worked example through the scheduler's informers, on an API
// server that serves CompositePodGroups in v1beta1 only (v1.38 without the
// alpha version), in v1alpha3 only (v1.37), or in both (v1beta1 is read):
// the tree binds whole in block-B, one child per rack, and each object's
// condition turns True, the root's written in the version read: the
// leaves' PodGroupInitiallyScheduled, the root's
// CompositePodGroupInitiallyScheduled.
func TestCompositeTreeScheduled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored schema.GroupVersion
		served []schema.GroupVersion
	}{
		{"v1beta1 only", v1beta1, []schema.GroupVersion{v1beta1}},
		{"v1alpha3 only", v1alpha3, []schema.GroupVersion{v1alpha3}},
		{"both served", v1beta1, []schema.GroupVersion{v1alpha3, v1beta1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, dyn := treeClients(t, kepWorkedExample(false), tc.stored, tc.served...)
			_, log := runFakeTree(t, client, dyn, DefaultConfig())
			require.Eventually(t, func() bool { return len(bindingsOf(client)) == 10 }, 10*time.Second, 5*time.Millisecond)
			require.Eventually(t, func() bool {
				return len(compositeWrites(dyn, "CompositePodGroupInitiallyScheduled")) == 1 && len(statusWrites(client, "PodGroupInitiallyScheduled")) == 2
			}, 10*time.Second, 5*time.Millisecond)

			b := bindingsOf(client)
			racks := map[string]string{}
			for i := range 2 {
				child := fmt.Sprintf("child-%d", i+1)
				var nodes []string
				for j := range 5 {
					nodes = append(nodes, b[fmt.Sprintf("%s-%d", child, j)])
				}
				nodes = slices.Compact(nodes)
				require.Len(t, nodes, 1, "%s lies in one rack: %v", child, nodes)
				racks[child] = nodes[0]
			}
			require.ElementsMatch(t, []string{"b1", "b2"}, []string{racks["child-1"], racks["child-2"]}, "one child per rack of block-B")
			require.Contains(t, log.String(), `msg="watching CompositePodGroups" apiVersion=`+tc.stored.String())
			require.Contains(t, log.String(), "tree scheduled")

			root := compositeWrites(dyn, "CompositePodGroupInitiallyScheduled")[tc.stored.Version+"/training"]
			require.Equal(t, metav1.ConditionTrue, root.Status)
			require.Equal(t, "Scheduled", root.Reason)
			for _, name := range []string{"podgroups/child-1", "podgroups/child-2"} {
				c := statusWrites(client, "PodGroupInitiallyScheduled")[name]
				require.Equal(t, metav1.ConditionTrue, c.Status, name)
				require.Equal(t, "Scheduled", c.Reason, name)
			}
			stored, err := dyn.Resource(tc.stored.WithResource("compositepodgroups")).Namespace("default").Get(context.Background(), "training", metav1.GetOptions{})
			require.NoError(t, err)
			conds, _, _ := unstructured.NestedSlice(stored.Object, "status", "conditions")
			require.Len(t, conds, 1, "the condition is stored on the object")
			require.Equal(t, root.Message, conds[0].(map[string]any)["message"])
		})
	}
}

// A scheduler given no dynamic client refuses to run where the API server
// serves CompositePodGroups, naming the version and the option, rather
// than leave every tree waiting unseen.
func TestCompositeNeedsDynamicClient(t *testing.T) {
	client, _ := treeClients(t, kepWorkedExample(false), v1beta1, v1beta1)
	s, err := New(client, DefaultConfig(), Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	require.EqualError(t, s.Run(context.Background()),
		"the API server serves CompositePodGroups (scheduling.k8s.io/v1beta1) but Options.Dynamic is nil: their trees would wait unseen")
}

// An API server that does not serve CompositePodGroups: the scheduler
// says so and runs without them; the leaves wait for their parent and
// nothing binds, while a pod in no group still does.
func TestCompositeNotServed(t *testing.T) {
	objs := append(kepWorkedExample(false), cpuPod("lone", "", "1"))
	client, dyn := treeClients(t, objs, v1beta1)
	s, log := runFakeTree(t, client, dyn, DefaultConfig())
	require.Eventually(t, func() bool { return len(bindingsOf(client)) > 0 }, 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		st, ok := s.gs.Group(placementKey("child-1"))
		return ok && st.Reason != ""
	}, 10*time.Second, 5*time.Millisecond)
	s.mu.Lock()
	st, _ := s.gs.Group(placementKey("child-1"))
	s.mu.Unlock()
	require.Equal(t, "waiting for CompositePodGroup default/training to exist", st.Reason)
	require.Nil(t, s.composites)
	b := bindingsOf(client)
	require.Len(t, b, 1)
	require.Contains(t, b, "lone")
	require.Contains(t, log.String(), "the API server does not serve CompositePodGroups")
}

// A scheduler restarted after it bound a tree but before it wrote the
// conditions: every member is bound, no object says so. It writes True on
// the root and on both leaves, and binds nothing.
func TestCompositeConfirmedAfterRestart(t *testing.T) {
	client, dyn := treeClients(t, kepWorkedExample(true), v1beta1, v1beta1)
	runFakeTree(t, client, dyn, DefaultConfig())
	require.Eventually(t, func() bool {
		return len(compositeWrites(dyn, "CompositePodGroupInitiallyScheduled")) == 1 && len(statusWrites(client, "PodGroupInitiallyScheduled")) == 2
	}, 10*time.Second, 5*time.Millisecond)
	root := compositeWrites(dyn, "CompositePodGroupInitiallyScheduled")["v1beta1/training"]
	require.Equal(t, metav1.ConditionTrue, root.Status)
	require.Equal(t, "2 children scheduled (of min 2)", root.Message)
	require.Empty(t, bindingsOf(client))
}

// Under profile v1.37, whose scheduler writes no condition on
// CompositePodGroups, a tree binds with its leaves' conditions only, and a
// scheduler restarted after binding one confirms its leaves alone.
func TestCompositeNoRootConditionUnderV137(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Profile = "v1.37"
	client, dyn := treeClients(t, kepWorkedExample(false), v1alpha3, v1alpha3)
	runFakeTree(t, client, dyn, cfg)
	require.Eventually(t, func() bool {
		return len(bindingsOf(client)) == 10 && len(statusWrites(client, "PodGroupInitiallyScheduled")) == 2
	}, 10*time.Second, 5*time.Millisecond)

	restarted, restartedDyn := treeClients(t, kepWorkedExample(true), v1alpha3, v1alpha3)
	runFakeTree(t, restarted, restartedDyn, cfg)
	require.Eventually(t, func() bool { return len(statusWrites(restarted, "PodGroupInitiallyScheduled")) == 2 }, 10*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // a root write would follow the leaves' in the same pass
	for _, d := range []*dynamicfake.FakeDynamicClient{dyn, restartedDyn} {
		require.Empty(t, compositeWrites(d, "CompositePodGroupInitiallyScheduled"))
	}
	require.Empty(t, bindingsOf(restarted))
}

// kepWorkedExampleBlockBFull is KEP-6012's worked example at priority 100
// (its CompositePodGroups, PodGroups and pods) with block-B full: a pod of
// priority 5 on each of b1 and b2.
func kepWorkedExampleBlockBFull() []runtime.Object {
	objs := kepWorkedExample(false)
	for _, o := range objs {
		switch v := o.(type) {
		case *schedulingv1alpha3.CompositePodGroup:
			v.Spec.Priority = new(int32(100))
		case *schedulingv1beta1.PodGroup:
			v.Spec.Priority = new(int32(100))
		case *corev1.Pod:
			v.Spec.Priority = new(int32(100))
		}
	}
	for _, n := range []string{"b1", "b2"} {
		v := cpuPod("low-"+n, n, "5")
		v.Spec.Priority = new(int32(5))
		objs = append(objs, v)
	}
	return objs
}

// KEP-6012's worked example with block-B full: one pod of priority 5
// fills each of b1 and b2, and the tree has priority 100 (its root, its
// leaves and their pods). Block-A cannot hold the tree, so it preempts as
// one: both victims are marked DisruptionTarget, naming the root, and
// deleted, and the ten pods bind in block-B, one child per node.
func TestCompositeTreePreempts(t *testing.T) {
	client, dyn := treeClients(t, kepWorkedExampleBlockBFull(), v1beta1, v1beta1)
	runFakeTree(t, client, dyn, DefaultConfig())
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 10 }, 10*time.Second, 5*time.Millisecond)

	var deleted, marked []string
	for _, a := range client.Actions() {
		switch v := a.(type) {
		case k8stesting.DeleteAction:
			if a.GetResource().Resource == "pods" {
				deleted = append(deleted, v.GetName())
			}
		case k8stesting.UpdateAction:
			if p, ok := v.GetObject().(*corev1.Pod); ok && a.GetSubresource() == "status" {
				for _, c := range p.Status.Conditions {
					if c.Type == corev1.DisruptionTarget {
						require.Equal(t, "gangsched-scheduler: preempting to accommodate CompositePodGroup default/training", c.Message)
						marked = append(marked, p.Name)
					}
				}
			}
		}
	}
	slices.Sort(deleted)
	slices.Sort(marked)
	require.Equal(t, []string{"low-b1", "low-b2"}, deleted)
	require.Equal(t, []string{"low-b1", "low-b2"}, marked)
	b := bindingsOf(client)
	for i := range 2 {
		child := fmt.Sprintf("child-%d", i+1)
		for j := range 5 {
			require.Contains(t, []string{"b1", "b2"}, b[fmt.Sprintf("%s-%d", child, j)])
		}
		require.Equal(t, b[child+"-0"], b[child+"-4"], "%s on one node", child)
	}
	require.NotEqual(t, b["child-1-0"], b["child-2-0"])
}

// The tree of TestCompositeTreePreempts, preempting, nominates each of its
// members, as a PodGroup's preemptors are: status.nominatedNodeName is
// written on every pod of the leaves, child-1's on b1 and child-2's on b2
// (children by name, racks by value), where they then bind. No write
// clears a nomination: the members are bound by then, and binding clears
// it.
func TestCompositeTreeNominates(t *testing.T) {
	client, dyn := treeClients(t, kepWorkedExampleBlockBFull(), v1beta1, v1beta1)
	runFakeTree(t, client, dyn, DefaultConfig())
	nominated := func() map[string][]string {
		out := map[string][]string{}
		for _, a := range client.Actions() {
			if u, ok := a.(k8stesting.UpdateAction); ok && a.GetSubresource() == "status" {
				if p, ok := u.GetObject().(*corev1.Pod); ok && p.Status.NominatedNodeName != "" {
					out[p.Name] = append(out[p.Name], p.Status.NominatedNodeName)
				} else if ok && len(p.Status.Conditions) == 0 {
					out[p.Name] = append(out[p.Name], "") // a nomination cleared
				}
			}
		}
		return out
	}
	require.Eventually(t, func() bool { return len(bindingsOf(client)) == 10 && len(nominated()) == 10 }, 10*time.Second, 5*time.Millisecond)
	want := map[string][]string{}
	for i, node := range []string{"b1", "b2"} {
		for j := range 5 {
			want[fmt.Sprintf("child-%d-%d", i+1, j)] = []string{node}
		}
	}
	require.Equal(t, want, nominated())
	b := bindingsOf(client)
	for pod, nodes := range want {
		require.Equal(t, nodes[0], b[pod], "%s binds where it was nominated", pod)
	}
}
