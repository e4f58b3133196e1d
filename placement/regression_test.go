package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// Shrunk failures of the property and fuzz tests, one named test each.

func generating(ps ...Placement) Options {
	return Options{Generator: PlacementGeneratorFunc(func(*Snapshot, *Group) ([]Placement, error) { return ps, nil })}
}

func gangOf(min int32, members ...Pod) *Group {
	return &Group{Namespace: "default", Name: "pg1", MinCount: min, Members: members}
}

// A generator that repeats a node made the batched path fill it twice (two
// cpu:1 members on a cpu:1 node); an unknown node ID panicked. Both are
// bad generator output and now an error naming the placement.
func TestRegression_GeneratorOutputIsChecked(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 1000), cpuNode("n2", 1000)}, nil)
	require.NoError(t, err)
	g := gangOf(2, member("p1", "pg1", 1000), member("p2", "pg1", 1000))
	for _, tc := range []struct {
		name  string
		nodes []NodeID
		field string
	}{
		{"repeated node", []NodeID{0, 0}, "nodes[1]"},
		{"descending", []NodeID{1, 0}, "nodes[1]"},
		{"unknown node", []NodeID{0, 7}, "nodes[1]"},
		{"negative", []NodeID{-1}, "nodes[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Solve(s, g, generating(Placement{Name: "a", Nodes: tc.nodes}))
			requireFieldError(t, err, ErrInvalid, `placement "a"`, tc.field)
		})
	}
	d, err := Solve(s, g, generating(Placement{Name: "a", Nodes: []NodeID{0, 1}}))
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status)
	require.NoError(t, Verify(s, g, d))
}
