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

// TestProp_ResizeSlicedSet: an elastic sliced set (one to three layers,
// required in a block or rack) whose existing pods are reserved in the
// snapshot grows. Its existing pods are either a plan's (whole slices, as
// Kueue admits them) or drawn at random in the required domain (slices
// left incomplete, as when a node is lost). The growth is scheduled
// exactly when the layer-by-layer oracle says so; then no existing pod
// moves, the delta verifies and places M−N pods, every pod stays in the
// required domain and every domain of every slice level holds whole
// slices, old and new pods together. It is the plan of the same set whose
// existing pods are bound members instead of a reservation. A shrink of a
// plan's pods to fewer whole slices removes only existing pods and leaves
// whole slices.
//
// With a host's placement.ResizeBuffers and PlanBuffers, kept from case
// to case, every resize answers as without them.
func TestProp_ResizeSlicedSet(t *testing.T) {
	seen := map[string]int{}
	var rbuf placement.ResizeBuffers
	var pbuf topology.PlanBuffers
	// resize is ResizePodSet without buffers, checked against the same
	// resize with them.
	resize := func(t *rapid.T, tr *topology.Tree, s *placement.Snapshot, g *placement.Group, req topology.PodSetRequest, existing []placement.PodSetAssignment) (placement.Resized, error) {
		want, err := tr.ResizePodSet(s, g, req, placement.Resize{PodSet: "w", Existing: existing}, topology.PlanOptions{})
		got, err2 := tr.ResizePodSet(s, g, req, placement.Resize{PodSet: "w", Existing: existing, Buffers: &rbuf}, topology.PlanOptions{Buffers: &pbuf})
		require.Equal(t, err, err2)
		require.Equal(t, want, got, "with buffers")
		return want, err
	}
	prop := func(t *rapid.T) {
		w := drawSliceWorld(t)
		z := w.sizes[0]
		if len(w.levels) == 1 && z == 1 {
			return
		}
		tmpl := placement.Pod{Requests: placement.ResourceList{cpu: 1000}}
		s0, tr := w.empty(t)
		req := w.request()
		var on []string // the existing pods' nodes, one per pod
		planned := rapid.Bool().Draw(t, "planned")
		if planned {
			k := rapid.IntRange(1, 3).Draw(t, "oldSlices")
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
				w.free[a.Node] -= int64(a.Count)
			}
		} else {
			on = w.drawFixed(t, 6)
		}
		if len(on) == 0 {
			return
		}
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
		N := int64(len(on))
		s, err := s0.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: placement.Key{Namespace: "default", Name: "pg"}, PodSet: "w", Requests: tmpl.Requests, Nodes: existing}}})
		require.NoError(t, err)
		group := func(count int64) *placement.Group {
			return &placement.Group{Namespace: "default", Name: "pg", MinCount: int32(count),
				PodSets: []placement.PodSet{{Name: "w", Count: int32(count), Template: tmpl}}}
		}

		if planned && N > z && rapid.Bool().Draw(t, "shrink") {
			M := z * rapid.Int64Range(1, N/z-1).Draw(t, "keptSlices")
			rs, err := resize(t, tr, s, group(M), req, existing)
			require.NoError(t, err)
			seen["shrink"]++
			var kept int64
			for _, a := range rs.Assignments {
				i := slices.IndexFunc(existing, func(e placement.PodSetAssignment) bool { return e.Node == a.Node })
				require.True(t, i >= 0 && existing[i].Count >= a.Count, "%s keeps %d pods it did not have", a.Node, a.Count)
				kept += int64(a.Count)
			}
			require.Equal(t, M, kept)
			w.checkWhole(t, nil, rs.Assignments)
			return
		}

		delta := (z-N%z)%z + z*int64(rapid.IntRange(0, 3).Draw(t, "newSlices"))
		if delta == 0 {
			delta = z
		}
		M := N + delta
		rs, err := resize(t, tr, s, group(M), req, existing)
		require.NoError(t, err)
		d := rs.Decision
		fits := w.fits(on, delta)
		require.Equal(t, fits, d.Status == placement.Scheduled, "oracle %v; resize: %s", fits, d.Message)
		if planned {
			seen[fmt.Sprint("grow planned ", d.Status)]++
		} else {
			seen[fmt.Sprint("grow drawn ", d.Status)]++
		}

		// The same set with its existing pods bound instead: the same plan.
		var pods []placement.Pod
		for i, name := range on {
			pods = append(pods, placement.Pod{Namespace: "default", Name: fmt.Sprintf("old-%d", i), SchedulingGroup: "pg", NodeName: name, Requests: tmpl.Requests})
		}
		sb, err := placement.NewSnapshot(w.nodes, pods)
		require.NoError(t, err)
		tb, err := topology.NewTree(sb, planKeys)
		require.NoError(t, err)
		bp, err := tb.PlanPodSets(sb, group(delta), []topology.PodSetRequest{req}, topology.PlanOptions{})
		require.NoError(t, err)
		require.Equal(t, bp.Decision.Status, d.Status)
		require.Equal(t, bp.Decision.PodSetAssignments, d.PodSetAssignments)

		if d.Status != placement.Scheduled {
			require.Equal(t, existing, rs.Assignments, "a set that waits keeps its pods")
			return
		}
		require.NoError(t, placement.Verify(s, group(delta), d))
		var placed int64
		for _, a := range d.PodSetAssignments {
			placed += int64(a.Count)
		}
		require.Equal(t, delta, placed)
		var total int64
		for _, e := range existing {
			i := slices.IndexFunc(rs.Assignments, func(a placement.PodSetAssignment) bool { return a.Node == e.Node })
			require.True(t, i >= 0 && rs.Assignments[i].Count >= e.Count, "existing pods on %s moved", e.Node)
		}
		for _, a := range rs.Assignments {
			total += int64(a.Count)
		}
		require.Equal(t, M, total)
		w.checkWhole(t, on, d.PodSetAssignments)
	}
	kinds := []string{"shrink", "grow planned Scheduled", "grow planned Unschedulable", "grow drawn Scheduled", "grow drawn Unschedulable"}
	// One run of 100 cases has about 11 shrinks and 11 planned grows that
	// schedule (measured over 30 runs), so it misses a kind about once in
	// 25,000; run again (at most 20 rounds) until every kind was seen.
	for round := 0; round < 20 && slices.ContainsFunc(kinds, func(k string) bool { return seen[k] == 0 }); round++ {
		rapid.Check(t, prop)
	}
	for _, k := range kinds {
		require.Positive(t, seen[k], "no case %q", k)
	}
}
