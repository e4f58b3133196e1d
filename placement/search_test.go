package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

const (
	rackKey = "topology.kubernetes.io/rack"
	hostKey = "kubernetes.io/hostname"
)

func rackNode(name, rack string, milli int64) Node {
	return Node{Name: name, Labels: map[string]string{rackKey: rack, hostKey: name}, Allocatable: ResourceList{ResourceCPU: milli}}
}

func blocker(name, node string, milli int64) Pod {
	return Pod{Namespace: "other", Name: name, NodeName: node, Requests: ResourceList{ResourceCPU: milli}}
}

func labelled(p Pod, kv ...string) Pod {
	p.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	return p
}

func solveOK(t *testing.T, s *Snapshot, g *Group, opts Options) Decision {
	t.Helper()
	d, err := Solve(s, g, opts)
	require.NoError(t, err)
	require.NoError(t, Verify(s, g, d))
	return d
}

// A leader of cpu:1 and 9 workers of cpu:2 in one rack whose hosts have 4,
// 8 and 7 CPUs free: only one packing exists. Upstream's one-by-one order
// puts the leader first and strands a worker.
func TestScenario_H1_LeaderAndWorkersPacked(t *testing.T) {
	s, err := NewSnapshot(
		[]Node{rackNode("h1", "r1", 8000), rackNode("h2", "r1", 8000), rackNode("h3", "r1", 8000)},
		[]Pod{blocker("b1", "h1", 4000), blocker("b3", "h3", 1000)})
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "job", MinCount: 10}
	g.Members = append(g.Members, member("leader", "job", 1000))
	for i := range 9 {
		g.Members = append(g.Members, member(fmt.Sprintf("worker-%d", i), "job", 2000))
	}
	d := solveOK(t, s, g, Options{})
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.True(t, d.Proven)
	perHost := map[string]int{}
	for _, a := range d.Assignments {
		if a.Pod.Name == "leader" {
			require.Equal(t, "h3", a.Node, "the leader takes the odd CPU of the 7-CPU host")
			continue
		}
		perHost[a.Node]++
	}
	require.Equal(t, map[string]int{"h1": 2, "h2": 4, "h3": 3}, perHost)
}

// A leader of 2500m and 2 workers of 1250m with one node of 2800m free:
// unschedulable — Unresolvable, since even an empty node is too small —
// proven at once, with the reason.
func TestScenario_H2_ProvenImpossibleQuickly(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 2800)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "job", MinCount: 3, Members: []Pod{
		member("leader", "job", 2500), member("worker-0", "job", 1250), member("worker-1", "job", 1250)}}
	d := solveOK(t, s, g, Options{})
	require.Equal(t, Unresolvable, d.Status, "5000m of members against 2800m allocatable: no eviction can help")
	require.True(t, d.Proven)
	require.Less(t, d.Steps, int64(20), "no retry loop: the room check proves it")
	require.Equal(t, "1 of min 3 members fit; default/worker-0 fits on none of 1 nodes: 1 Insufficient cpu", d.Message)
}

// 6 nodes in 3 racks of 2; two racks have one full node. Two members with
// one-per-node anti-affinity that prefer one rack land in the rack whose
// two nodes are free.
func TestScenario_H3_AntiAffinityWithPreferredRack(t *testing.T) {
	s, err := NewSnapshot([]Node{
		rackNode("a1", "r1", 2000), rackNode("a2", "r1", 2000),
		rackNode("b1", "r2", 2000), rackNode("b2", "r2", 2000),
		rackNode("c1", "r3", 2000), rackNode("c2", "r3", 2000),
	}, []Pod{blocker("fa", "a1", 2000), blocker("fb", "b1", 2000)})
	require.NoError(t, err)
	sel := LabelSelector{MatchLabels: map[string]string{"app": "trainer"}}
	aff := &Affinity{
		PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{LabelSelector: sel, TopologyKey: hostKey}}},
		PodAffinity:     &PodAffinity{Preferred: []WeightedPodAffinityTerm{{Weight: 50, Term: PodAffinityTerm{LabelSelector: sel, TopologyKey: rackKey}}}},
	}
	g := &Group{Namespace: "default", Name: "job", MinCount: 2}
	for _, n := range []string{"m0", "m1"} {
		p := labelled(member(n, "job", 1000), "app", "trainer")
		p.Affinity = aff
		g.Members = append(g.Members, p)
	}
	d := solveOK(t, s, g, Options{})
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"m0": "c1", "m1": "c2"}, nodesOf(d))
}

// Required rack affinity among all members: the greedy pass starts on the
// most allocated node, in a rack too small; the search finds the rack that
// holds all three.
func TestSearch_RequiredRackAffinityBacktracks(t *testing.T) {
	s, err := NewSnapshot([]Node{
		rackNode("n1", "r1", 2000), rackNode("n2", "r2", 2000), rackNode("n3", "r2", 2000),
	}, []Pod{blocker("x", "n1", 1000)})
	require.NoError(t, err)
	sel := LabelSelector{MatchLabels: map[string]string{"app": "t"}}
	g := &Group{Namespace: "default", Name: "job", MinCount: 3}
	for i := range 3 {
		p := labelled(member(fmt.Sprintf("m%d", i), "job", 1000), "app", "t")
		p.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{{LabelSelector: sel, TopologyKey: rackKey}}}}
		g.Members = append(g.Members, p)
	}
	d := solveOK(t, s, g, Options{})
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"m0": "n2", "m1": "n2", "m2": "n3"}, nodesOf(d))
}

// Sub-groups: the workers must share one rack and need 2; the leader may go
// anywhere. The roomiest node is alone in its rack, so the workers cannot
// follow the leader there.
func TestSearch_SubGroupTopology(t *testing.T) {
	s, err := NewSnapshot([]Node{
		rackNode("n1", "r1", 4000), rackNode("n2", "r2", 2000), rackNode("n3", "r2", 2000),
	}, []Pod{blocker("x", "n1", 2000)})
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "lws", MinCount: 3, SubGroups: []SubGroup{
		{Name: "leader", Selector: LabelSelector{MatchLabels: map[string]string{"role": "leader"}}, MinCount: 1},
		{Name: "workers", Selector: LabelSelector{MatchLabels: map[string]string{"role": "worker"}}, MinCount: 2, TopologyKey: rackKey},
	}, Members: []Pod{
		labelled(member("leader", "lws", 1000), "role", "leader"),
		labelled(member("w0", "lws", 2000), "role", "worker"),
		labelled(member("w1", "lws", 2000), "role", "worker"),
	}}
	d := solveOK(t, s, g, Options{})
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"leader": "n1", "w0": "n2", "w1": "n3"}, nodesOf(d))

	// Without room for both workers in one rack the group waits, and says why.
	s2, err := s.Apply(Change{Bind: []Pod{blocker("y", "n3", 1000)}})
	require.NoError(t, err)
	d = solveOK(t, s2, g, Options{})
	require.Equal(t, Unschedulable, d.Status)
	require.True(t, d.Proven)
}

// The search budget is counted: the same input with a tiny budget stops and
// says so, deterministically.
func TestSearch_BudgetIsCountedAndReported(t *testing.T) {
	// 11 distinct members on 10 distinct nodes that each hold one: the room
	// check passes, and proving that no node takes two needs every
	// permutation.
	var nodes []Node
	for i := range 10 {
		nodes = append(nodes, rackNode(fmt.Sprintf("n%02d", i), "r", int64(1000+3*i)))
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "job", MinCount: 11}
	for i := range 11 {
		g.Members = append(g.Members, member(fmt.Sprintf("m%02d", i), "job", int64(520+7*i)))
	}
	d1 := solveOK(t, s, g, Options{SearchBudget: 200})
	d2 := solveOK(t, s, g, Options{SearchBudget: 200})
	require.Equal(t, d1, d2)
	require.False(t, d1.Proven)
	require.Equal(t, BudgetExhausted, d1.Status, d1.Message)
	require.Contains(t, d1.Message, "budget")
}

// oracle places members by brute force (capacity pruning only) and returns
// the largest count of a valid assignment reaching the requirement, or -1.
func oracle(t *rapid.T, s *Snapshot, g *Group) int {
	n := s.NumNodes()
	assign := make([]int, len(g.Members))
	best := -1
	bound := len(s.GroupMembers(g.Key()))
	need := 1
	if g.IsGang() {
		need = max(int(g.MinCount)-bound, 1)
	}
	var rec func(i, placed int)
	rec = func(i, placed int) {
		if i == len(g.Members) {
			if placed < need || placed <= best {
				return
			}
			d := Decision{Group: g.Key(), Status: Scheduled, Placement: Placement{Nodes: allIDs(n)}}
			for j, a := range assign {
				if a >= 0 {
					d.Assignments = append(d.Assignments, Assignment{Pod: g.Members[j].Key(), Node: s.Node(NodeID(a)).Name, NodeID: NodeID(a)})
				}
			}
			if Verify(s, g, d) == nil {
				best = placed
			}
			return
		}
		for a := -1; a < n; a++ {
			assign[i] = a
			if a >= 0 {
				rec(i+1, placed+1)
			} else {
				rec(i+1, placed)
			}
		}
	}
	rec(0, 0)
	return best
}

func allIDs(n int) []NodeID {
	out := make([]NodeID, n)
	for i := range out {
		out[i] = NodeID(i)
	}
	return out
}

// genSmall draws instances the oracle can enumerate: ≤5 nodes, ≤6 members,
// 2 resources, racks, hostname anti-affinity, rack affinity, sub-groups.
func genSmall(t *rapid.T) (*Snapshot, *Group) {
	nn := rapid.IntRange(1, 5).Draw(t, "nodes")
	var nodes []Node
	for i := range nn {
		nodes = append(nodes, Node{
			Name:   fmt.Sprintf("n%d", i),
			Labels: map[string]string{rackKey: fmt.Sprintf("r%d", rapid.IntRange(0, 1).Draw(t, "rack")), hostKey: fmt.Sprintf("n%d", i)},
			Allocatable: ResourceList{
				ResourceCPU: int64(rapid.IntRange(0, 4).Draw(t, "cpu")) * 1000,
				ResourceGPU: int64(rapid.IntRange(0, 2).Draw(t, "gpu")),
			},
		})
	}
	s, err := NewSnapshot(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	nm := rapid.IntRange(1, 6).Draw(t, "members")
	g := &Group{Namespace: "d", Name: "g", Policy: rapid.SampledFrom([]Policy{PolicyGang, PolicyBasic}).Draw(t, "policy")}
	g.MinCount = int32(rapid.IntRange(1, nm).Draw(t, "min"))
	roles := []string{"a", "b"}
	for i := range nm {
		role := rapid.SampledFrom(roles).Draw(t, "role")
		p := Pod{Namespace: "d", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "g", Labels: map[string]string{"role": role},
			Requests: ResourceList{ResourceCPU: int64(rapid.IntRange(0, 3).Draw(t, "req")) * 1000}}
		if rapid.Bool().Draw(t, "wantsGPU") {
			p.Requests[ResourceGPU] = 1
		}
		sel := LabelSelector{MatchLabels: map[string]string{"role": role}}
		switch rapid.IntRange(0, 3).Draw(t, "affinity") {
		case 1:
			p.Affinity = &Affinity{PodAntiAffinity: &PodAffinity{Required: []PodAffinityTerm{{LabelSelector: sel, TopologyKey: hostKey}}}}
		case 2:
			p.Affinity = &Affinity{PodAffinity: &PodAffinity{Required: []PodAffinityTerm{{LabelSelector: sel, TopologyKey: rackKey}}}}
		}
		g.Members = append(g.Members, p)
	}
	if rapid.Bool().Draw(t, "subgroups") {
		for _, r := range roles {
			n := 0
			for _, p := range g.Members {
				if p.Labels["role"] == r {
					n++
				}
			}
			g.SubGroups = append(g.SubGroups, SubGroup{Name: r, Selector: LabelSelector{MatchLabels: map[string]string{"role": r}},
				MinCount: int32(rapid.IntRange(0, n).Draw(t, "submin")), TopologyKey: rapid.SampledFrom([]string{"", rackKey}).Draw(t, "subkey")})
		}
	}
	return s, g
}

// TestProp_CompleteAgainstOracle: on instances small enough to enumerate,
// the solver schedules exactly when some valid assignment exists, places
// as many members as the best one, and proves it.
func TestProp_CompleteAgainstOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, g := genSmall(t)
		d, err := Solve(s, g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify(s, g, d); err != nil {
			t.Fatal(err)
		}
		if !d.Proven {
			t.Fatalf("small instance not proven: %s", d.Message)
		}
		want := oracle(t, s, g)
		if want < 0 {
			if d.Status == Scheduled {
				t.Fatalf("oracle finds nothing but the solver scheduled: %v", d.Assignments)
			}
			return
		}
		if d.Status != Scheduled {
			t.Fatalf("oracle places %d but the solver says %s: %s", want, d.Status, d.Message)
		}
		if len(d.Assignments) != want {
			t.Fatalf("oracle places %d, solver %d", want, len(d.Assignments))
		}
	})
}

// The generator yields both feasible and infeasible instances, so the
// property above sees both answers.
func TestProp_GenSmallYieldsBothOutcomes(t *testing.T) {
	seen := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		s, g := genSmall(t)
		seen[oracle(t, s, g) >= 0]++
	})
	require.Positive(t, seen[true])
	require.Positive(t, seen[false])
}

// TestScenario_FilterTellsTwinsApart: members with equal requests are not
// interchangeable when a caller Filter singles one out; the search must
// still find the one assignment the filter accepts (found by review: it
// claimed Proven Unschedulable).
func TestScenario_FilterTellsTwinsApart(t *testing.T) {
	s, err := NewSnapshot([]Node{
		{Name: "n0", Allocatable: ResourceList{ResourceCPU: 2000}},
		{Name: "n1", Allocatable: ResourceList{ResourceCPU: 1000}},
	}, nil)
	require.NoError(t, err)
	pod := func(name string, prio int32) Pod {
		return Pod{Namespace: "ns", Name: name, SchedulingGroup: "g", Priority: prio, Requests: ResourceList{ResourceCPU: 1000}}
	}
	g := &Group{Namespace: "ns", Name: "g", MinCount: 3, Members: []Pod{pod("x", 2), pod("a", 1), pod("b", 1)}}
	notAOnN0 := FilterFunc(func(p *Pod, n NodeInfo) Rejection {
		if p.Name == "a" && n.Node().Name == "n0" {
			return Rejection{Reason: "a not on n0"}
		}
		return Rejection{}
	})
	d, err := Solve(s, g, Options{Filters: []Filter{notAOnN0}})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	got := map[string]string{}
	for _, a := range d.Assignments {
		got[a.Pod.Name] = a.Node
	}
	require.Equal(t, map[string]string{"x": "n0", "a": "n1", "b": "n0"}, got)
	require.NoError(t, Verify(s, g, d, notAOnN0))
}

// TestPodSets_SearchWorkIsBounded: a huge pod set whose pods mostly wait
// costs the search one step per run of identical pods, not one per pod,
// and the budget bounds the rest (found by review: 1,048,574 pods took a
// recursion frame each).
func TestPodSets_SearchWorkIsBounded(t *testing.T) {
	s, err := NewSnapshot([]Node{
		{Name: "n0", Allocatable: ResourceList{ResourceCPU: 4000, ResourcePods: 5}},
		{Name: "n1", Allocatable: ResourceList{ResourceCPU: 2000, ResourcePods: 5}},
	}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "ns", Name: "g", MinCount: 1, PodSets: []PodSet{
		{Name: "a", Count: MaxPending - 2, Template: Pod{Requests: ResourceList{ResourceCPU: 500}}},
		{Name: "b", Count: 2, Template: Pod{Priority: 1, Requests: ResourceList{ResourceCPU: 1000}}},
	}}
	d, err := Solve(s, g, Options{Budget: 1000})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.LessOrEqual(t, d.Steps, int64(1000))
	placed := int32(0)
	for _, a := range d.PodSetAssignments {
		placed += a.Count
	}
	require.Equal(t, int32(9), placed, "n1 holds four 500m pods, n0 both 1000m ones and three more")
	require.NoError(t, Verify(s, g, d))
}
