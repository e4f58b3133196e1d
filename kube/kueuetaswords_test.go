package kube

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue v0.17's words for a topology failure (notFitMessage,
// multiLayerNotFitMessage, formatReasons), exactly: pods or slices, none
// or some (a negative count is "some"), the excluded nodes' reasons as
// whole strings sorted, nothing of the nodes when none was left out, and
// TASBalancedPlacement's own sentence.
func TestKueueNotFitReason(t *testing.T) {
	cpu := placement.ResourceCPU
	for _, c := range []struct {
		name string
		nf   topology.KueueNotFit
		ex   kueueExclusions
		want string
	}{
		{"pods, some fit, cpu full", topology.KueueNotFit{Fit: 8, Total: 12, SliceSize: 1},
			kueueExclusions{Total: 8, Resources: map[placement.ResourceName]int{cpu: 3}},
			`topology "default" allows to fit only 8 out of 12 pod(s). Total nodes: 8; excluded: resource "cpu": 3`},
		{"none fit, selector before taint", topology.KueueNotFit{Fit: 0, Total: 1, SliceSize: 1},
			kueueExclusions{Total: 10, NodeSelector: 8, Taints: map[string]int{"dedicated=ml:NoSchedule": 2}},
			`topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 10; excluded: nodeSelector: 8, taint "dedicated=ml:NoSchedule": 2`},
		{"resource sorts before taint, affinity first", topology.KueueNotFit{Fit: 1, Total: 3, SliceSize: 1},
			kueueExclusions{Total: 6, Affinity: 1, Taints: map[string]int{"d=x:NoSchedule": 3, "a:NoExecute": 1}, Resources: map[placement.ResourceName]int{cpu: 1, "pods": 2}},
			`topology "default" allows to fit only 1 out of 3 pod(s). Total nodes: 6; excluded: affinity: 1, resource "cpu": 1, resource "pods": 2, taint "a:NoExecute": 1, taint "d=x:NoSchedule": 3`},
		{"slices, none excluded", topology.KueueNotFit{Fit: 4, Total: 5, SliceSize: 2}, kueueExclusions{Total: 9},
			`topology "default" allows to fit only 4 out of 5 slice(s)`},
		{"negative slices", topology.KueueNotFit{Fit: -1, Total: 1, SliceSize: 2},
			kueueExclusions{Total: 7, Resources: map[placement.ResourceName]int{cpu: 2}},
			`topology "default" allows to fit only -1 out of 1 slice(s). Total nodes: 7; excluded: resource "cpu": 2`},
		{"no slice fits", topology.KueueNotFit{Fit: 0, Total: 2, SliceSize: 3}, kueueExclusions{},
			`topology "default" doesn't allow to fit any of 2 slice(s)`},
		{"layers", topology.KueueNotFit{Total: 1, SliceSize: 10, Layers: []topology.KueueLayerFit{{Key: "block", Fit: 0, Need: 1}, {Key: "kubernetes.io/hostname", Fit: 4, Need: 5}}},
			kueueExclusions{},
			`topology "default" doesn't allow to fit; 0/1 slice(s) fit on level block; 4/5 slice(s) fit on level kubernetes.io/hostname`},
		{"balanced", topology.KueueNotFit{Balanced: topology.KueueBalancedNoDomainSet, Fit: 3, Total: 10, SliceSize: 1},
			kueueExclusions{Total: 3, Resources: map[placement.ResourceName]int{cpu: 3}},
			`TAS Balanced Placement: Cannot find optimal domain set to fit the request`},
		{"balanced, threshold", topology.KueueNotFit{Balanced: topology.KueueBalancedThreshold, Total: 10, SliceSize: 1}, kueueExclusions{},
			`TAS Balanced Placement: Not enough slices to meet the threshold`},
		{"balanced, left over", topology.KueueNotFit{Balanced: topology.KueueBalancedLeftOver, Total: 10, SliceSize: 2}, kueueExclusions{},
			`TAS Balanced Placement: Not all slices or leaders could be placed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, kueueNotFitReason(&c.nf, "default", c.ex))
		})
	}
	require.Equal(t, "leader", kueueNotFitSet(&topology.KueueNotFit{PodSet: "workers", Leader: "leader"}))
	require.Equal(t, "main", kueueNotFitSet(&topology.KueueNotFit{PodSet: "main"}))
}

// Kueue's exclusions are counted over the nodes of its TAS snapshot for
// the flavor alone — Ready, not cordoned, carrying every level, matching
// the flavor's node labels — each node for the first reason of Kueue's
// order: an untolerated NoSchedule or NoExecute taint (the node's first
// such; PreferNoSchedule never), the node selector, the required
// affinity, then no room (the plan's Full, by resource; one the snapshot
// does not track named from the template's requests).
func TestKueueExclusions(t *testing.T) {
	node := func(name string, labels map[string]string, taints ...placement.Taint) placement.Node {
		l := map[string]string{"rack": "r1", "kubernetes.io/hostname": name, "pool": "a", "gpu": "yes"}
		for k, v := range labels {
			if v == "" {
				delete(l, k)
			} else {
				l[k] = v
			}
		}
		return placement.Node{Name: name, Labels: l, Allocatable: placement.ResourceList{placement.ResourceCPU: 4000, placement.ResourcePods: 110}, Taints: taints}
	}
	nodes := []placement.Node{
		node("h0", nil), // full: cpu
		node("h1", nil, placement.Taint{Key: "soft", Effect: placement.TaintEffectPreferNoSchedule}, placement.Taint{Key: "d", Value: "x", Effect: placement.TaintEffectNoSchedule}, placement.Taint{Key: "e", Effect: placement.TaintEffectNoExecute}),
		node("h2", nil, placement.Taint{Key: "e", Effect: placement.TaintEffectNoExecute}),   // full too: the taint first
		node("h3", map[string]string{"gpu": "no"}),                                           // selector
		node("h4", map[string]string{"zone": "z2"}),                                          // affinity
		node("h5", nil, placement.Taint{Key: "ok", Effect: placement.TaintEffectNoSchedule}), // tolerated, full: the untracked resource
		node("h6", map[string]string{"pool": "b"}),                                           // not the flavor's
		node("h7", map[string]string{"rack": ""}),                                            // no rack label
		node("h8", nil),  // not Ready
		node("h9", nil),  // cordoned
		node("h10", nil), // room
	}
	nodes[9].Unschedulable = true
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	tree, err := topology.NewTree(s, []string{"rack", "kubernetes.io/hostname"})
	require.NoError(t, err)
	a := &admitter{s: s, tree: tree, opts: KueueOptions{NotReady: map[string]NotReadyNode{"h8": {}}}}
	tmpl := &placement.Pod{
		Requests:     placement.ResourceList{placement.ResourceCPU: 1000, "example.com/fpga": 1},
		NodeSelector: map[string]string{"gpu": "yes"},
		Tolerations:  []placement.Toleration{{Key: "ok", Operator: placement.TolerationOpExists}},
		NodeAffinity: &placement.NodeAffinity{Required: []placement.NodeSelectorTerm{{MatchExpressions: []placement.NodeSelectorRequirement{
			{Key: "zone", Operator: placement.NodeSelectorOpNotIn, Values: []string{"z2"}}}}}},
	}
	id := func(name string) placement.NodeID {
		n, ok := s.NodeID(name)
		require.True(t, ok, name)
		return n
	}
	nf := &topology.KueueNotFit{Full: []topology.KueueFullNode{{Node: id("h0"), Resource: placement.ResourceCPU}, {Node: id("h2"), Resource: placement.ResourceCPU}, {Node: id("h5")}}}
	got := a.kueueExclusions(nf, tree, tmpl, &KueueFlavor{Name: "pool-a", NodeLabels: map[string]string{"pool": "a"}})
	require.Equal(t, kueueExclusions{Total: 7, NodeSelector: 1, Affinity: 1,
		Taints:    map[string]int{"d=x:NoSchedule": 1, "e:NoExecute": 1},
		Resources: map[placement.ResourceName]int{placement.ResourceCPU: 1, "example.com/fpga": 1}}, got)
	require.Equal(t, `affinity: 1, nodeSelector: 1, resource "cpu": 1, resource "example.com/fpga": 1, taint "d=x:NoSchedule": 1, taint "e:NoExecute": 1`, got.words())
	// Without a flavor (no queues) every node with the levels is Kueue's.
	require.Equal(t, 8, a.kueueExclusions(nf, tree, tmpl, nil).Total)
}

// Slice layers that do not nest in the Topology are Kueue's own TAS
// reason, said with its prefix under the Kueue profiles; a level the
// Topology lacks, which Kueue's flavor assigner words with the flavor's
// name, and gangsched's profile keep gangsim's words.
func TestKueueLayersWorded(t *testing.T) {
	s, err := placement.NewSnapshot([]placement.Node{{Name: "h1", Labels: map[string]string{"rack": "r1", "kubernetes.io/hostname": "h1"},
		Allocatable: placement.ResourceList{placement.ResourceCPU: 4000}}}, nil)
	require.NoError(t, err)
	tree, err := topology.NewTree(s, []string{"rack", "kubernetes.io/hostname"})
	require.NoError(t, err)
	kueueOpts := KueueOptions{Plan: topology.KueueProfile.Options(), KueueWords: true}
	indivisible := []topology.PodSetRequest{{PodSet: "main", Required: "rack", Slices: []topology.SliceLayer{{Key: "rack", Size: 10}, {Key: "kubernetes.io/hostname", Size: 3}}}}
	noLevel := []topology.PodSetRequest{{PodSet: "main", Required: "zone"}}
	for _, c := range []struct {
		opts KueueOptions
		rs   []topology.PodSetRequest
		want string
	}{
		{kueueOpts, indivisible, "couldn't assign flavors to pod set main: additional slice layer size 3 must evenly divide parent layer size 10"},
		{kueueOpts, noLevel, `pod set "main": no requested topology level: zone`},
		{KueueOptions{Plan: topology.GangschedProfile.Options()}, indivisible, `pod set "main": additional slice layer size 3 must evenly divide parent layer size 10`},
	} {
		a := &admitter{opts: c.opts}
		require.Equal(t, c.want, a.kueueLayersWorded(tree, c.rs, missingLevels(tree, c.rs)))
	}
}
