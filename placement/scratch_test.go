package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// withWide adds, at a rank never reached when a smaller one schedules, a
// placement of every node: the solver then sizes its scratch usage for the
// whole cluster instead of the largest small placement.
type withWide struct {
	small subsets
	n     int
}

func (w withWide) Generate(s *Snapshot, g GroupView) ([]Placement, error) {
	out, _ := w.small.Generate(s, g)
	all := make([]NodeID, w.n)
	for i := range all {
		all[i] = NodeID(i)
	}
	return append(out, Placement{Name: "wide", Nodes: all, Rank: 99}), nil
}

// TestProp_ScratchSizedBySmallPlacements: scratch usage is sized by the
// largest placement (80fa175); heterogeneous members with pod affinity,
// anti-affinity and sub-groups with a topology key force the search to
// try and take back members over many nodes of a small placement. The
// decision in the small placements is the one the solver reaches with
// scratch sized for every node.
func TestProp_ScratchSizedBySmallPlacements(t *testing.T) {
	feasible, infeasible := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(4, 48).Draw(t, "nodes")
		var nodes []Node
		for i := range n {
			nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i),
				Labels:      map[string]string{"kubernetes.io/hostname": fmt.Sprintf("n%02d", i), "rack": fmt.Sprint(rapid.IntRange(0, 3).Draw(t, "rack"))},
				Allocatable: ResourceList{ResourceCPU: rapid.Int64Range(1, 4).Draw(t, "cpu") * 1000, ResourcePods: 110}})
		}
		s, err := NewSnapshot(nodes, nil)
		require.NoError(t, err)
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
		for i := range rapid.IntRange(1, 9).Draw(t, "members") {
			role := []string{"a", "b"}[rapid.IntRange(0, 1).Draw(t, "role")]
			p := Pod{Namespace: "default", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "pg", Labels: map[string]string{"role": role},
				Requests: ResourceList{ResourceCPU: rapid.Int64Range(1, 3).Draw(t, "req") * 1000}}
			switch rapid.IntRange(0, 3).Draw(t, "affinity") {
			case 1: // spread over hosts from the other role's members
				p.Affinity = &Affinity{PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{
					LabelSelector: LabelSelector{MatchLabels: map[string]string{"role": role}}, TopologyKey: "kubernetes.io/hostname"}}}}
			case 2: // in a rack with the other role
				other := map[string]string{"a": "b", "b": "a"}[role]
				p.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{{
					LabelSelector: LabelSelector{MatchLabels: map[string]string{"role": other}}, TopologyKey: "rack"}}}}
			}
			g.Members = append(g.Members, p)
		}
		if rapid.Bool().Draw(t, "subGroups") {
			g.SubGroups = []SubGroup{{Name: "a", Selector: LabelSelector{MatchLabels: map[string]string{"role": "a"}},
				TopologyKey: "rack"}}
		}
		g.MinCount = int32(rapid.IntRange(1, len(g.Members)).Draw(t, "min"))
		var small subsets
		for range rapid.IntRange(1, 4).Draw(t, "placements") {
			var sub []NodeID
			for id := range NodeID(n) {
				if rapid.IntRange(0, 5).Draw(t, "in") == 0 {
					sub = append(sub, id)
				}
			}
			small = append(small, sub)
		}
		want, err := Solve(s, g, Options{Generator: withWide{small, n}})
		require.NoError(t, err)
		got, err := Solve(s, g, Options{Generator: small})
		require.NoError(t, err)
		if want.Status != Scheduled || want.Placement.Name == "wide" {
			require.NotEqual(t, "wide", got.Placement.Name)
			infeasible++
			return
		}
		feasible++
		require.Equal(t, want, got)
		require.NoError(t, Verify(s, g, got))
	})
	require.Positive(t, feasible)
	require.Positive(t, infeasible)
}
