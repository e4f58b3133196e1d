package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// permutations calls f with every ordering of ps (a fresh slice each time).
func permutations(ps []Pod, f func([]Pod)) {
	var rec func(k int)
	rec = func(k int) {
		if k == len(ps) {
			f(append([]Pod(nil), ps...))
			return
		}
		for i := k; i < len(ps); i++ {
			ps[k], ps[i] = ps[i], ps[k]
			rec(k + 1)
			ps[k], ps[i] = ps[i], ps[k]
		}
	}
	rec(0)
}

// TestMemberErrorsWhateverTheOrder: Solve and Verify name the same member
// and field for a group with bad members whatever the order of
// Group.Members: a member bound in the snapshot (a base pod, or one an
// Apply added), a duplicate name, a member of another namespace, a bad
// request, and mixes of them, the first in key order winning. Members
// whose names a snapshot pod had before an Apply removed it are not
// bound.
func TestMemberErrorsWhateverTheOrder(t *testing.T) {
	base := []Pod{
		{Namespace: "default", Name: "b1", NodeName: "n1", Requests: ResourceList{ResourceCPU: 100}},
		{Namespace: "default", Name: "r1", NodeName: "n1", Requests: ResourceList{ResourceCPU: 100}},
		{Namespace: "team-a", Name: "t1", NodeName: "n1", Requests: ResourceList{ResourceCPU: 100}},
	}
	s0, err := NewSnapshot([]Node{cpuNode("n1", 100000), cpuNode("n2", 100000)}, base)
	require.NoError(t, err)
	s, err := s0.Apply(Change{Remove: []Key{{Namespace: "default", Name: "r1"}},
		Bind: []Pod{{Namespace: "default", Name: "a2", NodeName: "n2", Requests: ResourceList{ResourceCPU: 100}}}})
	require.NoError(t, err)

	m := func(name string) Pod { return member(name, "pg1", 1000) }
	otherNS := func(ns, name string) Pod { p := m(name); p.Namespace = ns; return p }
	negative := func(name string) Pod { p := m(name); p.Requests = ResourceList{ResourceCPU: -1}; return p }
	podsReq := func(name string) Pod { p := m(name); p.Requests = ResourceList{ResourcePods: 1}; return p }
	for _, tc := range []struct {
		name     string
		members  []Pod
		sentinel error // nil: valid
		object   string
		field    string
	}{
		{"valid, a removed pod's name", []Pod{m("p1"), m("r1"), m("t1"), m("p2")}, nil, "", ""},
		{"bound base pod", []Pod{m("p1"), m("b1"), m("p3")}, ErrDuplicate, `pod "default/b1"`, "metadata.name"},
		{"bound added pod", []Pod{m("p1"), m("a2"), m("r1")}, ErrDuplicate, `pod "default/a2"`, "metadata.name"},
		{"duplicate", []Pod{m("p1"), m("p3"), m("p2"), m("p3")}, ErrDuplicate, `pod "default/p3"`, "metadata.name"},
		{"duplicate before a bound member", []Pod{m("p1"), m("b1"), m("p3"), m("p3")}, ErrDuplicate, `pod "default/p3"`, "metadata.name"},
		{"other namespace", []Pod{m("p1"), otherNS("team-a", "p2"), m("p3")}, ErrInvalid, `pod "team-a/p2"`, "spec.schedulingGroup.podGroupName"},
		{"other namespace first in key order", []Pod{m("p1"), otherNS("aaa", "p9"), m("b1")}, ErrInvalid, `pod "aaa/p9"`, "spec.schedulingGroup.podGroupName"},
		{"bound before other namespace", []Pod{m("p1"), otherNS("team-a", "p2"), m("b1")}, ErrDuplicate, `pod "default/b1"`, "metadata.name"},
		{"bad request", []Pod{m("p1"), negative("p2"), m("p3")}, ErrInvalid, `pod "default/p2"`, "requests[cpu]"},
		{"pods request", []Pod{m("p1"), podsReq("p2"), m("p3")}, ErrInvalid, `pod "default/p2"`, "requests[pods]"},
		{"bad request before a bound member", []Pod{m("p1"), negative("a1"), m("b1")}, ErrInvalid, `pod "default/a1"`, "requests[cpu]"},
		{"bound before a bad request", []Pod{m("p1"), negative("z1"), m("b1")}, ErrDuplicate, `pod "default/b1"`, "metadata.name"},
		{"bad request after a duplicate", []Pod{negative("a1"), m("p1"), m("p1")}, ErrDuplicate, `pod "default/p1"`, "metadata.name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			permutations(tc.members, func(ms []Pod) {
				g := &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: ms}
				_, err := Solve(s, g, Options{})
				verr := Verify(s, g, Decision{Status: Unschedulable})
				if tc.sentinel == nil {
					require.NoError(t, err)
					require.NoError(t, verr)
					return
				}
				for _, err := range []error{err, verr} {
					requireFieldError(t, err, tc.sentinel, tc.object, tc.field)
				}
			})
		})
	}
}
