package scheduler

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/kube"
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
	s1, err := c.snapshot(nil)
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
	got, err := c.snapshot(nil)
	require.NoError(t, err)
	require.Same(t, s2, got, "a confirmation applies nothing")
	require.Empty(t, c.assumed)

	// An evicted victim leaves at once; its later updates are ignored
	// until its deletion shows.
	c.evict([]placement.Key{{Namespace: "default", Name: "p1"}})
	c.setBound(gpuPod("p1", "a"))
	require.True(t, c.confirm(placement.Key{Namespace: "default", Name: "p1"}, "a"))
	got, err = c.snapshot(nil)
	require.NoError(t, err)
	require.Equal(t, 1, got.NumPods())
	_, ok := got.Pod(placement.Key{Namespace: "default", Name: "p1"})
	require.False(t, ok)
	c.deleted(placement.Key{Namespace: "default", Name: "p1"})

	// A pod on a node not seen yet counts once the node arrives.
	c.setBound(gpuPod("p3", "c"))
	got, err = c.snapshot(nil)
	require.NoError(t, err)
	require.Equal(t, 1, got.NumPods())
	c.setNode(gpuNode("c"))
	got, err = c.snapshot(nil)
	require.NoError(t, err)
	require.Equal(t, 3, got.NumNodes())
	require.Equal(t, 2, got.NumPods())
}

// A bound pod's extended resource that DRA serves enters the snapshot by
// the rule and nodes of the round, not those seen when the pod was: on a
// node without it in allocatable the pod's implicit claim holds it; on a
// node whose device plugin serves it, the pod's request counts there.
func TestSnapCacheServedOn(t *testing.T) {
	const gpu = "example.com/gpu"
	served := kube.ExtendedResourceClasses{gpu: "gpu"}
	c := newSnapCache()
	c.setNode(placement.Node{Name: "dp", Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}})
	c.setNode(placement.Node{Name: "dra", Allocatable: placement.ResourceList{placement.ResourceCPU: 1000}})
	for _, n := range []string{"dp", "dra"} {
		c.setBound(placement.Pod{Namespace: "default", Name: "on-" + n, NodeName: n, Requests: placement.ResourceList{placement.ResourceCPU: 100, gpu: 2}})
	}
	requests := func(snap *placement.Snapshot) map[string]placement.ResourceList {
		out := map[string]placement.ResourceList{}
		for _, n := range []string{"dp", "dra"} {
			p, ok := snap.Pod(placement.Key{Namespace: "default", Name: "on-" + n})
			require.True(t, ok)
			out[n] = p.Requests
		}
		return out
	}

	snap, err := c.snapshot(nil)
	require.NoError(t, err)
	require.Equal(t, map[string]placement.ResourceList{
		"dp": {placement.ResourceCPU: 100, gpu: 2}, "dra": {placement.ResourceCPU: 100, gpu: 2},
	}, requests(snap), "no class serves the resource yet")

	c.rebuild = true // as servePerNode does when served changes
	snap, err = c.snapshot(served)
	require.NoError(t, err)
	require.Equal(t, map[string]placement.ResourceList{
		"dp": {placement.ResourceCPU: 100}, "dra": {placement.ResourceCPU: 100},
	}, requests(snap), "served through DRA on both nodes")

	c.setNode(placement.Node{Name: "dp", Allocatable: placement.ResourceList{placement.ResourceCPU: 1000, gpu: 2}})
	snap, err = c.snapshot(served)
	require.NoError(t, err)
	require.Equal(t, map[string]placement.ResourceList{
		"dp": {placement.ResourceCPU: 100, gpu: 2}, "dra": {placement.ResourceCPU: 100},
	}, requests(snap), "dp's device plugin registered: its units count there")
	require.Equal(t, placement.ResourceList{placement.ResourceCPU: 100, gpu: 2}, c.bound[placement.Key{Namespace: "default", Name: "on-dra"}].Requests, "the cache keeps every request")
}
