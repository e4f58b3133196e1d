package placement

import (
	"fmt"

	"pgregory.net/rapid"
)

// drawLabelledSnapshot draws a snapshot of 1..maxNodes nodes of 1 cpu for
// the affinity properties: most nodes carry a "host" label of their own,
// some a "zone" of two values or the empty value (a value too), some
// neither.
func drawLabelledSnapshot(t *rapid.T, maxNodes int) *Snapshot {
	nNodes := rapid.IntRange(1, maxNodes).Draw(t, "nodes")
	var nodes []Node
	for k := range nNodes {
		labels := map[string]string{}
		if rapid.IntRange(0, 4).Draw(t, "hasHost") > 0 {
			labels["host"] = fmt.Sprint("h", k)
		}
		if z := rapid.IntRange(0, 3).Draw(t, "zone"); z > 0 {
			labels["zone"] = fmt.Sprint("z", z)
			if z == 3 {
				labels["zone"] = "" // the empty value is a value
			}
		}
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", k), Labels: labels, Allocatable: ResourceList{ResourceCPU: 1000}})
	}
	s, err := NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// drawPositions draws a node of s for each of nb bound and np pending
// members, bound first; a pending member may be unplaced (-1).
func drawPositions(t *rapid.T, s *Snapshot, nb, np int) []NodeID {
	pos := make([]NodeID, nb+np)
	for k := range pos {
		pos[k] = NodeID(rapid.IntRange(0, s.NumNodes()-1).Draw(t, "pos"))
		if k >= nb && rapid.Bool().Draw(t, "unplaced") {
			pos[k] = -1
		}
	}
	return pos
}
