package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gangsched/gangsched/e2e/harness"
)

// compositeCondition is the type of the condition gangsched-scheduler
// writes on a CompositePodGroup (gang.CompositePodGroupScheduled).
const compositeCondition = "CompositePodGroupInitiallyScheduled"

// kepTree creates KEP-6012's worked example on c, with rack-B2's slots
// given: nodes of one rack each, block-A with racks of 3 and 5 one-CPU
// slots, block-B with rack-B1 of 5 and rack-B2 of b2Slots; root
// CompositePodGroup training, a gang of 2 children by block; child
// PodGroups child-1 and child-2, gangs of 5 one-CPU pods by rack (pods
// labelled group=child-N).
func kepTree(t *testing.T, client kubernetes.Interface, b2Slots int64) {
	for _, n := range []struct {
		name, block, rack string
		slots             int64
	}{{"a1", "block-A", "rack-A1", 3}, {"a2", "block-A", "rack-A2", 5}, {"b1", "block-B", "rack-B1", 5}, {"b2", "block-B", "rack-B2", b2Slots}} {
		nd := node(n.name, n.rack, n.slots, 0)
		nd.Labels[blockKey] = n.block
		create(t, client, nd)
	}
	create(t, client, &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "training"},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef:           &schedulingv1alpha3.WorkloadReference{WorkloadName: "training", TemplateName: "training"},
			SchedulingPolicy:      schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints: &schedulingv1alpha3.CompositePodGroupSchedulingConstraints{Topology: []schedulingv1alpha3.TopologyConstraint{{Key: blockKey}}},
		},
	})
	for i := range 2 {
		child := fmt.Sprintf("child-%d", i+1)
		pg := podGroup(child, 5)
		pg.Spec.ParentCompositePodGroupName = new("training")
		pg.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{WorkloadName: "training", TemplateName: child}
		pg.Spec.SchedulingConstraints = &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: rackKey}}}
		create(t, client, pg)
		for j := range 5 {
			create(t, client, member(fmt.Sprintf("%s-%d", child, j), child, "", 0))
		}
	}
}

// compositeConditionIs waits until CompositePodGroup name's condition has
// status and reason, and returns it.
func compositeConditionIs(t *testing.T, client kubernetes.Interface, name string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	t.Helper()
	var got *metav1.Condition
	eventually(t, fmt.Sprintf("CompositePodGroup %s is %s/%s", name, status, reason), func(ctx context.Context) (bool, error) {
		c, err := client.SchedulingV1alpha3().CompositePodGroups(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = meta.FindStatusCondition(c.Status.Conditions, compositeCondition)
		return got != nil && got.Status == status && got.Reason == reason, nil
	})
	return got
}

// KEP-6012's worked example through a real API server: block-A cannot
// hold both children (its racks have 3 and 5 slots), block-B can, one
// child per rack. All ten pods bind in block-B, each child's five on one
// node of its own rack; both leaves' PodGroupInitiallyScheduled conditions
// turn True. The scheduler decides as the API server's release, v1.37,
// which writes no condition on CompositePodGroups: the root has none.
func TestCompositeKEPWorkedExample(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	kepTree(t, client, 5)
	startScheduler(t, c, testConfig(), "")

	used := map[string]string{}
	for _, child := range []string{"child-1", "child-2"} {
		conditionIs(t, client, child, metav1.ConditionTrue, "Scheduled")
		ps := boundPods(t, client, child, 5, child+"'s five pods bound")
		var nodes []string
		for _, p := range ps {
			nodes = append(nodes, p.Spec.NodeName)
		}
		slices.Sort(nodes)
		nodes = slices.Compact(nodes)
		require.Len(t, nodes, 1, "%s lies in one rack: %v", child, nodes)
		used[child] = nodes[0]
	}
	require.ElementsMatch(t, []string{"b1", "b2"}, []string{used["child-1"], used["child-2"]}, "block-B, one child per rack")
	root, err := client.SchedulingV1alpha3().CompositePodGroups(ns).Get(ctxFor(t), "training", metav1.GetOptions{})
	require.NoError(t, err)
	require.Empty(t, root.Status.Conditions, "v1.37 writes no condition on a CompositePodGroup")
}

// The same tree where rack-B2 has 4 slots: no block holds two racks of 5,
// so the tree cannot fit. It stays pending whole — no pod is bound — and
// the root and both leaves say Unschedulable with the tree's reason: the
// scheduler decides as v1.38 here (profile unset), which writes the
// root's CompositePodGroupInitiallyScheduled through the v1.37 API
// server's CompositePodGroup status too.
func TestCompositeTreeDoesNotFit(t *testing.T) {
	c := harness.Start(t, harness.Options{})
	client := c.Client()
	kepTree(t, client, 4)
	cfg := testConfig()
	cfg.Profile, cfg.FeatureGates = "", nil // v1.38 has no PodGroupPreemptionPolicy gate
	startScheduler(t, c, cfg, "")

	root := compositeConditionIs(t, client, "training", metav1.ConditionFalse, "Unschedulable")
	t.Logf("root: %s", root.Message)
	require.Contains(t, root.Message, "2 of min 2 children fit one by one, not together")
	for _, child := range []string{"child-1", "child-2"} {
		cond := conditionIs(t, client, child, metav1.ConditionFalse, "Unschedulable")
		t.Logf("%s: %s", child, cond.Message)
		require.Equal(t, root.Message, cond.Message, "a leaf of an unplaced tree carries the tree's reason")
	}
	for _, child := range []string{"child-1", "child-2"} {
		ps, err := pods(ctxFor(t), client, child)
		require.NoError(t, err)
		for _, p := range ps {
			require.Empty(t, p.Spec.NodeName, "%s stays pending", p.Name)
			require.Equal(t, corev1.PodPending, p.Status.Phase)
		}
	}
}
