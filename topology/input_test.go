package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestNilArguments: a nil snapshot or group is an error, also once the
// tree holds aggregates for another snapshot.
func TestNilArguments(t *testing.T) {
	_, err := topology.NewTree(nil, []string{rackKey})
	require.ErrorIs(t, err, placement.ErrInvalid)

	s := snapshot(t, []placement.Node{node("n1", 2000, rackKey, "r1")})
	tr := tree(t, s, rackKey)
	_, _, err = tr.Free(nil, 0, cpu)
	require.ErrorIs(t, err, placement.ErrInvalid)
	_, _, err = tr.Free(s, 0, cpu)
	require.NoError(t, err)
	_, _, err = tr.Free(nil, 0, cpu)
	require.ErrorIs(t, err, placement.ErrInvalid, "with aggregates cached")

	opts, err := tr.SolverOptions([]topology.Constraint{{Key: rackKey}}, topology.MostAllocated)
	require.NoError(t, err)
	g := &placement.Group{Namespace: "default", Name: "pg", MinCount: 1, Members: members("pg", 1, 1000)}
	_, err = opts.Generator.Generate(nil, placement.GroupView{Group: g})
	require.ErrorIs(t, err, placement.ErrInvalid)
	_, err = opts.Generator.Generate(s, placement.GroupView{})
	require.ErrorIs(t, err, placement.ErrInvalid)
}

// TestNoDomain: a level with no domain is reported as such, with the
// reason: no node carries the key, or the nodes that do lack a wider
// level (here two of three lack the zone, one the block).
func TestNoDomain(t *testing.T) {
	s := snapshot(t, []placement.Node{
		node("n1", 1000, rackKey, "r1"), node("n2", 1000, rackKey, "r2"),
		node("n3", 1000, zoneKey, "z1", rackKey, "r1"), node("n4", 1000, zoneKey, "z1", blockKey, "b1"),
	})
	tr := tree(t, s, zoneKey, blockKey, rackKey)
	_, err := tr.SolverOptions([]topology.Constraint{required(rackKey)}, topology.MostAllocated)
	require.ErrorIs(t, err, topology.ErrNoDomain)
	require.ErrorIs(t, err, placement.ErrNotFound)
	require.EqualError(t, err, `topology key "topology.kubernetes.io/rack": spec.schedulingConstraints.topology[0].key: `+
		`3 nodes carry this label but none is in a domain of it: 2 of them lack the wider level "topology.kubernetes.io/zone", `+
		`1 of them lack the wider level "example.com/block" (a node is in a domain of a level only with the labels of every wider level)`)

	_, err = tr.SolverOptions([]topology.Constraint{required(zoneKey), preferred(hostKey)}, topology.MostAllocated)
	require.ErrorIs(t, err, placement.ErrNotFound, "not a level of the tree")
	require.NotErrorIs(t, err, topology.ErrNoDomain)

	tr = tree(t, s, zoneKey, hostKey)
	_, err = tr.SolverOptions([]topology.Constraint{preferred(hostKey)}, topology.MostAllocated)
	require.ErrorIs(t, err, topology.ErrNoDomain)
	require.EqualError(t, err, `topology key "kubernetes.io/hostname": spec.schedulingConstraints.topology[0].key: no node carries this label`)
}
