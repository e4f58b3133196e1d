package placement

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSM_Work checks the scratch state (rows, offsets, touched bits)
// against a map model through adds, subtractions and resets, on enough
// nodes that it switches from its sparse table to its dense one (or
// starts dense) and back to empty.
func TestSM_Work(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const R = 2
		nodes := rapid.IntRange(1, 120).Draw(t, "nodes")
		w := newWork(R, nodes, rapid.IntRange(0, 40).Draw(t, "expect"))
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
				if ok != in || w.isTouched(n) != in || w.extra(n, 0) != row[0] || w.extra(n, 1) != row[1] {
					t.Fatalf("node %d: work has %v (%d, %d), model %v %v", n, ok, w.extra(n, 0), w.extra(n, 1), in, row)
				}
			}
		}
	})
}

// TestWork_SparseThenDense pins the switch: a table sized for a few nodes
// stays sparse while at most half full, then goes dense keeping every row.
func TestWork_SparseThenDense(t *testing.T) {
	w := newWork(1, 1000, 4) // 8 slots
	if w.dense != nil || len(w.slots) != 8 {
		t.Fatalf("want a sparse table of 8 slots, got dense=%v slots=%d", w.dense != nil, len(w.slots))
	}
	for k := range 4 {
		w.add(NodeID(100*k), []int64{int64(k + 1)}, 1)
	}
	if w.dense != nil {
		t.Fatal("went dense at half full")
	}
	w.add(999, []int64{7}, 2)
	if w.dense == nil {
		t.Fatal("still sparse past half full")
	}
	for k := range 4 {
		if got := w.extra(NodeID(100*k), 0); got != int64(k+1) {
			t.Fatalf("node %d: %d after going dense, want %d", 100*k, got, k+1)
		}
	}
	if got := w.extra(999, 0); got != 14 {
		t.Fatalf("node 999: %d, want 14", got)
	}
	w.reset()
	if _, ok := w.offset(0); ok || len(w.touched) != 0 {
		t.Fatal("reset left a row")
	}
	if newWork(1, 100, 30).dense == nil {
		t.Fatal("expecting a third of the nodes should start dense")
	}
}
