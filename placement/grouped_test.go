package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// subsets is a generator of fixed placements: node subsets drawn by a
// test, each given in ascending ID order.
type subsets [][]NodeID

func (p subsets) Generate(*Snapshot, *Group) ([]Placement, error) {
	out := make([]Placement, len(p))
	for i, nodes := range p {
		out[i] = Placement{Name: fmt.Sprintf("p%d", i), Nodes: nodes, Rank: i % 2}
	}
	return out, nil
}

// TestProp_GroupedSourcesEqualOneByOne checks the batched placement over a
// placement smaller than the cluster, which groups untouched nodes by type
// and usage, against placing the members one by one. The nodes share one
// or two types and have few usage levels, so groups hold many nodes; a
// node selector sometimes splits a type by labels; two shapes of members
// make each run after the first meet nodes an earlier one touched. Every
// placement holds room for every member, so both decide in their first
// greedy pass (the searches that follow a pass that falls short may find
// different assignments of the same size).
func TestProp_GroupedSourcesEqualOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(6, 40).Draw(t, "nodes")
		nodes := make([]Node, n)
		var pods []Pod
		for i := range nodes {
			gpus := int64(16)
			if rapid.IntRange(0, 3).Draw(t, "big") == 0 {
				gpus = 32
			}
			pool := "a" // nodes 0, 1, 3, 4 are in pool a
			if i%3 == 2 {
				pool = "b"
			}
			nodes[i] = Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{"pool": pool},
				Allocatable: ResourceList{ResourceCPU: 128000, ResourceGPU: gpus, ResourcePods: 110}}
			if used := rapid.IntRange(0, 3).Draw(t, "used"); used > 0 {
				pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%02d", i), NodeName: nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 8000 * int64(used), ResourceGPU: 2 * int64(used)}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		var gen subsets
		for range rapid.IntRange(1, 3).Draw(t, "placements") {
			sub := []NodeID{0, 1, 3, 4} // room for 20 members even in pool a
			for id := NodeID(5); id < NodeID(n); id++ {
				if rapid.Bool().Draw(t, "in") {
					sub = append(sub, id)
				}
			}
			gen = append(gen, sub)
		}
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
		shapes := []ResourceList{{ResourceCPU: 8000, ResourceGPU: 1}, {ResourceCPU: 4000, ResourceGPU: 2}}
		var selector map[string]string
		if rapid.Bool().Draw(t, "selector") {
			selector = map[string]string{"pool": "a"}
		}
		for i := range rapid.IntRange(1, 20).Draw(t, "members") {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("m%02d", i), SchedulingGroup: "pg",
				Requests: shapes[rapid.IntRange(0, 1).Draw(t, "shape")], NodeSelector: selector})
		}
		g.MinCount = int32(len(g.Members))
		fast, err := Solve(s, g, Options{Generator: gen})
		require.NoError(t, err)
		slow, err := Solve(s, g, Options{Generator: gen, Filters: []Filter{noop}})
		require.NoError(t, err)
		require.Equal(t, Scheduled, slow.Status, slow.Message)
		fast.Steps, slow.Steps = 0, 0
		require.Equal(t, slow, fast)
	})
}

// TestProp_ConsecutiveDomainsByClassesEqualOneByOne checks the batched
// placement over a domain of 64 or more nodes with consecutive IDs, which
// streams the snapshot's classes of identical nodes restricted to the
// domain, against placing the members one by one: the same decision. The
// domains are windows of a cluster of 64–160 nodes with a few usage
// levels (so that classes are few to the nodes), sometimes with a hole
// (then the nodes are grouped one by one instead); members of two shapes
// and a gang larger than one window's room make runs meet nodes an earlier
// run touched, and let a placement fall short.
func TestProp_ConsecutiveDomainsByClassesEqualOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(64, 160).Draw(t, "nodes")
		nodes := make([]Node, n)
		var pods []Pod
		for i := range nodes {
			nodes[i] = Node{Name: fmt.Sprintf("n%03d", i), Allocatable: ResourceList{ResourceCPU: 64000, ResourceGPU: 8, ResourcePods: 110}}
			if used := rapid.IntRange(0, 8).Draw(t, "used"); used > 0 {
				pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%03d", i), NodeName: nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 8000 * int64(used), ResourceGPU: int64(used)}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		var gen subsets
		for range rapid.IntRange(1, 3).Draw(t, "placements") {
			size := rapid.IntRange(64, n).Draw(t, "size")
			lo := rapid.IntRange(0, n-size).Draw(t, "lo")
			var sub []NodeID
			hole := -1
			if rapid.IntRange(0, 3).Draw(t, "holey") == 0 {
				hole = lo + rapid.IntRange(1, size-2).Draw(t, "hole")
			}
			for id := lo; id < lo+size; id++ {
				if id != hole {
					sub = append(sub, NodeID(id))
				}
			}
			gen = append(gen, sub)
		}
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
		shapes := []ResourceList{{ResourceCPU: 8000, ResourceGPU: 1}, {ResourceCPU: 4000, ResourceGPU: 2}}
		for i := range rapid.IntRange(1, 300).Draw(t, "members") {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("m%03d", i), SchedulingGroup: "pg",
				Requests: shapes[rapid.IntRange(0, 1).Draw(t, "shape")]})
		}
		g.MinCount = int32(rapid.IntRange(1, len(g.Members)).Draw(t, "minCount"))
		opts := Options{Generator: gen, SearchBudget: 1} // the greedy passes: searches may pick other nodes alike
		fast, err := Solve(s, g, opts)
		require.NoError(t, err)
		opts.Filters = []Filter{noop}
		slow, err := Solve(s, g, opts)
		require.NoError(t, err)
		fast.Steps, slow.Steps = 0, 0
		require.Equal(t, slow, fast)
	})
}
