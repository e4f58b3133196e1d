package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// rackNode is the common set-up of topology.md: cpu:2, rack and zone labels.
func rackNode(name, zone, rack string) placement.Node {
	return node(name, 2000, zoneKey, zone, rackKey, rack)
}

// T1: rack-1 has 3 nodes (zone-1), rack-2 has 2 nodes (zone-1) and one of them is full, rack-3 has
// 1 node (zone-2). A gang of 3 (min 3) is placed entirely in rack-1.
func TestScenario_T1(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"), rackNode("r1-b", "zone-1", "rack-1"), rackNode("r1-c", "zone-1", "rack-1"),
		rackNode("r2-a", "zone-1", "rack-2"), rackNode("r2-b", "zone-1", "rack-2"),
		rackNode("r3-a", "zone-2", "rack-3"),
	}, placement.Pod{Namespace: "default", Name: "filler", NodeName: "r2-a", Requests: placement.ResourceList{cpu: 2000}})
	tr := tree(t, s, zoneKey, rackKey)
	g := gang("pg1", 3, members("pg1", 3, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "zone-1/rack-1", d.Placement.Name)
	require.Equal(t, map[string]string{"pg1-a": "r1-a", "pg1-b": "r1-a", "pg1-c": "r1-b"}, assigned(d))
}

// T2: Members request cpu:3 (no node can hold one): unschedulable, with a reason that says so.
func TestScenario_T2(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"), rackNode("r1-b", "zone-1", "rack-1"), rackNode("r2-a", "zone-1", "rack-2"),
	})
	tr := tree(t, s, zoneKey, rackKey)
	g := gang("pg1", 3, members("pg1", 3, 3000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Unresolvable, d.Status, "no node can ever hold a member")
	require.Empty(t, d.Assignments)
	require.Equal(t, "0 of min 3 members fit in zone-1/rack-1; default/pg1-a fits on none of 2 nodes: 2 Insufficient cpu", d.Message)
}

// T3: The only rack is full of other pods: unschedulable; after one of those pods leaves and frees
// enough room, all three bind in the next cycle.
func TestScenario_T3(t *testing.T) {
	s := snapshot(t, []placement.Node{rackNode("n1", "zone-1", "rack-1"), rackNode("n2", "zone-1", "rack-1")},
		placement.Pod{Namespace: "other", Name: "big", NodeName: "n1", Requests: placement.ResourceList{cpu: 2000}},
		placement.Pod{Namespace: "other", Name: "small", NodeName: "n2", Requests: placement.ResourceList{cpu: 1000}})
	tr := tree(t, s, zoneKey, rackKey)
	g := gang("pg1", 3, members("pg1", 3, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Unschedulable, d.Status)
	require.Equal(t, "1 of min 3 members fit in zone-1/rack-1; default/pg1-b fits on none of 2 nodes: 2 Insufficient cpu", d.Message)

	// Next cycle: "big" has left. The same tree serves the derived snapshot.
	s2, err := s.Apply(placement.Change{Remove: []placement.Key{{Namespace: "other", Name: "big"}}})
	require.NoError(t, err)
	d = solve(t, tr, s2, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg1-a": "n2", "pg1-b": "n1", "pg1-c": "n1"}, assigned(d))
}

// T4: Scoring by allocation: rack-1 has 2 nodes, rack-2 has 3, rack-3 has 1. A gang of 3 goes to
// rack-1: after placement rack-1 is 3/4 allocated against 3/6 for rack-2 (most-allocated wins).
func TestScenario_T4(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"), rackNode("r1-b", "zone-1", "rack-1"),
		rackNode("r2-a", "zone-1", "rack-2"), rackNode("r2-b", "zone-1", "rack-2"), rackNode("r2-c", "zone-1", "rack-2"),
		rackNode("r3-a", "zone-2", "rack-3"),
	})
	tr := tree(t, s, zoneKey, rackKey)
	g := gang("pg1", 3, members("pg1", 3, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "zone-1/rack-1", d.Placement.Name)
	// 3/4 allocated plus all members placed, with equal weights.
	require.Equal(t, int64(750_000+1_000_000), d.Score)
	rack2, _ := tr.Find("zone-1/rack-2")
	p := placement.Placement{Name: rack2.Path, Nodes: rack2.Nodes}
	opts, err := tr.SolverOptions([]topology.Constraint{required(rackKey)}, topology.MostAllocated)
	require.NoError(t, err)
	d2, err := placement.Solve(s, g, placement.Options{Generator: placement.PlacementGeneratorFunc(func(*placement.Snapshot, placement.GroupView) ([]placement.Placement, error) {
		return []placement.Placement{p}, nil
	}), Scorer: opts.Scorer})
	require.NoError(t, err)
	require.Equal(t, int64(500_000+1_000_000), d2.Score, "rack-2 would be 3/6 allocated")
}

// T5: Two gangs in a row, racks as in T1 but no node full (rack-1: 3 nodes, rack-2: 2, rack-3: 1):
// pg1 has 3 members of cpu:2, which only rack-1 can hold; pg2 has 2 members of cpu:2 (min 2) and
// then lands in rack-2, the only rack that still fits it.
func TestScenario_T5(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"), rackNode("r1-b", "zone-1", "rack-1"), rackNode("r1-c", "zone-1", "rack-1"),
		rackNode("r2-a", "zone-1", "rack-2"), rackNode("r2-b", "zone-1", "rack-2"),
		rackNode("r3-a", "zone-2", "rack-3"),
	})
	tr := tree(t, s, zoneKey, rackKey)
	pg1 := gang("pg1", 3, members("pg1", 3, 2000))
	d := solve(t, tr, s, pg1, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg1-a": "r1-a", "pg1-b": "r1-b", "pg1-c": "r1-c"}, assigned(d))
	s = commit(t, s, pg1, d)

	pg2 := gang("pg2", 2, members("pg2", 2, 2000))
	d = solve(t, tr, s, pg2, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg2-a": "r2-a", "pg2-b": "r2-b"}, assigned(d))
}

// T6: A rack that fits only one gang: one rack of 2 nodes (cpu:4 in all); pg1 (3 members) binds
// there; pg2 (2 members) stays pending.
func TestScenario_T6(t *testing.T) {
	s := snapshot(t, []placement.Node{rackNode("n1", "zone-1", "rack-1"), rackNode("n2", "zone-1", "rack-1")})
	tr := tree(t, s, zoneKey, rackKey)
	pg1 := gang("pg1", 3, members("pg1", 3, 1000))
	d := solve(t, tr, s, pg1, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	s = commit(t, s, pg1, d)

	pg2 := gang("pg2", 2, members("pg2", 2, 1000))
	d = solve(t, tr, s, pg2, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Unschedulable, d.Status)
	require.Empty(t, d.Assignments)
	require.Equal(t, 1, d.MostFit)
	require.Equal(t, "1 of min 2 members fit in zone-1/rack-1; default/pg2-b fits on none of 2 nodes: 2 Insufficient cpu", d.Message)
}

// T7: min 2 with 3 members and two racks that could each hold all 3: all 3 go to one rack.
func TestScenario_T7(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"), rackNode("r1-b", "zone-1", "rack-1"),
		rackNode("r2-a", "zone-1", "rack-2"), rackNode("r2-b", "zone-1", "rack-2"),
	})
	tr := tree(t, s, zoneKey, rackKey)
	g := gang("pg1", 2, members("pg1", 3, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg1-a": "r1-a", "pg1-b": "r1-a", "pg1-c": "r1-b"}, assigned(d))
}

// T8: Basic policy with a topology key: with several racks, all members go to one rack; when no
// rack fits all, as many as fit go to one rack and the rest wait (no spill into a second rack).
func TestScenario_T8(t *testing.T) {
	basic := func(n int) *placement.Group {
		return &placement.Group{Namespace: "default", Name: "pg1", Policy: placement.PolicyBasic, Members: members("pg1", n, 1000)}
	}
	t.Run("one rack fits all", func(t *testing.T) {
		s := snapshot(t, []placement.Node{
			rackNode("r1-a", "zone-1", "rack-1"),
			rackNode("r2-a", "zone-1", "rack-2"), rackNode("r2-b", "zone-1", "rack-2"),
		})
		tr := tree(t, s, zoneKey, rackKey)
		d := solve(t, tr, s, basic(3), topology.MostAllocated, required(rackKey))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, map[string]string{"pg1-a": "r2-a", "pg1-b": "r2-a", "pg1-c": "r2-b"}, assigned(d))
	})
	t.Run("no rack fits all", func(t *testing.T) {
		s := snapshot(t, []placement.Node{rackNode("r1-a", "zone-1", "rack-1"), rackNode("r2-a", "zone-1", "rack-2")})
		tr := tree(t, s, zoneKey, rackKey)
		d := solve(t, tr, s, basic(3), topology.MostAllocated, required(rackKey))
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, map[string]string{"pg1-a": "r1-a", "pg1-b": "r1-a"}, assigned(d))
		require.Equal(t, []placement.Key{{Namespace: "default", Name: "pg1-c"}}, d.Waiting)
	})
}

// T9: Nodes without the topology label are never part of a constrained placement.
func TestScenario_T9(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"),
		node("big", 8000),                         // no labels at all
		node("nozone", 8000, rackKey, "rack-1"),   // rack label but no zone: in no domain
		node("zoneonly", 8000, zoneKey, "zone-1"), // in zone-1, in no rack
	})
	tr := tree(t, s, zoneKey, rackKey)
	for _, name := range []string{"big", "nozone", "zoneonly"} {
		id, _ := s.NodeID(name)
		_, ok := tr.DomainOf(id, 1)
		require.False(t, ok, name)
	}
	rack1, ok := tr.Find("zone-1/rack-1")
	require.True(t, ok)
	require.Len(t, rack1.Nodes, 1)

	g := gang("pg1", 3, members("pg1", 3, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Unresolvable, d.Status, "the only rack is too small even empty")
	require.Equal(t, 2, d.MostFit)
	require.Equal(t, "zone-1/rack-1", d.Placement.Name)

	// With a required zone, "zoneonly" is a candidate but "nozone" never.
	d = solve(t, tr, s, g, topology.MostAllocated, required(zoneKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg1-a": "r1-a", "pg1-b": "r1-a", "pg1-c": "zoneonly"}, assigned(d))
}

// T10: The empty label value is a value: a node labelled rack="" is in domain "" and a node with
// no rack label is in no domain. Bound members on rack="" and rack=r2 are two domains: a required-
// rack group in that state gets a clear error, not a silent merge.
func TestScenario_T10(t *testing.T) {
	nodes := []placement.Node{
		node("n-empty", 2000, rackKey, ""),
		node("n-r2", 2000, rackKey, "r2"),
		node("n-none", 8000),
	}
	s := snapshot(t, nodes)
	tr := tree(t, s, rackKey)
	empty, ok := tr.Find(`""`)
	require.True(t, ok, "rack=\"\" is a domain")
	require.Equal(t, "", empty.Value)
	id, _ := s.NodeID("n-empty")
	require.Equal(t, []placement.NodeID{id}, empty.Nodes)
	none, _ := s.NodeID("n-none")
	_, ok = tr.DomainOf(none, 0)
	require.False(t, ok, "a node without the label is in no domain")

	// A bound member on rack="" pins the group there.
	bound := member("pg1-a", "pg1", 1000)
	bound.NodeName = "n-empty"
	s1 := snapshot(t, nodes, bound)
	tr1 := tree(t, s1, rackKey)
	g := gang("pg1", 2, []placement.Pod{member("pg1-b", "pg1", 1000)})
	d := solve(t, tr1, s1, g, topology.MostAllocated, required(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, `""`, d.Placement.Name)
	require.Equal(t, map[string]string{"pg1-b": "n-empty"}, assigned(d))

	// Bound members on rack="" and rack=r2: two domains, a clear error.
	other := member("pg1-z", "pg1", 1000)
	other.NodeName = "n-r2"
	s2 := snapshot(t, nodes, bound, other)
	tr2 := tree(t, s2, rackKey)
	opts, err := tr2.SolverOptions([]topology.Constraint{required(rackKey)}, topology.MostAllocated)
	require.NoError(t, err)
	_, err = placement.Solve(s2, gang("pg1", 3, []placement.Pod{member("pg1-b", "pg1", 1000)}), opts)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.EqualError(t, err, `PodGroup "default/pg1": spec.schedulingConstraints.topology: bound members are in two domains of required key "topology.kubernetes.io/rack": default/pg1-a in "" and default/pg1-z in r2; the group already breaks its constraint`)

	// A bound member on a node without the label: also an error.
	other.NodeName = "n-none"
	s3 := snapshot(t, nodes, bound, other)
	tr3 := tree(t, s3, rackKey)
	opts, err = tr3.SolverOptions([]topology.Constraint{required(rackKey)}, topology.MostAllocated)
	require.NoError(t, err)
	_, err = placement.Solve(s3, gang("pg1", 3, []placement.Pod{member("pg1-b", "pg1", 1000)}), opts)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, `bound member default/pg1-z is on node "n-none", which is in no domain of required key`)
}

// T11: Domain identity is the path, not the value: with levels [block, hostname], a node named
// `block-1` in block `block-1` and a node `nb` (cpu:2 free) in block `block-2`; a 1-pod group of
// cpu:4 with required block lands on node `block-1` (which has cpu:8 free).
func TestScenario_T11(t *testing.T) {
	s := snapshot(t, []placement.Node{
		node("block-1", 8000, blockKey, "block-1", hostKey, "block-1"),
		node("nb", 2000, blockKey, "block-2", hostKey, "nb"),
	})
	tr := tree(t, s, blockKey, hostKey)
	block, ok := tr.Find("block-1")
	require.True(t, ok)
	host, ok := tr.Find("block-1/block-1")
	require.True(t, ok)
	require.NotEqual(t, block.ID, host.ID)
	require.Equal(t, 0, block.Level)
	require.Equal(t, 1, host.Level)
	require.Equal(t, block.ID, host.Parent)
	require.Equal(t, host.Value, block.Value, "same value, different domains")

	g := gang("pg1", 1, members("pg1", 1, 4000))
	d := solve(t, tr, s, g, topology.MostAllocated, required(blockKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "block-1", d.Placement.Name)
	require.Equal(t, map[string]string{"pg1-a": "block-1"}, assigned(d))
}

// T12: Required and preferred on the same level (rack required, rack preferred) behaves exactly
// like rack required.
func TestScenario_T12(t *testing.T) {
	s := snapshot(t, []placement.Node{
		rackNode("r1-a", "zone-1", "rack-1"), rackNode("r1-b", "zone-1", "rack-1"),
		rackNode("r2-a", "zone-1", "rack-2"), rackNode("r2-b", "zone-1", "rack-2"), rackNode("r2-c", "zone-1", "rack-2"),
		rackNode("r3-a", "zone-2", "rack-3"),
	}, placement.Pod{Namespace: "x", Name: "filler", NodeName: "r2-c", Requests: placement.ResourceList{cpu: 1000}})
	tr := tree(t, s, zoneKey, rackKey)
	for _, n := range []int{1, 3, 4, 5} {
		g := gang("pg1", int32(n), members("pg1", n, 1000))
		want := solve(t, tr, s, g, topology.MostAllocated, required(rackKey))
		got := solve(t, tr, s, g, topology.MostAllocated, required(rackKey), preferred(rackKey))
		require.Equal(t, want, got, "gang of %d", n)
		gotRev := solve(t, tr, s, g, topology.MostAllocated, preferred(rackKey), required(rackKey))
		require.Equal(t, want, gotRev, "gang of %d", n)
	}
}

// T13: A full domain is skipped, not the end of the search: n1 has 0 free, n2 has cpu:4 free, an
// unconstrained 1-pod group of cpu:1 lands on n2.
func TestScenario_T13(t *testing.T) {
	s := snapshot(t, []placement.Node{node("n1", 2000, hostKey, "n1"), node("n2", 4000, hostKey, "n2")},
		placement.Pod{Namespace: "x", Name: "filler", NodeName: "n1", Requests: placement.ResourceList{cpu: 2000}})
	tr := tree(t, s, hostKey)
	g := gang("pg1", 1, members("pg1", 1, 1000))
	d := solve(t, tr, s, g, topology.MostAllocated)
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg1-a": "n2"}, assigned(d))
	d = solve(t, tr, s, g, topology.MostAllocated, required(hostKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "n2", d.Placement.Name)
	require.Equal(t, map[string]string{"pg1-a": "n2"}, assigned(d))
}

// T14: Preferred (soft) multi-level: levels block > rack, each node cpu:1.
func TestScenario_T14(t *testing.T) {
	var nodes []placement.Node
	add := func(name, block, rack string) {
		nodes = append(nodes, node(name, 1000, blockKey, block, rackKey, rack))
	}
	add("b1-r1-a", "b1", "r1")
	add("b1-r1-b", "b1", "r1")
	add("b1-r2-a", "b1", "r2")
	add("b1-r2-b", "b1", "r2")
	for _, r := range []string{"r3", "r4", "r5", "r6"} {
		add("b2-"+r, "b2", r)
	}
	s := snapshot(t, nodes)
	tr := tree(t, s, blockKey, rackKey)
	g := gang("pg1", 4, members("pg1", 4, 1000))
	for _, cs := range [][]topology.Constraint{{preferred(rackKey)}, {preferred(rackKey), preferred(blockKey)}} {
		d := solve(t, tr, s, g, topology.MostAllocated, cs...)
		require.Equal(t, placement.Scheduled, d.Status, d.Message)
		require.Equal(t, "b1", d.Placement.Name, "b1 needs 2 racks, b2 needs 4")
		require.Equal(t, map[string]string{"pg1-a": "b1-r1-a", "pg1-b": "b1-r1-b", "pg1-c": "b1-r2-a", "pg1-d": "b1-r2-b"}, assigned(d))
	}
	// When a rack holds the gang, it stays in that rack.
	small := gang("pg2", 2, members("pg2", 2, 1000))
	d := solve(t, tr, s, small, topology.MostAllocated, preferred(rackKey))
	require.Equal(t, "b1/r1", d.Placement.Name)
	// When no block holds it, it spreads wider, over the fewest blocks.
	big := gang("pg3", 6, members("pg3", 6, 1000))
	d = solve(t, tr, s, big, topology.MostAllocated, preferred(rackKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "", d.Placement.Name)
	require.Len(t, d.Assignments, 6)
}

// T15: Hard constraint at node level: 3 nodes of cpu:2, key = hostname, a gang of 2 × cpu:1 goes
// to one node; a gang of 2 × cpu:2 is unschedulable (never split across nodes).
func TestScenario_T15(t *testing.T) {
	s := snapshot(t, []placement.Node{
		node("n1", 2000, hostKey, "n1"), node("n2", 2000, hostKey, "n2"), node("n3", 2000, hostKey, "n3"),
	})
	tr := tree(t, s, hostKey)
	d := solve(t, tr, s, gang("pg1", 2, members("pg1", 2, 1000)), topology.MostAllocated, required(hostKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"pg1-a": "n1", "pg1-b": "n1"}, assigned(d))
	d = solve(t, tr, s, gang("pg2", 2, members("pg2", 2, 2000)), topology.MostAllocated, required(hostKey))
	require.Equal(t, placement.Unresolvable, d.Status, "no host holds both even empty: never split")
	require.Equal(t, 1, d.MostFit)
}

// TestBestFit_KeepsEmptyBlocksWhole: a small gang that needs one rack goes,
// with BestFit, to an empty rack of a block already in use, so that the
// empty block stays whole for a gang that needs all of it; MostAllocated
// sees three equally empty racks and takes the first path.
func TestBestFit_KeepsEmptyBlocksWhole(t *testing.T) {
	var nodes []placement.Node
	for _, r := range []struct{ block, rack string }{{"b1", "r1"}, {"b1", "r2"}, {"b2", "r3"}, {"b2", "r4"}} {
		for _, h := range []string{"a", "b"} {
			nodes = append(nodes, node(r.block+"-"+r.rack+"-"+h, 2000, blockKey, r.block, rackKey, r.rack))
		}
	}
	var full []placement.Pod
	for _, h := range []string{"a", "b"} {
		full = append(full, placement.Pod{Namespace: "x", Name: "busy-" + h, NodeName: "b2-r4-" + h, Requests: placement.ResourceList{cpu: 2000}})
	}
	s := snapshot(t, nodes, full...)
	tr := tree(t, s, blockKey, rackKey)
	small := gang("small", 2, members("small", 2, 1000))

	large := gang("large", 8, members("large", 8, 1000))
	d := solve(t, tr, s, small, topology.MostAllocated, required(rackKey))
	require.Equal(t, "b1/r1", d.Placement.Name)
	after := commit(t, s, small, d)
	d = solve(t, tr, after, large, topology.MostAllocated, required(blockKey))
	require.Equal(t, placement.Unschedulable, d.Status, "MostAllocated broke the only empty block")

	d = solve(t, tr, s, small, topology.BestFit, required(rackKey))
	require.Equal(t, "b2/r3", d.Placement.Name)
	s = commit(t, s, small, d)

	// The block-sized gang still finds b1 whole.
	d = solve(t, tr, s, large, topology.BestFit, required(blockKey))
	require.Equal(t, placement.Scheduled, d.Status, d.Message)
	require.Equal(t, "b1", d.Placement.Name)
}

// TestBestFit_TightestRack: among racks already in use, BestFit takes the
// one the gang leaves the least free (best fit), keeping the roomier one
// for a larger gang; members placed count first.
func TestBestFit_TightestRack(t *testing.T) {
	s := snapshot(t, []placement.Node{
		node("r1-a", 4000, rackKey, "r1"), node("r1-b", 4000, rackKey, "r1"),
		node("r2-a", 4000, rackKey, "r2"),
	},
		placement.Pod{Namespace: "x", Name: "p1", NodeName: "r1-a", Requests: placement.ResourceList{cpu: 1000}},
		placement.Pod{Namespace: "x", Name: "p2", NodeName: "r2-a", Requests: placement.ResourceList{cpu: 1000}})
	tr := tree(t, s, rackKey)
	d := solve(t, tr, s, gang("pg", 3, members("pg", 3, 1000)), topology.BestFit, required(rackKey))
	require.Equal(t, "r2", d.Placement.Name, "r2 is left with 0 free, r1 with 4")
	// With min 3 of 4 members, placing all 4 (only r1 can) beats a tighter fit.
	d = solve(t, tr, s, gang("pg", 3, members("pg", 4, 1000)), topology.BestFit, required(rackKey))
	require.Equal(t, "r1", d.Placement.Name)
	require.Len(t, d.Assignments, 4)
}

// TestGenerate_SmallestRequestOfMixedMembers: a domain is short of a
// group when its freest node cannot hold the smallest member; with members
// of two sizes, listed small first, that is the small one's request. r1's
// one node holds the 1-CPU member only, and minCount 1 needs no more, so
// r1 is a candidate of the first tier (its bound is the better; r2, which
// holds both, ends the tier), not the explanatory last tier of domains
// short of the group.
func TestGenerate_SmallestRequestOfMixedMembers(t *testing.T) {
	s := snapshot(t, []placement.Node{node("r1-a", 2000, rackKey, "r1"), node("r2-a", 8000, rackKey, "r2")})
	g := gang("pg", 1, []placement.Pod{member("pg-a", "pg", 1000), member("pg-b", "pg", 4000)})
	opts, err := tree(t, s, rackKey).SolverOptions([]topology.Constraint{required(rackKey)}, topology.MostAllocated)
	require.NoError(t, err)
	ps, err := opts.Generator.Generate(s, placement.GroupView{Group: g})
	require.NoError(t, err)
	ranks := map[string]int{}
	for _, p := range ps {
		ranks[p.Name] = p.Rank
	}
	require.Equal(t, map[string]int{"r1": 0, "r2": 0}, ranks)
}
