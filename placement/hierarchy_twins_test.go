package placement

import "testing"

// Groups that differ only in names are twins: members' names and pod
// sets' names alike, as long as the names ascend in both and the sets
// fall at one place among the members.
func TestSameGroup_PodSetNames(t *testing.T) {
	tmpl := Pod{Requests: ResourceList{ResourceCPU: 1000}}
	member := func(g, name string) Pod {
		return Pod{Namespace: "ns", Name: name, SchedulingGroup: g, Requests: ResourceList{ResourceCPU: 1000}}
	}
	group := func(name string, members []string, sets ...string) *Group {
		g := &Group{Namespace: "ns", Name: name, MinCount: 2}
		for _, m := range members {
			g.Members = append(g.Members, member(name, m))
		}
		for _, s := range sets {
			g.PodSets = append(g.PodSets, PodSet{Name: s, Count: 2, Template: tmpl})
		}
		return g
	}
	for _, tc := range []struct {
		name string
		a, b *Group
		want bool
	}{
		{"one set, names differ", group("a", nil, "a-w"), group("b", nil, "b-w"), true},
		{"two sets ascending in both", group("a", nil, "a-0", "a-1"), group("b", nil, "b-0", "b-1"), true},
		{"sets not ascending", group("a", nil, "a-1", "a-0"), group("b", nil, "b-0", "b-1"), false},
		{"set after the member in both", group("a", []string{"a-0"}, "a-1"), group("b", []string{"b-0"}, "b-1"), true},
		{"set after the member in one only", group("a", []string{"a-0"}, "a-1"), group("b", []string{"b-1"}, "b-0"), false},
		{"counts differ", group("a", nil, "a-w"), &Group{Namespace: "ns", Name: "b", MinCount: 2,
			PodSets: []PodSet{{Name: "b-w", Count: 3, Template: tmpl}}}, false},
	} {
		if got := sameGroup(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: sameGroup = %v, want %v", tc.name, got, tc.want)
		}
	}
}
