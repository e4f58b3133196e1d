package placement_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// bruteBelow is PodsBelowPriority by a walk of every pod.
func bruteBelow(s *Snapshot, prio int32) []Key {
	var out []*Pod
	for p := range s.Pods() {
		if p.Priority < prio {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, ComparePriorityPod)
	var keys []Key
	for _, p := range out {
		keys = append(keys, p.Key())
	}
	return keys
}

func below(s *Snapshot, prio int32) []Key {
	var keys []Key
	for p := range s.PodsBelowPriority(prio) {
		keys = append(keys, p.Key())
	}
	return keys
}

// TestProp_PodsBelowPriorityAfterApply: along any chain of Apply calls,
// PodsBelowPriority equals a sorted walk of Pods for every threshold, on
// the snapshot and on a copy whose added pods are not indexed (as the
// hierarchy search's views), and BoundGroup equals BoundGroups' summary.
func TestProp_PodsBelowPriorityAfterApply(t *testing.T) {
	pod := func(t *rapid.T, name, node string) Pod {
		return Pod{Namespace: rapid.SampledFrom([]string{"x", "y"}).Draw(t, "ns"), Name: name,
			SchedulingGroup: rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "group"), NodeName: node,
			Priority: rapid.Int32Range(-2, 2).Draw(t, "priority")}
	}
	rapid.Check(t, func(t *rapid.T) {
		nodes := []Node{cpuNode("n1", 100000), cpuNode("n2", 100000)}
		var base []Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "base") {
			base = append(base, pod(t, fmt.Sprintf("b%d", i), "n1"))
		}
		s, err := NewSnapshot(nodes, base)
		require.NoError(t, err)
		check := func(s *Snapshot, step int) {
			unindexed := WithoutPriorityIndex(s)
			for prio := int32(-3); prio <= 3; prio++ {
				want := bruteBelow(s, prio)
				require.Equal(t, want, below(s, prio), "step %d, below %d", step, prio)
				require.Equal(t, want, below(unindexed, prio), "step %d, below %d, not indexed", step, prio)
			}
			wantG, _ := bruteBoundGroups(s)
			for _, k := range []Key{{"x", "a"}, {"x", "b"}, {"y", "a"}, {"y", "b"}, {"x", "zz"}} {
				got, ok := s.BoundGroup(k)
				i := slices.IndexFunc(wantG, func(g BoundGroup) bool { return g.Key == k })
				require.Equal(t, i >= 0, ok, "step %d, group %v", step, k)
				if ok {
					w := wantG[i]
					require.Equal(t, BoundGroup{Key: w.Key, Pods: w.Pods, MaxPriority: w.MaxPriority, EarliestStart: w.EarliestStart},
						BoundGroup{Key: got.Key, Pods: got.Pods, MaxPriority: got.MaxPriority, EarliestStart: got.EarliestStart})
				}
			}
		}
		for step := range rapid.IntRange(0, 6).Draw(t, "steps") {
			check(s, step)
			s, err = s.Apply(drawBindRemove(t, s, step, pod))
			require.NoError(t, err)
		}
		check(s, -1)
	})
}

// TestPodsBelowPriority_StopsEarly: the iterator honours a break, and
// yields the lowest priorities first, base and bound pods merged.
func TestPodsBelowPriority_StopsEarly(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 1000)}, []Pod{
		{Namespace: "x", Name: "a", NodeName: "n1", Priority: 5},
		{Namespace: "x", Name: "b", NodeName: "n1", Priority: 1},
		{Namespace: "x", Name: "c", NodeName: "n1", Priority: 9},
	})
	require.NoError(t, err)
	s, err = s.Apply(Change{Bind: []Pod{{Namespace: "x", Name: "d", NodeName: "n1", Priority: 3}, {Namespace: "x", Name: "e", NodeName: "n1", Priority: 0}}})
	require.NoError(t, err)
	require.Equal(t, []Key{{"x", "e"}, {"x", "b"}, {"x", "d"}, {"x", "a"}}, below(s, 9))
	var got []string
	for p := range s.PodsBelowPriority(9) {
		got = append(got, p.Name)
		if len(got) == 3 {
			break
		}
	}
	require.Equal(t, []string{"e", "b", "d"}, got)
}
