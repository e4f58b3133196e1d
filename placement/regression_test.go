package placement_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// Shrunk failures of the property and fuzz tests, one named test each.

func generating(ps ...Placement) Options {
	return Options{Generator: PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return ps, nil })}
}

func gangOf(min int32, members ...Pod) *Group {
	return &Group{Namespace: "default", Name: "pg1", MinCount: min, Members: members}
}

// A generator that repeats a node made the batched path fill it twice (two
// cpu:1 members on a cpu:1 node); an unknown node ID panicked. Both are
// bad generator output and now an error naming the placement.
func TestRegression_GeneratorOutputIsChecked(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 1000), cpuNode("n2", 1000)}, nil)
	require.NoError(t, err)
	g := gangOf(2, member("p1", "pg1", 1000), member("p2", "pg1", 1000))
	for _, tc := range []struct {
		name  string
		nodes []NodeID
		field string
	}{
		{"repeated node", []NodeID{0, 0}, "nodes[1]"},
		{"descending", []NodeID{1, 0}, "nodes[1]"},
		{"unknown node", []NodeID{0, 7}, "nodes[1]"},
		{"negative", []NodeID{-1}, "nodes[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Solve(s, g, generating(Placement{Name: "a", Nodes: tc.nodes}))
			requireFieldError(t, err, ErrInvalid, `placement "a"`, tc.field)
		})
	}
	d, err := Solve(s, g, generating(Placement{Name: "a", Nodes: []NodeID{0, 1}}))
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status)
	require.NoError(t, Verify(s, g, d))
}

// Errors named whichever bad entry map iteration or the input order met
// first: two nodes named n0, one with a bad allocatable, reported the
// duplicate in one order and the allocatable in the other; a pod with two
// negative requests named either. Now names are checked before contents
// and entries in name order.
func TestRegression_ErrorsDoNotDependOnInputOrder(t *testing.T) {
	a := Node{Name: "n0", Allocatable: ResourceList{"": 1}}
	b := Node{Name: "n0"}
	_, err1 := NewSnapshot([]Node{a, b}, nil)
	_, err2 := NewSnapshot([]Node{b, a}, nil)
	requireFieldError(t, err1, ErrDuplicate, `node "n0"`, "metadata.name")
	require.Equal(t, err1.Error(), err2.Error())

	bad := Pod{Namespace: "default", Name: "p", NodeName: "n1", Requests: ResourceList{"a": -1, "b": -1, "c": -1, "d": -1, ResourcePods: 1}}
	nodes := []Node{cpuNode("n1", 1000)}
	for range 20 {
		_, err := NewSnapshot(nodes, []Pod{bad})
		requireFieldError(t, err, ErrInvalid, `pod "default/p"`, "requests[a]")
	}
	// The same key twice, one copy invalid: the duplicate is reported.
	worse := bad
	worse.NodeName = "n9"
	_, err1 = NewSnapshot(nodes, []Pod{bad, worse})
	_, err2 = NewSnapshot(nodes, []Pod{worse, bad})
	requireFieldError(t, err1, ErrDuplicate, `pod "default/p"`, "metadata.name")
	require.Equal(t, err1.Error(), err2.Error())

	huge := Pod{Namespace: "default", Name: "q", NodeName: "n1", Requests: ResourceList{"a": math.MaxInt64, "b": math.MaxInt64, "c": math.MaxInt64}}
	twice := huge
	twice.Name = "r"
	for range 20 {
		_, err := NewSnapshot(nodes, []Pod{huge, twice})
		requireFieldError(t, err, ErrInvalid, `pod "default/r"`, "requests[a]")
	}

	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	m1, m2 := member("p1", "pg1", -1), member("p2", "other", 1)
	_, err1 = Solve(s, gangOf(1, m1, m2), Options{})
	_, err2 = Solve(s, gangOf(1, m2, m1), Options{})
	requireFieldError(t, err1, ErrInvalid, `pod "default/p1"`, "requests[cpu]")
	require.Equal(t, err1.Error(), err2.Error())
	d1 := member("p3", "pg1", -1)
	d2 := member("p3", "pg1", 1)
	_, err1 = Solve(s, gangOf(1, d1, d2), Options{})
	_, err2 = Solve(s, gangOf(1, d2, d1), Options{})
	requireFieldError(t, err1, ErrDuplicate, `pod "default/p3"`, "metadata.name")
	require.Equal(t, err1.Error(), err2.Error())
}

// A gang was called Unresolvable (so preemption would not try) whenever its
// first waiting member fitted nowhere even on an empty cluster, though the
// other members alone could reach minCount once pods left. Shrunk from
// TestProp_UnresolvableMeansNoRoomEvenEmpty: one full node (pods:2), three
// members whose selector no node matches and one that would fit.
func TestRegression_UnresolvableOnlyWhenTooFewCouldEverFit(t *testing.T) {
	node := Node{Name: "n00", Labels: map[string]string{"zone": "z0"}, Allocatable: ResourceList{ResourceCPU: 8000, ResourcePods: 2}}
	s, err := NewSnapshot([]Node{node}, []Pod{bound("p00", "n00", 0), bound("p01", "n00", 0)})
	require.NoError(t, err)
	elsewhere := func(name string) Pod {
		p := member(name, "pg1", 0)
		p.NodeSelector = map[string]string{"zone": "z1"}
		return p
	}
	g := gangOf(1, elsewhere("m00"), elsewhere("m01"), elsewhere("m02"), member("m03", "pg1", 0))
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status, d.Message)
	empty, err := s.Apply(Change{Remove: []Key{{"default", "p00"}, {"default", "p01"}}})
	require.NoError(t, err)
	d, err = Solve(empty, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)

	// With too few members that could ever fit, it stays Unresolvable.
	g = gangOf(2, elsewhere("m00"), elsewhere("m01"), elsewhere("m02"), member("m03", "pg1", 0))
	d, err = Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Unresolvable, d.Status, d.Message)
}

// A PlacementFilter's unresolvable rejection never made the decision
// Unresolvable: the rejected attempt also counted as a placement that
// failed for lack of room. Now the decision is Unresolvable when every
// placement that fitted was rejected as unresolvable and none failed for
// room, and Unschedulable as soon as one rejection could be resolved.
func TestRegression_UnresolvablePlacementRejection(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 4000), cpuNode("n2", 4000)}, nil)
	require.NoError(t, err)
	g := gangOf(2, member("p1", "pg1", 1000), member("p2", "pg1", 1000))
	quota := func(unresolvable bool) PlacementFilter {
		return PlacementFilterFunc(func(*Snapshot, GroupView, *Placement, []Assignment) Rejection {
			return Rejection{Reason: "over quota", Unresolvable: unresolvable}
		})
	}
	d, err := Solve(s, g, Options{PlacementFilters: []PlacementFilter{quota(true)}})
	require.NoError(t, err)
	require.Equal(t, Unresolvable, d.Status, d.Message)
	require.Equal(t, "2 of min 2 members fit but the placement was rejected: over quota", d.Message)

	d, err = Solve(s, g, Options{PlacementFilters: []PlacementFilter{quota(false)}})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status, d.Message)

	// Two placements: one rejected for good, one rejected resolvably.
	opts := generating(Placement{Name: "a", Nodes: []NodeID{0}}, Placement{Name: "b", Nodes: []NodeID{1}})
	opts.PlacementFilters = []PlacementFilter{PlacementFilterFunc(func(_ *Snapshot, _ GroupView, p *Placement, _ []Assignment) Rejection {
		return Rejection{Reason: "no " + p.Name, Unresolvable: p.Name == "a"}
	})}
	d, err = Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status, d.Message)
}

// diagnose lifted the budget to MaxInt64 for its re-run and did not put it
// back, so a decision that ran out of budget after a failed placement said
// "budget of 9223372036854775807 steps exhausted". (The solver now replays
// the attempt without touching the budget; the case stays as a test.)
func TestRegression_BudgetMessageAfterAFailedPlacement(t *testing.T) {
	// Each node could hold both members if its blocker left: the group is
	// not Unresolvable, only short of budget.
	blocker := func(name, node string) Pod {
		return Pod{Namespace: "x", Name: name, NodeName: node, Requests: ResourceList{ResourceCPU: 1000}}
	}
	s, err := NewSnapshot([]Node{cpuNode("n1", 2000), cpuNode("n2", 2000)}, []Pod{blocker("b1", "n1"), blocker("b2", "n2")})
	require.NoError(t, err)
	g := gangOf(2, member("p1", "pg1", 1000), member("p2", "pg1", 1000))
	opts := generating(Placement{Name: "a", Nodes: []NodeID{0}}, Placement{Name: "b", Nodes: []NodeID{1}})
	opts.Budget = 1
	d, err := Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, BudgetExhausted, d.Status)
	require.Equal(t, "1 of min 2 members fit in a; default/p2 fits on none of 1 nodes: 1 Insufficient cpu; budget of 1 steps exhausted", d.Message)
}

// Verify summed the members' requests per node without an overflow check:
// two members of cpu MaxInt64/2+1 on a node of cpu MaxInt64 wrapped to a
// negative sum and passed. And a group listing a bound pod as pending let
// an assignment move that pod unnoticed; Verify now rejects such a group
// as Solve does.
func TestRegression_VerifyCatchesOverflowAndMovedBoundPods(t *testing.T) {
	s, err := NewSnapshot([]Node{{Name: "n1", Allocatable: ResourceList{ResourceCPU: math.MaxInt64}}, cpuNode("n2", 1000)},
		[]Pod{{Namespace: "default", Name: "b1", NodeName: "n2", SchedulingGroup: "pg1"}})
	require.NoError(t, err)
	half := int64(math.MaxInt64/2 + 1)
	g := gangOf(2, member("p1", "pg1", half), member("p2", "pg1", half))
	d := Decision{Group: g.Key(), Status: Scheduled, Placement: Placement{Nodes: []NodeID{0, 1}}, Assignments: []Assignment{
		{Pod: Key{"default", "p1"}, Node: "n1", NodeID: 0}, {Pod: Key{"default", "p2"}, Node: "n1", NodeID: 0}}}
	require.ErrorIs(t, Verify(s, g, d), ErrViolation)

	moved := gangOf(1, member("b1", "pg1", 0))
	d = Decision{Group: moved.Key(), Status: Scheduled, Placement: Placement{Nodes: []NodeID{0, 1}}, Assignments: []Assignment{
		{Pod: Key{"default", "b1"}, Node: "n1", NodeID: 0}}}
	requireFieldError(t, Verify(s, moved, d), ErrDuplicate, `pod "default/b1"`, "metadata.name")
}

// DefaultScorer is public; called on a group with no members (and none
// bound) it divided by zero.
func TestRegression_DefaultScorerEmptyGroup(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 1000)}, nil)
	require.NoError(t, err)
	score, err := DefaultScorer{}.Score(s, GroupView{Group: &Group{Name: "pg1"}}, &Placement{Nodes: []NodeID{0}}, nil)
	require.NoError(t, err)
	require.Equal(t, int64(0), score)
}

// Apply cloned the parent's overlay trees with btree's Clone, which writes
// to the tree it copies: two goroutines deriving what-ifs from one snapshot
// raced (seen with go test -race). Each result must also be right.
func TestRegression_ConcurrentApplyOnOneParent(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 8000)}, []Pod{bound("a", "n1", 1000), bound("b", "n1", 1000)})
	require.NoError(t, err)
	s, err = s.Apply(Change{Remove: []Key{{"default", "a"}}, Bind: []Pod{bound("c", "n1", 1000)}})
	require.NoError(t, err)
	before := dump(s)
	results := make([]*Snapshot, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			results[i], errs[i] = s.Apply(Change{Remove: []Key{{"default", "b"}}, Bind: []Pod{bound(fmt.Sprintf("w%d", i), "n1", 500)}})
		})
	}
	wg.Wait()
	require.Equal(t, before, dump(s))
	for i, n := range results {
		require.NoError(t, errs[i])
		require.Equal(t, int64(8000-1000-500), n.Free(0, ResourceCPU))
		require.Equal(t, 2, n.NumPods())
	}
}

// Solve tried placements that lacked the node of a bound member, so a
// generator that ignored bound members got decisions Verify rejects
// (invariant 5). Shrunk from TestProp_SolveWildInput: a bound member on n1,
// a single placement holding n0 only.
func TestRegression_PlacementsMustHoldBoundMembers(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n0", 4000), cpuNode("n1", 4000)},
		[]Pod{{Namespace: "default", Name: "b1", NodeName: "n1", SchedulingGroup: "pg1"}})
	require.NoError(t, err)
	g := gangOf(1, member("p1", "pg1", 1000))
	d, err := Solve(s, g, generating(Placement{Name: "a", Nodes: []NodeID{0}}))
	require.NoError(t, err)
	require.NotEqual(t, Scheduled, d.Status, d.Message)
	require.NoError(t, Verify(s, g, d))

	d, err = Solve(s, g, generating(Placement{Name: "a", Nodes: []NodeID{0}}, Placement{Name: "b", Nodes: []NodeID{1}}))
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, "b", d.Placement.Name)
	require.NoError(t, Verify(s, g, d))
}

// Found by review: Verify replayed a decision in member order, so a Filter
// that reads what is already on a node rejected a decision first-fit
// decreasing had found (it places the big member first).
func TestRegression_VerifyAcceptsFirstFitDecreasingOrder(t *testing.T) {
	s, err := NewSnapshot([]Node{{Name: "n0", Allocatable: ResourceList{ResourceCPU: 10, ResourcePods: 110}}}, nil)
	require.NoError(t, err)
	bigFirst := FilterFunc(func(p *Pod, n NodeInfo) Rejection {
		if p.Name == "big" && n.Free(ResourceCPU) != 10 {
			return Rejection{Reason: "big goes on an empty node"}
		}
		return Rejection{}
	})
	small := Pod{Namespace: "ns", Name: "small", SchedulingGroup: "g", Priority: 10, Requests: ResourceList{ResourceCPU: 1}}
	big := Pod{Namespace: "ns", Name: "big", SchedulingGroup: "g", Requests: ResourceList{ResourceCPU: 5}}
	g := &Group{Namespace: "ns", Name: "g", MinCount: 2, Members: []Pod{small, big}}
	d, err := Solve(s, g, Options{Filters: []Filter{bigFirst}})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.NoError(t, Verify(s, g, d, bigFirst))
	// The filter still binds: both on the node in an order neither pass
	// would use fails.
	never := FilterFunc(func(p *Pod, n NodeInfo) Rejection {
		if n.Free(ResourceCPU) != 10 {
			return Rejection{Reason: "one pod a node"}
		}
		return Rejection{}
	})
	require.ErrorIs(t, Verify(s, g, d, never), ErrViolation)
}

// Found by review: the search told nodes apart by printing their taints, so
// {a, "b c"} and {"a b", c} looked alike and it tried only one of them.
func TestRegression_SearchTellsTaintsApart(t *testing.T) {
	cpu := ResourceList{ResourceCPU: 10}
	s, err := NewSnapshot([]Node{
		{Name: "n0", Allocatable: cpu, Taints: []Taint{{Key: "a", Value: "b c", Effect: TaintEffectNoSchedule}}},
		{Name: "n1", Allocatable: cpu, Taints: []Taint{{Key: "a b", Value: "c", Effect: TaintEffectNoSchedule}}},
		{Name: "n2", Allocatable: cpu},
	}, []Pod{{Namespace: "x", Name: "busy", NodeName: "n2", Requests: ResourceList{ResourceCPU: 2}}})
	require.NoError(t, err)
	g := &Group{Namespace: "ns", Name: "g", MinCount: 2, Members: []Pod{
		{Namespace: "ns", Name: "m1", SchedulingGroup: "g", Priority: 10, Requests: ResourceList{ResourceCPU: 6},
			Tolerations: []Toleration{{Key: "a b", Operator: TolerationOpEqual, Value: "c"}}},
		{Namespace: "ns", Name: "m2", SchedulingGroup: "g", Requests: ResourceList{ResourceCPU: 5}},
	}}
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.NoError(t, Verify(s, g, d))
}

// Found by review: a decision cut by the budget said its first waiting
// member "fits on none" of the nodes though it was never tried.
func TestRegression_BudgetMessageNamesNoUntriedMember(t *testing.T) {
	var nodes []Node
	for i := range 4 {
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), Allocatable: ResourceList{ResourceCPU: 10, ResourcePods: 110}})
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "ns", Name: "g", MinCount: 8}
	for i := range 8 {
		g.Members = append(g.Members, Pod{Namespace: "ns", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "g", Requests: ResourceList{ResourceCPU: 5}})
	}
	accept := FilterFunc(func(*Pod, NodeInfo) Rejection { return Rejection{} })
	d, err := Solve(s, g, Options{Filters: []Filter{accept}, Budget: 8})
	require.NoError(t, err)
	require.Equal(t, BudgetExhausted, d.Status)
	require.Equal(t, "2 of min 8 members fit; budget of 8 steps exhausted", d.Message)
}

// Found by review: a bound member's required anti-affinity tells pending
// members apart by their labels, yet members of equal requests were one
// class, so the search let b (app=y) take no node before a's (app=x): it
// never tried a→n1, b→n0 and proved the gang Unschedulable.
func TestRegression_BoundAffinityKeepsMembersApart(t *testing.T) {
	cpu := ResourceList{ResourceCPU: 1000, ResourcePods: 10}
	s, err := NewSnapshot([]Node{
		{Name: "n0", Labels: map[string]string{"host": "n0"}, Allocatable: cpu},
		{Name: "n1", Labels: map[string]string{"host": "n1"}, Allocatable: cpu},
	}, []Pod{{Namespace: "ns", Name: "p", NodeName: "n0", SchedulingGroup: "g", Affinity: &Affinity{
		PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{
			LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "host",
		}}},
	}}})
	require.NoError(t, err)
	m := func(name, app string, selector map[string]string) Pod {
		return Pod{Namespace: "ns", Name: name, SchedulingGroup: "g", Labels: map[string]string{"app": app},
			NodeSelector: selector, Requests: ResourceList{ResourceCPU: 500}}
	}
	g := &Group{Namespace: "ns", Name: "g", MinCount: 4, Members: []Pod{
		m("a", "x", nil), m("b", "y", nil), m("c", "z", map[string]string{"host": "n1"}),
	}}
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, []Assignment{
		{Pod: Key{"ns", "a"}, Node: "n1", NodeID: 1},
		{Pod: Key{"ns", "b"}, Node: "n0", NodeID: 0},
		{Pod: Key{"ns", "c"}, Node: "n1", NodeID: 1},
	}, d.Assignments)
	require.NoError(t, Verify(s, g, d))
}

// TestRegression_BoundAffinityWithPodSets: a bound member's anti-affinity
// against the label of a pod set's template was never checked (Solve
// checks terms only between listed members), so the set was Scheduled on
// the node the term forbids, and Verify agreed. Such a group is now
// rejected, as one whose members or templates have terms is; listed as
// members, the same pod waits.
func TestRegression_BoundAffinityWithPodSets(t *testing.T) {
	cpu := ResourceList{ResourceCPU: 1000, ResourcePods: 10}
	anti := &Affinity{PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{
		LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "host",
	}}}}
	s, err := NewSnapshot([]Node{{Name: "n0", Labels: map[string]string{"host": "n0"}, Allocatable: cpu}},
		[]Pod{{Namespace: "ns", Name: "p", NodeName: "n0", SchedulingGroup: "g", Affinity: anti}})
	require.NoError(t, err)
	template := Pod{Labels: map[string]string{"app": "x"}, Requests: ResourceList{ResourceCPU: 500}}
	g := &Group{Namespace: "ns", Name: "g", MinCount: 2, PodSets: []PodSet{{Name: "w", Count: 1, Template: template}}}
	_, err = Solve(s, g, Options{})
	requireFieldError(t, err, ErrInvalid, `pod "ns/p"`, "spec.affinity")
	require.ErrorContains(t, err, "bound member")
	require.Error(t, Verify(s, g, Decision{Status: Scheduled}))

	member := template
	member.Namespace, member.Name, member.SchedulingGroup = "ns", "w-0", "g"
	d, err := Solve(s, &Group{Namespace: "ns", Name: "g", MinCount: 2, Members: []Pod{member}}, Options{})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status, d.Message)
}

// TestRegression_OverflowBlameWithUntrackedResource: when request sums
// overflow and an earlier pod requests a resource no node lists, the error
// names the pod and node that overflow (it named an innocent pod, or no
// field at all, when that resource's sums went into another's column).
func TestRegression_OverflowBlameWithUntrackedResource(t *testing.T) {
	pod := func(name, node string, rl ResourceList) Pod {
		return Pod{Namespace: "ns", Name: name, NodeName: node, Requests: rl}
	}
	cpu := func(q int64) ResourceList { return ResourceList{ResourceCPU: q} }
	_, err := NewSnapshot([]Node{{Name: "n0", Allocatable: cpu(10)}, {Name: "n1", Allocatable: cpu(10)}}, []Pod{
		pod("a", "n0", ResourceList{ResourceCPU: 1, "example.com/x": math.MaxInt64 - 1}),
		pod("b", "n0", cpu(1)),
		pod("c", "n1", cpu(math.MaxInt64)),
		pod("d", "n1", cpu(math.MaxInt64)),
	})
	require.ErrorIs(t, err, ErrInvalid)
	require.EqualError(t, err, `pod "ns/d": requests[cpu]: sum of requests on node "n1" overflows int64`)

	_, err = NewSnapshot([]Node{{Name: "n0", Allocatable: cpu(0)}}, []Pod{
		pod("a", "n0", ResourceList{ResourceCPU: math.MaxInt64, "example.com/x": 1}),
		pod("b", "n0", cpu(math.MaxInt64)),
	})
	require.ErrorIs(t, err, ErrInvalid)
	require.EqualError(t, err, `pod "ns/b": requests[cpu]: sum of requests on node "n0" overflows int64`)
}
