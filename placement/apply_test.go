package placement_test

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

// rebuilt returns a snapshot built from scratch with s's nodes and pods.
func rebuilt(t require.TestingT, s *Snapshot) *Snapshot {
	nodes := make([]Node, s.NumNodes())
	for id := range nodes {
		nodes[id] = *s.Node(NodeID(id))
	}
	var pods []Pod
	for p := range s.Pods() {
		pods = append(pods, *p)
	}
	f, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	return f
}

// applyGroup is a group and the options to solve it with.
type applyGroup struct {
	g    *Group
	opts Options
}

// applyGroups are solved on each snapshot of a chain: a gang over the
// whole cluster (class path), one with a node selector (grouped over every
// node), and one over node subsets (grouped over a placement).
func applyGroups(n int) []applyGroup {
	mk := func(name string, count int32, req ResourceList, sel map[string]string) *Group {
		return &Group{Namespace: "default", Name: name, Policy: PolicyGang, MinCount: 1,
			PodSets: []PodSet{{Name: name + "-w", Count: count, Template: Pod{Requests: req, NodeSelector: sel}}}}
	}
	var evens, low []NodeID
	for id := range NodeID(n) {
		if id%2 == 0 {
			evens = append(evens, id)
		}
		if int(id) < n/2+1 {
			low = append(low, id)
		}
	}
	return []applyGroup{
		{mk("whole", 40, ResourceList{ResourceCPU: 1000, ResourceGPU: 1}, nil), Options{SearchBudget: 1}},
		{mk("sel", 30, ResourceList{ResourceCPU: 2000}, map[string]string{"pool": "a"}), Options{SearchBudget: 1}},
		{mk("sub", 50, ResourceList{ResourceGPU: 1}, nil), Options{SearchBudget: 1, Generator: subsets{evens, low}}},
	}
}

// TestProp_ApplyChainsSolveAsRebuilt applies changes in chains and forks
// (two children of one parent, grandchildren), with and without the class
// index built on the parent first, and checks every snapshot solves each
// group exactly as a snapshot built from scratch with the same state.
func TestProp_ApplyChainsSolveAsRebuilt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{1, 2, 63, 64, 65, 511, 512, 513, 1023, 1024, 1025}).Draw(t, "nodes")
		nodes := make([]Node, n)
		var pods []Pod
		for i := range nodes {
			pool := "a"
			if i%3 == 0 {
				pool = "b"
			}
			nodes[i] = Node{Name: fmt.Sprintf("n%04d", i), Labels: map[string]string{"pool": pool},
				Allocatable: ResourceList{ResourceCPU: 8000, ResourceGPU: int64(4 + 4*(i%2)), ResourcePods: 20}}
			for k := range i % 3 {
				pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%04d-%d", i, k), NodeName: nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 1000, ResourceGPU: 1}})
			}
		}
		s0, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		groups := applyGroups(n)
		solveAll := func(s *Snapshot) { requireSolvesAsRebuilt(t, s, groups) }
		if rapid.Bool().Draw(t, "warm") {
			solveAll(s0) // builds s0's class index: children derive theirs
		}
		snaps := []*Snapshot{s0}
		seq := 0
		for range rapid.IntRange(1, 6).Draw(t, "steps") {
			parent := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "parent")]
			var ch Change
			var bound []Key
			for p := range parent.Pods() {
				bound = append(bound, p.Key())
			}
			slices.SortFunc(bound, Key.Compare)
			if len(bound) > 0 {
				for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom(bound), 0, 20, rapid.ID).Draw(t, "remove") {
					ch.Remove = append(ch.Remove, k)
				}
			}
			for range rapid.IntRange(0, 20).Draw(t, "binds") {
				seq++
				id := rapid.IntRange(0, n-1).Draw(t, "on")
				ch.Bind = append(ch.Bind, Pod{Namespace: "default", Name: fmt.Sprintf("x%05d", seq), NodeName: nodes[id].Name,
					Requests: ResourceList{ResourceCPU: 1000 * int64(rapid.IntRange(0, 2).Draw(t, "cpu")), ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "gpu"))}})
			}
			child, err := parent.Apply(ch)
			require.NoError(t, err)
			snaps = append(snaps, child)
			solveAll(child)
		}
		// The parents, solved again after their children: unchanged.
		for _, s := range snaps {
			solveAll(s)
		}
	})
}

// TestApply_ConcurrentForksSolve forks one parent (its class index built)
// in two goroutines, each applying and solving on its own chain; run with
// -race. Each chain's decisions must equal a rebuilt snapshot's.
func TestApply_ConcurrentForksSolve(t *testing.T) {
	const n = 1030
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%04d", i), Labels: map[string]string{"pool": "a"},
			Allocatable: ResourceList{ResourceCPU: 8000, ResourceGPU: 8, ResourcePods: 20}}
	}
	s0, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	groups := applyGroups(n)
	for _, gc := range groups {
		_, err := Solve(s0, gc.g, gc.opts)
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	results := make([][]*Snapshot, 2)
	for w := range 2 {
		wg.Go(func() {
			s := s0
			for step := range 20 {
				var ch Change
				for k := range 8 {
					id := (w*500 + step*37 + k*129) % n
					ch.Bind = append(ch.Bind, Pod{Namespace: "default", Name: fmt.Sprintf("w%d-%d-%d", w, step, k), NodeName: nodes[id].Name,
						Requests: ResourceList{ResourceCPU: 1000, ResourceGPU: int64(1 + k%3)}})
				}
				next, err := s.Apply(ch)
				if err != nil {
					panic(err)
				}
				for _, gc := range groups {
					if _, err := Solve(next, gc.g, gc.opts); err != nil {
						panic(err)
					}
				}
				results[w] = append(results[w], next)
				s = next
			}
		})
	}
	wg.Wait()
	for _, chain := range results {
		for _, s := range chain {
			requireSolvesAsRebuilt(t, s, groups)
		}
	}
}

// requireSolvesAsRebuilt checks that every group decides on s as on a
// snapshot built from scratch with s's nodes and pods, and that what it
// schedules verifies.
func requireSolvesAsRebuilt(t require.TestingT, s *Snapshot, groups []applyGroup) {
	f := rebuilt(t, s)
	for _, gc := range groups {
		got, err := Solve(s, gc.g, gc.opts)
		require.NoError(t, err)
		want, err := Solve(f, gc.g, gc.opts)
		require.NoError(t, err)
		got.Steps, want.Steps = 0, 0
		require.Equal(t, want, got, gc.g.Name)
		if got.Status == Scheduled {
			require.NoError(t, Verify(s, gc.g, got))
		}
	}
}

// TestApply_ConcurrentColdParent: goroutines solve on, and apply to, one
// parent whose class index is not built yet, so that building it races
// with deriving children's; run with -race. Every child decides as a
// rebuilt snapshot does.
func TestApply_ConcurrentColdParent(t *testing.T) {
	const n = 600
	nodes := make([]Node, n)
	var pods []Pod
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%04d", i), Labels: map[string]string{"pool": "a"},
			Allocatable: ResourceList{ResourceCPU: 8000, ResourceGPU: 8, ResourcePods: 20}}
		if i%5 == 0 {
			pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%04d", i), NodeName: nodes[i].Name, Requests: ResourceList{ResourceGPU: 3}})
		}
	}
	s0, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	groups := applyGroups(n)
	var wg sync.WaitGroup
	children := make([]*Snapshot, 4)
	for w := range 4 {
		wg.Go(func() {
			if w%2 == 0 {
				if _, err := Solve(s0, groups[0].g, groups[0].opts); err != nil {
					panic(err)
				}
			}
			ch := Change{Remove: []Key{{Namespace: "default", Name: fmt.Sprintf("b%04d", 5*w)}}}
			for k := range 5 {
				ch.Bind = append(ch.Bind, Pod{Namespace: "default", Name: fmt.Sprintf("c%d-%d", w, k),
					NodeName: nodes[(w*131+k*7)%n].Name, Requests: ResourceList{ResourceGPU: int64(1 + k%4)}})
			}
			c, err := s0.Apply(ch)
			if err != nil {
				panic(err)
			}
			children[w] = c
		})
	}
	wg.Wait()
	for _, c := range append(children, s0) {
		requireSolvesAsRebuilt(t, c, groups)
	}
}

// TestApply_SaturatedUsageSumsAsRebuilt: the cluster-wide usage sums the
// default score reads for a placement of every node saturate in
// NewSnapshot; Apply must keep them equal to a rebuilt snapshot's when a
// sum is saturated (removing a pod from a saturated sum) or would overflow
// (binding onto a sum near the top), or Decision.Score differs between a
// snapshot and the same cluster built afresh.
func TestApply_SaturatedUsageSumsAsRebuilt(t *testing.T) {
	big := ResourceList{ResourceCPU: math.MaxInt64, ResourcePods: 110}
	half := int64(math.MaxInt64/2 + 1)
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 1,
		Members: []Pod{{Namespace: "default", Name: "m0", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 1}}}}
	for name, tc := range map[string]struct {
		pods []Pod
		ch   Change
	}{
		"remove from a saturated sum": {
			pods: []Pod{
				{Namespace: "x", Name: "a", NodeName: "n0", Requests: ResourceList{ResourceCPU: half}},
				{Namespace: "x", Name: "b", NodeName: "n1", Requests: ResourceList{ResourceCPU: half}},
				{Namespace: "x", Name: "c", NodeName: "n2", Requests: ResourceList{ResourceCPU: half}},
			},
			ch: Change{Remove: []Key{{Namespace: "x", Name: "c"}}},
		},
		"bind past the top": {
			pods: []Pod{
				{Namespace: "x", Name: "a", NodeName: "n0", Requests: ResourceList{ResourceCPU: half}},
			},
			ch: Change{Bind: []Pod{{Namespace: "x", Name: "b", NodeName: "n1", Requests: ResourceList{ResourceCPU: half}}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: big}, {Name: "n1", Allocatable: big}, {Name: "n2", Allocatable: big}}, tc.pods)
			require.NoError(t, err)
			a, err := s.Apply(tc.ch)
			require.NoError(t, err)
			want, err := Solve(rebuilt(t, a), g, Options{})
			require.NoError(t, err)
			got, err := Solve(a, g, Options{})
			require.NoError(t, err)
			require.Equal(t, Scheduled, want.Status)
			require.Equal(t, want.Score, got.Score)
		})
	}
}
