package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_StaticFitKeptPerKey: a tree planning templates one after
// another, their nodeSelector, tolerations and required affinity drawn
// from a few (the same selector in a new map, nil and empty alike),
// plans each exactly as a tree built for it alone: a node's static fit is
// kept only while the template asks the same of it.
func TestProp_StaticFitKeptPerKey(t *testing.T) {
	selectors := []map[string]string{nil, {}, {"disk": "ssd"}, {"disk": "hdd"}, {"disk": "ssd", blockKey: "b1"}}
	tolerations := [][]placement.Toleration{nil,
		{{Key: "dedicated", Operator: placement.TolerationOpExists}},
		{{Key: "node.kubernetes.io/unschedulable", Operator: placement.TolerationOpExists, Effect: placement.TaintEffectNoSchedule}}}
	affinity := &placement.NodeAffinity{Required: []placement.NodeSelectorTerm{{MatchExpressions: []placement.NodeSelectorRequirement{
		{Key: rackKey, Operator: placement.NodeSelectorOpIn, Values: []string{"r1", "r2"}}}}}}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		for i := range c.nodes {
			c.nodes[i].Labels["disk"] = rapid.SampledFrom([]string{"ssd", "hdd"}).Draw(t, "disk")
			c.nodes[i].Unschedulable = rapid.IntRange(0, 5).Draw(t, "cordoned") == 0
		}
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		req := c.req
		req.PodSet = "w"
		opts := topology.PlanOptions{Balanced: c.balanced, KueueBalanced: c.kueueBalanced}
		for range rapid.IntRange(1, 6).Draw(t, "plans") {
			g := c.group(false)
			tmpl := &g.PodSets[0].Template
			if sel := selectors[rapid.IntRange(0, len(selectors)-1).Draw(t, "selector")]; sel != nil {
				tmpl.NodeSelector = map[string]string{}
				for k, v := range sel {
					tmpl.NodeSelector[k] = v
				}
			}
			tmpl.Tolerations = tolerations[rapid.IntRange(0, len(tolerations)-1).Draw(t, "tolerations")]
			if rapid.IntRange(0, 3).Draw(t, "affinity") == 0 {
				tmpl.NodeAffinity = affinity
			}
			got, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts)
			fresh, ferr := topology.NewTree(s, planKeys)
			require.NoError(t, ferr)
			want, werr := fresh.PlanPodSets(s, g, []topology.PodSetRequest{req}, opts)
			if errors.Is(werr, topology.ErrNoDomain) {
				require.ErrorIs(t, err, topology.ErrNoDomain)
				continue
			}
			require.Equal(t, werr, err)
			require.Equal(t, want, got)
		}
	})
}
