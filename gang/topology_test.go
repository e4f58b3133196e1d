package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

const (
	rackKey  = "topology.kubernetes.io/rack"
	blockKey = "topology.kubernetes.io/block"
)

func rackNode(name, block, rack string, milli int64) placement.Node {
	return placement.Node{Name: name, Labels: map[string]string{blockKey: block, rackKey: rack}, Allocatable: cpu(milli)}
}

func withTopology(pg *PodGroup, keys ...string) *PodGroup {
	for _, k := range keys {
		pg.Spec.SchedulingConstraints.Topology = append(pg.Spec.SchedulingConstraints.Topology, TopologyConstraint{Key: k})
	}
	return pg
}

// T5 through the cycle: the scheduler turns schedulingConstraints into a
// topology generator, and the second gang sees the first one's rack taken.
func TestCycle_TopologyFromConstraints(t *testing.T) {
	h := newHarness(t, Options{}, []placement.Node{
		rackNode("a1", "b1", "rack-1", 2000), rackNode("a2", "b1", "rack-1", 2000), rackNode("a3", "b1", "rack-1", 2000),
		rackNode("b1", "b1", "rack-2", 2000), rackNode("b2", "b1", "rack-2", 2000),
		rackNode("c1", "b2", "rack-3", 2000),
	})
	h.setPG(withTopology(gangPG("pg1", 3), rackKey))
	h.setPG(withTopology(gangPG("pg2", 2), rackKey))
	for i := range 3 {
		h.addPods(member(fmt.Sprintf("pg1-%d", i), "pg1", cpu(2000), i))
	}
	for i := range 2 {
		h.addPods(member(fmt.Sprintf("pg2-%d", i), "pg2", cpu(2000), 10+i))
	}
	rs := h.drain()
	require.Len(t, rs, 2)
	require.Equal(t, []string{"pg1-0@a1", "pg1-1@a2", "pg1-2@a3"}, bindNames(rs[0]))
	require.Equal(t, "rack-1", rs[0].Decision.Placement.Name)
	require.Equal(t, []string{"pg2-0@b1", "pg2-1@b2"}, bindNames(rs[1]))
	require.Equal(t, "rack-2", rs[1].Decision.Placement.Name)
}

// A preferred rack with the cluster's levels configured widens to the block
// when no rack holds the gang, and never spreads over two blocks while one
// block holds it.
func TestCycle_PreferredTopologyWidens(t *testing.T) {
	opts := Options{TopologyLevels: []string{blockKey, rackKey}}
	h := newHarness(t, opts, []placement.Node{
		rackNode("a1", "b1", "r1", 1000), rackNode("a2", "b1", "r1", 1000),
		rackNode("a3", "b1", "r2", 1000), rackNode("a4", "b1", "r2", 1000),
		rackNode("c1", "b2", "r3", 1000), rackNode("c2", "b2", "r4", 1000),
	})
	pg := gangPG("pg", 4)
	pg.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{Key: rackKey, Preferred: true}}
	h.setPG(pg)
	for i := range 4 {
		h.addPods(member(fmt.Sprintf("m%d", i), "pg", cpu(1000), i))
	}
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Decision.Message)
	require.Equal(t, []string{"m0@a1", "m1@a2", "m2@a3", "m3@a4"}, bindNames(r))
}

// A new node set (the host rebuilt the snapshot after a node joined) gets a
// new topology tree: the group lands on the new rack.
func TestCycle_TopologyTreeFollowsNodeSet(t *testing.T) {
	nodes := []placement.Node{rackNode("a1", "b1", "r1", 1000)}
	h := newHarness(t, Options{}, nodes)
	h.setPG(withTopology(gangPG("pg", 2), rackKey))
	h.addPods(member("m0", "pg", cpu(1000), 0), member("m1", "pg", cpu(1000), 1))
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unresolvable, r.Decision.Status, "one node of 1000m: only a new node can help")

	snap, err := placement.NewSnapshot(append(nodes, rackNode("n1", "b2", "r9", 1000), rackNode("n2", "b2", "r9", 1000)), nil)
	require.NoError(t, err)
	h.snap = snap
	h.now = h.now.Add(DefaultMaxBackoff)
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Decision.Message)
	require.Equal(t, []string{"m0@n1", "m1@n2"}, bindNames(r))
}

// A topology key no node carries right now (nodes come and go) leaves the
// group Unschedulable with that reason; the cycle does not fail as if the
// input were malformed, and the group goes back to the queue.
func TestCycle_UnknownTopologyKey(t *testing.T) {
	h := newHarness(t, Options{Preemption: true}, []placement.Node{rackNode("a1", "b1", "r1", 1000)})
	h.setPG(withTopology(gangPG("pg", 1), "example.com/pod"))
	h.addPods(member("m0", "pg", cpu(1000), 0))
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unresolvable, r.Decision.Status)
	require.Equal(t, `0 of min 1 members fit: topology key "example.com/pod": spec.schedulingConstraints.topology[0].key: no node carries this label`, r.Decision.Message)
	require.Equal(t, []placement.Key{key("m0")}, r.Decision.Waiting)
	require.Nil(t, r.Preemption, "evicting pods cannot add a label")
	require.Equal(t, ReasonUnschedulable, r.Condition.Reason)
	require.Equal(t, r.Decision.Message, r.Condition.Message)
	require.Equal(t, []placement.Key{key("m0")}, r.Requeued)
	require.Empty(t, r.Bind)
}

// With TopologyLevels [zone, rack] and nodes that carry the rack label but
// not the zone, a gang requiring a rack waits, Unschedulable, saying that
// the nodes lack the wider zone level, not that no node carries the rack
// label; once the nodes get their zone, it binds in one rack.
func TestCycle_RackWithoutZone(t *testing.T) {
	const zoneKey = "topology.kubernetes.io/zone"
	opts := Options{TopologyLevels: []string{zoneKey, rackKey}}
	noZone := func(name, rack string) placement.Node {
		return placement.Node{Name: name, Labels: map[string]string{rackKey: rack}, Allocatable: cpu(1000)}
	}
	h := newHarness(t, opts, []placement.Node{noZone("n1", "r1"), noZone("n2", "r1"), noZone("n3", "r2")})
	h.setPG(withTopology(gangPG("pg", 2), rackKey))
	h.addPods(member("m0", "pg", cpu(1000), 0), member("m1", "pg", cpu(1000), 1))
	r, ok := h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Unresolvable, r.Decision.Status)
	require.Equal(t, `0 of min 2 members fit: topology key "topology.kubernetes.io/rack": spec.schedulingConstraints.topology[0].key: `+
		`3 nodes carry this label but none is in a domain of it: 3 of them lack the wider level "topology.kubernetes.io/zone" `+
		`(a node is in a domain of a level only with the labels of every wider level)`, r.Decision.Message)
	require.NotContains(t, r.Decision.Message, "no node carries")
	require.Equal(t, ReasonUnschedulable, r.Condition.Reason)

	withZone := func(name, rack string) placement.Node {
		n := noZone(name, rack)
		n.Labels[zoneKey] = "z1"
		return n
	}
	snap, err := placement.NewSnapshot([]placement.Node{withZone("n1", "r1"), withZone("n2", "r1"), withZone("n3", "r2")}, nil)
	require.NoError(t, err)
	h.snap = snap
	h.now = h.now.Add(DefaultMaxBackoff)
	r, ok = h.cycle()
	require.True(t, ok)
	require.Equal(t, placement.Scheduled, r.Decision.Status, r.Decision.Message)
	require.Equal(t, []string{"m0@n1", "m1@n2"}, bindNames(r))
	require.Equal(t, "z1/r1", r.Decision.Placement.Name)
}
