package placement

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSM_GroupScratch checks groupSources' table against a map model as
// it grows from 128 slots, with hashes whose top bits take a few values so
// that probes collide, and that clearing the groups' slots empties it.
func TestSM_GroupScratch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gs := &groupScratch{table: make([]int32, 128), bits: 7}
		var groups []nodeGroup
		model := map[int32]int{} // typ -> group
		for range rapid.IntRange(0, 400).Draw(t, "ops") {
			typ := rapid.Int32Range(0, 300).Draw(t, "typ")
			hash := uint64(typ%8)<<61 | uint64(typ) // eight top bits: probes collide
			got := gs.find(groups, hash, typ, nil)
			if want, ok := model[typ]; !ok && got >= 0 || ok && got != want {
				t.Fatalf("typ %d: found %d, model %d (%v)", typ, got, want, ok)
			}
			if got < 0 {
				groups = append(groups, nodeGroup{typ: typ, hash: hash})
				gs.insert(groups, len(groups)-1)
				model[typ] = len(groups) - 1
			}
		}
		if 2*len(groups) > len(gs.table) {
			t.Fatalf("%d groups in %d slots: more than half full", len(groups), len(gs.table))
		}
		for _, g := range groups {
			gs.table[g.slot] = 0
		}
		for i, e := range gs.table {
			if e != 0 {
				t.Fatalf("slot %d still holds group %d", i, e-1)
			}
		}
	})
}
