package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// verifyCluster is block b1 with racks r1 (n1, n2) and r2 (n3, n4) of 4
// CPUs each, and n5 in b1 without a rack label: outside the topology.
func verifyCluster(t *testing.T, pods ...placement.Pod) (*placement.Snapshot, *topology.Tree) {
	nodes := []placement.Node{
		node("n1", 4000, blockKey, "b1", rackKey, "r1", hostKey, "n1"),
		node("n2", 4000, blockKey, "b1", rackKey, "r1", hostKey, "n2"),
		node("n3", 4000, blockKey, "b1", rackKey, "r2", hostKey, "n3"),
		node("n4", 4000, blockKey, "b1", rackKey, "r2", hostKey, "n4"),
		node("n5", 4000, blockKey, "b1", hostKey, "n5"),
	}
	s := snapshot(t, nodes, pods...)
	return s, tree(t, s, planKeys...)
}

// onNodes assigns g's members in order to the named nodes.
func onNodes(t *testing.T, s *placement.Snapshot, g *placement.Group, names ...string) placement.Decision {
	d := placement.Decision{Group: g.Key(), Status: placement.Scheduled}
	for i, n := range names {
		id, ok := s.NodeID(n)
		require.True(t, ok, n)
		d.Assignments = append(d.Assignments, placement.Assignment{Pod: g.Members[i].Key(), Node: n, NodeID: id})
	}
	return d
}

// entries places pod sets: set, node, count triples.
func entries(t *testing.T, s *placement.Snapshot, g *placement.Group, triples ...any) placement.Decision {
	d := placement.Decision{Group: g.Key(), Status: placement.Scheduled}
	for i := 0; i+2 < len(triples); i += 3 {
		n := triples[i+1].(string)
		id, ok := s.NodeID(n)
		require.True(t, ok, n)
		d.PodSetAssignments = append(d.PodSetAssignments, placement.PodSetAssignment{PodSet: triples[i].(string), Node: n, NodeID: id, Count: int32(triples[i+2].(int))})
	}
	return d
}

const violated = "placement: invariant violated: PodGroup default/g: "

// TestVerify_Constraints: Tree.Verify refuses, with the member, node and
// domains named, a decision that breaks a required key — members, bound
// members and pod set entries alike — or a members' slice layer, and
// accepts one that keeps them; a preferred key binds nothing.
func TestVerify_Constraints(t *testing.T) {
	rack := []topology.Constraint{required(rackKey)}
	bound := member("g-z", "g", 1000)
	bound.NodeName = "n3"
	for _, tc := range []struct {
		name   string
		bound  []placement.Pod
		group  *placement.Group
		cs     []topology.Constraint
		decide func(*testing.T, *placement.Snapshot, *placement.Group) placement.Decision
		want   string // "" accepts
	}{
		{"members in one rack", nil, gang("g", 2, members("g", 2, 1000)), rack,
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1", "n2")
			}, ""},
		{"members across two racks", nil, gang("g", 2, members("g", 2, 1000)), rack,
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1", "n3")
			}, `member default/g-a on node "n1" is in domain b1/r1 and member default/g-b on node "n3" in b1/r2: two domains of required key "topology.kubernetes.io/rack"`},
		{"across two racks, only preferred", nil, gang("g", 2, members("g", 2, 1000)), []topology.Constraint{preferred(rackKey)},
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1", "n3")
			}, ""},
		{"across two racks, one block required", nil, gang("g", 2, members("g", 2, 1000)), []topology.Constraint{required(blockKey)},
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1", "n3")
			}, ""},
		{"a member away from the bound one", []placement.Pod{bound}, gang("g", 2, members("g", 1, 1000)), rack,
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1")
			}, `bound member default/g-z on node "n3" is in domain b1/r2 and member default/g-a on node "n1" in b1/r1: two domains of required key "topology.kubernetes.io/rack"`},
		{"a member beside the bound one", []placement.Pod{bound}, gang("g", 2, members("g", 1, 1000)), rack,
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n4")
			}, ""},
		{"a member outside every rack", nil, gang("g", 2, members("g", 2, 1000)), rack,
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n5", "n1")
			}, `member default/g-a on node "n5" is in no domain of required key "topology.kubernetes.io/rack"`},
		{"a pod set across two racks", nil, podSetGroup("g", 2), rack,
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return entries(t, s, g, "workers", "n1", 1, "workers", "n3", 1)
			}, `pod set "workers" on node "n1" is in domain b1/r1 and pod set "workers" on node "n3" in b1/r2: two domains of required key "topology.kubernetes.io/rack"`},
		{"members in slices of two per rack", nil, gang("g", 4, members("g", 4, 1000)), []topology.Constraint{{Key: rackKey, SliceSize: 2}},
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1", "n2", "n3", "n3")
			}, ""},
		{"a slice of two split across racks", nil, gang("g", 4, members("g", 4, 1000)), []topology.Constraint{{Key: rackKey, SliceSize: 2}},
			func(t *testing.T, s *placement.Snapshot, g *placement.Group) placement.Decision {
				return onNodes(t, s, g, "n1", "n3", "n3", "n4")
			}, `the members: 1 pods in domain b1/r1 (first on node "n1"), not whole slices of 2 per domain of slice key "topology.kubernetes.io/rack"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, tr := verifyCluster(t, tc.bound...)
			d := tc.decide(t, s, tc.group)
			require.NoError(t, placement.Verify(s, tc.group, d), "placement.Verify, which knows no constraint, accepts it")
			err := tr.Verify(s, tc.group, d, tc.cs)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, placement.ErrViolation)
			require.EqualError(t, err, violated+tc.want)
		})
	}
}

// lwsGroup is group g of a PodSetGroup "lws": a one-pod "leader" and two
// "workers".
func lwsGroup() *placement.Group {
	tmpl := placement.Pod{Requests: placement.ResourceList{cpu: 1000}}
	return &placement.Group{Namespace: "default", Name: "g", MinCount: 3, PodSets: []placement.PodSet{
		{Name: "leader", Count: 1, Template: tmpl}, {Name: "workers", Count: 2, Template: tmpl}}}
}

// TestVerifyPodSets: Tree.VerifyPodSets refuses a Kueue-style decision
// that splits a slice across racks, puts a group's leader in another
// rack than its workers, places part of a set or uses a node outside the
// topology, naming the set, node and domain; and accepts the right ones.
func TestVerifyPodSets(t *testing.T) {
	sliced := []topology.PodSetRequest{{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}}}}
	lws := []topology.PodSetRequest{{PodSet: "leader", Required: rackKey, Group: "lws"}, {PodSet: "workers", Required: rackKey, Group: "lws"}}
	for _, tc := range []struct {
		name    string
		group   *placement.Group
		reqs    []topology.PodSetRequest
		triples []any
		want    string
	}{
		{"whole slices per rack", podSetGroup("g", 4), sliced, []any{"workers", "n1", 1, "workers", "n2", 1, "workers", "n4", 2}, ""},
		{"a slice split across racks", podSetGroup("g", 4), sliced, []any{"workers", "n1", 1, "workers", "n3", 1, "workers", "n4", 2},
			`pod set "workers": 1 pods in domain b1/r1 (first on node "n1"), not whole slices of 2 per domain of slice key "topology.kubernetes.io/rack"`},
		{"part of a set", func() *placement.Group { g := podSetGroup("g", 4); g.MinCount = 2; return g }(), sliced, []any{"workers", "n1", 2},
			`pod set "workers" places 2 of its 4 pods: a planned set is placed whole`},
		{"a node outside the topology", podSetGroup("g", 2), []topology.PodSetRequest{{PodSet: "workers", Unconstrained: true}}, []any{"workers", "n1", 1, "workers", "n5", 1},
			`pod set "workers" on node "n5" is outside the topology: in no domain of "topology.kubernetes.io/rack"`},
		{"leader beside its workers", lwsGroup(), lws, []any{"leader", "n3", 1, "workers", "n3", 1, "workers", "n4", 1}, ""},
		{"leader in another rack", lwsGroup(), lws, []any{"leader", "n1", 1, "workers", "n3", 1, "workers", "n4", 1},
			`PodSetGroup "lws": pod set "leader" on node "n1" is in domain b1/r1 and pod set "workers" on node "n3" in b1/r2: two domains of required key "topology.kubernetes.io/rack"`},
		{"a preferred group split", lwsGroup(), []topology.PodSetRequest{{PodSet: "leader", Preferred: rackKey, Group: "lws"}, {PodSet: "workers", Preferred: rackKey, Group: "lws"}},
			[]any{"leader", "n1", 1, "workers", "n3", 1, "workers", "n4", 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, tr := verifyCluster(t)
			d := entries(t, s, tc.group, tc.triples...)
			require.NoError(t, placement.Verify(s, tc.group, d), "placement.Verify, which knows no request, accepts it")
			err := tr.VerifyPodSets(s, tc.group, d, tc.reqs)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, placement.ErrViolation)
			require.EqualError(t, err, violated+tc.want)
		})
	}
}

// TestVerifyPlan: a plan of PlanPodSets passes; its ranks reordered so
// that they leave rack r1 and come back, or disagreeing with the
// decision, are refused.
func TestVerifyPlan(t *testing.T) {
	s, tr := verifyCluster(t)
	g := podSetGroup("g", 4)
	reqs := []topology.PodSetRequest{{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}}}}
	p, err := tr.PlanPodSets(s, g, reqs, topology.PlanOptions{})
	require.NoError(t, err)
	require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
	require.NoError(t, tr.VerifyPlan(s, g, p, reqs))

	id := func(n string) placement.NodeID { i, _ := s.NodeID(n); return i }
	p.Decision = entries(t, s, g, "workers", "n1", 1, "workers", "n2", 1, "workers", "n3", 2)
	p.PodSets = []topology.PodSetPlan{{Name: "workers", Ranks: []topology.Rank{
		{Node: "n1", NodeID: id("n1"), First: 0, Count: 1},
		{Node: "n3", NodeID: id("n3"), First: 1, Count: 2},
		{Node: "n2", NodeID: id("n2"), First: 3, Count: 1}}}}
	require.NoError(t, tr.VerifyPodSets(s, g, p.Decision, reqs), "whole slices per rack")
	require.EqualError(t, tr.VerifyPlan(s, g, p, reqs), violated+`pod set "workers": rank 3 on node "n2" returns to domain b1/r1, which ranks before it left`)

	p.PodSets[0].Ranks[2] = topology.Rank{Node: "n1", NodeID: id("n1"), First: 3, Count: 1}
	require.EqualError(t, tr.VerifyPlan(s, g, p, reqs), violated+`pod set "workers": ranks put 2 pods on node "n1", the decision 1`)

	p.PodSets = nil
	require.EqualError(t, tr.VerifyPlan(s, g, p, reqs), violated+`plan lists sets [], where the Scheduled decision places ["workers"], by name`)
}

// TestVerify_Input: input the checks cannot start from is a FieldError,
// not a violation.
func TestVerify_Input(t *testing.T) {
	s, tr := verifyCluster(t)
	g := gang("g", 1, members("g", 1, 1000))
	d := onNodes(t, s, g, "n1")
	err := tr.Verify(s, g, d, []topology.Constraint{required("example.com/row")})
	require.ErrorIs(t, err, placement.ErrNotFound)
	require.False(t, errors.Is(err, placement.ErrViolation))

	other, _ := verifyCluster(t)
	err = tr.Verify(other, g, d, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, "not derived")

	err = (&topology.Tree{}).Verify(s, g, d, nil)
	require.ErrorIs(t, err, placement.ErrInvalid)

	err = tr.VerifyPodSets(s, podSetGroup("g", 3), placement.Decision{}, []topology.PodSetRequest{{PodSet: "workers", Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}}}})
	require.ErrorIs(t, err, placement.ErrInvalid)
	require.ErrorContains(t, err, "not a multiple of the slice size 2")
}
