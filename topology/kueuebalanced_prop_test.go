package topology_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestProp_KueueBalanced: a preferred set planned with KueueBalanced is
// placed as Kueue's TASBalancedPlacement allows. Where no domain of the
// level above the preferred one holds the set's slices in its lower
// domains (one level below the preferred one, or the preferred level
// when it is the slice level), the plan is the one without the gate.
// Otherwise the set is Unschedulable with a balanced-placement reason (always
// so when the preferred level is a slice level that is not the narrowest,
// Kueue v0.17's pruning quirk), or Scheduled with every pod in one such
// domain, and its lower domains' slices, in Kueue's largest-first order
// (most slices of room, then fewest pods, then path), are: the first full
// to their room, then at most one between, then the rest at the least
// count t, with t at most the set's slices over the domains used.
func TestProp_KueueBalanced(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		if c.req.Preferred == "" {
			c.req = topology.PodSetRequest{Preferred: planKeys[rapid.IntRange(0, 2).Draw(t, "level")], Slices: c.req.Slices}
			if len(c.req.Slices) > 0 {
				if l, _ := levelIndex(c.req.Slices[0].Key); l < mustLevel(c.req.Preferred) {
					c.req.Slices = nil
					c.count = int32(rapid.IntRange(1, 8).Draw(t, "count"))
				}
			}
		}
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		g := c.group(false)
		req := c.req
		req.PodSet = "w"
		p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{KueueBalanced: true})
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		d := p.Decision
		require.NoError(t, placement.Verify(s, g, d))

		P := mustLevel(req.Preferred)
		last := len(planKeys) - 1
		S := last
		z := int64(1)
		if len(req.Slices) > 0 {
			S = mustLevel(req.Slices[0].Key)
			z = int64(req.Slices[0].Size)
		}
		lower := P
		if P < S {
			lower = P + 1
		}
		caps := oracle(s, tr, req)
		// slicesOf is a domain's slices of room as Kueue counts them.
		var slicesOf func(dm topology.Domain) int64
		slicesOf = func(dm topology.Domain) int64 {
			if dm.Level == S {
				return caps[dm.ID] / z
			}
			var n int64
			for e := range tr.Domains(dm.Level + 1) {
				if e.Parent == dm.ID {
					n += slicesOf(e)
				}
			}
			return n
		}
		n := int64(c.count) / z
		// The groups: each domain of level P-1 (the cluster at P = 0),
		// with its lower domains' total slices.
		applies := false
		groupOf := func(dm topology.Domain) topology.DomainID {
			for dm.Level > P-1 && dm.Level > 0 {
				dm, _ = tr.Domain(dm.Parent)
			}
			if P == 0 {
				return -1
			}
			return dm.ID
		}
		totals := map[topology.DomainID]int64{}
		for dm := range tr.Domains(lower) {
			totals[groupOf(dm)] += slicesOf(dm)
		}
		for _, v := range totals {
			applies = applies || v >= n
		}
		if !applies {
			seen["fallback"]++
			without, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{})
			require.NoError(t, err)
			require.Equal(t, without, p)
			return
		}
		if d.Status != placement.Scheduled {
			if P == S && S < last {
				seen["failed: slice level is the preferred one"]++
			} else {
				seen["failed"]++
			}
			require.Contains(t, d.Message, "TAS Balanced Placement")
			return
		}
		require.False(t, P == S && S < last, "a set whose preferred level is its slice level above the narrowest never fits: %s", d.Message)
		seen["balanced"]++
		taken := map[topology.DomainID]int64{}
		groups := map[topology.DomainID]bool{}
		for _, a := range d.PodSetAssignments {
			dm, ok := tr.DomainOf(a.NodeID, lower)
			require.True(t, ok)
			taken[dm.ID] += int64(a.Count)
			groups[groupOf(dm)] = true
		}
		require.Len(t, groups, 1, "one domain of the level above the preferred one")
		var used []topology.Domain
		for id, k := range taken {
			require.Zero(t, k%z, "whole slices per lower domain")
			dm, _ := tr.Domain(id)
			used = append(used, dm)
		}
		slices.SortFunc(used, func(a, b topology.Domain) int {
			if sa, sb := slicesOf(a), slicesOf(b); sa != sb {
				return int(sb - sa)
			}
			// Kueue's tie-break counts a domain's pods as its
			// hosts hold them, not rounded to slices as caps are.
			if pa, pb := podsOf(s, a), podsOf(s, b); pa != pb {
				return int(pa - pb)
			}
			return strings.Compare(a.Path, b.Path)
		})
		least := n
		for _, dm := range used {
			least = min(least, taken[dm.ID]/z)
		}
		require.LessOrEqual(t, least*int64(len(used)), n)
		stage := 0 // 0: full to room, 1: the one between, 2: at the least
		for _, dm := range used {
			x, room := taken[dm.ID]/z, slicesOf(dm)
			require.LessOrEqual(t, x, room, "%s over its room", dm.Path)
			switch {
			case stage == 0 && x == room:
			case stage <= 1 && x > least && x < room:
				stage = 2
			case x == least:
				stage = 2
			default:
				t.Fatalf("%s takes %d slices of room %d (least %d) out of Kueue's largest-first order: %v", dm.Path, x, room, least, taken)
			}
		}
	})
	t.Logf("outcomes: %v", seen)
}

// mustLevel is the index of key in planKeys.
func mustLevel(key string) int {
	l, _ := levelIndex(key)
	return l
}

func levelIndex(key string) (int, bool) {
	l := slices.Index(planKeys, key)
	return l, l >= 0
}

// TestProp_KueueBalancedLeader: a PodSetGroup of a one-pod leader and
// workers preferring a level, planned with KueueBalanced, verifies (no
// node past its room with the leader beside the workers), places the
// leader's one pod and every worker when Scheduled, and otherwise says
// why; both outcomes occur.
func TestProp_KueueBalancedLeader(t *testing.T) {
	seen := map[placement.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		c := genPlanCase().Draw(t, "case")
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, planKeys)
		require.NoError(t, err)
		workers := int32(rapid.IntRange(1, 12).Draw(t, "workers"))
		g := &placement.Group{Namespace: "default", Name: "lws", MinCount: workers + 1, PodSets: []placement.PodSet{
			{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000 * rapid.Int64Range(1, 3).Draw(t, "leader cores")}}},
			{Name: "workers", Count: workers, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
		}}
		key := planKeys[rapid.IntRange(0, 2).Draw(t, "level")]
		reqs := []topology.PodSetRequest{{PodSet: "leader", Preferred: key, Group: "lws"}, {PodSet: "workers", Preferred: key, Group: "lws"}}
		p, err := tr.PlanPodSets(s, g, reqs, topology.PlanOptions{KueueBalanced: true})
		if errors.Is(err, topology.ErrNoDomain) {
			return
		}
		require.NoError(t, err)
		d := p.Decision
		seen[d.Status]++
		require.NoError(t, placement.Verify(s, g, d))
		if d.Status != placement.Scheduled {
			require.NotEmpty(t, d.Message)
			return
		}
		var lead, work int32
		for _, a := range d.PodSetAssignments {
			if a.PodSet == "leader" {
				lead += a.Count
			} else {
				work += a.Count
			}
		}
		require.Equal(t, int32(1), lead)
		require.Equal(t, workers, work)
	})
	require.Positive(t, seen[placement.Scheduled])
	require.Positive(t, seen[placement.Unschedulable])
}

// podsOf is the one-CPU pods domain dm's schedulable nodes hold, as
// Kueue's domain state counts them (not rounded to slices).
func podsOf(s *placement.Snapshot, dm topology.Domain) int64 {
	var n int64
	for _, id := range dm.Nodes {
		if placement.StaticFit(&placement.Pod{}, s.Node(id)) {
			n += max(s.Free(id, cpu)/1000, 0)
		}
	}
	return n
}
