package placement

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// drawAlikeCase draws a cluster and a group for the alike runs: nodes of
// 1 or 2 cpu (some labelled host and zone, some without one or both, an
// empty zone value too — or, half the time, all labelled with both, as a
// run streams its domains only then), some already part used by other
// pods; bound
// members (some carrying terms) and pending members made from one to
// three templates — labels, requests and one shared *Affinity each — so
// that runs of alike members form, broken where member order (by name)
// interleaves the templates. Terms are affinity and anti-affinity,
// required and preferred, on host or zone.
func drawAlikeCase(t *rapid.T) (*Snapshot, *Group) {
	nNodes := rapid.IntRange(1, 24).Draw(t, "nodes")
	all := rapid.Bool().Draw(t, "allLabelled")
	var nodes []Node
	for k := range nNodes {
		labels := map[string]string{}
		if all || rapid.IntRange(0, 5).Draw(t, "hasHost") > 0 {
			labels["host"] = fmt.Sprint("h", k)
		}
		if z := rapid.IntRange(0, 4).Draw(t, "zone"); z > 0 || all {
			labels["zone"] = fmt.Sprint("z", z%3)
			if z == 4 {
				labels["zone"] = ""
			}
		}
		cpu := int64(1000 * rapid.IntRange(1, 2).Draw(t, "cpu"))
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", k), Labels: labels, Allocatable: ResourceList{ResourceCPU: cpu}})
	}
	var pods []Pod
	for k := range rapid.IntRange(0, 4).Draw(t, "others") {
		pods = append(pods, Pod{Namespace: "ns", Name: fmt.Sprint("o", k), NodeName: nodes[rapid.IntRange(0, nNodes-1).Draw(t, "otherNode")].Name,
			Requests: ResourceList{ResourceCPU: 250 * int64(rapid.IntRange(1, 3).Draw(t, "otherCPU"))}})
	}
	term := func() PodAffinityTerm {
		return PodAffinityTerm{
			LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y"}).Draw(t, "app")}},
			TopologyKey:   rapid.SampledFrom([]string{"host", "zone"}).Draw(t, "key"),
		}
	}
	affinity := func() *Affinity {
		a := &Affinity{}
		for kind := range 2 {
			pa := &PodAffinity{}
			for range rapid.IntRange(0, 1).Draw(t, "required") {
				pa.Required = append(pa.Required, term())
			}
			for range rapid.IntRange(0, 1).Draw(t, "preferred") {
				pa.Preferred = append(pa.Preferred, WeightedPodAffinityTerm{Weight: int32(rapid.IntRange(1, 100).Draw(t, "weight")), Term: term()})
			}
			if kind == 0 {
				a.PodAffinity = pa
			} else {
				a.PodAntiAffinity = pa
			}
		}
		return a
	}
	type template struct {
		app string
		cpu int64
		aff *Affinity
	}
	templates := make([]template, rapid.IntRange(1, 3).Draw(t, "templates"))
	for k := range templates {
		templates[k] = template{app: rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "label"), cpu: 250 * int64(rapid.IntRange(1, 2).Draw(t, "cpu"))}
		if rapid.IntRange(0, 3).Draw(t, "hasAffinity") > 0 {
			templates[k].aff = affinity()
		}
	}
	g := &Group{Namespace: "ns", Name: "g"}
	if rapid.Bool().Draw(t, "basic") {
		g.Policy = PolicyBasic
	}
	for k := range rapid.IntRange(0, 2).Draw(t, "bound") {
		p := Pod{Namespace: "ns", Name: fmt.Sprint("b", k), SchedulingGroup: "g", NodeName: nodes[rapid.IntRange(0, nNodes-1).Draw(t, "boundNode")].Name,
			Labels: map[string]string{"app": rapid.SampledFrom([]string{"x", "y", "z"}).Draw(t, "boundLabel")}, Requests: ResourceList{ResourceCPU: 250}}
		if rapid.Bool().Draw(t, "boundAffinity") {
			p.Affinity = affinity()
		}
		pods = append(pods, p)
		g.MinCount++
	}
	np := rapid.IntRange(1, 14).Draw(t, "pending")
	for k := range np {
		tp := templates[rapid.IntRange(0, len(templates)-1).Draw(t, "template")]
		g.Members = append(g.Members, Pod{Namespace: "ns", Name: fmt.Sprintf("p%02d", k), SchedulingGroup: "g",
			Labels: map[string]string{"app": tp.app}, Requests: ResourceList{ResourceCPU: tp.cpu}, Affinity: tp.aff})
	}
	g.MinCount += int32(rapid.IntRange(1, np).Draw(t, "minPending"))
	s, err := NewSnapshot(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	return s, g
}

// TestProp_AlikeRunsArePlaceOne: a group whose members form runs of alike
// members decides exactly as placing every member alone over every node
// does — status, placement, assignments (ties by node name), waiting
// members, score, steps, message — whatever the terms (affinity or
// anti, required or preferred, host or zone, bound members' terms),
// nodes without the key, usage and budget.
func TestProp_AlikeRunsArePlaceOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, g := drawAlikeCase(t)
		opts := Options{}
		if rapid.IntRange(0, 4).Draw(t, "tightBudget") == 0 {
			opts.Budget = int64(rapid.IntRange(1, 200).Draw(t, "budget"))
		}
		fast, errFast := Solve(s, g, opts)
		alikeOff = true
		slow, errSlow := Solve(s, g, opts)
		alikeOff = false
		if fmt.Sprint(errFast) != fmt.Sprint(errSlow) {
			t.Fatalf("errors differ: runs %v, one by one %v", errFast, errSlow)
		}
		if got, want := fmt.Sprintf("%#v", fast), fmt.Sprintf("%#v", slow); got != want {
			t.Fatalf("decisions differ:\nruns:       %s\none by one: %s", got, want)
		}
		if fast.Status == Scheduled {
			if err := Verify(s, g, fast); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestAlikeRuns_TiesByName: eight alike members with required
// anti-affinity on host go one to a node, the nodes in name order; a
// bound member's required anti-affinity on zone keeps members without
// terms out of its zone, and they pack, first node by name first.
func TestAlikeRuns_TiesByName(t *testing.T) {
	var nodes []Node
	for k := range 12 {
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", k), Labels: map[string]string{"host": fmt.Sprint("h", k), "zone": fmt.Sprint("z", k/4)},
			Allocatable: ResourceList{ResourceCPU: 2000}})
	}
	anti := func(key string) *Affinity {
		return &Affinity{PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "w"}}, TopologyKey: key}}}}
	}
	members := func(n int, aff *Affinity) []Pod {
		var out []Pod
		for k := range n {
			out = append(out, Pod{Namespace: "ns", Name: fmt.Sprintf("p%02d", k), SchedulingGroup: "g", Labels: map[string]string{"app": "w"},
				Requests: ResourceList{ResourceCPU: 500}, Affinity: aff})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		bound []Pod
		g     *Group
		want  []string
	}{
		{"members apart", nil, &Group{Namespace: "ns", Name: "g", MinCount: 8, Members: members(8, anti("host"))},
			[]string{"n00", "n01", "n02", "n03", "n04", "n05", "n06", "n07"}},
		{"bound member's zone", []Pod{{Namespace: "ns", Name: "b", SchedulingGroup: "g", NodeName: "n01", Labels: map[string]string{"app": "w"},
			Requests: ResourceList{ResourceCPU: 500}, Affinity: anti("zone")}},
			&Group{Namespace: "ns", Name: "g", MinCount: 7, Members: members(6, nil)},
			[]string{"n04", "n04", "n04", "n04", "n05", "n05"}},
	} {
		s, err := NewSnapshot(nodes, tc.bound)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Solve(s, tc.g, Options{})
		if err != nil || d.Status != Scheduled {
			t.Fatalf("%s: %v %s %s", tc.name, err, d.Status, d.Message)
		}
		var got []string
		for _, a := range d.Assignments {
			got = append(got, a.Node)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Fatalf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
