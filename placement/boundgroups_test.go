package placement_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement/placementtest"

	. "github.com/gangsched/gangsched/placement"
)

// bruteBoundGroups summarises s's groups from a walk of every bound pod.
func bruteBoundGroups(s *Snapshot) ([]BoundGroup, []Key) {
	by := map[Key]*BoundGroup{}
	var ungrouped []Key
	for p := range s.Pods() {
		k, ok := p.GroupKey()
		if !ok {
			ungrouped = append(ungrouped, p.Key())
			continue
		}
		g := by[k]
		if g == nil {
			g = &BoundGroup{Key: k, MaxPriority: p.Priority}
			by[k] = g
		}
		g.Pods++
		g.MaxPriority = max(g.MaxPriority, p.Priority)
		if !p.StartTime.IsZero() && (g.EarliestStart.IsZero() || p.StartTime.Before(g.EarliestStart)) {
			g.EarliestStart = p.StartTime
		}
	}
	var groups []BoundGroup
	for _, g := range by {
		groups = append(groups, *g)
	}
	slices.SortFunc(groups, func(a, b BoundGroup) int { return a.Key.Compare(b.Key) })
	return groups, ungrouped
}

// collectBound lists s's summaries and ungrouped pods, checking that
// BoundMembers agrees with GroupMembers.
func collectBound(t require.TestingT, s *Snapshot) ([]BoundGroup, []Key) {
	var groups []BoundGroup
	for g := range s.BoundGroups() {
		var names []string
		for _, p := range s.BoundMembers(g) {
			names = append(names, p.Name)
		}
		var want []string
		for _, p := range s.GroupMembers(g.Key) {
			want = append(want, p.Name)
		}
		require.Equal(t, want, names, "BoundMembers(%s)", g.Key)
		groups = append(groups, BoundGroup{Key: g.Key, Pods: g.Pods, MaxPriority: g.MaxPriority, EarliestStart: g.EarliestStart})
	}
	var ungrouped []Key
	for p := range s.UngroupedPods() {
		ungrouped = append(ungrouped, p.Key())
	}
	return groups, ungrouped
}

// TestProp_BoundGroupsAfterApply: along any chain of Apply calls,
// BoundGroups and UngroupedPods equal a brute-force walk of Pods.
func TestProp_BoundGroupsAfterApply(t *testing.T) {
	groups := []string{"", "a", "b", "c"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(t *rapid.T, name, node string) Pod {
		p := Pod{Namespace: rapid.SampledFrom([]string{"x", "y"}).Draw(t, "ns"), Name: name,
			SchedulingGroup: rapid.SampledFrom(groups).Draw(t, "group"), NodeName: node,
			Priority: rapid.Int32Range(-2, 2).Draw(t, "priority")}
		if s := rapid.IntRange(-1, 3).Draw(t, "start"); s >= 0 {
			p.StartTime = t0.Add(time.Duration(s) * time.Second)
		}
		return p
	}
	rapid.Check(t, func(t *rapid.T) {
		nodes := []Node{cpuNode("n1", 100000), cpuNode("n2", 100000)}
		var base []Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "base") {
			base = append(base, pod(t, fmt.Sprintf("b%d", i), "n1"))
		}
		s, err := NewSnapshot(nodes, base)
		require.NoError(t, err)
		for step := range rapid.IntRange(0, 6).Draw(t, "steps") {
			wantG, wantU := bruteBoundGroups(s)
			gotG, gotU := collectBound(t, s)
			require.Equal(t, wantG, gotG, "step %d", step)
			require.Equal(t, wantU, gotU, "step %d", step)
			s, err = s.Apply(drawBindRemove(t, s, step, pod))
			require.NoError(t, err)
		}
		wantG, wantU := bruteBoundGroups(s)
		gotG, gotU := collectBound(t, s)
		require.Equal(t, wantG, gotG)
		require.Equal(t, wantU, gotU)
	})
}

// TestBoundGroups_StopsEarly: the iterators honour a break.
func TestBoundGroups_StopsEarly(t *testing.T) {
	var pods []Pod
	for i := range 4 {
		pods = append(pods, Pod{Namespace: "x", Name: fmt.Sprintf("p%d", i), SchedulingGroup: fmt.Sprintf("g%d", i%2), NodeName: "n1"},
			Pod{Namespace: "x", Name: fmt.Sprintf("u%d", i), NodeName: "n1"})
	}
	s, err := NewSnapshot([]Node{cpuNode("n1", 1000)}, pods)
	require.NoError(t, err)
	s, err = s.Apply(Change{Bind: []Pod{{Namespace: "x", Name: "q", SchedulingGroup: "g9", NodeName: "n1"}, {Namespace: "x", Name: "v", NodeName: "n1"}}})
	require.NoError(t, err)
	var got []string
	for g := range s.BoundGroups() {
		got = append(got, g.Key.Name)
		if len(got) == 2 {
			break
		}
	}
	for p := range s.UngroupedPods() {
		got = append(got, p.Name)
		if len(got) == 4 {
			break
		}
	}
	require.Equal(t, []string{"g0", "g1", "u0", "u1"}, got)
}

// TestProp_AppendFreeIsFree: AppendFree's row is Free of each resource, in
// Resources order, on any snapshot and after any Apply.
func TestProp_AppendFreeIsFree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, err := placementtest.Clusters().Draw(t, "cluster").Snapshot()
		require.NoError(t, err)
		var ch Change
		for p := range s.Pods() {
			if rapid.Bool().Draw(t, "remove") {
				ch.Remove = append(ch.Remove, p.Key())
			}
		}
		after, err := s.Apply(ch)
		require.NoError(t, err)
		for _, s := range []*Snapshot{s, after} {
			res := s.Resources()
			for id := range NodeID(s.NumNodes()) {
				row := s.AppendFree([]int64{-7}, id)
				require.Len(t, row, 1+len(res))
				for r, name := range res {
					require.Equal(t, s.Free(id, name), row[1+r], "node %d %s", id, name)
				}
			}
		}
	})
}

// drawBindRemove draws a Change for step of a chain of Applies on s: each
// bound pod removed with chance 1/4, and up to three pods that pod draws
// bound on n1 or n2.
func drawBindRemove(t *rapid.T, s *Snapshot, step int, pod func(t *rapid.T, name, node string) Pod) Change {
	var ch Change
	for p := range s.Pods() {
		if rapid.IntRange(0, 3).Draw(t, "remove") == 0 {
			ch.Remove = append(ch.Remove, p.Key())
		}
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "bind") {
		ch.Bind = append(ch.Bind, pod(t, fmt.Sprintf("s%d-%d", step, i), rapid.SampledFrom([]string{"n1", "n2"}).Draw(t, "node")))
	}
	return ch
}
