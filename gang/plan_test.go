package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Four members in slices of two per rack, the block required, on racks of
// three one-core nodes: each of block b1's racks takes one slice, members
// in member order filling rack r1 first; the solver would have packed r1.
func TestCycle_SlicesArePlanned(t *testing.T) {
	var nodes []placement.Node
	for _, r := range []string{"r1", "r2"} {
		for i := range 3 {
			nodes = append(nodes, rackNode(fmt.Sprintf("%s-%d", r, i), "b1", r, 1000))
		}
	}
	h := newHarness(t, Options{TopologyLevels: []string{blockKey, rackKey}}, nodes)
	pg := gangPG("pg", 4)
	pg.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{Key: blockKey}, {Key: rackKey, SliceSize: 2}}
	h.setPG(pg)
	for i := range 4 {
		h.addPods(member(fmt.Sprintf("m%d", i), "pg", cpu(1000), i))
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.NoError(t, r.Err)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Decision.Message)
	require.Equal(t, []string{"m0@r1-0", "m1@r1-1", "m2@r2-0", "m3@r2-1"}, bindNames(r))
}

// With the Kueue profile a required rack that no rack holds waits with
// Kueue's reason, naming the level and the best rack's room.
func TestCycle_KueueProfileReason(t *testing.T) {
	h := newHarness(t, Options{TopologyProfile: topology.KueueProfile}, []placement.Node{
		rackNode("a1", "b1", "r1", 2000), rackNode("a2", "b1", "r2", 1000),
	})
	h.setPG(withTopology(gangPG("pg", 3), rackKey))
	for i := range 3 {
		h.addPods(member(fmt.Sprintf("m%d", i), "pg", cpu(1000), i))
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.NoError(t, r.Err)
	require.Equal(t, placement.Unschedulable, r.Decision.Status)
	require.Equal(t, `the members of PodGroup "default/pg" need 3 pods in one topology.kubernetes.io/rack domain; the best, r1, holds 2`, r.Decision.Message)
}
