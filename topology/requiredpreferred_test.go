package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// blockRackNodes are two blocks of two racks of two 2-CPU nodes each;
// b1's rack r1 is half used.
func blockRackNodes(t *testing.T) (*placement.Snapshot, *topology.Tree) {
	var nodes []placement.Node
	for _, b := range []string{"b1", "b2"} {
		for _, r := range []string{"r1", "r2"} {
			for _, n := range []string{"x", "y"} {
				nodes = append(nodes, node(b+"-"+r+"-"+n, 2000, blockKey, b, rackKey, r))
			}
		}
	}
	s := snapshot(t, nodes, placement.Pod{Namespace: "default", Name: "filler", NodeName: "b1-r1-x", Requests: placement.ResourceList{cpu: 2000}})
	return s, tree(t, s, blockKey, rackKey)
}

// TestScenario_RequiredBlockPreferredRack: required block, preferred rack
// (Kueue's common request): a gang that a rack holds takes one rack; one
// that no rack holds spans the fewest racks of one block; one that no
// block holds waits, although the cluster could hold it.
func TestScenario_RequiredBlockPreferredRack(t *testing.T) {
	s, tr := blockRackNodes(t)
	cs := []topology.Constraint{required(blockKey), preferred(rackKey)}

	d := solve(t, tr, s, gang("fits-rack", 4, members("fits-rack", 4, 1000)), topology.MostAllocated, cs...)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "b1/r2", d.Placement.Name)
	require.Equal(t, map[string]string{"fits-rack-a": "b1-r2-x", "fits-rack-b": "b1-r2-x", "fits-rack-c": "b1-r2-y", "fits-rack-d": "b1-r2-y"}, assigned(d))

	d = solve(t, tr, s, gang("two-racks", 6, members("two-racks", 6, 1000)), topology.MostAllocated, cs...)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	// Two racks either way; b1, which the gang fills, scores higher.
	require.Equal(t, map[string]string{"two-racks-a": "b1-r1-y", "two-racks-b": "b1-r1-y", "two-racks-c": "b1-r2-x", "two-racks-d": "b1-r2-x", "two-racks-e": "b1-r2-y", "two-racks-f": "b1-r2-y"}, assigned(d))

	d = solve(t, tr, s, gang("too-wide", 9, members("too-wide", 9, 1000)), topology.MostAllocated, cs...)
	require.NotEqual(t, placement.Scheduled, d.Status)
	require.Empty(t, d.Assignments)
}

// TestScenario_SameKeyRequiredAndPreferred: a key both required and
// preferred is required: a gang that no rack holds waits.
func TestScenario_SameKeyRequiredAndPreferred(t *testing.T) {
	s, tr := blockRackNodes(t)
	g := gang("g", 6, members("g", 6, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated, preferred(rackKey), required(rackKey))
	require.NotEqual(t, placement.Scheduled, d.Status, d.Message)
	d = solve(t, tr, s, g, topology.MostAllocated, preferred(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, "preferred alone widens")
}
