package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue's account of a set that does not fit ([topology.Plan].KueueNotFit)
// on one block of two racks of two hosts (2, 2 and 3, 3 CPUs), where
// b1-r1-h1 runs 4 CPUs (Kueue counts it -2 pods) and b1-r2-h1 runs 3 (0
// pods, for want of CPU): rack r1 counts 0 pods, r2 3, the block 3. A
// required level reports its fullest domain, the others every domain of
// the level searched added up, negative hosts included; b1-r2-h1 is the
// one node with no room at all (b1-r1-h1's count is below zero, which
// Kueue does not count as excluded).
func TestPlanPodSets_KueueNotFit(t *testing.T) {
	s := snapshot(t, brh([][][]int64{{{2, 2}, {3, 3}}}),
		placement.Pod{Namespace: "default", Name: "big", NodeName: "b1-r1-h1", Requests: placement.ResourceList{cpu: 4000}},
		placement.Pod{Namespace: "default", Name: "full", NodeName: "b1-r2-h1", Requests: placement.ResourceList{cpu: 3000}})
	one := func(count int32) *placement.Group {
		return &placement.Group{Namespace: "default", Name: "w", MinCount: count, PodSets: []placement.PodSet{
			{Name: "main", Count: count, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
	}
	full := []topology.KueueFullNode{{Node: 2, Resource: cpu}}
	for _, c := range []struct {
		name  string
		count int32
		req   topology.PodSetRequest
		want  topology.KueueNotFit
	}{
		{"required rack: the fullest", 4, topology.PodSetRequest{PodSet: "main", Required: rackKey},
			topology.KueueNotFit{PodSet: "main", Fit: 3, Total: 4, SliceSize: 1, Full: full}},
		{"preferred rack: the block's total", 9, topology.PodSetRequest{PodSet: "main", Preferred: rackKey},
			topology.KueueNotFit{PodSet: "main", Fit: 3, Total: 9, SliceSize: 1, Full: full}},
		{"unconstrained: every host's, -2 included", 9, topology.PodSetRequest{PodSet: "main", Unconstrained: true},
			topology.KueueNotFit{PodSet: "main", Fit: 3, Total: 9, SliceSize: 1, Full: full}},
		{"slices of 2 per host required in a rack: r1 counts -1 + 1", 6,
			topology.PodSetRequest{PodSet: "main", Required: rackKey, Slices: []topology.SliceLayer{{Key: hostKey, Size: 2}}},
			topology.KueueNotFit{PodSet: "main", Fit: 1, Total: 3, SliceSize: 2, Full: full}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plan(t, s, one(c.count), topology.KueueProfile.Options(), c.req)
			require.Equal(t, placement.Unschedulable, p.Decision.Status)
			require.NotNil(t, p.KueueNotFit, p.Decision.Message)
			require.Equal(t, c.want, *p.KueueNotFit)
			// gangsched's profile, and a plan that fits, carry none.
			require.Nil(t, plan(t, s, one(c.count), topology.GangschedProfile.Options(), c.req).KueueNotFit)
			require.Nil(t, plan(t, s, one(2), topology.KueueProfile.Options(), c.req).KueueNotFit)
		})
	}
}

// A later set's account carries the sets planned before it, with their
// pods per node ([topology.KueueNotFit].Before), for a caller counting
// Kueue's room itself (its summed room per rack, where kubernetes.io/
// hostname is appended below a Kueue Topology [block, rack]): racks of
// (4, 4), (4, 8) and (4, 2) CPUs; s0's ten 2-CPU pods go least free
// first, and s1's twelve 3-CPU pods do not fit — its hosts hold 2 after
// s0, its Full are the hosts s0 filled.
func TestPlanPodSets_KueueNotFitBefore(t *testing.T) {
	s := snapshot(t, brh([][][]int64{{{4, 4}, {4, 8}, {4, 2}}}))
	set := func(name string, count int32, milli int64) placement.PodSet {
		return placement.PodSet{Name: name, Count: count, Template: placement.Pod{Requests: placement.ResourceList{cpu: milli}}}
	}
	g := &placement.Group{Namespace: "default", Name: "w", MinCount: 22, PodSets: []placement.PodSet{set("s0", 10, 2000), set("s1", 12, 3000)}}
	opts := topology.KueueProfile.Options()
	opts.KueueHostAppended = true
	p := plan(t, s, g, opts, topology.PodSetRequest{PodSet: "s0", Unconstrained: true}, topology.PodSetRequest{PodSet: "s1", Unconstrained: true})
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.NotNil(t, p.KueueNotFit, p.Decision.Message)
	full := func(id placement.NodeID) topology.KueueFullNode {
		return topology.KueueFullNode{Node: id, Resource: cpu}
	}
	on := func(id placement.NodeID, count int32) placement.PodSetAssignment {
		return placement.PodSetAssignment{PodSet: "s0", Node: s.Node(id).Name, NodeID: id, Count: count}
	}
	require.Equal(t, topology.KueueNotFit{PodSet: "s1", Fit: 2, Total: 12, SliceSize: 1,
		Full: []topology.KueueFullNode{full(0), full(1), full(2), full(4), full(5)},
		Before: []placement.PodSetUsage{{Group: g.Key(), PodSet: "s0", Requests: placement.ResourceList{cpu: 2000},
			Nodes: []placement.PodSetAssignment{on(0, 2), on(1, 2), on(2, 2), on(3, 1), on(4, 2), on(5, 1)}}}}, *p.KueueNotFit)
	// The first set alone has none before it.
	g.PodSets[1].Count, g.MinCount = 3, 13
	g.PodSets[0].Count = 14
	p = plan(t, s, g, opts, topology.PodSetRequest{PodSet: "s0", Unconstrained: true}, topology.PodSetRequest{PodSet: "s1", Unconstrained: true})
	require.NotNil(t, p.KueueNotFit, p.Decision.Message)
	require.Equal(t, "s0", p.KueueNotFit.PodSet)
	require.Nil(t, p.KueueNotFit.Before)
}
