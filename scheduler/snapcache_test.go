package scheduler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
)

func gpuNode(name string) placement.Node {
	return placement.Node{Name: name, Allocatable: placement.ResourceList{placement.ResourceGPU: 1}}
}

func gpuPod(name, node string) placement.Pod {
	return placement.Pod{Namespace: "default", Name: name, NodeName: node, Requests: placement.ResourceList{placement.ResourceGPU: 1}}
}

// The snapshot follows the watch by Apply: pods bound, assumed, confirmed,
// deleted and evicted; a node change rebuilds it.
func TestSnapCache(t *testing.T) {
	c := newSnapCache()
	c.setNode(gpuNode("a"))
	c.setNode(gpuNode("b"))
	c.setBound(gpuPod("p1", "a"))
	s1, err := c.snapshot()
	require.NoError(t, err)
	require.Equal(t, 2, s1.NumNodes())
	require.Equal(t, 1, s1.NumPods())

	// An assumed binding is in the snapshot the cycle returned; the watch
	// confirming it changes nothing, and needs no conversion (confirm),
	// unless it shows the pod on another node.
	p2 := gpuPod("p2", "b")
	s2, err := s1.Apply(placement.Change{Bind: []placement.Pod{p2}})
	require.NoError(t, err)
	c.assume(s2, []placement.Pod{p2})
	require.False(t, c.confirm(p2.Key(), "a"), "bound elsewhere than assumed")
	require.False(t, c.confirm(placement.Key{Namespace: "default", Name: "p9"}, "a"), "never seen")
	require.True(t, c.confirm(p2.Key(), "b"))
	got, err := c.snapshot()
	require.NoError(t, err)
	require.Same(t, s2, got, "a confirmation applies nothing")
	require.Empty(t, c.assumed)

	// An evicted victim leaves at once; its later updates are ignored
	// until its deletion shows.
	c.evict([]placement.Key{{Namespace: "default", Name: "p1"}})
	c.setBound(gpuPod("p1", "a"))
	require.True(t, c.confirm(placement.Key{Namespace: "default", Name: "p1"}, "a"))
	got, err = c.snapshot()
	require.NoError(t, err)
	require.Equal(t, 1, got.NumPods())
	_, ok := got.Pod(placement.Key{Namespace: "default", Name: "p1"})
	require.False(t, ok)
	c.deleted(placement.Key{Namespace: "default", Name: "p1"})

	// A pod on a node not seen yet counts once the node arrives.
	c.setBound(gpuPod("p3", "c"))
	got, err = c.snapshot()
	require.NoError(t, err)
	require.Equal(t, 1, got.NumPods())
	c.setNode(gpuNode("c"))
	got, err = c.snapshot()
	require.NoError(t, err)
	require.Equal(t, 3, got.NumNodes())
	require.Equal(t, 2, got.NumPods())
}
