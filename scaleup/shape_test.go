package scaleup

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestShapesOf: nodes alike but for their hostname and topology labels
// share a shape named after the first of them; a different allocatable,
// taint or label is another shape; cordoned nodes give none.
func TestShapesOf(t *testing.T) {
	taint := []placement.Taint{{Key: "gpu", Effect: placement.TaintEffectNoSchedule}}
	nodes := []placement.Node{
		node("b-2", "r2", rl(8, 0)),
		node("b-1", "r1", rl(8, 0)),
		node("c-1", "r1", rl(4, 0)),
		{Name: "d-1", Labels: map[string]string{rackKey: "r1", "type": "x"}, Allocatable: rl(8, 0)},
		{Name: "e-1", Labels: map[string]string{rackKey: "r1"}, Allocatable: rl(8, 0), Taints: taint},
		{Name: "a-0", Labels: map[string]string{rackKey: "r3"}, Allocatable: rl(16, 0), Unschedulable: true},
	}
	s, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
	require.Equal(t, []NodeShape{
		{Name: "b-1", Labels: map[string]string{}, Allocatable: rl(8, 0)},
		{Name: "c-1", Labels: map[string]string{}, Allocatable: rl(4, 0)},
		{Name: "d-1", Labels: map[string]string{"type": "x"}, Allocatable: rl(8, 0)},
		{Name: "e-1", Labels: map[string]string{}, Allocatable: rl(8, 0), Taints: taint},
	}, ShapesOf(s, []string{rackKey}))
}

// TestSuggest_Errors: bad input is an error naming the object and the
// field, and nothing is suggested.
func TestSuggest_Errors(t *testing.T) {
	s, err := placement.NewSnapshot(twoRacks(), nil)
	require.NoError(t, err)
	g := gangOf(3, rl(8, 0))
	ok := []NodeShape{shape("gpu8", rl(8, 0))}
	cases := []struct {
		name   string
		s      *placement.Snapshot
		cs     []topology.Constraint
		shapes []NodeShape
		opts   Options
		want   string
	}{
		{"nil snapshot", nil, rackReq, ok, Options{}, "scale-up: snapshot and group: must not be nil"},
		{"no shapes", s, rackReq, nil, Options{}, "scale-up: shapes: no node shape given: name at least one kind of node that could be added"},
		{"empty shape name", s, rackReq, []NodeShape{shape("", rl(8, 0))}, Options{}, "node shape #0: name: must not be empty"},
		{"duplicate shape", s, rackReq, []NodeShape{shape("a", rl(8, 0)), shape("a", rl(4, 0))}, Options{}, `node shape "a": name: appears twice`},
		{"negative allocatable", s, rackReq, []NodeShape{shape("a", placement.ResourceList{gpu: -1, cpu: 1})}, Options{}, `node shape "a": allocatable[nvidia.com/gpu]: must not be negative, got -1`},
		{"no capacity", s, rackReq, []NodeShape{shape("a", placement.ResourceList{gpu: 0, placement.ResourcePods: 10})}, Options{}, `node shape "a": allocatable: has no capacity: every resource is absent or 0`},
		{"no allocatable", s, rackReq, []NodeShape{{Name: "a"}}, Options{}, `node shape "a": allocatable: has no capacity: every resource is absent or 0`},
		{"no pods", s, rackReq, []NodeShape{shape("a", placement.ResourceList{gpu: 8, placement.ResourcePods: 0})}, Options{}, `node shape "a": allocatable[pods]: is 0: a node of this shape could run no pod`},
		{"negative MaxNodes", s, rackReq, ok, Options{MaxNodes: -1}, "scale-up options: MaxNodes: must not be negative, got -1"},
		{"nil filter", s, rackReq, ok, Options{Filters: []placement.Filter{nil}}, "scale-up options: Filters[0]: must not be nil"},
		{"existing new domain", s, rackReq, ok, Options{NewDomain: "r2"}, `scale-up options: NewDomain: domain r2 of "topology.kubernetes.io/rack" exists already: name a new value`},
		{"unknown key", s, []topology.Constraint{{Key: "zone"}}, ok, Options{TopologyKeys: []string{rackKey}}, `topology key "zone": spec.schedulingConstraints.topology[0].key: is not a level of the topology tree (levels: "topology.kubernetes.io/rack")`},
		{"below hostname", s, []topology.Constraint{{Key: rackKey}}, ok, Options{TopologyKeys: []string{HostnameLabel, rackKey}},
			`topology key "topology.kubernetes.io/rack": spec.schedulingConstraints.topology: is below kubernetes.io/hostname (level 0 of the tree): each added node would be a domain of its own`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sug, err := Suggest(tc.s, g, tc.cs, tc.shapes, tc.opts)
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			require.EqualError(t, err, tc.want)
			require.Equal(t, Suggestion{}, sug)
		})
	}
}
