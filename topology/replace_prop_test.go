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

// TestProp_ReplacePodSet: a sliced set (one to three layers, required in
// a block or rack) is planned whole, as Kueue admits it, then one or two
// of its nodes fail. Tree.ReplacePodSet answers alike whether the failed
// nodes are tainted NoExecute, gone from the snapshot or only named
// failed. With survivors, the set is repairable exactly when the
// layer-by-layer oracle finds room for the lost pods around them (the
// failed nodes holding none); then no survivor moves, no replacement is
// on a failed node, the set has its count again, and the replacements
// never leave the lost pods' domain at the required and slice levels:
// every pod is in the survivors' required domain and every domain of
// every slice level holds whole slices, survivors and replacements
// together. Without survivors the set is planned as new, its slices
// whole.
func TestProp_ReplacePodSet(t *testing.T) {
	seen := map[string]int{}
	prop := func(t *rapid.T) {
		w := drawSliceWorld(t)
		z := w.sizes[0]
		if len(w.levels) == 1 && z == 1 {
			return
		}
		tmpl := placement.Pod{Requests: placement.ResourceList{cpu: 1000}}
		s0, tr0 := w.empty(t)
		req := w.request()
		count := int32(rapid.IntRange(1, 3).Draw(t, "slices")) * int32(z)
		g := &placement.Group{Namespace: "default", Name: "pg", MinCount: count,
			PodSets: []placement.PodSet{{Name: "w", Count: count, Template: tmpl}}}
		p, err := tr0.PlanPodSets(s0, g, []topology.PodSetRequest{req}, topology.PlanOptions{})
		require.NoError(t, err)
		if p.Decision.Status != placement.Scheduled {
			return
		}
		existing := p.Decision.PodSetAssignments
		w.anchor = w.byName[existing[0].Node]
		var failed []string
		for _, i := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(existing)-1), 1, 2, rapid.ID[int]).Draw(t, "failed") {
			failed = append(failed, existing[i].Node)
		}
		var survivors []string // one per pod
		var lost int64
		for _, a := range existing {
			w.free[a.Node] -= int64(a.Count)
			if slices.Contains(failed, a.Node) {
				lost += int64(a.Count)
				continue
			}
			for range a.Count {
				survivors = append(survivors, a.Node)
			}
		}
		for _, f := range failed {
			w.free[f] = 0
		}

		var first placement.Repaired
		for _, f := range []failure{tainted, gone, notReady} {
			var nodes []placement.Node
			for _, n := range w.nodes {
				switch {
				case slices.Contains(failed, n.Name) && f == gone:
					continue
				case slices.Contains(failed, n.Name) && f == tainted:
					n.Taints = []placement.Taint{{Key: "node.kubernetes.io/unreachable", Effect: placement.TaintEffectNoExecute}}
				}
				nodes = append(nodes, n)
			}
			if len(nodes) == 0 {
				continue // no level left to read: a request error, not a failure
			}
			s, err := placement.NewSnapshot(nodes, nil)
			require.NoError(t, err)
			tr, err := topology.NewTree(s, planKeys)
			require.NoError(t, err)
			var kept []placement.PodSetAssignment
			for _, a := range existing {
				if !slices.Contains(failed, a.Node) {
					a.NodeID, _ = s.NodeID(a.Node)
					kept = append(kept, a)
				}
			}
			if len(kept) > 0 {
				s, err = s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "w", Requests: tmpl.Requests, Nodes: kept}}})
				require.NoError(t, err)
			}
			rep, err := tr.ReplacePodSet(s, g, req, placement.Repair{PodSet: "w", Existing: existing, Failed: failed}, topology.PlanOptions{})
			require.NoError(t, err)
			if f == tainted {
				first = rep
				if len(survivors) > 0 {
					fits := w.fits(survivors, lost)
					require.Equal(t, fits, rep.Repairable, "oracle %v; replace: %s", fits, rep.Reason)
				}
				seen[fmt.Sprint("survivors ", len(survivors) > 0, " repairable ", rep.Repairable)]++
			} else {
				require.Equal(t, first.Repairable, rep.Repairable, "%s and tainted differ: %s / %s", f, rep.Reason, first.Reason)
				require.Equal(t, perNode(first.Replacements), perNode(rep.Replacements), "%s and tainted replace differently", f)
			}
			if !rep.Repairable {
				require.Equal(t, existing, rep.Assignments, "a set that cannot be repaired keeps its assignment")
				continue
			}
			delta := &placement.Group{Namespace: "default", Name: "pg", MinCount: int32(lost),
				PodSets: []placement.PodSet{{Name: "w", Count: int32(lost), Template: tmpl}}}
			require.NoError(t, placement.Verify(s, delta, rep.Decisions[0]))
			var total int64
			for _, a := range rep.Replacements {
				require.False(t, slices.Contains(failed, a.Node), "a replacement on failed node %s", a.Node)
			}
			for _, k := range kept {
				i := slices.IndexFunc(rep.Assignments, func(a placement.PodSetAssignment) bool { return a.Node == k.Node })
				require.True(t, i >= 0 && rep.Assignments[i].Count >= k.Count, "survivors on %s moved", k.Node)
			}
			for _, a := range rep.Assignments {
				total += int64(a.Count)
			}
			require.Equal(t, int64(count), total)
			if len(survivors) == 0 {
				w.anchor = w.byName[rep.Replacements[0].Node]
			}
			w.checkWhole(t, survivors, rep.Replacements)
		}
	}
	kinds := []string{"survivors true repairable true", "survivors true repairable false", "survivors false repairable true"}
	for round := 0; round < 20 && slices.ContainsFunc(kinds, func(k string) bool { return seen[k] == 0 }); round++ {
		rapid.Check(t, prop)
	}
	for _, k := range kinds {
		require.Positive(t, seen[k], "no case %q", k)
	}
}
