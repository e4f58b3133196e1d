package placement_test

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// One HierarchyBuffers kept over a run of decisions — trees of listed
// members and of pod sets, placed or not, larger and smaller than the
// last — gives each the decision made without it: nothing of an earlier
// decision shows through the reused memory.
func TestHierarchy_PropBuffersDecideAsWithout(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var buf placement.HierarchyBuffers
		hopts := placement.HierarchyOptions{Buffers: &buf}
		for i := range rapid.IntRange(1, 4).Draw(t, "decisions") {
			c := drawHPodSetCase(t)
			s, err := placement.NewSnapshot(c.nodes, nil)
			if err != nil {
				t.Fatal(err)
			}
			root := c.listed
			if rapid.Bool().Draw(t, "sets") {
				root = c.sets
			}
			want, err := placement.SolveHierarchy(s, root, placement.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := placement.SolveHierarchyWith(s, root, placement.Options{}, hopts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decision %d with buffers %v %s %v, without %v %s %v", i, got.Status, got.Message, leafNodes(got), want.Status, want.Message, leafNodes(want))
			}
		}
	})
}
