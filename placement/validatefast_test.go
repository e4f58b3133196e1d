package placement_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// validate's one pass accepts members whose terms are shared by pointer,
// checking each distinct pointer once; any error sends the group down the
// slow path, whose error names the first bad member in key order, field
// and all, whatever the members' order and sharing.
func TestValidate_SharedTermsErrorsInKeyOrder(t *testing.T) {
	n1 := cpuNode("n1", 8000)
	n1.Labels = map[string]string{"kubernetes.io/hostname": "n1"}
	s, err := NewSnapshot([]Node{n1}, nil)
	require.NoError(t, err)
	term := func(key string) *Affinity {
		return &Affinity{PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{LabelSelector: LabelSelector{MatchLabels: map[string]string{"app": "w"}}, TopologyKey: key}}}}
	}
	good, bad := term("kubernetes.io/hostname"), term("")
	badWeight := &NodeAffinity{Preferred: []PreferredSchedulingTerm{{Weight: 0}}}
	with := func(name string, a *Affinity, na *NodeAffinity) Pod {
		p := member(name, "pg1", 100)
		p.Affinity, p.NodeAffinity = a, na
		return p
	}
	const antiKey = "spec.affinity.podAntiAffinity.required[0].topologyKey"
	for _, tc := range []struct {
		name          string
		members       []Pod
		object, field string
	}{
		{"all share a bad term", []Pod{with("c", bad, nil), with("a", bad, nil), with("b", bad, nil)}, `pod "default/a"`, antiKey},
		{"one of two pointers bad, met last", []Pod{with("a", good, nil), with("b", good, nil), with("c", bad, nil)}, `pod "default/c"`, antiKey},
		{"bad met first, a good one earlier by key", []Pod{with("b", bad, nil), with("a", good, nil)}, `pod "default/b"`, antiKey},
		{"shared bad node affinity", []Pod{with("b", good, badWeight), with("a", good, badWeight)}, `pod "default/a"`, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: tc.members}
			_, err := Solve(s, g, Options{})
			requireFieldError(t, err, ErrInvalid, tc.object, tc.field)
		})
	}
	// Valid shared terms pass, and the members keep apart.
	g := &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: []Pod{with("a", good, nil), with("b", good, nil)}}
	for i := range g.Members {
		g.Members[i].Labels = map[string]string{"app": "w"}
	}
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, 1, len(d.Assignments), "one host: the anti-affinity keeps the second member out (%s)", d.Message)
}

// A pod bound by Apply is found among the members (its bit of addedMask
// is set) and, removed again, is not (the bit stays, the tree says no).
func TestValidate_AddedPodsAndTheirMask(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 8000)}, nil)
	require.NoError(t, err)
	x := member("x", "other", 100)
	x.NodeName = "n1"
	s2, err := s.Apply(Change{Bind: []Pod{x}})
	require.NoError(t, err)
	g := func(names ...string) *Group {
		g := &Group{Namespace: "default", Name: "pg1", MinCount: 1}
		for _, n := range names {
			g.Members = append(g.Members, member(n, "pg1", 100))
		}
		return g
	}
	_, err = Solve(s2, g("a", "x"), Options{})
	requireFieldError(t, err, ErrDuplicate, `pod "default/x"`, "metadata.name")
	s3, err := s2.Apply(Change{Remove: []Key{{"default", "x"}}})
	require.NoError(t, err)
	d, err := Solve(s3, g("a", "x"), Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	// Many members against one added pod: none is taken for it.
	names := make([]string, 300)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	d, err = Solve(s2, g(names...), Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
}
