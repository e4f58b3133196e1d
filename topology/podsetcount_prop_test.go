package topology_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// planText is what a plan decides, copied out as text: a tree may reuse
// the answer's buffers on its next plan.
func planText(p topology.Plan) string {
	return fmt.Sprintf("%v %q %v %+v", p.Decision.Status, p.Decision.Message, p.Decision.PodSetAssignments, p.PodSets)
}

// A plan decides alike however its node counts were had: counted on a
// fresh tree (cold), kept from the same template's plan on the same
// snapshot (warm), counted again on another snapshot of the same nodes
// (cold, on a tree that kept counts), and counted node by node as with a
// caller filter that accepts every node (the path that asks each node,
// against the fast column loop). Nodes carry CPU, GPUs, memory and pod
// slots, some overcommitted by bound pods (free counts below zero), some
// tainted or outside the topology; templates ask up to three of them in
// quantities of 1, small ones and ones of 2^40 or more. After nodes
// change, a tree that followed them plans as a fresh tree does.
func TestProp_PodSetCountsColdWarmFresh(t *testing.T) {
	const gpu, mem = placement.ResourceGPU, placement.ResourceMemory
	acceptAll := placement.FilterFunc(func(*placement.Pod, placement.NodeInfo) placement.Rejection { return placement.Rejection{} })
	placed := 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 24).Draw(t, "nodes")
		// One shape for all nodes, or one per node: few free rows for
		// many nodes, or many.
		same := rapid.Bool().Draw(t, "same")
		var shape placement.ResourceList
		var nodes []placement.Node
		var bound []placement.Pod
		for i := range n {
			name := fmt.Sprintf("n%02d", i)
			if i == 0 || !same {
				shape = placement.ResourceList{cpu: 500 * rapid.Int64Range(0, 16).Draw(t, "cpu"), gpu: rapid.Int64Range(0, 4).Draw(t, "gpu"),
					mem: rapid.SampledFrom([]int64{0, 3, 1 << 30, 1 << 50}).Draw(t, "mem"), placement.ResourcePods: rapid.Int64Range(0, 6).Draw(t, "slots")}
			}
			nd := node(name, 0, blockKey, rapid.SampledFrom([]string{"b1", "b2"}).Draw(t, "block"),
				rackKey, rapid.SampledFrom([]string{"r1", "r2", "r3"}).Draw(t, "rack"), hostKey, name)
			nd.Allocatable = maps.Clone(shape)
			if rapid.IntRange(0, 9).Draw(t, "unlabelled") == 0 {
				delete(nd.Labels, rackKey)
			}
			if rapid.IntRange(0, 7).Draw(t, "tainted") == 0 {
				nd.Taints = []placement.Taint{{Key: "dedicated", Effect: placement.TaintEffectNoSchedule}}
			}
			nodes = append(nodes, nd)
			if rapid.IntRange(0, 5).Draw(t, "busy") == 0 {
				bound = append(bound, placement.Pod{Namespace: "x", Name: "o-" + name, NodeName: name, Requests: placement.ResourceList{
					cpu: 500 * rapid.Int64Range(0, 20).Draw(t, "ocpu"), gpu: rapid.Int64Range(0, 5).Draw(t, "ogpu")}})
			}
		}
		s, err := placement.NewSnapshot(nodes, bound)
		require.NoError(t, err)
		reqs := placement.ResourceList{}
		for _, r := range []placement.ResourceName{cpu, gpu, mem} {
			if q := rapid.SampledFrom([]int64{0, 0, 1, 2, 3, 500, 1000, 1 << 40, 1 << 41}).Draw(t, string(r)); q > 0 {
				reqs[r] = q
			}
		}
		count := int32(rapid.IntRange(1, 12).Draw(t, "count"))
		req := topology.PodSetRequest{PodSet: "w"}
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			req.Required = rapid.SampledFrom([]string{blockKey, rackKey}).Draw(t, "required")
		case 1:
			req.Preferred = rapid.SampledFrom([]string{blockKey, rackKey}).Draw(t, "preferred")
		case 2:
			req.Unconstrained = true
		case 3:
			size := int32(rapid.IntRange(1, 3).Draw(t, "size"))
			count = size * int32(rapid.IntRange(1, 4).Draw(t, "slices"))
			req.Required = blockKey
			req.Slices = []topology.SliceLayer{{Key: rackKey, Size: size}}
		}
		g := &placement.Group{Namespace: "default", Name: "pg", MinCount: count,
			PodSets: []placement.PodSet{{Name: "w", Count: count, Template: placement.Pod{Requests: reqs}}}}
		opts := topology.PlanOptions{Balanced: rapid.Bool().Draw(t, "balanced")}
		plan := func(tr *topology.Tree, s *placement.Snapshot, opts topology.PlanOptions) string {
			p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts)
			if err != nil { // a level no node carries: every way alike
				return "error: " + err.Error()
			}
			if p.Decision.Status == placement.Scheduled {
				placed++
			}
			return planText(p)
		}
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		cold := plan(tr, s, opts)
		require.Equal(t, cold, plan(tr, s, opts), "warm (counts kept) differs from cold")
		other, err := s.Apply(placement.Change{})
		require.NoError(t, err)
		require.Equal(t, cold, plan(tr, other, opts), "cold on another snapshot differs")
		fresh, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		byNode := opts
		byNode.Filters = []placement.Filter{acceptAll}
		require.Equal(t, cold, plan(fresh, s, byNode), "counted node by node differs")

		// Reservations change nodes one after another, the tree planning
		// after each (120 make more free rows than twice the nodes and 64,
		// so the tree classes its nodes afresh); the tree that followed
		// them plans as a fresh one.
		cur := s
		for i := range rapid.SampledFrom([]int{0, 3, 120}).Draw(t, "changes") {
			on := nodes[rapid.IntRange(0, n-1).Draw(t, "changed")].Name
			cur, err = cur.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: placement.Key{Namespace: "x", Name: fmt.Sprint("r", i)}, PodSet: "s",
				Requests: placement.ResourceList{cpu: rapid.Int64Range(1, 700).Draw(t, "rcpu")}, Nodes: []placement.PodSetAssignment{{Node: on, Count: 1}}}}})
			require.NoError(t, err)
			plan(tr, cur, opts)
		}
		fresh, err = topology.NewTree(cur, planKeys)
		require.NoError(t, err)
		require.Equal(t, plan(fresh, cur, opts), plan(tr, cur, opts), "a tree that followed the changes differs from a fresh one")
	})
	require.Positive(t, placed, "no case placed its set")
}
