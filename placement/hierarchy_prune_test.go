package placement

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestHierarchy_PropNodeFitIsFit: nodeFit, which slots uses on a host key
// and which reads a node's rows once, gives fit's count on that one node
// — for nodes part used (some overcommitted: used above allocatable),
// resources the children need none of, and needs from 1 to more than a
// node holds.
func TestHierarchy_PropNodeFitIsFit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nNodes := rapid.IntRange(1, 8).Draw(t, "nodes")
		var nodes []Node
		var pods []Pod
		for k := range nNodes {
			name := fmt.Sprint("n", k)
			nodes = append(nodes, Node{Name: name, Allocatable: ResourceList{
				ResourceCPU: rapid.Int64Range(0, 8000).Draw(t, "cpu"),
				ResourceGPU: rapid.Int64Range(0, 8).Draw(t, "gpu"),
			}})
			for j := range rapid.IntRange(0, 3).Draw(t, "pods") {
				pods = append(pods, Pod{Namespace: "o", Name: fmt.Sprint(name, "-", j), NodeName: name, Requests: ResourceList{
					ResourceCPU: rapid.Int64Range(0, 4000).Draw(t, "podCPU"),
					ResourceGPU: rapid.Int64Range(0, 4).Draw(t, "podGPU"),
				}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		n := &hnode{need: rapid.IntRange(1, 6).Draw(t, "need"), childLeast: make([]int64, len(s.b.res))}
		for r := range n.childLeast {
			n.childLeast[r] = rapid.Int64Range(-1, 3000).Draw(t, "least")
		}
		var h hsolver
		for id := range NodeID(len(s.b.nodes)) {
			if got, want := nodeFit(n, s, id), h.fit(n, s, []NodeID{id}); got != want {
				t.Fatalf("node %d: nodeFit %d, fit %d (least %v, need %d)", id, got, want, n.childLeast, n.need)
			}
		}
	})
}
