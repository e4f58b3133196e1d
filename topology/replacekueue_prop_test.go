package topology_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_ReplacePodSetKueue: a sliced set (one to three layers,
// Required or Preferred at a block or rack) is planned whole under
// KueueProfile, then one of its nodes is deleted. Under KueueProfile
// Tree.ReplacePodSet keeps every replacement inside Kueue v0.17's
// required replacement domain, computed here from its rule by label
// paths (requiredReplacementDomain): when the lost count is no multiple
// of the outermost slice size, the domain of the innermost broken
// layer's level whose survivors and lost pods make whole slices; else,
// for a Required set, the survivors' domain of that level; else none.
// A repairable set has its count again, its survivors unmoved, the
// replacement verifies, and when the rule keeps a slice layer (the
// innermost one whose size divides the lost count) the replacements
// make whole slices of it in each of its domains.
func TestProp_ReplacePodSetKueue(t *testing.T) {
	seen := map[string]int{}
	prop := func(t *rapid.T) {
		w := drawSliceWorld(t)
		tmpl := placement.Pod{Requests: placement.ResourceList{cpu: 1000}}
		s0, tr0 := w.empty(t)
		req := w.request()
		if rapid.Bool().Draw(t, "preferred") {
			req.Preferred, req.Required = req.Required, ""
		}
		count := int32(rapid.IntRange(1, 3).Draw(t, "slices")) * int32(w.sizes[0])
		g := &placement.Group{Namespace: "default", Name: "pg", MinCount: count,
			PodSets: []placement.PodSet{{Name: "w", Count: count, Template: tmpl}}}
		opts := topology.KueueProfile.Options()
		p, err := tr0.PlanPodSets(s0, g, []topology.PodSetRequest{req}, opts)
		require.NoError(t, err)
		if p.Decision.Status != placement.Scheduled {
			return
		}
		existing := p.Decision.PodSetAssignments
		failed := existing[rapid.IntRange(0, len(existing)-1).Draw(t, "failed")].Node
		var nodes []placement.Node
		for _, n := range w.nodes {
			if n.Name != failed {
				nodes = append(nodes, n)
			}
		}
		s, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		var kept []placement.PodSetAssignment
		var lost int64
		for _, a := range existing {
			if a.Node == failed {
				lost += int64(a.Count)
				continue
			}
			a.NodeID, _ = s.NodeID(a.Node)
			kept = append(kept, a)
		}
		if len(kept) > 0 {
			s, err = s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "w", Requests: tmpl.Requests, Nodes: kept}}})
			require.NoError(t, err)
		}
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		rep, err := tr.ReplacePodSet(s, g, req, placement.Repair{PodSet: "w", Existing: existing, Failed: []string{failed}}, opts)
		require.NoError(t, err)

		// Kueue's rule, by label paths.
		level, dom := -1, ""
		layer := -1 // the slice layer kept: -1 none, len(req.Slices) all
		switch {
		case len(kept) == 0:
			layer = len(req.Slices)
		case lost%w.sizes[0] != 0:
			i := len(w.sizes) - 1
			for i > 0 && lost%w.sizes[i] == 0 {
				i--
			}
			level = w.levels[i]
			per := map[string]int64{}
			for _, a := range kept {
				per[domOf(w.byName[a.Node], level)] += int64(a.Count)
			}
			for d, n := range per {
				if (n+lost)%w.sizes[i] == 0 {
					require.Empty(t, dom, "two domains of level %d complete a slice", level)
					dom = d
				}
			}
			require.NotEmpty(t, dom, "no incomplete slice domain")
			for j := len(w.sizes) - 1; j >= 0; j-- {
				if lost%w.sizes[j] == 0 {
					layer = j
					break
				}
			}
		default:
			layer = len(req.Slices)
			if req.Required != "" {
				level = w.reqLevel
				dom = domOf(w.byName[kept[0].Node], level)
			}
		}
		seen[fmt.Sprint("confined ", dom != "", " repairable ", rep.Repairable)]++
		if !rep.Repairable {
			require.Equal(t, existing, rep.Assignments)
			return
		}
		var got int64
		for _, a := range rep.Replacements {
			got += int64(a.Count)
			require.NotEqual(t, failed, a.Node)
			if dom != "" {
				require.Equal(t, dom, domOf(w.byName[a.Node], level), "replacement on %s leaves Kueue's replacement domain", a.Node)
			}
		}
		require.Equal(t, lost, got)
		delta := &placement.Group{Namespace: "default", Name: "pg", MinCount: int32(lost),
			PodSets: []placement.PodSet{{Name: "w", Count: int32(lost), Template: tmpl}}}
		require.NoError(t, placement.Verify(s, delta, rep.Decisions[0]))
		for _, k := range kept {
			i := slices.IndexFunc(rep.Assignments, func(a placement.PodSetAssignment) bool { return a.Node == k.Node })
			require.True(t, i >= 0 && rep.Assignments[i].Count >= k.Count, "survivors on %s moved", k.Node)
		}
		for j := range w.sizes {
			if layer != len(req.Slices) && j != layer {
				continue
			}
			per := map[string]int64{}
			for _, a := range rep.Replacements {
				per[domOf(w.byName[a.Node], w.levels[j])] += int64(a.Count)
			}
			for d, n := range per {
				require.Zero(t, n%w.sizes[j], "replacements in %s: %d pods, not whole slices of %d", d, n, w.sizes[j])
			}
		}
	}
	kinds := []string{"confined true repairable true", "confined true repairable false", "confined false repairable true"}
	for round := 0; round < 20 && slices.ContainsFunc(kinds, func(k string) bool { return seen[k] == 0 }); round++ {
		rapid.Check(t, prop)
	}
	for _, k := range kinds {
		require.Positive(t, seen[k], "no case %q", k)
	}
}
