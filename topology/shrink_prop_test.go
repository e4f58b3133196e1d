package topology_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_ShrinkSlicedSet: an elastic sliced set (one to three layers,
// required in a block or rack) shrinks to M, a multiple of its outermost
// slice size below its N pods. Its existing pods are a plan's (whole
// slices) or drawn at random in the required domain (slices left
// incomplete, as a lost node leaves them). The shrink succeeds exactly
// when some M of the existing pods are whole slices of every layer (an
// oracle that sums every domain's possible counts, without the greedy's
// reasoning); then no kept pod moves (each node keeps at most its pods,
// Removed and Assignments add up to the existing pods), M pods are kept,
// and every domain of every slice level holds a multiple of its slice
// size. Otherwise the error wraps ErrShrinkBreaksSlices.
func TestProp_ShrinkSlicedSet(t *testing.T) {
	seen := map[string]int{}
	prop := func(t *rapid.T) {
		w := drawSliceWorld(t)
		z := w.sizes[0]
		tmpl := placement.Pod{Requests: placement.ResourceList{cpu: 1000}}
		s0, tr := w.empty(t)
		req := w.request()
		var on []string // the existing pods' nodes, one per pod
		planned := rapid.Bool().Draw(t, "planned")
		if planned {
			k := rapid.IntRange(2, 4).Draw(t, "oldSlices")
			old := &placement.Group{Namespace: "default", Name: "pg", MinCount: int32(k) * int32(z),
				PodSets: []placement.PodSet{{Name: "w", Count: int32(k) * int32(z), Template: tmpl}}}
			p, err := tr.PlanPodSets(s0, old, []topology.PodSetRequest{req}, topology.PlanOptions{})
			require.NoError(t, err)
			if p.Decision.Status != placement.Scheduled {
				return
			}
			w.anchor = w.byName[p.Decision.PodSetAssignments[0].Node]
			for _, a := range p.Decision.PodSetAssignments {
				for range a.Count {
					on = append(on, a.Node)
				}
			}
		} else {
			on = w.drawFixed(t, 16)
		}
		N := int64(len(on))
		if N <= z {
			return
		}
		M := z * rapid.Int64Range(1, (N-1)/z).Draw(t, "keptSlices")
		slices.Sort(on)
		var existing []placement.PodSetAssignment
		for _, name := range on {
			if k := len(existing); k > 0 && existing[k-1].Node == name {
				existing[k-1].Count++
				continue
			}
			id, _ := s0.NodeID(name)
			existing = append(existing, placement.PodSetAssignment{PodSet: "w", Node: name, NodeID: id, Count: 1})
		}
		key := placement.Key{Namespace: "default", Name: "pg"}
		s, err := s0.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: key, PodSet: "w", Requests: tmpl.Requests, Nodes: existing}}})
		require.NoError(t, err)
		g := &placement.Group{Namespace: "default", Name: "pg", MinCount: int32(M),
			PodSets: []placement.PodSet{{Name: "w", Count: int32(M), Template: tmpl}}}
		rs, err := tr.ResizePodSet(s, g, req, placement.Resize{PodSet: "w", Existing: existing}, topology.PlanOptions{})

		possible := w.keepable(existing, 0)[M]
		if !possible {
			require.True(t, errors.Is(err, topology.ErrShrinkBreaksSlices), "no %d of the pods are whole slices, yet: %v", M, err)
			require.False(t, planned, "a plan's whole slices cannot be kept")
			seen["cannot keep"]++
			return
		}
		require.NoError(t, err)
		seen[map[bool]string{true: "planned", false: "drawn"}[planned]]++
		require.Equal(t, placement.Scheduled, rs.Decision.Status)
		require.Empty(t, rs.Decision.PodSetAssignments)
		after, gone := perNode(rs.Assignments), perNode(rs.Removed)
		var kept, removed int64
		for _, e := range existing {
			require.Equal(t, e.Count, after[e.Node]+gone[e.Node], "%s: kept %d and removed %d of its %d pods", e.Node, after[e.Node], gone[e.Node], e.Count)
			kept += int64(after[e.Node])
			removed += int64(gone[e.Node])
		}
		require.Len(t, after, len(rs.Assignments), "a pod kept on a node without existing pods")
		require.Equal(t, M, kept)
		require.Equal(t, N-M, removed)
		w.checkWhole(t, nil, rs.Assignments)
	}
	kinds := []string{"planned", "drawn", "cannot keep"}
	for round := 0; round < 20 && slices.ContainsFunc(kinds, func(k string) bool { return seen[k] == 0 }); round++ {
		rapid.Check(t, prop)
	}
	for _, k := range kinds {
		require.Positive(t, seen[k], "no case %q", k)
	}
}

// keepable is the oracle of a sliced shrink: the counts of the pods
// entries hold (all in one domain of level-1, or all of them at level 0)
// that can stay so that every domain of every slice layer holds whole
// slices: the sums of the possible counts of its domains of level, each
// domain's kept only when a multiple of the size of a layer at level; a
// node (past the host level) may keep any count up to its pods.
func (w *sliceWorld) keepable(entries []placement.PodSetAssignment, level int) map[int64]bool {
	if level == len(planKeys) {
		out := map[int64]bool{}
		for k := range int64(entries[0].Count) + 1 {
			out[k] = true
		}
		return out
	}
	var order []string
	parts := map[string][]placement.PodSetAssignment{}
	for _, e := range entries {
		d := domOf(w.byName[e.Node], level)
		if _, ok := parts[d]; !ok {
			order = append(order, d)
		}
		parts[d] = append(parts[d], e)
	}
	sum := map[int64]bool{0: true}
	for _, d := range order {
		part := w.keepable(parts[d], level+1)
		if i := slices.Index(w.levels, level); i >= 0 {
			for k := range part {
				if k%w.sizes[i] != 0 {
					delete(part, k)
				}
			}
		}
		next := map[int64]bool{}
		for a := range sum {
			for b := range part {
				next[a+b] = true
			}
		}
		sum = next
	}
	return sum
}
