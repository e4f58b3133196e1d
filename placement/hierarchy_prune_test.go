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

// TestHierarchy_PropHostPassIsPasses: mayHoldOnHosts, one pass over the
// nodes reading only the needed columns, answers as mayHold's passes
// (freeOn per resource, then slots) — with nodes lacking the host label
// or carrying it empty, empty values a domain or not, overcommitted
// nodes, needs of none to more than the nodes hold, any subset of nodes.
func TestHierarchy_PropHostPassIsPasses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nNodes := rapid.IntRange(1, 10).Draw(t, "nodes")
		var nodes []Node
		var pods []Pod
		for k := range nNodes {
			name := fmt.Sprint("n", k)
			nd := Node{Name: name, Allocatable: ResourceList{
				ResourceCPU: rapid.Int64Range(0, 8000).Draw(t, "cpu"),
				ResourceGPU: rapid.Int64Range(0, 8).Draw(t, "gpu"),
			}}
			switch rapid.IntRange(0, 4).Draw(t, "label") {
			case 0: // unlabelled
			case 1:
				nd.Labels = map[string]string{"host": ""}
			default:
				nd.Labels = map[string]string{"host": name}
			}
			nodes = append(nodes, nd)
			for j := range rapid.IntRange(0, 3).Draw(t, "pods") {
				pods = append(pods, Pod{Namespace: "o", Name: fmt.Sprint(name, "-", j), NodeName: name, Requests: ResourceList{
					ResourceCPU: rapid.Int64Range(0, 5000).Draw(t, "podCPU"),
					ResourceGPU: rapid.Int64Range(0, 5).Draw(t, "podGPU"),
				}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		ld := s.b.labelDomains("host")
		if len(ld.values) != ld.labelled {
			t.Skip("two nodes share the empty value: not a host key")
		}
		R := len(s.b.res)
		n := &hnode{need: rapid.IntRange(1, 6).Draw(t, "need"), least: make([]int64, R), childLeast: make([]int64, R), childKey: "host", childLD: ld}
		for r := range R {
			n.least[r] = rapid.Int64Range(-1, 20000).Draw(t, "least")
			n.childLeast[r] = rapid.Int64Range(-1, 3000).Draw(t, "childLeast")
		}
		var ids []NodeID
		for id := range NodeID(nNodes) {
			if rapid.Bool().Draw(t, "in") {
				ids = append(ids, id)
			}
		}
		h := hsolver{s: s, noEmpty: rapid.Bool().Draw(t, "noEmpty")}
		want := n.childKey == "" || h.slots(n, s, ids) >= n.need
		for r, need := range n.least {
			if need > 0 && freeOn(s, ids, r, need) < need {
				want = false
			}
		}
		if got := h.mayHoldOnHosts(n, s, ids, ld); got != want {
			t.Fatalf("mayHoldOnHosts %v, passes %v (least %v, child least %v, need %d, nodes %v, noEmpty %v)",
				got, want, n.least, n.childLeast, n.need, ids, h.noEmpty)
		}
	})
}
