package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement/placementtest"

	. "github.com/gangsched/gangsched/placement"
)

// subsets is a generator of fixed placements: node subsets drawn by a
// test, each given in ascending ID order.
type subsets [][]NodeID

func (p subsets) Generate(*Snapshot, GroupView) ([]Placement, error) {
	out := make([]Placement, len(p))
	for i, nodes := range p {
		out[i] = Placement{Name: fmt.Sprintf("p%d", i), Nodes: nodes, Rank: i % 2}
	}
	return out, nil
}

// TestProp_GroupedSourcesEqualOneByOne checks the batched placement over a
// placement smaller than the cluster, which groups untouched nodes by type
// and usage, against placing the members one by one. The nodes share one
// or two types and have few usage levels, so groups hold many nodes; a
// node selector sometimes splits a type by labels; two shapes of members
// make each run after the first meet nodes an earlier one touched. Every
// placement holds room for every member, so both decide in their first
// greedy pass (the searches that follow a pass that falls short may find
// different assignments of the same size).
func TestProp_GroupedSourcesEqualOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(6, 40).Draw(t, "nodes")
		nodes := make([]Node, n)
		var pods []Pod
		for i := range nodes {
			gpus := int64(16)
			if rapid.IntRange(0, 3).Draw(t, "big") == 0 {
				gpus = 32
			}
			pool := "a" // nodes 0, 1, 3, 4 are in pool a
			if i%3 == 2 {
				pool = "b"
			}
			nodes[i] = Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{"pool": pool},
				Allocatable: ResourceList{ResourceCPU: 128000, ResourceGPU: gpus, ResourcePods: 110}}
			if used := rapid.IntRange(0, 3).Draw(t, "used"); used > 0 {
				pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%02d", i), NodeName: nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 8000 * int64(used), ResourceGPU: 2 * int64(used)}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		var gen subsets
		for range rapid.IntRange(1, 3).Draw(t, "placements") {
			sub := []NodeID{0, 1, 3, 4} // room for 20 members even in pool a
			for id := NodeID(5); id < NodeID(n); id++ {
				if rapid.Bool().Draw(t, "in") {
					sub = append(sub, id)
				}
			}
			gen = append(gen, sub)
		}
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
		shapes := []ResourceList{{ResourceCPU: 8000, ResourceGPU: 1}, {ResourceCPU: 4000, ResourceGPU: 2}}
		var selector map[string]string
		if rapid.Bool().Draw(t, "selector") {
			selector = map[string]string{"pool": "a"}
		}
		for i := range rapid.IntRange(1, 20).Draw(t, "members") {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("m%02d", i), SchedulingGroup: "pg",
				Requests: shapes[rapid.IntRange(0, 1).Draw(t, "shape")], NodeSelector: selector})
		}
		g.MinCount = int32(len(g.Members))
		fast, err := Solve(s, g, Options{Generator: gen})
		require.NoError(t, err)
		slow, err := Solve(s, g, Options{Generator: gen, Filters: []Filter{noop}})
		require.NoError(t, err)
		require.Equal(t, Scheduled, slow.Status, slow.Message)
		fast.Steps, slow.Steps = 0, 0
		require.Equal(t, slow, fast)
	})
}

// TestProp_ConsecutiveDomainsByClassesEqualOneByOne checks the batched
// placement over a domain of 64 or more nodes with consecutive IDs, which
// streams the snapshot's classes of identical nodes restricted to the
// domain, against placing the members one by one: the same decision. The
// domains are windows of a cluster of 64–160 nodes with a few usage
// levels (so that classes are few to the nodes), sometimes with a hole
// (then the nodes are grouped one by one instead); members of two shapes
// and a gang larger than one window's room make runs meet nodes an earlier
// run touched, and let a placement fall short.
func TestProp_ConsecutiveDomainsByClassesEqualOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(64, 160).Draw(t, "nodes")
		nodes := make([]Node, n)
		var pods []Pod
		for i := range nodes {
			nodes[i] = Node{Name: fmt.Sprintf("n%03d", i), Allocatable: ResourceList{ResourceCPU: 64000, ResourceGPU: 8, ResourcePods: 110}}
			if used := rapid.IntRange(0, 8).Draw(t, "used"); used > 0 {
				pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%03d", i), NodeName: nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 8000 * int64(used), ResourceGPU: int64(used)}})
			}
		}
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		var gen subsets
		for range rapid.IntRange(1, 3).Draw(t, "placements") {
			size := rapid.IntRange(64, n).Draw(t, "size")
			lo := rapid.IntRange(0, n-size).Draw(t, "lo")
			var sub []NodeID
			hole := -1
			if rapid.IntRange(0, 3).Draw(t, "holey") == 0 {
				hole = lo + rapid.IntRange(1, size-2).Draw(t, "hole")
			}
			for id := lo; id < lo+size; id++ {
				if id != hole {
					sub = append(sub, NodeID(id))
				}
			}
			gen = append(gen, sub)
		}
		g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
		shapes := []ResourceList{{ResourceCPU: 8000, ResourceGPU: 1}, {ResourceCPU: 4000, ResourceGPU: 2}}
		for i := range rapid.IntRange(1, 300).Draw(t, "members") {
			g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("m%03d", i), SchedulingGroup: "pg",
				Requests: shapes[rapid.IntRange(0, 1).Draw(t, "shape")]})
		}
		g.MinCount = int32(rapid.IntRange(1, len(g.Members)).Draw(t, "minCount"))
		opts := Options{Generator: gen, SearchBudget: 1} // the greedy passes: searches may pick other nodes alike
		fast, err := Solve(s, g, opts)
		require.NoError(t, err)
		opts.Filters = []Filter{noop}
		slow, err := Solve(s, g, opts)
		require.NoError(t, err)
		fast.Steps, slow.Steps = 0, 0
		require.Equal(t, slow, fast)
	})
}

// genCluster draws a cluster meant to break grouping: several static types
// (allocatable, taints, cordons) whose usage rows coincide, labels that
// split types, few pod slots, and bound pods of the group itself.
func genCluster(t *rapid.T, minNodes, maxNodes, maxLevels int) (*Snapshot, []Node, []Pod) {
	n := rapid.IntRange(minNodes, maxNodes).Draw(t, "nodes")
	nodes := make([]Node, n)
	var pods []Pod
	allocs := []ResourceList{
		{ResourceCPU: 16000, ResourceGPU: 8, ResourcePods: 110},
		{ResourceCPU: 32000, ResourceGPU: 8, ResourcePods: 110},
		{ResourceCPU: 16000, ResourceGPU: 4, ResourcePods: 110},
		{ResourceCPU: 16000, ResourceGPU: 8, ResourcePods: 3},
	}
	nTypes := rapid.IntRange(1, len(allocs)).Draw(t, "types")
	levels := rapid.IntRange(1, maxLevels).Draw(t, "levels")
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%04d", i), Labels: map[string]string{"pool": []string{"a", "b"}[rapid.IntRange(0, 1).Draw(t, "pool")]},
			Allocatable: allocs[rapid.IntRange(0, nTypes-1).Draw(t, "alloc")]}
		switch rapid.IntRange(0, 9).Draw(t, "taint") {
		case 0:
			nodes[i].Taints = []Taint{{Key: "t", Value: "x", Effect: TaintEffectNoSchedule}}
		case 1:
			nodes[i].Taints = []Taint{{Key: "p", Effect: TaintEffectPreferNoSchedule}}
		case 2:
			nodes[i].Unschedulable = true
		case 3:
			nodes[i].Taints = []Taint{{Key: "t", Value: "y", Effect: TaintEffectNoExecute}}
		}
		if u := rapid.IntRange(0, levels-1).Draw(t, "used"); u > 0 {
			owner := ""
			if rapid.IntRange(0, 4).Draw(t, "own") == 0 {
				owner = "pg"
			}
			pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%04d", i), NodeName: nodes[i].Name, SchedulingGroup: owner,
				Requests: ResourceList{ResourceCPU: 1000 * int64(u), ResourceGPU: int64(u % 5)}})
		}
	}
	s, err := NewSnapshot(nodes, pods)
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	return s, nodes, pods
}

// genGroup draws members and pod sets of a few shapes, with tolerations
// and node selectors, and a MinCount that is sometimes out of reach.
func genGroup(t *rapid.T) *Group {
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang}
	shapes := []ResourceList{{ResourceCPU: 2000, ResourceGPU: 1}, {ResourceCPU: 4000, ResourceGPU: 2}, {ResourceCPU: 1000}, {ResourceGPU: 1},
		{}, {ResourceMemory: 1}, {ResourceCPU: 1, ResourceGPU: 0}, {ResourceCPU: 16000}, {"example.com/foo": 0, ResourceGPU: 3}}
	tols := [][]Toleration{nil, {{Key: "t", Operator: TolerationOpExists}}, {{Key: "node.kubernetes.io/unschedulable", Operator: TolerationOpExists}}, {{Operator: TolerationOpExists}}}
	sels := []map[string]string{nil, nil, {"pool": "a"}, {"pool": "b"}}
	template := func() Pod {
		return Pod{Requests: shapes[rapid.IntRange(0, len(shapes)-1).Draw(t, "shape")],
			Tolerations:  tols[rapid.IntRange(0, len(tols)-1).Draw(t, "tol")],
			NodeSelector: sels[rapid.IntRange(0, len(sels)-1).Draw(t, "sel")]}
	}
	// Runs of identical members: the batched path places a run at once.
	for r := range rapid.IntRange(0, 4).Draw(t, "runs") {
		p := template()
		for i := range rapid.IntRange(1, 12).Draw(t, "run") {
			m := p
			m.Namespace, m.Name, m.SchedulingGroup = "default", fmt.Sprintf("m%d-%02d", r, i), "pg"
			g.Members = append(g.Members, m)
		}
	}
	for k := range rapid.IntRange(0, 2).Draw(t, "podsets") {
		g.PodSets = append(g.PodSets, PodSet{Name: fmt.Sprintf("set%d", k), Count: int32(rapid.IntRange(1, 30).Draw(t, "count")), Template: template()})
	}
	if g.NumPending() == 0 {
		g.Members = append(g.Members, Pod{Namespace: "default", Name: "m-only", SchedulingGroup: "pg", Requests: shapes[0]})
	}
	g.MinCount = int32(rapid.IntRange(1, g.NumPending()).Draw(t, "min"))
	return g
}

func genPlacements(t *rapid.T, n int) subsets {
	var gen subsets
	for range rapid.IntRange(1, 4).Draw(t, "placements") {
		var sub []NodeID
		density := rapid.IntRange(1, 4).Draw(t, "density")
		for id := range NodeID(n) {
			if rapid.IntRange(0, 3).Draw(t, "in") < density {
				sub = append(sub, id)
			}
		}
		gen = append(gen, sub)
	}
	return gen
}

// TestProp_WildGroupedEqualsOneByOne compares the batched placement with
// the one-by-one one (a no-op caller Filter) on clusters of many types,
// taints and cordons, members with tolerations and selectors, pod sets and
// bound members, over random placements of two ranks.
func TestProp_WildGroupedEqualsOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkGroupedEqualsOneByOne(t, 1, 40, 4) })
}

// TestProp_WideGroupedEqualsOneByOne is the same over clusters of hundreds
// of nodes, around the bitmaps' 512-node chunks, with enough usage levels
// that a placement has more than 128 groups (the group table grows).
func TestProp_WideGroupedEqualsOneByOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkGroupedEqualsOneByOne(t, 500, 1100, 15) })
}

func checkGroupedEqualsOneByOne(t *rapid.T, minNodes, maxNodes, maxLevels int) {
	{
		s, _, _ := genCluster(t, minNodes, maxNodes, maxLevels)
		g := genGroup(t)
		gen := genPlacements(t, s.NumNodes())
		// A search budget of one step keeps the greedy passes' result:
		// searches cut at different points may find different answers.
		opts := Options{Generator: gen, SearchBudget: 1}
		if rapid.Bool().Draw(t, "search") {
			opts.SearchBudget = 0
		}
		if rapid.IntRange(0, 4).Draw(t, "nogen") == 0 {
			opts.Generator = nil
		}
		fast, ferr := Solve(s, g, opts)
		if ferr == nil {
			briefOpts := opts
			briefOpts.StatusOnly = true
			brief, err := Solve(s, g, briefOpts)
			require.NoError(t, err)
			require.Equal(t, fast.Status == Scheduled, brief.Status == Scheduled)
			if fast.Status == Scheduled {
				require.Equal(t, fast, brief, "StatusOnly changed a Scheduled decision")
			}
		}
		opts.Filters = []Filter{noop}
		slow, serr := Solve(s, g, opts)
		if ferr != nil || serr != nil {
			require.Equal(t, serr, ferr)
			return
		}
		if slow.Status == BudgetExhausted || slow.Truncated {
			return // the slow path's budget ran out first
		}
		// With a caller Filter the search treats every node as its own
		// type, so it may be cut where the batched one finishes.
		fast.Steps, slow.Steps = 0, 0
		if opts.SearchBudget == 0 {
			// The searches differ by design: without a caller Filter,
			// identical members take non-decreasing nodes and nodes of
			// one type are tried once. Proven answers agree on the status, and
			// in one placement on the size.
			if slow.Proven && fast.Proven {
				require.Equal(t, slow.Status, fast.Status)
				if slow.Placement.Name == fast.Placement.Name {
					// Another placement may win on a score of another
					// (equally large) assignment.
					require.Equal(t, slow.MostFit, fast.MostFit)
				}
			}
			return
		}
		fast.Proven = slow.Proven
		require.Equal(t, slow, fast)
		if fast.Status == Scheduled {
			require.NoError(t, Verify(s, g, fast))
		}
	}
}

// TestProp_WildPermutationInvariance: nodes, bound pods and members listed
// in another order give the same decision on the wild clusters, over the
// whole cluster (classes) or per pool (grouped, with selectors), with and
// without the one-by-one path.
func TestProp_WildPermutationInvariance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, nodes, pods := genCluster(t, 1, 40, 4)
		g := genGroup(t)
		var opts Options
		if rapid.Bool().Draw(t, "pools") {
			opts.Generator = byLabel{"pool", "none"}
		}
		if rapid.Bool().Draw(t, "slow") {
			opts.Filters = []Filter{noop}
		}
		solve := func(s *Snapshot, g *Group) (Decision, error) { return Solve(s, g, opts) }
		if err := placementtest.CheckDeterministic(t, solve, placementtest.Cluster{Nodes: nodes, Pods: pods}, g); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGrouped_LongRunsAcrossChunks: runs longer than the 256 nodes a class
// source looks up at once, over classes whose nodes interleave across the
// bitmaps' 512-node chunks, after an earlier run touched nodes of each
// class, decide as one by one does — over the whole cluster (classes) and
// over a placement of most of it (grouped).
func TestGrouped_LongRunsAcrossChunks(t *testing.T) {
	const n = 1100
	nodes := make([]Node, n)
	var pods []Pod
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%04d", i), Labels: map[string]string{"pool": "a"},
			Allocatable: ResourceList{ResourceCPU: 4000, ResourceGPU: 2, ResourcePods: 10}}
		if u := i % 3; u > 0 { // three classes, interleaved
			pods = append(pods, Pod{Namespace: "default", Name: fmt.Sprintf("b%04d", i), NodeName: nodes[i].Name,
				Requests: ResourceList{ResourceCPU: 1000 * int64(u)}})
		}
	}
	s, err := NewSnapshot(nodes, pods)
	require.NoError(t, err)
	var most []NodeID
	for id := range NodeID(n) {
		if id%7 != 3 {
			most = append(most, id)
		}
	}
	g := &Group{Namespace: "default", Name: "pg", Policy: PolicyGang, MinCount: 1,
		PodSets: []PodSet{
			{Name: "a-first", Count: 700, Template: Pod{Requests: ResourceList{ResourceCPU: 1000, ResourceGPU: 1}}},
			{Name: "b-long", Count: 900, Template: Pod{Requests: ResourceList{ResourceCPU: 500}}},
			{Name: "c-gpu", Count: 600, Template: Pod{Requests: ResourceList{ResourceGPU: 1}}},
		}}
	for _, gen := range []PlacementGenerator{nil, subsets{most}} {
		opts := Options{Generator: gen, SearchBudget: 1}
		fast, err := Solve(s, g, opts)
		require.NoError(t, err)
		opts.Filters = []Filter{noop}
		slow, err := Solve(s, g, opts)
		require.NoError(t, err)
		require.Equal(t, Scheduled, slow.Status, slow.Message)
		require.False(t, slow.Truncated)
		require.Greater(t, slow.MostFit, 1500, slow.Message) // long runs, not a trivial fit
		fast.Steps, slow.Steps, fast.Proven = 0, 0, slow.Proven
		require.Equal(t, slow, fast)
		require.NoError(t, Verify(s, g, fast))
	}
}
