package kubeplugin

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// outcome is what a cycle of GeneratePlacements and the placement scores
// give: each placement's name, nodes and normalized score, in order.
type outcome struct {
	Name  string
	Nodes []string
	Score int64
}

func cycleOutcome(t *testing.T, pl *Plugin, nodes []fwk.NodeInfo) []outcome {
	pgi := pair(gpuPod("pair-0", ""), gpuPod("pair-1", ""))
	state := framework.NewCycleState()
	res, st := pl.GeneratePlacements(context.Background(), state, pgi, &fwk.Placement{Nodes: nodes})
	require.True(t, st.IsSuccess(), st.AsError())
	scores := scoreAll(t, pl, state, pgi, res.Placements)
	var out []outcome
	for _, p := range res.Placements {
		o := outcome{Name: p.Name, Score: scores[p.Name]}
		for _, n := range p.Nodes {
			o.Nodes = append(o.Nodes, n.Node().Name)
		}
		out = append(out, o)
	}
	return out
}

const keptArgs = `{"topologyLevels":["example.com/block","topology.kubernetes.io/rack"],"preferredTopologyKey":"topology.kubernetes.io/rack","scoring":"BestFit"}`

// A plugin kept across cycles answers as a new one on the same nodes,
// while the framework's NodeInfos change under it: pods bound onto rack-1
// (whose generations move) take it out of the first tier, and removed
// again bring it back, without a new snapshot frame or tree; a node
// relabelled into another rack rebuilds them.
func TestGeneratePlacements_keptViewFollowsNodes(t *testing.T) {
	kept := newPlugin(t, keptArgs)
	nodes := cluster()
	fresh := func() []outcome { return cycleOutcome(t, newPlugin(t, keptArgs), nodes) }
	first := cycleOutcome(t, kept, nodes)
	require.Equal(t, "block-1/rack-1", first[0].Name)
	require.Len(t, kept.view.trees, 1)
	tree := only(kept.view.trees)

	a, b := nodes[0].(*framework.NodeInfo), nodes[1].(*framework.NodeInfo)
	pa, pb := gpuPod("other-0", "a"), gpuPod("other-1", "b")
	pa.Spec.SchedulingGroup, pb.Spec.SchedulingGroup = nil, nil
	a.AddPod(pa)
	b.AddPod(pb)
	full := cycleOutcome(t, kept, nodes)
	require.Equal(t, fresh(), full)
	require.NotEqual(t, "block-1/rack-1", full[0].Name, "rack-1 is full")
	require.Same(t, tree, only(kept.view.trees), "the same tree serves the changed snapshot")

	require.NoError(t, a.RemovePod(klog.Background(), pa))
	require.NoError(t, b.RemovePod(klog.Background(), pb))
	require.Equal(t, first, cycleOutcome(t, kept, nodes))

	g := nodes[6].(*framework.NodeInfo)
	n := g.Node().DeepCopy()
	n.Labels[blockKey], n.Labels[rackKey] = "block-1", "rack-1"
	g.SetNode(n)
	moved := cycleOutcome(t, kept, nodes)
	require.NotSame(t, tree, only(kept.view.trees), "a relabelled node rebuilds the tree")
	require.Equal(t, fresh(), moved)
	require.Equal(t, []string{"h", "i"}, moved[0].Nodes, "rack-3 without g fits the pair exactly: BestFit's first")
	i := slices.IndexFunc(moved, func(o outcome) bool { return o.Name == "block-1/rack-1" })
	require.GreaterOrEqual(t, i, 0)
	require.Equal(t, []string{"a", "b", "g"}, moved[i].Nodes, "rack-1 has node g now")
}

func only[K comparable, V any](m map[K]V) V {
	for _, v := range m {
		return v
	}
	var zero V
	return zero
}
