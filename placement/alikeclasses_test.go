package placement

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestProp_AlikeClassesAreMembersApart: merging members of equal requests,
// labels and terms into one class (splitUnalike) decides exactly as a
// class a member does — status, placement, assignments, waiting members,
// score, steps, message — whether the greedy passes place them in runs or
// one by one, whatever the templates, terms, bound members and budget
// (drawAlikeCase: templates interleaved in member order, so that classes
// of equal requests are split by labels and terms).
func TestProp_AlikeClassesAreMembersApart(t *testing.T) {
	defer func() { classesApart, alikeOff = false, false }()
	rapid.Check(t, func(t *rapid.T) {
		s, g := drawAlikeCase(t)
		opts := Options{}
		if rapid.IntRange(0, 4).Draw(t, "tightBudget") == 0 {
			opts.Budget = int64(rapid.IntRange(1, 200).Draw(t, "budget"))
		}
		alikeOff = rapid.Bool().Draw(t, "oneByOne")
		merged, errMerged := Solve(s, g, opts)
		classesApart = true
		apart, errApart := Solve(s, g, opts)
		classesApart = false
		if fmt.Sprint(errMerged) != fmt.Sprint(errApart) {
			t.Fatalf("errors differ: merged %v, apart %v", errMerged, errApart)
		}
		if got, want := fmt.Sprintf("%#v", merged), fmt.Sprintf("%#v", apart); got != want {
			t.Fatalf("decisions differ:\nmerged: %s\napart:  %s", got, want)
		}
	})
}

// TestSplitUnalike_Classes: members of one request class are split where
// their labels or terms differ, each run of alike members in member order
// a class; identical members stay one class.
func TestSplitUnalike_Classes(t *testing.T) {
	nodes := []Node{{Name: "n0", Labels: map[string]string{"host": "h0"}, Allocatable: ResourceList{ResourceCPU: 4000}}}
	s, err := NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	anti := &Affinity{PodAntiAffinity: &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 1,
		Term: PodAffinityTerm{LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "host"}}}}}
	pod := func(name, app string, aff *Affinity) Pod {
		return Pod{Namespace: "ns", Name: name, SchedulingGroup: "g", Labels: map[string]string{"app": app}, Requests: ResourceList{ResourceCPU: 100}, Affinity: aff}
	}
	for _, tc := range []struct {
		name    string
		members []Pod
		want    []int32 // per member, its class
	}{
		{"identical", []Pod{pod("a", "x", anti), pod("b", "x", anti), pod("c", "x", anti)}, []int32{0, 0, 0}},
		{"labels differ", []Pod{pod("a", "x", anti), pod("b", "y", anti), pod("c", "y", anti)}, []int32{0, 1, 1}},
		{"terms differ", []Pod{pod("a", "x", anti), pod("b", "x", nil), pod("c", "x", anti)}, []int32{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Group{Namespace: "ns", Name: "g", Policy: PolicyBasic, Members: tc.members}
			var got []int32
			d, err := Solve(s, g, Options{Generator: classSpy(func(v GroupView) {
				for i := range v.Members {
					got = append(got, v.prep.rowClass[i])
				}
			})})
			if err != nil || d.Status != Scheduled {
				t.Fatalf("%v %v", d.Status, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("classes %v, want %v", got, tc.want)
			}
		})
	}
}

// classSpy is a generator of the one whole-cluster placement that shows
// the solver's classes to see.
type classSpy func(GroupView)

func (f classSpy) Generate(s *Snapshot, g GroupView) ([]Placement, error) {
	f(g)
	return []Placement{{Nodes: s.b.allNodes}}, nil
}
