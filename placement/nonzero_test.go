package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// leastCPU is LeastAllocated over cpu alone, so that the expected scores
// below are one division each.
var leastCPU = NodeScoring{Strategy: LeastAllocated, Resources: []ResourceWeight{{ResourceCPU, 1}}}

func cpuOnly(name string, milli int64) Node {
	return Node{Name: name, Allocatable: ResourceList{ResourceCPU: milli}}
}

// requestless is a member that requests nothing and that the score counts
// as 100m, as upstream counts a container without a cpu request.
func requestless(name string) Pod {
	return Pod{Namespace: "default", Name: name, SchedulingGroup: "pg", ScoreRequests: ResourceList{ResourceCPU: 100}}
}

// TestScenario_ScoreRequestsOfMember: a member that requests nothing fits
// the 200m n1 and the 4-CPU n2 (100m used). Read as 0 it scores n1 100 and
// n2 97 (3900/4000): n1. Read as 100m it scores n1 50 and n2 95: n2.
// Packing never reads ScoreRequests: nothing requested ties, n1 by name.
func TestScenario_ScoreRequestsOfMember(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuOnly("n1", 200), cpuOnly("n2", 4000)},
		[]Pod{{Namespace: "default", Name: "b", NodeName: "n2", Requests: ResourceList{ResourceCPU: 100}}})
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		m    Pod
		ns   NodeScoring
		want string
	}{
		{"as requested", Pod{Namespace: "default", Name: "m", SchedulingGroup: "pg"}, leastCPU, "n1"},
		{"non-zero", requestless("m"), leastCPU, "n2"},
		{"packing", requestless("m"), NodeScoring{}, "n1"}, // requests nothing: a tie, by name
	} {
		g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{c.m}}
		d, err := Solve(s, g, Options{NodeScoring: c.ns})
		require.NoError(t, err, c.name)
		require.Equal(t, map[string]string{"m": c.want}, nodesOf(d), c.name)
		require.NoError(t, Verify(s, g, d), c.name)
	}
}

// TestScenario_ScoreRequestsOfPlacedMembers: two request-less members on
// two empty 1-CPU nodes. m1 takes n1 (a tie, by name); for m2, n1 now
// holds 100m as the score counts it (90 against n2's 100): n2. Members
// the attempt placed count as bound pods do.
func TestScenario_ScoreRequestsOfPlacedMembers(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuOnly("n1", 1000), cpuOnly("n2", 1000)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{requestless("m1"), requestless("m2")}}
	d, err := Solve(s, g, Options{NodeScoring: leastCPU})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n1", "m2": "n2"}, nodesOf(d))
}

// TestScenario_ScoreRequestsOfBoundPods: a bound pod that requests nothing
// but scores as 100m makes n1 score 80 for a 100m member (n2: 90), in a
// snapshot built with it and in one it was bound into by Apply; without
// ScoreRequests the nodes tie and n1 wins by name.
func TestScenario_ScoreRequestsOfBoundPods(t *testing.T) {
	bound := Pod{Namespace: "default", Name: "b", NodeName: "n1", ScoreRequests: ResourceList{ResourceCPU: 100}}
	nodes := []Node{cpuOnly("n1", 1000), cpuOnly("n2", 1000)}
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{{Namespace: "default", Name: "m", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 100}}}}
	built, err := NewSnapshot(nodes, []Pod{bound})
	require.NoError(t, err)
	empty, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	applied, err := empty.Apply(Change{Bind: []Pod{bound}})
	require.NoError(t, err)
	plain := bound
	plain.ScoreRequests = nil
	asRequested, err := NewSnapshot(nodes, []Pod{plain})
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		s    *Snapshot
		want string
	}{{"built", built, "n2"}, {"applied", applied, "n2"}, {"as requested", asRequested, "n1"}} {
		d, err := Solve(c.s, g, Options{NodeScoring: leastCPU})
		require.NoError(t, err, c.name)
		require.Equal(t, map[string]string{"m": c.want}, nodesOf(d), c.name)
	}
}

// TestScenario_ScoreRequestsNotInBalanced: BalancedAllocation reads
// requests only, as upstream's (useRequested). A request-less member that
// scores as 100m CPU and 200 MiB changes nothing in a profile of
// BalancedAllocation alone with Fit's weight on a resource no node has.
func TestScenario_ScoreRequestsNotInBalanced(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuMemNode("n1", 1000, 1<<30), cpuMemNode("n2", 1000, 1<<30)},
		[]Pod{{Namespace: "default", Name: "b", NodeName: "n2", Requests: ResourceList{ResourceCPU: 500, ResourceMemory: 1 << 29}}})
	require.NoError(t, err)
	m := Pod{Namespace: "default", Name: "m", SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: 100},
		ScoreRequests: ResourceList{ResourceCPU: 100, ResourceMemory: 200 << 20}}
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{m}}
	ns := NodeScoring{Strategy: LeastAllocated, Resources: []ResourceWeight{{"example.com/none", 1}}, BalancedWeight: 1}
	d, err := Solve(s, g, Options{NodeScoring: ns})
	require.NoError(t, err)
	// n1: shares 0.1 and 0 → 1-0.05 = 95 with, 100 without: 50+(50-5)/2 = 72.
	// n2: 0.6 and 0.5 → 95 with, 100 without: 72 too; by name n1. Read as
	// score requests, n1's memory share would be 0.195 (balanced 97).
	require.Equal(t, map[string]string{"m": "n1"}, nodesOf(d))
}

// TestScoreRequestsErrors: ScoreRequests may name cpu and memory only, never
// negative, in a snapshot, in Apply and in a group.
func TestScoreRequestsErrors(t *testing.T) {
	nodes := []Node{cpuOnly("n1", 1000)}
	gpu := Pod{Namespace: "default", Name: "b", NodeName: "n1", ScoreRequests: ResourceList{"nvidia.com/gpu": 1}}
	_, err := NewSnapshot(nodes, []Pod{gpu})
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, `pod "default/b"`, fe.Object)
	require.Equal(t, "scoreRequests[nvidia.com/gpu]", fe.Field)
	neg := gpu
	neg.ScoreRequests = ResourceList{ResourceMemory: -1}
	empty, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	_, err = empty.Apply(Change{Bind: []Pod{neg}})
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "scoreRequests[memory]", fe.Field)
	require.ErrorIs(t, err, ErrInvalid)
	m := requestless("m")
	m.ScoreRequests[ResourceCPU] = -5
	_, err = Solve(empty, &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{m}}, Options{NodeScoring: leastCPU})
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "scoreRequests[cpu]", fe.Field)
}
