package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// TestProp_ChangedNodes checks ChangedNodes against a node-by-node
// comparison of usage, over chains and forks of Apply that cross usage
// pages, including changes that undo each other.
func TestProp_ChangedNodes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 150).Draw(t, "nodes")
		nodes := make([]Node, n)
		for i := range nodes {
			nodes[i] = cpuNode(fmt.Sprintf("n%03d", i), 4000)
		}
		root, err := NewSnapshot(nodes, nil)
		require.NoError(t, err)
		snaps := []*Snapshot{root}
		seq := 0
		for range rapid.IntRange(0, 6).Draw(t, "steps") {
			from := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "from")]
			var ch Change
			for p := range from.Pods() {
				if rapid.Bool().Draw(t, "remove") {
					ch.Remove = append(ch.Remove, p.Key())
				}
			}
			for range rapid.IntRange(0, 3).Draw(t, "binds") {
				seq++
				ch.Bind = append(ch.Bind, Pod{Namespace: "d", Name: fmt.Sprintf("p%d", seq), NodeName: nodes[rapid.IntRange(0, n-1).Draw(t, "node")].Name,
					Requests: ResourceList{ResourceCPU: rapid.Int64Range(0, 2).Draw(t, "cpu")}})
			}
			next, err := from.Apply(ch)
			require.NoError(t, err)
			snaps = append(snaps, next)
		}
		a := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "a")]
		b := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "b")]
		got, ok := a.ChangedNodes(b)
		require.True(t, ok)
		var want []NodeID
		for id := range NodeID(n) {
			if a.Requested(id, ResourceCPU) != b.Requested(id, ResourceCPU) || a.Requested(id, ResourcePods) != b.Requested(id, ResourcePods) {
				want = append(want, id)
			}
		}
		require.Equal(t, want, got)
	})
}

func TestChangedNodesOtherBase(t *testing.T) {
	a, err := NewSnapshot([]Node{cpuNode("n1", 1000)}, nil)
	require.NoError(t, err)
	b, err := NewSnapshot([]Node{cpuNode("n1", 1000)}, nil)
	require.NoError(t, err)
	got, ok := a.ChangedNodes(b)
	require.False(t, ok)
	require.Nil(t, got)
	got, ok = a.ChangedNodes(a)
	require.True(t, ok)
	require.Empty(t, got)
}
