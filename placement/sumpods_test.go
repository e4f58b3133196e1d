package placement_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// Resources for the pod-pass tests: enough for the tracked resources to
// outnumber a pod's requests (the pass then iterates the requests map
// instead of looking up each tracked resource), and one that no node has
// (the pass starts over with it tracked).
var sumResources = []ResourceName{
	ResourceCPU, ResourceMemory, ResourceGPU,
	"example.com/a", "example.com/b", "example.com/c", "example.com/d",
	"example.com/only-pods",
}

// sumCluster draws valid nodes and pods whose order is one of the shapes
// NewSnapshot's pod pass has a fast path for (grouped by node in node
// order) or must not take one for (grouped in reverse order, alternating
// nodes, random), and reports whether the pods went in node order.
func sumCluster(t *rapid.T) ([]Node, []Pod, string) {
	nodes := make([]Node, rapid.IntRange(1, 6).Draw(t, "nodes"))
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%d", i), Allocatable: ResourceList{}}
		for _, r := range append([]ResourceName{ResourcePods}, sumResources[:len(sumResources)-1]...) {
			if rapid.Bool().Draw(t, "has") {
				nodes[i].Allocatable[r] = rapid.Int64Range(0, 100).Draw(t, "allocatable")
			}
		}
	}
	pods := make([]Pod, rapid.IntRange(0, 40).Draw(t, "pods"))
	order := rapid.SampledFrom([]string{"grouped", "reverse", "alternating", "random"}).Draw(t, "order")
	for i := range pods {
		var n int
		switch order {
		case "grouped":
			n = i * len(nodes) / len(pods)
		case "reverse":
			n = len(nodes) - 1 - i*len(nodes)/len(pods)
		case "alternating":
			n = i % len(nodes)
		default:
			n = rapid.IntRange(0, len(nodes)-1).Draw(t, "node")
		}
		pods[i] = Pod{Namespace: "ns", Name: fmt.Sprintf("p%d", i), NodeName: nodes[n].Name, Requests: ResourceList{}}
		for range rapid.IntRange(0, 3).Draw(t, "requests") {
			pods[i].Requests[rapid.SampledFrom(sumResources).Draw(t, "resource")] = rapid.Int64Range(0, 1000).Draw(t, "quantity")
		}
	}
	return nodes, pods, order
}

// checkSums: every node's requested quantities are the plain sums over
// its pods, whatever the order of the pods, and its allocatable is as
// given (unlimited pods when it gives none).
func checkSums(t *rapid.T) string {
	nodes, pods, order := sumCluster(t)
	allocatable := map[string]ResourceList{}
	for _, n := range nodes {
		allocatable[n.Name] = n.Allocatable
	}
	want := map[string]ResourceList{}
	for _, p := range pods {
		if want[p.NodeName] == nil {
			want[p.NodeName] = ResourceList{}
		}
		want[p.NodeName][ResourcePods]++
		for r, q := range p.Requests {
			want[p.NodeName][r] += q
		}
	}
	for _, ps := range [][]Pod{pods, reversed(pods)} {
		s, err := NewSnapshot(nodes, ps)
		require.NoError(t, err)
		for id := range NodeID(s.NumNodes()) {
			name := s.Node(id).Name
			for _, r := range append([]ResourceName{ResourcePods}, sumResources...) {
				require.Equal(t, want[name][r], s.Requested(id, r), "node %s, resource %s, pods %s", name, r, order)
				q, ok := allocatable[name][r]
				if !ok && r == ResourcePods {
					q = math.MaxInt64
				}
				require.Equal(t, q, s.Allocatable(id, r), "node %s, resource %s", name, r)
			}
		}
	}
	return order
}

func TestProp_NewSnapshotSumsRequests(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) { seen[checkSums(t)]++ })
	for _, order := range []string{"grouped", "reverse", "alternating", "random"} {
		require.Positive(t, seen[order], "the generator never drew pods %s", order)
	}
}

// TestNewSnapshot_PodPassCases pins the cases the pod pass handles apart
// from its fast path (pods grouped by node in node order, requests all
// tracked): each must give the same sums and errors as the plain rules.
func TestNewSnapshot_PodPassCases(t *testing.T) {
	nodes := []Node{
		{Name: "a", Allocatable: ResourceList{ResourceCPU: 10, ResourceMemory: 10, ResourceGPU: 1, "example.com/x": 1, "example.com/y": 1}},
		{Name: "b", Allocatable: ResourceList{ResourceCPU: 10}},
	}
	pod := func(name, node string, rl ResourceList) Pod {
		return Pod{Namespace: "ns", Name: name, NodeName: node, Requests: rl}
	}
	t.Run("alternating nodes", func(t *testing.T) {
		s, err := NewSnapshot(nodes, []Pod{
			pod("p0", "b", ResourceList{ResourceCPU: 1}), pod("p1", "a", ResourceList{ResourceCPU: 2}),
			pod("p2", "b", ResourceList{ResourceCPU: 4}), pod("p3", "a", ResourceList{ResourceCPU: 8}),
		})
		require.NoError(t, err)
		a, _ := s.NodeID("a")
		b, _ := s.NodeID("b")
		require.Equal(t, []int64{10, 5, 2, 2}, []int64{s.Requested(a, ResourceCPU), s.Requested(b, ResourceCPU), s.Requested(a, ResourcePods), s.Requested(b, ResourcePods)})
	})
	t.Run("a resource no node has, and few requests among many resources", func(t *testing.T) {
		s, err := NewSnapshot(nodes, []Pod{
			pod("p0", "a", ResourceList{"example.com/z": 3}),
			pod("p1", "a", ResourceList{"example.com/z": 4, ResourceCPU: 1}),
			pod("p2", "b", ResourceList{ResourceMemory: 5}),
		})
		require.NoError(t, err)
		a, _ := s.NodeID("a")
		b, _ := s.NodeID("b")
		require.Equal(t, int64(7), s.Requested(a, "example.com/z"))
		require.Equal(t, int64(5), s.Requested(b, ResourceMemory))
		require.Contains(t, s.Resources(), ResourceName("example.com/z"))
	})
	for _, c := range []struct {
		name          string
		pods          []Pod
		object, field string
		sentinel      error
	}{
		{"pods requested", []Pod{pod("p0", "a", ResourceList{ResourcePods: 1})}, `pod "ns/p0"`, "requests[pods]", ErrInvalid},
		{"unnamed resource", []Pod{pod("p0", "a", ResourceList{"": 1, ResourceCPU: 1})}, `pod "ns/p0"`, "requests", ErrInvalid},
		{"unnamed resource alone", []Pod{pod("p0", "a", ResourceList{"": 1})}, `pod "ns/p0"`, "requests", ErrInvalid},
		{"negative request", []Pod{pod("p0", "a", ResourceList{ResourceCPU: -1})}, `pod "ns/p0"`, "requests[cpu]", ErrInvalid},
		{"negative request on a fresh resource", []Pod{pod("p0", "a", ResourceList{"example.com/z": -1})}, `pod "ns/p0"`, "requests[example.com/z]", ErrInvalid},
		{"overflow", []Pod{
			pod("p0", "b", ResourceList{ResourceCPU: math.MaxInt64/2 + 1}),
			pod("p1", "b", ResourceList{ResourceCPU: math.MaxInt64/2 + 1}),
		}, `pod "ns/p1"`, "requests[cpu]", ErrInvalid},
		{"overflow once wrapped past zero", []Pod{
			pod("p0", "b", ResourceList{ResourceCPU: math.MaxInt64}),
			pod("p1", "b", ResourceList{ResourceCPU: math.MaxInt64}),
			pod("p2", "b", ResourceList{ResourceCPU: 2}),
		}, `pod "ns/p1"`, "requests[cpu]", ErrInvalid},
		{"unknown node between known ones", []Pod{
			pod("p0", "a", nil), pod("p1", "c", nil), pod("p2", "b", nil),
		}, `pod "ns/p1"`, "spec.nodeName", ErrNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, ps := range [][]Pod{c.pods, reversed(c.pods)} {
				s, err := NewSnapshot(nodes, ps)
				require.Nil(t, s)
				requireFieldError(t, err, c.sentinel, c.object, c.field)
			}
		})
	}
	t.Run("sums near the limit", func(t *testing.T) {
		s, err := NewSnapshot(nodes, []Pod{
			pod("p0", "b", ResourceList{ResourceCPU: math.MaxInt64 - 1}),
			pod("p1", "b", ResourceList{ResourceCPU: 1}),
			pod("p2", "a", ResourceList{ResourceCPU: math.MaxInt64}),
		})
		require.NoError(t, err)
		b, _ := s.NodeID("b")
		require.Equal(t, int64(math.MaxInt64), s.Requested(b, ResourceCPU))
	})
}

// TestNewSnapshot_NodesInAnyOrder: nodes given in strictly increasing
// name order skip the sort and the search for repeated names; any other
// order gives the same snapshot, and a repeated or empty name is reported
// either way.
func TestNewSnapshot_NodesInAnyOrder(t *testing.T) {
	nodes := []Node{
		{Name: "a", Allocatable: ResourceList{ResourceCPU: 1}},
		{Name: "b", Allocatable: ResourceList{ResourceCPU: 2}},
		{Name: "c", Allocatable: ResourceList{ResourceCPU: 3}},
	}
	pods := []Pod{{Namespace: "ns", Name: "p", NodeName: "b", Requests: ResourceList{ResourceCPU: 1}}}
	want, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	for _, order := range [][]int{{0, 2, 1}, {2, 1, 0}, {1, 0, 2}} {
		var in []Node
		for _, i := range order {
			in = append(in, nodes[i])
		}
		s, err := NewSnapshot(in, pods)
		require.NoError(t, err)
		require.Equal(t, dump(want), dump(s), "order %v", order)
	}
	for _, in := range [][]Node{
		{nodes[0], nodes[1], nodes[1], nodes[2]},
		{nodes[1], nodes[0], nodes[1]},
	} {
		s, err := NewSnapshot(in, nil)
		require.Nil(t, s)
		requireFieldError(t, err, ErrDuplicate, `node "b"`, "metadata.name")
	}
	for _, in := range [][]Node{{{}, nodes[0]}, {nodes[0], {}}, {{}, {}}} {
		s, err := NewSnapshot(in, nil)
		require.Nil(t, s)
		requireFieldError(t, err, ErrInvalid, "node #0", "metadata.name")
	}
}
