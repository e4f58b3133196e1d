package placement_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// requireFieldError checks that err wraps sentinel and is a *FieldError
// naming object and field.
func requireFieldError(t *testing.T, err error, sentinel error, object, field string) {
	t.Helper()
	require.ErrorIs(t, err, sentinel)
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "%v is not a *FieldError", err)
	require.Equal(t, object, fe.Object)
	require.Equal(t, field, fe.Field)
}

func bound(name, node string, milli int64) Pod {
	return Pod{Namespace: "default", Name: name, NodeName: node, Requests: ResourceList{ResourceCPU: milli}}
}

func TestNewSnapshot_BadInput(t *testing.T) {
	n1, n2 := cpuNode("n1", 4000), cpuNode("n2", 4000)
	for _, tc := range []struct {
		name     string
		nodes    []Node
		pods     []Pod
		sentinel error
		object   string
		field    string
	}{
		{"empty node name", []Node{n1, {}}, nil, ErrInvalid, `node #0`, "metadata.name"},
		{"duplicate node", []Node{n1, n2, cpuNode("n1", 1000)}, nil, ErrDuplicate, `node "n1"`, "metadata.name"},
		{"negative allocatable", []Node{n1, {Name: "n3", Allocatable: ResourceList{ResourceMemory: -1}}}, nil, ErrInvalid, `node "n3"`, "status.allocatable[memory]"},
		{"empty resource name", []Node{{Name: "n3", Allocatable: ResourceList{"": 1}}}, nil, ErrInvalid, `node "n3"`, "status.allocatable"},
		{"empty pod name", []Node{n1}, []Pod{bound("", "n1", 1)}, ErrInvalid, `pod "default/"`, "metadata.name"},
		{"duplicate pod", []Node{n1, n2}, []Pod{bound("a", "n1", 1), bound("a", "n2", 1)}, ErrDuplicate, `pod "default/a"`, "metadata.name"},
		{"pod on unknown node", []Node{n1}, []Pod{bound("a", "n9", 1)}, ErrNotFound, `pod "default/a"`, "spec.nodeName"},
		{"pending pod", []Node{n1}, []Pod{bound("a", "", 1)}, ErrInvalid, `pod "default/a"`, "spec.nodeName"},
		{"negative request", []Node{n1}, []Pod{bound("a", "n1", -5)}, ErrInvalid, `pod "default/a"`, "requests[cpu]"},
		{"request for pods", []Node{n1}, []Pod{{Namespace: "default", Name: "a", NodeName: "n1", Requests: ResourceList{ResourcePods: 1}}}, ErrInvalid, `pod "default/a"`, "requests[pods]"},
		{"requests overflow on a node", []Node{n1}, []Pod{bound("a", "n1", math.MaxInt64), bound("b", "n1", 1)}, ErrInvalid, `pod "default/b"`, "requests[cpu]"},
		{"unknown taint effect", []Node{n1, {Name: "n3", Taints: []Taint{{Key: "k", Effect: TaintEffectNoSchedule}, {Key: "k", Effect: "Bogus"}}}}, nil, ErrInvalid, `node "n3"`, "spec.taints[1].effect"},
		{"taint without effect", []Node{{Name: "n3", Taints: []Taint{{Key: "k"}}}}, nil, ErrInvalid, `node "n3"`, "spec.taints[0].effect"},
		{"unknown toleration operator", []Node{n1}, []Pod{{Namespace: "default", Name: "a", NodeName: "n1", Tolerations: []Toleration{{Key: "k", Operator: "Bogus"}}}}, ErrInvalid, `pod "default/a"`, "spec.tolerations[0].operator"},
		{"unknown toleration effect", []Node{n1}, []Pod{{Namespace: "default", Name: "a", NodeName: "n1", Tolerations: []Toleration{{Operator: TolerationOpExists}, {Key: "k", Effect: "Bogus"}}}}, ErrInvalid, `pod "default/a"`, "spec.tolerations[1].effect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSnapshot(tc.nodes, tc.pods)
			requireFieldError(t, err, tc.sentinel, tc.object, tc.field)
			require.Nil(t, s)
		})
	}
}

// TestNewSnapshot_EdgeInputAccepted lists inputs close to the bad ones that
// must be accepted.
func TestNewSnapshot_EdgeInputAccepted(t *testing.T) {
	s, err := NewSnapshot(
		[]Node{{Name: "n1", Allocatable: ResourceList{ResourceCPU: math.MaxInt64, ResourcePods: 0}}, cpuNode("n2", 1000)},
		[]Pod{
			bound("a", "n1", math.MaxInt64),                 // one request of MaxInt64 is no overflow
			bound("b", "n2", 3000),                          // overcommitted nodes exist in real clusters
			{Namespace: "other", Name: "a", NodeName: "n2"}, // same name, other namespace
		})
	require.NoError(t, err)
	require.Equal(t, int64(-2000), s.Free(1, ResourceCPU))
	require.Equal(t, int64(-1), s.Free(0, ResourcePods))
	require.Equal(t, 3, s.NumPods())
}

func TestSolve_BadGroup(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 8000)}, []Pod{
		{Namespace: "default", Name: "b1", NodeName: "n1", SchedulingGroup: "pg1"},
		{Namespace: "default", Name: "other", NodeName: "n1"},
	})
	require.NoError(t, err)
	m := func(name string) Pod { return member(name, "pg1", 1000) }
	gang := func(min int32, members ...Pod) *Group {
		return &Group{Namespace: "default", Name: "pg1", MinCount: min, Members: members}
	}
	withNode := m("p2")
	withNode.NodeName = "n1"
	negative := m("p2")
	negative.Requests = ResourceList{ResourceCPU: -1}
	podsReq := m("p2")
	podsReq.Requests = ResourceList{ResourcePods: 1}
	otherNS := m("p2")
	otherNS.Namespace = "team-a"
	badToleration := m("p2")
	badToleration.Tolerations = []Toleration{{Key: "k", Operator: "Bogus", Value: "v"}}
	badSetToleration := &Group{Namespace: "default", Name: "pg1", MinCount: 1, PodSets: []PodSet{{Name: "w", Count: 1,
		Template: Pod{Tolerations: []Toleration{{Key: "k", Effect: "Bogus"}}}}}}
	for _, tc := range []struct {
		name     string
		g        *Group
		sentinel error
		object   string
		field    string
	}{
		{"minCount zero", gang(0, m("p1")), ErrInvalid, `PodGroup "default/pg1"`, "spec.schedulingPolicy.gang.minCount"},
		{"minCount negative", gang(-3, m("p1")), ErrInvalid, `PodGroup "default/pg1"`, "spec.schedulingPolicy.gang.minCount"},
		{"minCount above bound plus pending", gang(3, m("p1")), ErrInvalid, `PodGroup "default/pg1"`, "spec.schedulingPolicy.gang.minCount"},
		{"no members", gang(1), ErrInvalid, `PodGroup "default/pg1"`, "members"},
		{"empty name", &Group{Namespace: "default", MinCount: 1, Members: []Pod{m("p1")}}, ErrInvalid, `PodGroup "default/"`, "metadata.name"},
		{"unknown policy", &Group{Namespace: "default", Name: "pg1", Policy: "Eager", MinCount: 1, Members: []Pod{m("p1")}}, ErrInvalid, `PodGroup "default/pg1"`, "spec.schedulingPolicy"},
		{"duplicate member", gang(2, m("p1"), m("p1")), ErrDuplicate, `pod "default/p1"`, "metadata.name"},
		{"member of another group", gang(1, m("p1"), member("p2", "pg2", 1)), ErrInvalid, `pod "default/p2"`, "spec.schedulingGroup.podGroupName"},
		{"member without a group", gang(1, member("p2", "", 1)), ErrInvalid, `pod "default/p2"`, "spec.schedulingGroup.podGroupName"},
		{"member in another namespace", gang(1, otherNS), ErrInvalid, `pod "team-a/p2"`, "spec.schedulingGroup.podGroupName"},
		{"pending member with nodeName", gang(1, withNode), ErrInvalid, `pod "default/p2"`, "spec.nodeName"},
		{"pending member already bound", gang(1, m("b1")), ErrDuplicate, `pod "default/b1"`, "metadata.name"},
		{"pending member is another bound pod", gang(1, member("other", "pg1", 1)), ErrDuplicate, `pod "default/other"`, "metadata.name"},
		{"negative request", gang(1, negative), ErrInvalid, `pod "default/p2"`, "requests[cpu]"},
		{"request for pods", gang(1, podsReq), ErrInvalid, `pod "default/p2"`, "requests[pods]"},
		{"unknown toleration operator", gang(1, badToleration), ErrInvalid, `pod "default/p2"`, "spec.tolerations[0].operator"},
		{"unknown toleration effect in a pod set", badSetToleration, ErrInvalid, `pod set "w" of PodGroup "default/pg1"`, "template.spec.tolerations[0].effect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Solve(s, tc.g, Options{})
			requireFieldError(t, err, tc.sentinel, tc.object, tc.field)
			require.Equal(t, Decision{}, d)
		})
	}
	// The bound member counts toward minCount: 1 bound + 1 pending reach 2.
	d, err := Solve(s, gang(2, m("p1")), Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
}

func TestSolve_HookErrorsAbort(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 8000)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: []Pod{member("p1", "pg1", 1000)}}
	boom := errors.New("boom")
	_, err = Solve(s, g, Options{Generator: PlacementGeneratorFunc(func(*Snapshot, GroupView) ([]Placement, error) { return nil, boom })})
	require.ErrorIs(t, err, boom)
	_, err = Solve(s, g, Options{Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) { return nil, boom }}})
	require.ErrorIs(t, err, boom)
}

// TestNilArguments: nil values a caller can pass get an error naming the
// argument, never a panic deep inside the solver.
func TestNilArguments(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 8000)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: []Pod{member("p1", "pg1", 1000)}}
	obj := `PodGroup "default/pg1"`
	for _, tc := range []struct {
		name          string
		s             *Snapshot
		g             *Group
		opts          Options
		object, field string
	}{
		{"nil snapshot", nil, g, Options{}, "Solve", "snapshot"},
		{"nil group", s, nil, Options{}, "Solve", "group"},
		{"nil filter", s, g, Options{Filters: []Filter{nil}}, obj, "Options.Filters[0]"},
		{"nil FilterFunc", s, g, Options{Filters: []Filter{FilterFunc(nil)}}, obj, "Options.Filters[0]"},
		{"nil NewReserverFunc", s, g, Options{Reservers: []NewReserverFunc{nil}}, obj, "Options.Reservers[0]"},
		{"nil Reserver made", s, g, Options{Reservers: []NewReserverFunc{func(*Snapshot, GroupView) (Reserver, error) { return nil, nil }}}, obj, "Options.Reservers[0]"},
		{"nil placement filter", s, g, Options{PlacementFilters: []PlacementFilter{nil}}, obj, "Options.PlacementFilters[0]"},
		{"nil PlacementGeneratorFunc", s, g, Options{Generator: PlacementGeneratorFunc(nil)}, obj, "Options.Generator"},
		{"nil PlacementScorerFunc", s, g, Options{Scorer: PlacementScorerFunc(nil)}, obj, "Options.Scorer"},
		{"negative budget", s, g, Options{Budget: -1}, obj, "Options.Budget"},
		{"negative search budget", s, g, Options{SearchBudget: -1}, obj, "Options.SearchBudget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Solve(tc.s, tc.g, tc.opts)
			requireFieldError(t, err, ErrInvalid, tc.object, tc.field)
			require.Equal(t, Decision{}, d)
		})
	}
	requireFieldError(t, Verify(nil, g, Decision{}), ErrInvalid, "Verify", "snapshot")
	requireFieldError(t, Verify(s, nil, Decision{}), ErrInvalid, "Verify", "group")
	requireFieldError(t, Verify(s, g, Decision{}, nil), ErrInvalid, obj, "filters[0]")

	var none *LabelSelector
	require.False(t, none.Matches(map[string]string{}), "a nil selector matches nothing")
	require.NoError(t, none.Validate("x", "selector"))
	_, ok := s.NodeOf(nil)
	require.False(t, ok)
	_, ok = s.ChangedNodes(nil)
	require.False(t, ok)
	require.False(t, StaticFit(nil, s.Node(0)))
}

// A cluster without nodes is a decision, not an error, and its message
// ends where there is nothing more to say.
func TestSolve_NoNodes(t *testing.T) {
	s, err := NewSnapshot(nil, nil)
	require.NoError(t, err)
	d, err := Solve(s, &Group{Namespace: "default", Name: "pg1", MinCount: 1, Members: []Pod{member("p1", "pg1", 1000)}}, Options{})
	require.NoError(t, err)
	require.NotEqual(t, Scheduled, d.Status)
	require.Equal(t, "0 of min 1 members fit; default/p1 fits on none of 0 nodes", d.Message)
}

func TestApply_BadChange(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 4000), {Name: "n2", Allocatable: ResourceList{ResourceCPU: math.MaxInt64}}},
		[]Pod{bound("a", "n1", 1000), bound("b", "n1", 1000), bound("big", "n2", math.MaxInt64)})
	require.NoError(t, err)
	s, err = s.Apply(Change{Remove: []Key{{"default", "b"}}, Bind: []Pod{bound("c", "n1", 500)}})
	require.NoError(t, err)
	before := dump(s)
	ok := bound("new", "n1", 500) // a valid part, applied first
	k := func(name string) Key { return Key{"default", name} }
	for _, tc := range []struct {
		name     string
		ch       Change
		sentinel error
		object   string
		field    string
	}{
		{"remove unknown", Change{Remove: []Key{k("a"), k("ghost")}}, ErrNotFound, `pod "default/ghost"`, "remove"},
		{"remove already removed", Change{Remove: []Key{k("b")}}, ErrNotFound, `pod "default/b"`, "remove"},
		{"remove twice", Change{Remove: []Key{k("a"), k("a")}}, ErrDuplicate, `pod "default/a"`, "remove"},
		{"remove an added pod twice", Change{Remove: []Key{k("c"), k("c")}}, ErrDuplicate, `pod "default/c"`, "remove"},
		{"bind existing", Change{Bind: []Pod{ok, bound("a", "n1", 1)}}, ErrDuplicate, `pod "default/a"`, "metadata.name"},
		{"bind twice", Change{Bind: []Pod{ok, ok}}, ErrDuplicate, `pod "default/new"`, "metadata.name"},
		{"bind pending", Change{Bind: []Pod{ok, bound("x", "", 1)}}, ErrInvalid, `pod "default/x"`, "spec.nodeName"},
		{"bind unknown node", Change{Bind: []Pod{ok, bound("x", "n9", 1)}}, ErrNotFound, `pod "default/x"`, "spec.nodeName"},
		{"bind negative", Change{Bind: []Pod{ok, bound("x", "n1", -1)}}, ErrInvalid, `pod "default/x"`, "requests[cpu]"},
		{"bind empty name", Change{Bind: []Pod{ok, bound("", "n1", 1)}}, ErrInvalid, `pod "default/"`, "metadata.name"},
		{"bind unknown resource", Change{Bind: []Pod{ok, {Namespace: "default", Name: "x", NodeName: "n1", Requests: ResourceList{"example.com/foo": 1}}}}, ErrInvalid, `pod "default/x"`, "requests[example.com/foo]"},
		{"bind overflow", Change{Remove: []Key{k("a")}, Bind: []Pod{ok, bound("x", "n2", 1)}}, ErrInvalid, `pod "default/x"`, "requests[cpu]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := s.Apply(tc.ch)
			requireFieldError(t, err, tc.sentinel, tc.object, tc.field)
			require.Nil(t, n)
			require.Equal(t, before, dump(s), "the parent changed")
		})
	}
	// A move (remove, then bind the same key elsewhere) is a valid change.
	n, err := s.Apply(Change{Remove: []Key{k("a")}, Bind: []Pod{bound("a", "n2", 0)}})
	require.NoError(t, err)
	p, found := n.Pod(k("a"))
	require.True(t, found)
	require.Equal(t, "n2", p.NodeName)
	require.Equal(t, before, dump(s))
}
