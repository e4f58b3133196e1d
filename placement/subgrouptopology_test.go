package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

const (
	sgBlock = "example.com/block"
	sgRack  = "example.com/rack"
)

// rackUnder is a 2-CPU node in rack r of block b ("" leaves a label out).
func rackUnder(name, b, r string) Node {
	n := cpuNode(name, 2000)
	n.Labels = map[string]string{}
	if b != "" {
		n.Labels[sgBlock] = b
	}
	if r != "" {
		n.Labels[sgRack] = r
	}
	return n
}

// workers is a group whose two 2-CPU members form a sub-group that must
// share a rack.
func workers(levels ...string) *Group {
	w := func(name string) Pod {
		p := member(name, "pg", 2000)
		p.Labels = map[string]string{"role": "worker"}
		return p
	}
	return &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{w("w1"), w("w2")}, TopologyLevels: levels,
		SubGroups: []SubGroup{{Name: "workers", Selector: LabelSelector{MatchLabels: map[string]string{"role": "worker"}}, MinCount: 2, TopologyKey: sgRack}}}
}

// TestScenario_SubGroupRackUnderTwoBlocks: rack r1 under block b1 and
// rack r1 under block b2 are two racks when the sub-group's key is a level
// of the tree in use, so two members that need a node each cannot share
// "r1"; compared by label value alone (no levels given), they can.
func TestScenario_SubGroupRackUnderTwoBlocks(t *testing.T) {
	s, err := NewSnapshot([]Node{rackUnder("b1-r1", "b1", "r1"), rackUnder("b2-r1", "b2", "r1")}, nil)
	require.NoError(t, err)

	g := workers(sgBlock, sgRack)
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.NotEqual(t, Scheduled, d.Status, "two racks named r1")
	require.Empty(t, d.Assignments)

	spanning := Decision{Group: g.Key(), Status: Scheduled, Assignments: []Assignment{
		{Pod: Key{"default", "w1"}, Node: "b1-r1", NodeID: 0}, {Pod: Key{"default", "w2"}, Node: "b2-r1", NodeID: 1}}}
	require.ErrorContains(t, Verify(s, g, spanning), "sub-group workers spans two example.com/rack domains")

	byValue := workers()
	d, err = Solve(s, byValue, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"w1": "b1-r1", "w2": "b2-r1"}, nodesOf(d))
	require.NoError(t, Verify(s, byValue, d))
}

// TestScenario_SubGroupRackOfOneBlock: with a second node in b1's r1, the
// members share that rack; nodes with a rack label but no block label are
// in no rack of the tree.
func TestScenario_SubGroupRackOfOneBlock(t *testing.T) {
	s, err := NewSnapshot([]Node{rackUnder("a-loose", "", "r1"), rackUnder("a-loose2", "", "r1"), rackUnder("b1-r1", "b1", "r1"), rackUnder("b1-r1-y", "b1", "r1"), rackUnder("b2-r1", "b2", "r1")}, nil)
	require.NoError(t, err)
	g := workers(sgBlock, sgRack)
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"w1": "b1-r1", "w2": "b1-r1-y"}, nodesOf(d))
	require.NoError(t, Verify(s, g, d))

	loose := Decision{Group: g.Key(), Status: Scheduled, Assignments: []Assignment{
		{Pod: Key{"default", "w1"}, Node: "a-loose", NodeID: 0}, {Pod: Key{"default", "w2"}, Node: "a-loose2", NodeID: 1}}}
	require.ErrorContains(t, Verify(s, g, loose), "sub-group workers: node \"a-loose\" is in no example.com/rack domain")
	require.NoError(t, Verify(s, workers(), loose), "by value, both are in r1")
}

// TestSubGroupTopologyLevels_Invalid: levels must be keys, each once.
func TestSubGroupTopologyLevels_Invalid(t *testing.T) {
	s, err := NewSnapshot([]Node{rackUnder("b1-r1", "b1", "r1")}, nil)
	require.NoError(t, err)
	_, err = Solve(s, workers(sgBlock, ""), Options{})
	require.EqualError(t, err, `PodGroup "default/pg": topologyLevels[1]: must not be empty`)
	_, err = Solve(s, workers(sgRack, sgRack), Options{})
	require.ErrorIs(t, err, ErrDuplicate)
}
