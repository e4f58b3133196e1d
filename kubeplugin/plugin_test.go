package kubeplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

const (
	blockKey = "example.com/block"
	rackKey  = "topology.kubernetes.io/rack"
	gpu      = corev1.ResourceName("nvidia.com/gpu")
)

// cluster is three racks of one-GPU nodes: rack-1 (a, b) and rack-2 (c-f)
// in block-1, rack-3 (g-i) in block-2; pods are bound onto their nodes.
func cluster(bound ...*corev1.Pod) []fwk.NodeInfo {
	racks := []struct{ block, rack, nodes string }{{"block-1", "rack-1", "ab"}, {"block-1", "rack-2", "cdef"}, {"block-2", "rack-3", "ghi"}}
	var out []fwk.NodeInfo
	for _, r := range racks {
		for _, c := range r.nodes {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: string(c), Labels: map[string]string{blockKey: r.block, rackKey: r.rack}},
				Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), gpu: resource.MustParse("1"), corev1.ResourcePods: resource.MustParse("110")}}}
			ni := framework.NewNodeInfo()
			ni.SetNode(n)
			for _, p := range bound {
				if p.Spec.NodeName == n.Name {
					ni.AddPod(p)
				}
			}
			out = append(out, ni)
		}
	}
	return out
}

func gpuPod(name, node string) *corev1.Pod {
	g := "pair"
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: node, SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: &g},
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), gpu: resource.MustParse("1")}}}}}}
}

// pair is PodGroup "pair" (minCount 2, one block) with its unscheduled pods.
func pair(unscheduled ...*corev1.Pod) *framework.PodGroupInfo {
	return &framework.PodGroupInfo{Namespace: "default", Name: "pair", Type: fwk.PodGroupKeyType, UnscheduledPods: unscheduled,
		PodGroup: &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pair"}, Spec: schedulingv1beta1.PodGroupSpec{
			SchedulingPolicy:      schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}},
			SchedulingConstraints: &schedulingv1beta1.PodGroupSchedulingConstraints{Topology: []schedulingv1beta1.TopologyConstraint{{Key: blockKey}}},
		}}}
}

func newPlugin(t *testing.T, args string) *Plugin {
	pl, err := New(context.Background(), &runtime.Unknown{Raw: []byte(args)}, nil)
	require.NoError(t, err)
	return pl.(*Plugin)
}

// assignment is one proposed pod-to-node assignment, as the framework
// hands the placement scorer.
type assignment struct {
	pod  *corev1.Pod
	node string
}

func (a assignment) GetPod() *corev1.Pod           { return a.pod }
func (a assignment) GetPodInfo() fwk.PodInfo       { return nil }
func (a assignment) GetNodeName() string           { return a.node }
func (a assignment) GetCycleState() fwk.CycleState { return nil }

// scoreAll scores every placement as the framework does, each with the
// pods assigned to its first nodes, and returns the normalized scores by
// placement name.
func scoreAll(t *testing.T, pl *Plugin, state *framework.CycleState, pgi *framework.PodGroupInfo, ps []*fwk.Placement) map[string]int64 {
	scores := make([]fwk.PlacementScore, len(ps))
	for i, p := range ps {
		pga := &fwk.PodGroupAssignments{Placement: p}
		for j, pod := range pgi.UnscheduledPods {
			pga.ProposedAssignments = append(pga.ProposedAssignments, assignment{pod, p.Nodes[j].Node().Name})
		}
		pcs := framework.NewCycleState()
		pcs.SetPodGroupSchedulingCycle(state)
		s, st := pl.ScorePlacement(context.Background(), pcs, pgi, pga)
		require.True(t, st.IsSuccess(), st.AsError())
		scores[i] = fwk.PlacementScore{Placement: p, Score: s}
	}
	require.True(t, pl.PlacementScoreExtensions().NormalizePlacementScore(context.Background(), state, pgi, scores).IsSuccess())
	out := map[string]int64{}
	for _, s := range scores {
		out[s.Placement.Name] = s.Score
	}
	return out
}

func names(ps []*fwk.Placement) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// A pair that needs one block and prefers one rack: rack-1 holds it and is
// proven to, so it is the first tier alone; the other racks and the blocks
// follow. BestFit ranks the racks by the GPUs they leave free, and the
// normalized scores put gangsched's order first to last: rack-1 (none
// left) above all.
func TestGeneratePlacements_preferredRackBestFit(t *testing.T) {
	pl := newPlugin(t, `{"topologyLevels":["example.com/block","topology.kubernetes.io/rack"],"preferredTopologyKey":"topology.kubernetes.io/rack","scoring":"BestFit"}`)
	nodes := cluster()
	pgi := pair(gpuPod("pair-0", ""), gpuPod("pair-1", ""))
	state := framework.NewCycleState()
	res, st := pl.GeneratePlacements(context.Background(), state, pgi, &fwk.Placement{Nodes: nodes})
	require.True(t, st.IsSuccess(), st.AsError())
	require.Equal(t, "block-1/rack-1", res.Placements[0].Name)
	require.Len(t, res.Placements[0].Nodes, 2)
	scores := scoreAll(t, pl, state, pgi, res.Placements)
	// rack-3 leaves one GPU free, rack-2 two; whole blocks come after.
	require.Equal(t, []int64{100, 99, 98}, []int64{scores["block-1/rack-1"], scores["block-2/rack-3"], scores["block-1/rack-2"]})
	for name, s := range scores {
		if !strings.Contains(name, "/rack-") {
			require.Less(t, s, int64(98), "%s, not a rack", name)
		}
	}
}

// A member already bound in rack-3 keeps the pair in block-2: every
// placement lies there.
func TestGeneratePlacements_boundMemberFixesTheBlock(t *testing.T) {
	pl := newPlugin(t, `{"topologyLevels":["example.com/block","topology.kubernetes.io/rack"],"preferredTopologyKey":"topology.kubernetes.io/rack"}`)
	nodes := cluster(gpuPod("pair-0", "g"))
	res, st := pl.GeneratePlacements(context.Background(), framework.NewCycleState(), pair(gpuPod("pair-1", "")), &fwk.Placement{Nodes: nodes})
	require.True(t, st.IsSuccess(), st.AsError())
	for _, p := range res.Placements {
		for _, n := range p.Nodes {
			require.Contains(t, []string{"g", "h", "i"}, n.Node().Name, "placement %s", p.Name)
		}
	}
	require.Equal(t, []string{"block-2/rack-3"}, names(res.Placements)[:1])
}

// Without a topology key in the PodGroup or the args, the parent placement
// is the one placement, as upstream's generator returns it.
func TestGeneratePlacements_noConstraint(t *testing.T) {
	pl := newPlugin(t, ``)
	pgi := pair(gpuPod("pair-0", ""))
	pgi.PodGroup.Spec.SchedulingConstraints = nil
	parent := &fwk.Placement{Nodes: cluster()}
	res, st := pl.GeneratePlacements(context.Background(), framework.NewCycleState(), pgi, parent)
	require.True(t, st.IsSuccess())
	require.Equal(t, []*fwk.Placement{parent}, res.Placements)
}

// A required key no node carries: no domain exists, and no cluster change
// short of labelling nodes helps.
func TestGeneratePlacements_noDomain(t *testing.T) {
	pl := newPlugin(t, ``)
	pgi := pair(gpuPod("pair-0", ""), gpuPod("pair-1", ""))
	pgi.PodGroup.Spec.SchedulingConstraints.Topology[0].Key = "example.com/zone"
	_, st := pl.GeneratePlacements(context.Background(), framework.NewCycleState(), pgi, &fwk.Placement{Nodes: cluster()})
	require.Equal(t, fwk.UnschedulableAndUnresolvable, st.Code(), st.Message())
	require.Contains(t, st.Message(), "no node carries this label")
}
