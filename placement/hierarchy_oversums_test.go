package placement

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A push's usage sums are the same whether sumsAtOnce takes them or sums
// reads the changed nodes (noSumsAtOnce), and so is any error, after each
// push and each pop: uniform leaves of requests up to near int64's
// limit, on nodes whose bound pods bring a sum near it or saturate it,
// their members by node or not.
func TestProp_SumsAtOnceIsSums(t *testing.T) {
	big := []int64{0, 1, 1000, 1 << 40, 1 << 61, 1 << 62}
	rapid.Check(t, func(t *rapid.T) {
		var nodes []Node
		var bound []Pod
		for i := range rapid.IntRange(1, 20).Draw(t, "nodes") {
			name := fmt.Sprintf("n%02d", i)
			nodes = append(nodes, Node{Name: name, Allocatable: ResourceList{ResourceCPU: 8000, ResourceGPU: 8}})
			for j := range rapid.IntRange(0, 2).Draw(t, "bound") {
				bound = append(bound, Pod{Namespace: "b", Name: fmt.Sprintf("%s-%d", name, j), NodeName: name,
					Requests: ResourceList{ResourceCPU: rapid.SampledFrom(big).Draw(t, "boundCPU")}})
			}
		}
		var os [2]*usageOverlay
		for k := range os {
			s, err := NewSnapshot(nodes, bound)
			if err != nil {
				t.Skip(err) // a node's bound pods past int64
			}
			os[k] = newUsageOverlay(s, false)
		}
		push := func(k int, n *hnode, d Decision) error {
			noSumsAtOnce = k == 1
			defer func() { noSumsAtOnce = false }()
			return os[k].push(n, d, nil)
		}
		for l := range rapid.IntRange(1, 4).Draw(t, "leaves") {
			name := fmt.Sprintf("g%d", l)
			g := &Group{Namespace: "ns", Name: name}
			req := ResourceList{ResourceCPU: rapid.SampledFrom(big).Draw(t, "cpu"), ResourceGPU: int64(rapid.IntRange(0, 1).Draw(t, "gpu"))}
			var d Decision
			for i := range rapid.IntRange(0, 6).Draw(t, "pods") {
				p := Pod{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i), SchedulingGroup: name, Requests: req}
				g.Members = append(g.Members, p)
				id := NodeID(rapid.IntRange(0, len(nodes)-1).Draw(t, "node"))
				d.Assignments = append(d.Assignments, Assignment{Pod: p.Key(), Node: nodes[id].Name, NodeID: id})
			}
			if rapid.Bool().Draw(t, "byNode") {
				slices.SortStableFunc(d.Assignments, func(a, b Assignment) int { return int(a.NodeID - b.NodeID) })
			}
			n := &hnode{src: &HierarchyNode{Name: name, Group: g}, least: make([]int64, len(os[0].s.b.res))}
			n.leafRows(os[0].s.b, new([]int64))
			err0, err1 := push(0, n, d), push(1, n, d)
			if (err0 == nil) != (err1 == nil) || (err0 != nil && err0.Error() != err1.Error()) {
				t.Fatalf("push: %v at once, %v over the nodes", err0, err1)
			}
			if !slices.Equal(os[0].s.usedSum, os[1].s.usedSum) {
				t.Fatalf("sums %v at once, %v over the nodes", os[0].s.usedSum, os[1].s.usedSum)
			}
		}
		for len(os[0].frames) > 0 {
			os[0].pop()
			os[1].pop()
			if !slices.Equal(os[0].s.usedSum, os[1].s.usedSum) {
				t.Fatalf("after pop: sums %v, %v", os[0].s.usedSum, os[1].s.usedSum)
			}
		}
	})
}
