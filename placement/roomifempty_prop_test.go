package placement

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_RoomIfEmptyFastAsSummed: a failing pod set's Unresolvable test
// (roomSomewhereIfEmpty) decides as the general path does when it sums a
// placement's allocatable only until the requested resources reach their
// need (allocReaches) and skips placements the selection found usable.
// Whole decisions are compared, placements drawn as subsets of the nodes
// (some invalid, some without the bound member) with quantities up to
// int64's top, so that saturated sums and early stops are both met; a
// bound member makes the placements without its node unusable.
func TestProp_RoomIfEmptyFastAsSummed(t *testing.T) {
	defer func() { roomFastOff = false }()
	unresolvable, unschedulable := 0, 0
	defer func() {
		if !t.Failed() && (unresolvable == 0 || unschedulable == 0) {
			t.Errorf("decisions seen: %d Unresolvable, %d Unschedulable; want both", unresolvable, unschedulable)
		}
	}()
	// A run of 100 draws may meet no Unschedulable decision (a set that
	// fits the empty nodes but not the used ones): further runs, on new
	// seeds, until both are seen.
	for run := 0; run < 20 && (unresolvable == 0 || unschedulable == 0) && !t.Failed(); run++ {
		checkRoomIfEmpty(t, &unresolvable, &unschedulable)
	}
}

// checkRoomIfEmpty is one rapid run of TestProp_RoomIfEmptyFastAsSummed,
// counting the decisions of each status.
func checkRoomIfEmpty(t *testing.T, unresolvable, unschedulable *int) {
	rapid.Check(t, func(t *rapid.T) {
		qty := func(label string) int64 {
			return rapid.OneOf(rapid.Int64Range(0, 8), rapid.Just(int64(1)<<62), rapid.Just(int64(1<<63-1))).Draw(t, label)
		}
		var nodes []Node
		for i := range rapid.IntRange(1, 8).Draw(t, "nodes") {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i),
				Allocatable: ResourceList{ResourceCPU: qty("cpu"), ResourceGPU: qty("gpu"), ResourcePods: rapid.Int64Range(1, 6).Draw(t, "pods")}})
		}
		var pods []Pod
		for i := range rapid.IntRange(0, 4).Draw(t, "used") {
			pods = append(pods, Pod{Namespace: "x", Name: fmt.Sprintf("u%d", i), NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name,
				Requests: ResourceList{ResourceCPU: rapid.Int64Range(0, 8).Draw(t, "ucpu"), ResourceGPU: rapid.Int64Range(0, 4).Draw(t, "ugpu")}})
		}
		if rapid.IntRange(0, 2).Draw(t, "bound") == 0 { // placements without its node are not usable
			pods = append(pods, Pod{Namespace: "default", Name: "b0", SchedulingGroup: "g", NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "bon")].Name,
				Requests: ResourceList{ResourceCPU: rapid.Int64Range(0, 2).Draw(t, "bcpu")}})
		}
		s, err := NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		g := &Group{Namespace: "default", Name: "g", MinCount: int32(rapid.IntRange(1, 30).Draw(t, "min")), PodSets: []PodSet{{Name: "w",
			Count:    int32(rapid.IntRange(1, 30).Draw(t, "count")),
			Template: Pod{Requests: ResourceList{ResourceCPU: rapid.Int64Range(0, 4).Draw(t, "mcpu"), ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "mgpu")}}}}}
		var ps []Placement
		for i := range rapid.IntRange(0, 4).Draw(t, "placements") {
			var ids []NodeID
			for id := range NodeID(len(nodes)) {
				if rapid.Bool().Draw(t, "in") {
					ids = append(ids, id)
				}
			}
			ps = append(ps, Placement{Name: fmt.Sprintf("p%d", i), Nodes: ids, Rank: rapid.IntRange(0, 1).Draw(t, "rank")})
		}
		gen := PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) {
			out := slices.Clone(ps)
			for i := range out {
				out[i].Nodes = slices.Clone(out[i].Nodes)
			}
			return out, nil
		})
		opts := Options{Generator: gen}
		roomFastOff = true
		want, werr := Solve(s, g, opts)
		roomFastOff = false
		got, gerr := Solve(s, g, opts)
		if fmt.Sprintf("%#v %v", got, gerr) != fmt.Sprintf("%#v %v", want, werr) {
			t.Fatalf("fast path:\n%#v %v\ngeneral path:\n%#v %v", got, gerr, want, werr)
		}
		switch got.Status {
		case Unresolvable:
			*unresolvable++
		case Unschedulable:
			*unschedulable++
		}
	})
}
