package placement_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// TestRegression_PodSetErrorsWhateverTheOrder: a group with pod sets gets
// the same error from Solve and Verify whatever the order of its members
// and pod sets. Two bugs made it depend on the order: the member named
// for affinity terms (which pod sets rule out) was the first in
// Group.Members rather than in key order, and of two pod sets of one
// name, the one that sorted first had its own fields checked before the
// repeated name was noticed.
func TestRegression_PodSetErrorsWhateverTheOrder(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 100000)}, nil)
	require.NoError(t, err)
	m := func(name string) Pod { return member(name, "pg1", 1000) }
	withAffinity := func(name string) Pod {
		p := m(name)
		p.Affinity = &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 1,
			Term: PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"a": "b"}}, TopologyKey: "rack"}}}}}
		return p
	}
	set := func(name string, count int32) PodSet {
		return PodSet{Name: name, Count: count, Template: Pod{Requests: ResourceList{ResourceCPU: 1000}}}
	}
	affinitySet := set("s", 1)
	affinitySet.Template.Affinity = &Affinity{}
	for _, tc := range []struct {
		name     string
		members  []Pod
		sets     []PodSet
		sentinel error
		object   string
		field    string
	}{
		{"members with affinity terms", []Pod{m("p0"), withAffinity("p2"), withAffinity("p1")}, []PodSet{set("s", 2)},
			ErrInvalid, `pod "default/p1"`, "spec.affinity"},
		{"a set's name twice, one with a bad count", []Pod{m("p1")}, []PodSet{set("s", 0), set("s", 1), set("t", 1)},
			ErrDuplicate, `pod set "s" of PodGroup "default/pg1"`, "name"},
		{"a set's name twice, one with affinity terms", nil, []PodSet{affinitySet, set("s", 1)},
			ErrDuplicate, `pod set "s" of PodGroup "default/pg1"`, "name"},
		{"a bad set before a set's name twice", []Pod{m("p1")}, []PodSet{set("t", 1), set("t", 2), set("a", 0)},
			ErrInvalid, `pod set "a" of PodGroup "default/pg1"`, "count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			permutations(tc.members, func(ms []Pod) {
				reversed := slices.Clone(tc.sets)
				slices.Reverse(reversed)
				for _, sets := range [][]PodSet{tc.sets, reversed} {
					g := &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: ms, PodSets: sets}
					_, err := Solve(s, g, Options{})
					verr := Verify(s, g, Decision{Status: Unschedulable})
					for _, err := range []error{err, verr} {
						requireFieldError(t, err, tc.sentinel, tc.object, tc.field)
					}
				}
			})
		})
	}
}
