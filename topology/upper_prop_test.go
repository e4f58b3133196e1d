package topology

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
)

// TestProp_UpperIsTheScoreOfEveryMember: a domain's score bound, which
// split reads for every candidate (MostAllocated's from the domain's sums
// alone), is the score of the domain with every pending member placed, as
// score computes it from any node set, for both kinds and every domain,
// with resources some nodes lack, members that request nothing of one, and
// a pod set beside listed members.
func TestProp_UpperIsTheScoreOfEveryMember(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []placement.Node
		for i := range rapid.IntRange(1, 20).Draw(t, "nodes") {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i),
				Labels: map[string]string{"block": fmt.Sprint(rapid.IntRange(0, 2).Draw(t, "block")), "rack": fmt.Sprint(rapid.IntRange(0, 5).Draw(t, "rack"))},
				Allocatable: placement.ResourceList{placement.ResourceCPU: rapid.SampledFrom([]int64{0, 4, 8, 64000}).Draw(t, "cpu"),
					placement.ResourceGPU: rapid.SampledFrom([]int64{0, 2, 8}).Draw(t, "gpu")}})
		}
		var pods []placement.Pod
		for i := range rapid.IntRange(0, 10).Draw(t, "pods") {
			pods = append(pods, placement.Pod{Namespace: "x", Name: fmt.Sprintf("p%d", i), NodeName: nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "on")].Name,
				Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 4).Draw(t, "pcpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, "pgpu")}})
		}
		s, err := placement.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := NewTree(s, []string{"block", "rack"})
		if err != nil {
			t.Fatal(err)
		}
		req := func(label string) placement.ResourceList {
			return placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 3000).Draw(t, label+"cpu"), placement.ResourceGPU: rapid.Int64Range(0, 2).Draw(t, label+"gpu")}
		}
		g := &placement.Group{Namespace: "default", Name: "g", MinCount: 1}
		for i := range rapid.IntRange(0, 3).Draw(t, "members") {
			g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "g", Requests: req("m")})
		}
		if len(g.Members) == 0 || rapid.Bool().Draw(t, "podSet") {
			g.PodSets = []placement.PodSet{{Name: "w", Count: int32(rapid.IntRange(1, 5000).Draw(t, "count")), Template: placement.Pod{Requests: req("t")}}}
		}
		c, err := tr.capacityFor(s)
		if err != nil {
			t.Fatal(err)
		}
		sh := newShape(c, 0, placement.GroupView{Group: g})
		for _, kind := range []Scoring{MostAllocated, BestFit} {
			sc := &Scorer{tree: tr, kind: kind}
			for d := range DomainID(len(tr.doms)) {
				if got, want := sc.upper(c, sh, d), sc.score(c, sh, d, tr.doms[d].nodes, sh.total, sh.n); got != want {
					t.Fatalf("%s, domain %s: upper %d, the score of every member %d", kind, tr.doms[d].path, got, want)
				}
			}
		}
	})
}
