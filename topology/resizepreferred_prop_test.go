package topology_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_ResizePreferredSet: an elastic set with a Preferred rack or
// block, its existing pods reserved inside one domain d of that level on
// a random block > rack > host cluster of 1..6 free cores a host, grows
// by a random delta, Balanced or not, on a tree that planned another set
// first or a fresh one. A growth that fits in d stays in d; one that does
// not but fits in d's block (for a preferred rack) stays in that block;
// it is scheduled exactly when the cluster holds the delta; no existing
// pod moves and the delta verifies.
func TestProp_ResizePreferredSet(t *testing.T) {
	seen := map[string]int{}
	prop := func(t *rapid.T) {
		var nodes []placement.Node
		free := map[string]int64{}
		B := rapid.IntRange(2, 3).Draw(t, "blocks")
		R := rapid.IntRange(1, 3).Draw(t, "racks")
		H := rapid.IntRange(1, 3).Draw(t, "hosts")
		for b := range B {
			for r := range R {
				for h := range H {
					name := fmt.Sprintf("b%d-r%d-h%d", b+1, r+1, h+1)
					c := rapid.Int64Range(1, 6).Draw(t, name)
					free[name] = c
					nodes = append(nodes, node(name, c*1000, blockKey, fmt.Sprintf("b%d", b+1), rackKey, fmt.Sprintf("r%d", r+1), hostKey, name))
				}
			}
		}
		level := rapid.SampledFrom([]string{rackKey, blockKey}).Draw(t, "level")
		// d is a prefix of node names: "b2-r1-" for a rack, "b2-" for a block.
		d := fmt.Sprintf("b%d-", rapid.IntRange(1, B).Draw(t, "block"))
		blockOf := d
		if level == rackKey {
			d += fmt.Sprintf("r%d-", rapid.IntRange(1, R).Draw(t, "rack"))
		}
		tmpl := placement.Pod{Requests: placement.ResourceList{cpu: 1000}}
		g := placement.Key{Namespace: "default", Name: "el"}
		var existing []placement.PodSetAssignment
		s0, err := placement.NewSnapshot(nodes, nil)
		require.NoError(t, err)
		var N int64
		for id := range placement.NodeID(s0.NumNodes()) {
			name := s0.Node(id).Name
			if !strings.HasPrefix(name, d) {
				continue
			}
			if k := rapid.Int64Range(0, free[name]).Draw(t, "on "+name); k > 0 {
				existing = append(existing, placement.PodSetAssignment{PodSet: "workers", Node: name, NodeID: id, Count: int32(k)})
				free[name] -= k
				N += k
			}
		}
		if N == 0 {
			return
		}
		s, err := s0.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g, PodSet: "workers", Requests: tmpl.Requests, Nodes: existing}}})
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		opts := topology.PlanOptions{Balanced: rapid.Bool().Draw(t, "balanced")}
		if rapid.Bool().Draw(t, "warm") {
			// Another set planned first on the same tree, over the whole
			// cluster before the existing pods, as a host repairing a
			// Workload's sets one after the other does: the growth must
			// not read the counts it leaves outside the domains it counts.
			o := &placement.Group{Namespace: "default", Name: "other", MinCount: 1,
				PodSets: []placement.PodSet{{Name: "o", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 500}}}}}
			_, err := tr.PlanPodSets(s0, o, []topology.PodSetRequest{{PodSet: "o", Preferred: level}}, opts)
			require.NoError(t, err)
		}
		sum := func(prefix string) int64 {
			var n int64
			for name, k := range free {
				if strings.HasPrefix(name, prefix) {
					n += k
				}
			}
			return n
		}
		delta := rapid.Int64Range(1, sum("")+2).Draw(t, "delta")
		grp := func(n int64) *placement.Group {
			return &placement.Group{Namespace: "default", Name: "el", MinCount: int32(n),
				PodSets: []placement.PodSet{{Name: "workers", Count: int32(n), Template: tmpl}}}
		}
		req := topology.PodSetRequest{PodSet: "workers", Preferred: level}
		rs, err := tr.ResizePodSet(s, grp(N+delta), req, placement.Resize{PodSet: "workers", Existing: existing}, opts)
		require.NoError(t, err)
		dec := rs.Decision
		require.Equal(t, sum("") >= delta, dec.Status == placement.Scheduled, dec.Message)
		if dec.Status != placement.Scheduled {
			seen["waits"]++
			require.Equal(t, existing, rs.Assignments, "a set that waits keeps its pods")
			return
		}
		require.NoError(t, placement.Verify(s, grp(delta), dec))
		var placed int64
		for _, a := range dec.PodSetAssignments {
			placed += int64(a.Count)
		}
		require.Equal(t, delta, placed, "new pods placed: %s", dec.Message)
		for _, e := range existing {
			i := slices.IndexFunc(rs.Assignments, func(a placement.PodSetAssignment) bool { return a.Node == e.Node })
			require.True(t, i >= 0 && rs.Assignments[i].Count >= e.Count, "existing pods on %s moved", e.Node)
		}
		within := func(prefix string) {
			for _, a := range dec.PodSetAssignments {
				require.True(t, strings.HasPrefix(a.Node, prefix), "%d new pods on %s, outside %s, which holds the delta of %d", a.Count, a.Node, prefix, delta)
			}
		}
		switch {
		case sum(d) >= delta:
			seen["in the domain"]++
			within(d)
		case sum(blockOf) >= delta:
			seen["in the block"]++
			within(blockOf)
		default:
			seen["elsewhere"]++
		}
	}
	kinds := []string{"waits", "in the domain", "in the block", "elsewhere"}
	// One run of 100 cases has about 7 deltas placed in the block and 10
	// that wait (measured over 30 runs), so it misses a kind about once in
	// 700; run again (at most 20 rounds) until every kind was seen.
	for round := 0; round < 20 && slices.ContainsFunc(kinds, func(k string) bool { return seen[k] == 0 }); round++ {
		rapid.Check(t, prop)
	}
	for _, k := range kinds {
		require.Positive(t, seen[k], "no case %q", k)
	}
}
