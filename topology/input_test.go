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
	_, err = opts.Generator.Generate(nil, g)
	require.ErrorIs(t, err, placement.ErrInvalid)
	_, err = opts.Generator.Generate(s, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)
}
