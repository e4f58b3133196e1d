package placement_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
	"github.com/gangsched/gangsched/topology"
)

func term(reqs ...NodeSelectorRequirement) NodeSelectorTerm {
	return NodeSelectorTerm{MatchExpressions: reqs}
}

func TestNodeAffinity_Operators(t *testing.T) {
	n := &Node{Name: "n1", Labels: map[string]string{"gen": "5", "pool": "a", "odd": "x"}}
	for _, tc := range []struct {
		r    NodeSelectorRequirement
		want bool
	}{
		{NodeSelectorRequirement{"pool", NodeSelectorOpIn, []string{"a", "b"}}, true},
		{NodeSelectorRequirement{"pool", NodeSelectorOpIn, []string{"b"}}, false},
		{NodeSelectorRequirement{"missing", NodeSelectorOpIn, []string{"a"}}, false},
		{NodeSelectorRequirement{"pool", NodeSelectorOpNotIn, []string{"b"}}, true},
		{NodeSelectorRequirement{"pool", NodeSelectorOpNotIn, []string{"a"}}, false},
		{NodeSelectorRequirement{"missing", NodeSelectorOpNotIn, []string{"a"}}, true},
		{NodeSelectorRequirement{"gen", NodeSelectorOpExists, nil}, true},
		{NodeSelectorRequirement{"missing", NodeSelectorOpExists, nil}, false},
		{NodeSelectorRequirement{"missing", NodeSelectorOpDoesNotExist, nil}, true},
		{NodeSelectorRequirement{"gen", NodeSelectorOpDoesNotExist, nil}, false},
		{NodeSelectorRequirement{"gen", NodeSelectorOpGt, []string{"4"}}, true},
		{NodeSelectorRequirement{"gen", NodeSelectorOpGt, []string{"5"}}, false},
		{NodeSelectorRequirement{"gen", NodeSelectorOpLt, []string{"6"}}, true},
		{NodeSelectorRequirement{"gen", NodeSelectorOpLt, []string{"5"}}, false},
		{NodeSelectorRequirement{"odd", NodeSelectorOpGt, []string{"0"}}, false}, // not an integer
		{NodeSelectorRequirement{"missing", NodeSelectorOpLt, []string{"9"}}, false},
	} {
		a := &NodeAffinity{Required: []NodeSelectorTerm{term(tc.r)}}
		require.Equal(t, tc.want, a.Matches(n), "%v", tc.r)
	}
	byName := &NodeAffinity{Required: []NodeSelectorTerm{{MatchFields: []NodeSelectorRequirement{{NodeFieldName, NodeSelectorOpIn, []string{"n1"}}}}}}
	require.True(t, byName.Matches(n))
	require.False(t, byName.Matches(&Node{Name: "n2"}))
	// Terms are ORed, requirements in a term ANDed; an empty term matches nothing.
	or := &NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"pool", NodeSelectorOpIn, []string{"b"}}), term(NodeSelectorRequirement{"gen", NodeSelectorOpExists, nil})}}
	require.True(t, or.Matches(n))
	and := &NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"pool", NodeSelectorOpIn, []string{"a"}}, NodeSelectorRequirement{"gen", NodeSelectorOpLt, []string{"5"}})}}
	require.False(t, and.Matches(n))
	require.False(t, (&NodeAffinity{Required: []NodeSelectorTerm{{}}}).Matches(n))
	require.True(t, (*NodeAffinity)(nil).Matches(n))
	pref := &NodeAffinity{Preferred: []PreferredSchedulingTerm{
		{Weight: 30, Preference: term(NodeSelectorRequirement{"pool", NodeSelectorOpIn, []string{"a"}})},
		{Weight: 7, Preference: term(NodeSelectorRequirement{"gen", NodeSelectorOpGt, []string{"1"}})},
		{Weight: 50, Preference: term(NodeSelectorRequirement{"pool", NodeSelectorOpIn, []string{"b"}})},
	}}
	require.Equal(t, int64(37), pref.Score(n))
	require.True(t, pref.Matches(n), "preferred terms do not filter")
}

func TestNodeAffinity_Validate(t *testing.T) {
	for _, tc := range []struct {
		a    NodeAffinity
		want string
	}{
		{NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"", NodeSelectorOpExists, nil})}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: must not be empty`},
		{NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"k", "Near", nil})}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: unknown operator "Near" (want In, NotIn, Exists, DoesNotExist, Gt or Lt)`},
		{NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"k", NodeSelectorOpIn, nil})}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: must be non-empty for operator In`},
		{NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"k", NodeSelectorOpExists, []string{"a"}})}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: must be empty for operator Exists`},
		{NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"k", NodeSelectorOpGt, []string{"1", "2"}})}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: must have exactly one value for operator Gt`},
		{NodeAffinity{Required: []NodeSelectorTerm{term(NodeSelectorRequirement{"k", NodeSelectorOpLt, []string{"x"}})}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: "x" is not an integer`},
		{NodeAffinity{Required: []NodeSelectorTerm{{MatchFields: []NodeSelectorRequirement{{"metadata.labels", NodeSelectorOpIn, []string{"a"}}}}}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: "metadata.labels": matchFields supports only metadata.name`},
		{NodeAffinity{Required: []NodeSelectorTerm{{MatchFields: []NodeSelectorRequirement{{NodeFieldName, NodeSelectorOpExists, nil}}}}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].operator: Exists: matchFields supports only In and NotIn`},
		{NodeAffinity{Preferred: []PreferredSchedulingTerm{{Weight: 0, Preference: term(NodeSelectorRequirement{"k", NodeSelectorOpExists, nil})}}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: 0 is outside 1..100`},
		{NodeAffinity{Preferred: []PreferredSchedulingTerm{{Weight: 1, Preference: term(NodeSelectorRequirement{"k", NodeSelectorOpIn, nil})}}}, `pod set "w" of PodGroup "default/pg": template.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values: must be non-empty for operator In`},
	} {
		s, err := NewSnapshot(gpuNodes(1), nil)
		require.NoError(t, err)
		g := &Group{Namespace: "default", Name: "pg", MinCount: 1, PodSets: []PodSet{{Name: "w", Count: 1, Template: Pod{NodeAffinity: &tc.a}}}}
		_, err = Solve(s, g, Options{})
		require.EqualError(t, err, tc.want)
		requireInputError(t, err)
		// The same terms on a member name the member.
		m := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{{Namespace: "default", Name: "m", SchedulingGroup: "pg", NodeAffinity: &tc.a}}}
		_, err = Solve(s, m, Options{})
		requireInputError(t, err)
		require.Contains(t, err.Error(), `pod "default/m": spec.affinity.nodeAffinity.`)
	}
}

// constrainedNodes: c0..c5, each 4 GPUs; generations 3..8 in the "gen"
// label; pools a, b, a, b, a, (none); zone z1 except c1; c4 tainted
// dedicated=gpu:NoSchedule.
func constrainedNodes() []Node {
	var nodes []Node
	for i := range 6 {
		n := Node{Name: fmt.Sprintf("c%d", i), Allocatable: ResourceList{ResourceGPU: 4},
			Labels: map[string]string{"gen": fmt.Sprint(3 + i), "zone": "z1"}}
		if i < 5 {
			n.Labels["pool"] = []string{"a", "b"}[i%2]
		}
		if i == 1 {
			n.Labels["zone"] = "z2"
		}
		if i == 4 {
			n.Taints = []Taint{{Key: "dedicated", Value: "gpu", Effect: TaintEffectNoSchedule}}
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// A pod set whose template requires a node generation above 4 outside pool
// b, in zone z1 by nodeSelector, and tolerates the dedicated=gpu taint
// lands, with no caller Filter, on the only nodes that admit it: c2, c4
// and c5 (c0 and c1 are too old, c3 is in pool b); without the toleration
// c4 is out and the 12-pod set no longer fits.
func TestScenario_PodSetTemplateNodeConstraints(t *testing.T) {
	s, err := NewSnapshot(constrainedNodes(), nil)
	require.NoError(t, err)
	tmpl := Pod{Requests: ResourceList{ResourceGPU: 1}, NodeSelector: map[string]string{"zone": "z1"},
		Tolerations: []Toleration{{Key: "dedicated", Operator: TolerationOpEqual, Value: "gpu", Effect: TaintEffectNoSchedule}},
		NodeAffinity: &NodeAffinity{Required: []NodeSelectorTerm{term(
			NodeSelectorRequirement{"gen", NodeSelectorOpGt, []string{"4"}},
			NodeSelectorRequirement{"pool", NodeSelectorOpNotIn, []string{"b"}})}}}
	g := &Group{Namespace: "default", Name: "pg", MinCount: 12, PodSets: []PodSet{{Name: "w", Count: 12, Template: tmpl}}}
	d, err := Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, []PodSetAssignment{{"w", "c2", 2, 4}, {"w", "c4", 4, 4}, {"w", "c5", 5, 4}}, d.PodSetAssignments)
	require.NoError(t, Verify(s, g, d))
	moved := d
	moved.PodSetAssignments = []PodSetAssignment{{"w", "c2", 2, 4}, {"w", "c3", 3, 4}, {"w", "c5", 5, 4}}
	require.ErrorContains(t, Verify(s, g, moved), `on node "c3" fails nodeSelector, node affinity, taints or unschedulable`)

	g.PodSets[0].Template.Tolerations = nil
	d, err = Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, Unschedulable, d.Status)
	require.Equal(t, `8 of min 12 members fit; a pod of pod set default/w fits on none of 6 nodes: 3 node(s) didn't match Pod's node affinity, 2 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node selector, 1 node(s) had untolerated taint {dedicated: gpu}`, d.Message)
}

// rackNodes: racks r1 (x0, x1) and r2 (y0, y1) of 8 GPUs each; r1's x0 has
// 4 in use by a bound pod; r2's nodes carry disk=ssd.
func rackNodes(t *testing.T) (*Snapshot, *topology.Tree) {
	var nodes []Node
	for _, n := range []string{"x0", "x1", "y0", "y1"} {
		l := map[string]string{"rack": "r" + map[byte]string{'x': "1", 'y': "2"}[n[0]]}
		if n[0] == 'y' {
			l["disk"] = "ssd"
		}
		nodes = append(nodes, Node{Name: n, Labels: l, Allocatable: ResourceList{ResourceGPU: 8}})
	}
	s, err := NewSnapshot(nodes, []Pod{{Namespace: "default", Name: "busy", NodeName: "x0", Requests: ResourceList{ResourceGPU: 4}}})
	require.NoError(t, err)
	tree, err := topology.NewTree(s, []string{"rack"})
	require.NoError(t, err)
	return s, tree
}

// A 6-pod set that needs one rack goes to the fuller rack r1 by
// MostAllocated; when its template prefers disk=ssd (weight 10), rack r2,
// whose nodes all match, wins first, as Kueue's
// TASRespectNodeAffinityPreferred ranks domains by affinity before BestFit.
func TestScenario_PreferredNodeAffinityRanksDomains(t *testing.T) {
	s, tree := rackNodes(t)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 6, PodSets: []PodSet{{Name: "w", Count: 6, Template: Pod{Requests: ResourceList{ResourceGPU: 1}}}}}
	d, err := Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, "r1", d.Placement.Name)
	require.Equal(t, []PodSetAssignment{{"w", "x0", 0, 4}, {"w", "x1", 1, 2}}, d.PodSetAssignments)

	g.PodSets[0].Template.NodeAffinity = &NodeAffinity{Preferred: []PreferredSchedulingTerm{{Weight: 10, Preference: term(NodeSelectorRequirement{"disk", NodeSelectorOpIn, []string{"ssd"}})}}}
	d, err = Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, "r2", d.Placement.Name)
	require.Equal(t, []PodSetAssignment{{"w", "y0", 2, 6}}, d.PodSetAssignments)
	require.NoError(t, Verify(s, g, d))
}

// The same six pods listed as members rank the racks alike: r1 without
// preferred terms, r2 when every member prefers disk=ssd. validate's
// noNodeAffinity lets placementAffinity skip the members only when none
// has node affinity; skipping them regardless sends these to r1.
func TestScenario_PreferredNodeAffinityRanksListedMembers(t *testing.T) {
	s, tree := rackNodes(t)
	opts, err := tree.SolverOptions([]topology.Constraint{{Key: "rack"}}, topology.MostAllocated)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 6}
	for i := range 6 {
		g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("w-%d", i), SchedulingGroup: "pg", Requests: ResourceList{ResourceGPU: 1}})
	}
	d, err := Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, "r1", d.Placement.Name)

	pref := &NodeAffinity{Preferred: []PreferredSchedulingTerm{{Weight: 10, Preference: term(NodeSelectorRequirement{"disk", NodeSelectorOpIn, []string{"ssd"}})}}}
	for i := range g.Members {
		g.Members[i].NodeAffinity = pref
	}
	d, err = Solve(s, g, opts)
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, "r2", d.Placement.Name)
	for _, a := range d.Assignments {
		require.Equal(t, "y0", a.Node, a.Pod.Name)
	}
	require.NoError(t, Verify(s, g, d))
}

// drawNodeAffinity draws required and preferred terms over the generated
// clusters' zone and rack labels, every operator included.
func drawNodeAffinity(t *rapid.T) *NodeAffinity {
	req := func(label string) NodeSelectorRequirement {
		key := rapid.SampledFrom([]string{placementtest.ZoneLabel, placementtest.RackLabel}).Draw(t, label+" key")
		vals := map[string][]string{placementtest.ZoneLabel: {"z0", "z1"}, placementtest.RackLabel: {"r0", "r1", "r2"}}[key]
		switch op := rapid.SampledFrom([]NodeSelectorOperator{NodeSelectorOpIn, NodeSelectorOpNotIn, NodeSelectorOpExists, NodeSelectorOpDoesNotExist}).Draw(t, label+" op"); op {
		case NodeSelectorOpIn, NodeSelectorOpNotIn:
			return NodeSelectorRequirement{key, op, rapid.SliceOfNDistinct(rapid.SampledFrom(vals), 1, 2, rapid.ID).Draw(t, label+" values")}
		default:
			return NodeSelectorRequirement{key, op, nil}
		}
	}
	drawTerm := func(label string) NodeSelectorTerm {
		var tm NodeSelectorTerm
		for range rapid.IntRange(1, 2).Draw(t, label) {
			tm.MatchExpressions = append(tm.MatchExpressions, req(label))
		}
		if rapid.IntRange(0, 4).Draw(t, label+" byName") == 0 {
			tm.MatchFields = []NodeSelectorRequirement{{NodeFieldName, NodeSelectorOpNotIn, []string{"n00"}}}
		}
		return tm
	}
	a := &NodeAffinity{}
	for range rapid.IntRange(0, 2).Draw(t, "required terms") {
		a.Required = append(a.Required, drawTerm("required"))
	}
	for range rapid.IntRange(0, 2).Draw(t, "preferred terms") {
		a.Preferred = append(a.Preferred, PreferredSchedulingTerm{Weight: int32(rapid.IntRange(1, 100).Draw(t, "weight")), Preference: drawTerm("preferred")})
	}
	return a
}

// Required node affinity on a pod set's template decides exactly as the
// same terms given as a caller Filter, and the pod set exactly as its pods
// listed as members with the terms; every placed pod is on a node that
// matches.
func TestProp_NodeAffinityEqualsFilter(t *testing.T) {
	sawFit, sawMiss := false, false
	rapid.Check(t, func(t *rapid.T) {
		s := placementtest.Snapshots().Draw(t, "snapshot")
		base := placementtest.Groups(s).Draw(t, "group")
		a := drawNodeAffinity(t)
		a.Preferred = nil // ranking has no Filter to compare with
		tmpl := base.Members[0]
		tmpl.Name, tmpl.SchedulingGroup = "", ""
		count := int32(len(base.Members))
		mk := func(aff *NodeAffinity) *Group {
			p := tmpl
			p.NodeAffinity = aff
			return &Group{Namespace: base.Namespace, Name: base.Name, Policy: base.Policy, MinCount: base.MinCount,
				PodSets: []PodSet{{Name: "set", Count: count, Template: p}}}
		}
		if bound := len(s.GroupMembers(base.Key())); int(base.MinCount) > bound+int(count) {
			return
		}
		withTerms, err := Solve(s, mk(a), Options{})
		require.NoError(t, err)
		filter := FilterFunc(func(_ *Pod, ni NodeInfo) Rejection {
			if a.Matches(ni.Node()) {
				return Rejection{}
			}
			return Rejection{Reason: "node(s) didn't match Pod's node affinity", Unresolvable: true}
		})
		byFilter, err := Solve(s, mk(nil), Options{Filters: []Filter{filter}})
		require.NoError(t, err)
		require.Equal(t, byFilter.Status, withTerms.Status, "%s / %s", byFilter.Message, withTerms.Message)
		require.Equal(t, byFilter.PodSetAssignments, withTerms.PodSetAssignments)
		if withTerms.Status == Scheduled {
			sawFit = true
			require.NoError(t, Verify(s, mk(a), withTerms))
			for _, as := range withTerms.PodSetAssignments {
				require.True(t, a.Matches(s.Node(as.NodeID)))
			}
		} else {
			sawMiss = true
		}
		// The set's pods listed as members, each with the same terms.
		members := &Group{Namespace: base.Namespace, Name: base.Name, Policy: base.Policy, MinCount: base.MinCount}
		for i := range count {
			p := tmpl
			p.Namespace, p.Name, p.SchedulingGroup, p.NodeAffinity = base.Namespace, fmt.Sprintf("set-%02d", i), base.Name, a
			members.Members = append(members.Members, p)
		}
		listed, err := Solve(s, members, Options{})
		require.NoError(t, err)
		require.Equal(t, withTerms.Status, listed.Status)
		perNode := map[string]int32{}
		for _, as := range listed.Assignments {
			perNode[as.Node]++
		}
		want := map[string]int32{}
		for _, as := range withTerms.PodSetAssignments {
			want[as.Node] = as.Count
		}
		require.Equal(t, want, perNode)
	})
	require.True(t, sawFit && sawMiss, "the generator must give both fitting and failing cases")
}

// Preferred terms never change whether a group fits, only which placement
// of a rank wins; the winner has the highest summed affinity of the
// placements that fit.
func TestProp_PreferredNodeAffinityOnlyRanks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s).Draw(t, "group")
		a := drawNodeAffinity(t)
		a.Required = nil
		racks := rackPlacements(s)
		opts := Options{Generator: racks}
		plain, err := Solve(s, g, opts)
		require.NoError(t, err)
		for i := range g.Members {
			g.Members[i].NodeAffinity = a
		}
		pref, err := Solve(s, g, opts)
		require.NoError(t, err)
		require.Equal(t, plain.Status, pref.Status)
		if pref.Status != Scheduled {
			return
		}
		score := func(name string) int64 {
			var sum int64
			i := slices.IndexFunc(racks, func(p Placement) bool { return p.Name == name })
			for _, id := range racks[i].Nodes {
				for j := range g.Members {
					if StaticFit(&g.Members[j], s.Node(id)) {
						sum += a.Score(s.Node(id))
					}
				}
			}
			return sum
		}
		for _, p := range racks {
			one, err := Solve(s, g, Options{Generator: fixedPlacements([]Placement{p})})
			require.NoError(t, err)
			if one.Status == Scheduled {
				require.GreaterOrEqual(t, score(pref.Placement.Name), score(p.Name), "rack %s fits with more preferred affinity than the winner %s", p.Name, pref.Placement.Name)
			}
		}
	})
}

// checkNodeAffinityInput: wild terms on a pod set's template are refused
// with a FieldError, or decided with every pod on a matching node.
func checkNodeAffinityInput(t *rapid.T) {
	s, err := NewSnapshot(constrainedNodes(), nil)
	require.NoError(t, err)
	keys := []string{"", "gen", "pool", "zone", NodeFieldName}
	values := []string{"", "a", "b", "4", "-1", "x", "99999999999999999999"}
	ops := []NodeSelectorOperator{"", NodeSelectorOpIn, NodeSelectorOpNotIn, NodeSelectorOpExists, NodeSelectorOpDoesNotExist, NodeSelectorOpGt, NodeSelectorOpLt}
	wildReqs := func(label string) []NodeSelectorRequirement {
		var out []NodeSelectorRequirement
		for range rapid.IntRange(0, 2).Draw(t, label) {
			out = append(out, NodeSelectorRequirement{rapid.SampledFrom(keys).Draw(t, "key"), rapid.SampledFrom(ops).Draw(t, "op"),
				rapid.SliceOfN(rapid.SampledFrom(values), 0, 2).Draw(t, "values")})
		}
		return out
	}
	a := &NodeAffinity{}
	for range rapid.IntRange(0, 2).Draw(t, "required") {
		a.Required = append(a.Required, NodeSelectorTerm{wildReqs("expressions"), wildReqs("fields")})
	}
	for range rapid.IntRange(0, 2).Draw(t, "preferred") {
		a.Preferred = append(a.Preferred, PreferredSchedulingTerm{int32(rapid.IntRange(-1, 101).Draw(t, "weight")), NodeSelectorTerm{wildReqs("expressions"), wildReqs("fields")}})
	}
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, PodSets: []PodSet{{Name: "w", Count: int32(rapid.IntRange(1, 30).Draw(t, "count")),
		Template: Pod{Requests: ResourceList{ResourceGPU: 1}, NodeAffinity: a}}}}
	d, err := Solve(s, g, Options{})
	if err != nil {
		requireInputError(t, err)
		return
	}
	for _, as := range d.PodSetAssignments {
		require.True(t, a.Matches(s.Node(as.NodeID)))
	}
	if d.Status == Scheduled {
		require.NoError(t, Verify(s, g, d))
	}
}

func TestProp_NodeAffinityWildInput(t *testing.T) { rapid.Check(t, checkNodeAffinityInput) }

func FuzzNodeAffinity(f *testing.F) { f.Fuzz(rapid.MakeFuzz(checkNodeAffinityInput)) }
