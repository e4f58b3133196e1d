package topology_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_FreeMovesWithTheSnapshot: the free sums a tree keeps per domain
// (read by Free and by the generator's per-domain tests) equal the sums
// of the nodes' own free quantities on every snapshot of a chain the tree
// is moved along, not only on the one it was built from.
func TestProp_FreeMovesWithTheSnapshot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 10).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i),
				Labels:      map[string]string{"block": rapid.SampledFrom([]string{"x", "y"}).Draw(t, "block"), "rack": rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "rack")},
				Allocatable: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 8).Draw(t, "cpu"), placement.ResourceGPU: rapid.Int64Range(0, 4).Draw(t, "gpu")}})
		}
		s, err := placement.NewSnapshot(nodes, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := topology.NewTree(s, []string{"block", "rack"})
		if err != nil {
			t.Fatal(err)
		}
		var pods []placement.Key
		for step := range rapid.IntRange(1, 5).Draw(t, "snapshots") {
			var ch placement.Change
			for _, k := range pods {
				if rapid.IntRange(0, 2).Draw(t, "remove") == 0 {
					ch.Remove = append(ch.Remove, k)
				}
			}
			for i := range rapid.IntRange(0, 4).Draw(t, "bind") {
				ch.Bind = append(ch.Bind, placement.Pod{Namespace: "x", Name: fmt.Sprintf("p%d-%d", step, i),
					NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name,
					Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 6).Draw(t, "pcpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "pgpu")}})
			}
			if s, err = s.Apply(ch); err != nil {
				t.Fatal(err)
			}
			pods = pods[:0:0]
			for p := range s.Pods() {
				pods = append(pods, p.Key())
			}
			for level := range 2 {
				for d := range tr.Domains(level) {
					for _, r := range []placement.ResourceName{placement.ResourceCPU, placement.ResourceGPU} {
						got, _, err := tr.Free(s, d.ID, r)
						if err != nil {
							t.Fatal(err)
						}
						var want int64
						for _, id := range d.Nodes {
							want += max(s.Free(id, r), 0)
						}
						if got != want {
							t.Fatalf("snapshot %d, domain %s, %s: Free %d, the nodes' sum %d", step, d.Path, r, got, want)
						}
					}
				}
			}
		}
	})
}
