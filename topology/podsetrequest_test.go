package topology_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Planned members must be one pod set's pods: the error names the field
// in which one differs from the first, and a zero request is none (the
// tester libbreak's finding 08).
func TestPlanPodSets_MembersAreOneTemplate(t *testing.T) {
	s := snapshot(t, []placement.Node{node("h0", 8000, rackKey, "r0")})
	tree, err := topology.NewTree(s, []string{rackKey})
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		edit  func(*placement.Pod)
		field string // "" when the members are alike
	}{
		{"a zero request is none", func(p *placement.Pod) { p.Requests[placement.ResourceMemory] = 0 }, ""},
		{"requests", func(p *placement.Pod) { p.Requests[cpu] = 2000 }, "requests"},
		{"nodeSelector", func(p *placement.Pod) { p.NodeSelector = map[string]string{rackKey: "r0"} }, "nodeSelector"},
		{"tolerations", func(p *placement.Pod) { p.Tolerations = []placement.Toleration{{Key: "k", Operator: "Exists"}} }, "tolerations"},
		{"priority", func(p *placement.Pod) { p.Priority = 10 }, "priority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &placement.Group{Namespace: "default", Name: "g", MinCount: 2}
			for i := range 2 {
				g.Members = append(g.Members, placement.Pod{Namespace: "default", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "g", Requests: placement.ResourceList{cpu: 1000}})
			}
			tc.edit(&g.Members[1])
			p, err := tree.PlanPodSets(s, g, []topology.PodSetRequest{{Required: rackKey}}, topology.PlanOptions{})
			if tc.field == "" {
				require.NoError(t, err)
				require.Equal(t, placement.Scheduled, p.Decision.Status)
				return
			}
			require.EqualError(t, err, fmt.Sprintf(`pod "default/m1": %s: differs from member "m0"'s: planned members are one pod set`, tc.field))
		})
	}
}
