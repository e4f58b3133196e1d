package placement

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSM_Work checks the scratch state against a map model through adds,
// subtractions and resets, on enough nodes that it switches from its map
// to its dense table and back to empty.
func TestSM_Work(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const R = 2
		nodes := rapid.IntRange(1, 120).Draw(t, "nodes")
		w := newWork(R, nodes)
		model := map[NodeID][R]int64{}
		for range rapid.IntRange(0, 300).Draw(t, "ops") {
			id := NodeID(rapid.IntRange(0, nodes-1).Draw(t, "node"))
			req := []int64{rapid.Int64Range(0, 9).Draw(t, "r0"), rapid.Int64Range(0, 9).Draw(t, "r1")}
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				w.reset()
				clear(model)
			case 1:
				w.sub(id, req)
				row := model[id]
				row[0], row[1] = row[0]-req[0], row[1]-req[1]
				model[id] = row
			default:
				k := rapid.Int64Range(1, 3).Draw(t, "k")
				w.add(id, req, k)
				row := model[id]
				row[0], row[1] = row[0]+req[0]*k, row[1]+req[1]*k
				model[id] = row
			}
			if len(w.touched) != len(model) {
				t.Fatalf("%d nodes touched, model has %d", len(w.touched), len(model))
			}
			for n := range NodeID(nodes) {
				row, in := model[n]
				_, ok := w.offset(n)
				if ok != in || w.extra(n, 0) != row[0] || w.extra(n, 1) != row[1] {
					t.Fatalf("node %d: work has %v (%d, %d), model %v %v", n, ok, w.extra(n, 0), w.extra(n, 1), in, row)
				}
			}
		}
	})
}
