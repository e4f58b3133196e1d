package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/gangsched/gangsched/e2e/harness"
)

// The seed's walkthrough: a Workload and its PodGroup with minCount 4, and
// four pods of one GPU each. With three one-GPU nodes all four wait (the
// condition says Unschedulable, no pod is bound); a fourth node is created
// and all four bind, one per node; the condition turns True.
func TestSeedWalkthrough(t *testing.T) {
	seedWalkthrough(t, [3]*corev1.Node{node("node-a", "rack-1", 8, 1), node("node-b", "rack-1", 8, 1), node("node-c", "rack-2", 8, 1)},
		node("node-d", "rack-2", 8, 1),
		func(name, group string) *corev1.Pod { return member(name, group, "", 1) },
		func(t testing.TB, c *harness.Cluster) { startScheduler(t, c, testConfig(), "") })
}

// A gang of three that must share a rack lands in the one rack with room
// for all three (rack-2, three nodes), not across racks, though rack-1's
// two nodes would hold two of them.
func TestRackConstrainedGang(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	create(t, client,
		node("r1-a", "rack-1", 8, 1), node("r1-b", "rack-1", 8, 1),
		node("r2-a", "rack-2", 8, 1), node("r2-b", "rack-2", 8, 1), node("r2-c", "rack-2", 8, 1))
	pg := podGroup("ranked", 3)
	pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: rackKey}}}
	create(t, client, pg)
	for i := range 3 {
		create(t, client, member(fmt.Sprintf("ranked-%d", i), pg.Name, "", 1))
	}
	startScheduler(t, c, testConfig(), "")

	conditionIs(t, client, pg.Name, metav1.ConditionTrue, "Scheduled")
	ps := boundPods(t, client, pg.Name, 3, "all three bound")
	for _, p := range ps {
		require.Contains(t, []string{"r2-a", "r2-b", "r2-c"}, p.Spec.NodeName, "%s lands in rack-2", p.Name)
	}
}

// A high-priority gang of four, on four one-GPU nodes that a low-priority
// gang (disruptionMode All) holds, preempts the low gang whole: each victim
// is marked DisruptionTarget before it is deleted, each preemptor is
// nominated to a node (status.nominatedNodeName, which its binding
// clears), and the high gang binds.
func TestGangPreemptsGangWhole(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	c.RunKubelet(t)
	client := c.Client()
	deleted := recordDeletions(t, c)
	nominated := recordNominations(t, c)
	create(t, client, priorityClass("low", 10), priorityClass("high", 1000))
	for i := range 4 {
		create(t, client, node(fmt.Sprintf("node-%d", i), "rack-1", 8, 1))
	}
	low := podGroup("low", 4)
	low.Spec.DisruptionMode = &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	low.Spec.PriorityClassName = "low" // a PodGroup's priority overrides its pods'

	create(t, client, low)
	for i := range 4 {
		create(t, client, member(fmt.Sprintf("low-%d", i), "low", "low", 1))
	}
	startScheduler(t, c, testConfig(), "")
	conditionIs(t, client, "low", metav1.ConditionTrue, "Scheduled")

	high := podGroup("high", 4)
	high.Spec.PriorityClassName = "high"
	create(t, client, high)
	for i := range 4 {
		create(t, client, member(fmt.Sprintf("high-%d", i), "high", "high", 1))
	}
	conditionIs(t, client, "high", metav1.ConditionTrue, "Scheduled")
	eventually(t, "the high gang bound and the low one gone", func(ctx context.Context) (bool, error) {
		h, err := boundCount(ctx, client, "high")
		if err != nil {
			return false, err
		}
		l, err := pods(ctx, client, "low")
		return h == 4 && len(l) == 0, err
	})
	// The recorder's watch may deliver a deletion after the list above
	// no longer shows the pod.
	eventually(t, "the recorder saw the four deletions", func(context.Context) (bool, error) {
		for i := range 4 {
			if _, ok := deleted.get(fmt.Sprintf("low-%d", i)); !ok {
				return false, nil
			}
		}
		return true, nil
	})
	for i := range 4 {
		name := fmt.Sprintf("low-%d", i)
		p, ok := deleted.get(name)
		require.True(t, ok, "%s deleted", name)
		require.True(t, hasDisruptionTarget(p), "%s marked DisruptionTarget before deletion: %v", name, p.Status.Conditions)
	}
	ps, err := pods(ctxFor(t), client, "high")
	require.NoError(t, err)
	for name, p := range ps {
		require.NotEmpty(t, nominated.get(name), "%s was nominated before it bound", name)
		require.Empty(t, p.Status.NominatedNodeName, "%s: the binding cleared the nomination", name)
	}
}

// nominations records, per pod, the nominated nodes the watch showed.
type nominations struct {
	mu    sync.Mutex
	nodes map[string][]string
}

func (n *nominations) get(name string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nodes[name]
}

func recordNominations(t *testing.T, c *harness.Cluster) *nominations {
	n := &nominations{nodes: map[string][]string{}}
	f := informers.NewSharedInformerFactory(c.Client(), 0)
	inf := f.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, o any) {
		if p := o.(*corev1.Pod); p.Status.NominatedNodeName != "" {
			n.mu.Lock()
			n.nodes[p.Name] = append(n.nodes[p.Name], p.Status.NominatedNodeName)
			n.mu.Unlock()
		}
	}})
	require.NoError(t, err)
	stop := make(chan struct{})
	f.Start(stop)
	t.Cleanup(func() { close(stop); f.Shutdown() })
	return n
}

// deletions records the last state of each deleted pod, as the watch
// delivers it.
type deletions struct {
	mu   sync.Mutex
	pods map[string]*corev1.Pod
}

func (d *deletions) get(name string) (*corev1.Pod, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.pods[name]
	return p, ok
}

func recordDeletions(t *testing.T, c *harness.Cluster) *deletions {
	d := &deletions{pods: map[string]*corev1.Pod{}}
	f := informers.NewSharedInformerFactory(c.Client(), 0)
	inf := f.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(o any) {
		if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
			o = t.Obj
		}
		if p, ok := o.(*corev1.Pod); ok {
			d.mu.Lock()
			d.pods[p.Name] = p
			d.mu.Unlock()
		}
	}})
	require.NoError(t, err)
	stop := make(chan struct{})
	f.Start(stop)
	t.Cleanup(func() { close(stop); f.Shutdown() })
	return d
}

func hasDisruptionTarget(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
