package topology_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Below the outermost slice level Kueue v0.17's TAS splits each domain's
// count over its children by their counts ascending, negative ones
// included, and splits the children given 0 pods or fewer in turn;
// where the children never hold what is left it drops the domain
// ("unexpected remainingCount"). Each case is one of the tester peer10's
// findings 01-03 (or seed 395), whose Kueue answers come from Kueue's own
// FindTopologyAssignmentsForFlavor run in-process and from the real Kueue
// (kube/testdata/kueue-oracle/overcommit-split-*).
func TestPlanPodSets_KueueNegativeSplit(t *testing.T) {
	type bound struct {
		host  string
		milli int64
	}
	for _, c := range []struct {
		name    string
		caps    [][][]int64
		bound   []bound
		count   int32
		milli   int64 // one pod's CPU
		req     topology.PodSetRequest
		admits  map[string]int32 // nil: held as Kueue's assumption
		held    map[string]int32 // the assumption's pods
		lifts   map[string]int32 // the negative counts written, as positive ones
		deficit string           // the count the failure names
	}{
		{
			// r2 counts -2 + 1 = -1 pod, 0 slices of 8: appended with
			// 0 pods, its hosts (-2, then 1) never hold 0, so Kueue
			// drops it and admits r1's 8 (finding 01).
			name: "a split that never completes drops its domain", caps: [][][]int64{{{8}, {2, 2}}},
			bound: []bound{{"b1-r2-h1", 4000}, {"b1-r2-h2", 1000}}, count: 8, milli: 1000,
			req:    topology.PodSetRequest{PodSet: "main", Unconstrained: true, Slices: []topology.SliceLayer{{Key: rackKey, Size: 8}}},
			admits: map[string]int32{"b1-r1-h1": 8},
		},
		{
			// r2 counts -7 + 1 = -6 pods, -1 slice of 4: appended with
			// -4, its hosts never hold it, so Kueue drops it and writes
			// r1's 8 for a set of 4, its pods placed on the first hosts
			// by path (seed 395).
			name: "a dropped domain of fewer than no pods", caps: [][][]int64{{{4, 4}, {2, 2}}},
			bound: []bound{{"b1-r2-h1", 9000}, {"b1-r2-h2", 1000}}, count: 4, milli: 1000,
			req:    topology.PodSetRequest{PodSet: "main", Unconstrained: true, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}},
			admits: map[string]int32{"b1-r1-h1": 4},
		},
		{
			// r2 counts -1 + 1 = 0 two-CPU pods: below the block (the
			// slice level) it is appended with 0 before r1 takes 2, and
			// its 0 is split into -1 and +1 (finding 02).
			name: "a rack of 0 pods split into -1 and +1", caps: [][][]int64{{{4}, {1, 4}}},
			bound: []bound{{"b1-r2-h1", 3500}, {"b1-r2-h2", 1000}}, count: 2, milli: 2000,
			req:   topology.PodSetRequest{PodSet: "main", Required: blockKey, Slices: []topology.SliceLayer{{Key: blockKey, Size: 2}}},
			held:  map[string]int32{"b1-r1-h1": 2, "b1-r2-h2": 1},
			lifts: map[string]int32{"b1-r2-h1": 1}, deficit: "counts b1-r2-h1 as -1 pods",
		},
		{
			// The same, slices alone: the slice level is the block.
			name: "a rack of 0 pods split, slices alone", caps: [][][]int64{{{4}, {1, 4}}},
			bound: []bound{{"b1-r2-h1", 3500}, {"b1-r2-h2", 1000}}, count: 2, milli: 2000,
			req:   topology.PodSetRequest{PodSet: "main", Unconstrained: true, Slices: []topology.SliceLayer{{Key: blockKey, Size: 2}}},
			held:  map[string]int32{"b1-r1-h1": 2, "b1-r2-h2": 1},
			lifts: map[string]int32{"b1-r2-h1": 1}, deficit: "counts b1-r2-h1 as -1 pods",
		},
		{
			// r2 counts 1 - 6 = -5: appended with -5 before r1 takes 9,
			// its -5 split deficit first: h2 -6, then h1 +1 (finding 03).
			name: "a rack's negative count split deficit first", caps: [][][]int64{{{9}, {1, 3}}},
			bound: []bound{{"b1-r2-h2", 9000}}, count: 4, milli: 1000,
			req:   topology.PodSetRequest{PodSet: "main", Required: blockKey, Slices: []topology.SliceLayer{{Key: blockKey, Size: 1}}},
			held:  map[string]int32{"b1-r1-h1": 9, "b1-r2-h1": 1},
			lifts: map[string]int32{"b1-r2-h2": 6}, deficit: "counts b1-r2-h2 as -6 pods",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pods []placement.Pod
			for i, b := range c.bound {
				pods = append(pods, placement.Pod{Namespace: "other", Name: string(rune('a' + i)), NodeName: b.host, Requests: placement.ResourceList{cpu: b.milli}})
			}
			s := snapshot(t, brh(c.caps), pods...)
			g := &placement.Group{Namespace: "default", Name: "w", MinCount: c.count, PodSets: []placement.PodSet{
				{Name: "main", Count: c.count, Template: placement.Pod{Requests: placement.ResourceList{cpu: c.milli}}}}}
			p := plan(t, s, g, topology.KueueProfile.Options(), c.req)
			if c.admits != nil {
				require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
				require.Nil(t, p.KueueAssumed)
				require.Equal(t, c.admits, counts(p.Decision, "main"))
				return
			}
			require.Equal(t, placement.Unschedulable, p.Decision.Status)
			require.NotNil(t, p.KueueAssumed, p.Decision.Message)
			require.Contains(t, p.Decision.Message, c.deficit)
			require.Equal(t, "whose topologyAssignment counts a node below 1 pod", p.KueueAssumed.Refused)
			require.Equal(t, c.held, counts(p.KueueAssumed.Decision, "main"))
			lifts := map[string]int32{}
			for _, l := range p.KueueAssumed.Lifts {
				for _, a := range l.Nodes {
					lifts[a.Node] += a.Count
				}
			}
			require.Equal(t, c.lifts, lifts)
		})
	}
}

// A set required at the block in slices of 1 or 2 at the block is split
// below the slice level as Kueue v0.17's TAS splits it: the block of the
// best fit (most slices first, then fewest pods, then path; the fewest
// slices holding the set), its count over its racks and each rack's over
// its hosts by their counts ascending, negative ones included (a host a
// filter refuses counting 0), each given its whole count until one holds
// what is left. The set is admitted on the hosts given pods when no host
// is given fewer than none, and held as Kueue's assumption otherwise,
// those hosts' counts being its lifts.
func TestProp_KueueNegativeSplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawNegWorld(t)
		z := int64(rapid.IntRange(1, 2).Draw(t, "slice size"))
		n := z * int64(rapid.IntRange(1, 5).Draw(t, "slices"))
		k := map[string]int64{} // each host's count as Kueue's TAS counts it
		kids := map[string][]string{}
		for _, nd := range w.nodes {
			if !w.refused[nd.Name] {
				k[nd.Name] = w.free[nd.Name] / 1000
			}
			b, r := domainOf(nd, blockKey), domainOf(nd, rackKey)
			if len(kids[r]) == 0 {
				kids[b] = append(kids[b], r)
			}
			kids[r] = append(kids[r], nd.Name)
			k[r] += k[nd.Name]
			k[b] += k[nd.Name]
		}
		var blocks []string
		for _, nd := range w.nodes {
			if b := domainOf(nd, blockKey); !slices.Contains(blocks, b) {
				blocks = append(blocks, b)
			}
		}
		sl := func(d string) int64 { return k[d] / z }
		slices.SortFunc(blocks, func(a, b string) int {
			if c := cmp.Compare(sl(b), sl(a)); c != 0 {
				return c
			}
			return cmp.Or(cmp.Compare(k[a], k[b]), cmp.Compare(a, b))
		})
		g := &placement.Group{Namespace: "default", Name: "w", MinCount: int32(n), PodSets: []placement.PodSet{
			{Name: "main", Count: int32(n), Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
		req := topology.PodSetRequest{PodSet: "main", Required: blockKey, Slices: []topology.SliceLayer{{Key: blockKey, Size: int32(z)}}}
		p, err := w.tree.PlanPodSets(w.s, g, []topology.PodSetRequest{req}, w.opts(topology.KueueProfile))
		require.NoError(t, err)
		if sl(blocks[0]) < n/z {
			require.Equal(t, placement.Unschedulable, p.Decision.Status)
			require.Nil(t, p.KueueAssumed, p.Decision.Message)
			return
		}
		best := blocks[0]
		for _, b := range blocks {
			if sl(b) >= n/z && sl(b) < sl(best) {
				best = b
			}
		}
		pos, neg := map[string]int32{}, map[string]int32{}
		var split func(d string, count int64)
		split = func(d string, count int64) {
			cs := slices.Clone(kids[d])
			slices.SortFunc(cs, func(a, b string) int { return cmp.Or(cmp.Compare(k[a], k[b]), cmp.Compare(a, b)) })
			left := count
			for _, c := range cs {
				give, done := k[c], k[c] >= left
				if done {
					give = left
				}
				left -= give
				switch {
				case len(kids[c]) > 0:
					split(c, give)
				case give > 0:
					pos[c] = int32(give)
				case give < 0:
					neg[c] = int32(-give)
				}
				if done {
					return
				}
			}
			// The block's count is at most its racks' (its slices
			// truncated toward zero, of a count above zero), and each
			// rack's at most its hosts'.
			t.Fatalf("the split of %s's %d pods does not complete", d, count)
		}
		split(best, n)
		if len(neg) == 0 {
			require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
			require.NoError(t, placement.Verify(w.s, g, p.Decision))
			require.Equal(t, pos, counts(p.Decision, "main"))
			return
		}
		require.NotNil(t, p.KueueAssumed, p.Decision.Message)
		require.Equal(t, pos, counts(p.KueueAssumed.Decision, "main"))
		lifts := map[string]int32{}
		for _, l := range p.KueueAssumed.Lifts {
			for _, a := range l.Nodes {
				lifts[a.Node] += a.Count
			}
		}
		require.Equal(t, neg, lifts)
	})
}
