package placement_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

func cpuMemNode(name string, milli, mem int64) Node {
	return Node{Name: name, Allocatable: ResourceList{ResourceCPU: milli, ResourceMemory: mem}}
}

func cpuMemMember(name string, milli, mem int64) Pod {
	return Pod{Namespace: "default", Name: name, SchedulingGroup: "pg", Requests: ResourceList{ResourceCPU: milli, ResourceMemory: mem}, Priority: 100}
}

// TestScenario_NodeScoringSpreadsOrPacks: three members of 1 CPU on three
// empty 4-CPU nodes all go to n1 by gangsched's packing, one to each node
// by kube-scheduler's default profile, and with MostAllocated configured
// back onto n1.
func TestScenario_NodeScoringSpreadsOrPacks(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuMemNode("n1", 4000, 8<<30), cpuMemNode("n2", 4000, 8<<30), cpuMemNode("n3", 4000, 8<<30)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 3, Members: []Pod{
		cpuMemMember("m1", 1000, 1<<30), cpuMemMember("m2", 1000, 1<<30), cpuMemMember("m3", 1000, 1<<30)}}
	for _, c := range []struct {
		name string
		ns   NodeScoring
		want map[string]string
	}{
		{"packing", NodeScoring{}, map[string]string{"m1": "n1", "m2": "n1", "m3": "n1"}},
		{"upstream", UpstreamNodeScoring(), map[string]string{"m1": "n1", "m2": "n2", "m3": "n3"}},
		{"MostAllocated", NodeScoring{Strategy: MostAllocated}, map[string]string{"m1": "n1", "m2": "n1", "m3": "n1"}},
	} {
		d, err := Solve(s, g, Options{NodeScoring: c.ns})
		require.NoError(t, err)
		require.Equal(t, Scheduled, d.Status, c.name)
		require.Equal(t, c.want, nodesOf(d), c.name)
		require.NoError(t, Verify(s, g, d))
	}
}

// TestScenario_NodeScoringBoundUsage: with n1 half used by a bound pod,
// the default profile sends both members to the empty n2, and packing
// both to n1.
func TestScenario_NodeScoringBoundUsage(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuMemNode("n1", 4000, 8<<30), cpuMemNode("n2", 4000, 8<<30)},
		[]Pod{{Namespace: "default", Name: "b", NodeName: "n1", Requests: ResourceList{ResourceCPU: 2000, ResourceMemory: 1 << 30}}})
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{cpuMemMember("m1", 1000, 1<<30), cpuMemMember("m2", 1000, 1<<30)}}
	d, err := Solve(s, g, Options{NodeScoring: UpstreamNodeScoring()})
	require.NoError(t, err)
	// m1: n1 scores least 50 + balanced 72 = 122, n2 81 + 71 = 152.
	// m2: n1 122 still, n2 (1 CPU, 1 GiB used) 62 + 72 = 134.
	require.Equal(t, map[string]string{"m1": "n2", "m2": "n2"}, nodesOf(d))
	d, err = Solve(s, g, Options{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n1", "m2": "n1"}, nodesOf(d), "packing fills the used node")
}

// TestNodeScoring_Validate: what upstream's validation refuses is an
// error naming the field, before anything is decided.
func TestNodeScoring_Validate(t *testing.T) {
	s, err := NewSnapshot([]Node{cpuNode("n1", 4000)}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{member("m1", "pg", 1000)}}
	for _, c := range []struct {
		ns   NodeScoring
		want string
	}{
		{NodeScoring{Strategy: "Spread"}, `Options: NodeScoring.Strategy: unknown strategy "Spread"`},
		{NodeScoring{BalancedWeight: 1}, `Options: NodeScoring.Strategy: must be set when any other field is`},
		{NodeScoring{Strategy: LeastAllocated, FitWeight: 101}, `Options: NodeScoring.FitWeight: 101 is outside 0–100`},
		{NodeScoring{Strategy: LeastAllocated, BalancedWeight: -1}, `Options: NodeScoring.BalancedWeight: -1 is outside 0–100`},
		{NodeScoring{Strategy: LeastAllocated, Resources: []ResourceWeight{{"", 1}}}, `Options: NodeScoring.Resources[0].Name: must not be empty`},
		{NodeScoring{Strategy: LeastAllocated, Resources: []ResourceWeight{{ResourceCPU, 1}, {ResourceCPU, 2}}}, `Options: NodeScoring.Resources[1].Name: resource "cpu" appears twice`},
		{NodeScoring{Strategy: LeastAllocated, BalancedResources: []ResourceWeight{{ResourceCPU, 0}}}, `Options: NodeScoring.BalancedResources[0].Weight: 0 is outside 1–100`},
		{NodeScoring{Strategy: LeastAllocated, Shape: []UtilizationShapePoint{{0, 1}}}, `Options: NodeScoring.Shape: is for RequestedToCapacityRatio only`},
		{NodeScoring{Strategy: RequestedToCapacityRatio}, `Options: NodeScoring.Shape: must have at least one point`},
		{NodeScoring{Strategy: RequestedToCapacityRatio, Shape: []UtilizationShapePoint{{50, 1}, {50, 2}}}, `Options: NodeScoring.Shape[1].Utilization: 50 does not ascend strictly`},
		{NodeScoring{Strategy: RequestedToCapacityRatio, Shape: []UtilizationShapePoint{{101, 1}}}, `Options: NodeScoring.Shape[0].Utilization: 101 is outside 0–100`},
		{NodeScoring{Strategy: RequestedToCapacityRatio, Shape: []UtilizationShapePoint{{0, 11}}}, `Options: NodeScoring.Shape[0].Score: 11 is outside 0–10`},
	} {
		_, err := Solve(s, g, Options{NodeScoring: c.ns})
		var fe *FieldError
		require.ErrorAs(t, err, &fe, c.want)
		require.ErrorContains(t, err, c.want)
	}
}

// nodeScorings draws the scorings a profile can configure.
func nodeScorings() *rapid.Generator[NodeScoring] {
	return rapid.Custom(func(t *rapid.T) NodeScoring {
		ns := NodeScoring{Strategy: rapid.SampledFrom([]ScoringStrategy{LeastAllocated, MostAllocated, RequestedToCapacityRatio}).Draw(t, "strategy"),
			FitWeight: rapid.Int64Range(0, 3).Draw(t, "fitWeight"), BalancedWeight: rapid.Int64Range(0, 3).Draw(t, "balancedWeight")}
		if rapid.Bool().Draw(t, "resources") {
			ns.Resources = []ResourceWeight{{ResourceCPU, rapid.Int64Range(1, 3).Draw(t, "cpuWeight")}, {ResourceGPU, rapid.Int64Range(1, 3).Draw(t, "gpuWeight")}}
		}
		if ns.Strategy == RequestedToCapacityRatio {
			ns.Shape = []UtilizationShapePoint{{0, rapid.Int64Range(0, 10).Draw(t, "low")}, {100, rapid.Int64Range(0, 10).Draw(t, "high")}}
		}
		return ns
	})
}

// TestProp_NodeScoringKeepsInvariants: under any node scoring, decisions
// keep invariants 1–6, and when both searches are proven, a group is
// Scheduled exactly when it is with packing (scoring picks among
// placements; it never makes one possible).
func TestProp_NodeScoringKeepsInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ns := nodeScorings().Draw(t, "scoring")
		solve := func(s *Snapshot, g *Group) (Decision, error) { return Solve(s, g, Options{NodeScoring: ns}) }
		placementtest.Property(solve)(t)
	})
	rapid.Check(t, func(t *rapid.T) {
		ns := nodeScorings().Draw(t, "scoring")
		s := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s).Draw(t, "group")
		d, err := Solve(s, g, Options{NodeScoring: ns})
		require.NoError(t, err)
		p, err := Solve(s, g, Options{})
		require.NoError(t, err)
		if d.Proven && p.Proven {
			require.Equal(t, p.Status == Scheduled, d.Status == Scheduled, "%s / %s", d.Message, p.Message)
		}
	})
}

// Inside a placement, kube-scheduler's default profile spreads a group's
// members over equal nodes where gangsched's default packs them.
func ExampleUpstreamNodeScoring() {
	s, _ := NewSnapshot([]Node{cpuMemNode("n1", 4000, 8<<30), cpuMemNode("n2", 4000, 8<<30)}, nil)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{cpuMemMember("a", 1000, 1<<30), cpuMemMember("b", 1000, 1<<30)}}
	for _, ns := range []NodeScoring{{}, UpstreamNodeScoring()} {
		d, _ := Solve(s, g, Options{NodeScoring: ns})
		fmt.Printf("%q: a on %s, b on %s\n", ns.Strategy, d.Assignments[0].Node, d.Assignments[1].Node)
	}
	// Output:
	// "": a on n1, b on n1
	// "LeastAllocated": a on n1, b on n2
}

// BenchmarkSolveNodeScoring: a fitting gang of 512 members (8 CPU, 16 GiB)
// on 1,000 empty 64-CPU hosts, by gangsched's packing (members of one
// shape placed as a batch over classes of nodes) and by kube-scheduler's
// default profile (members placed one by one, each scoring every node).
func BenchmarkSolveNodeScoring(b *testing.B) {
	var nodes []Node
	for i := range 1000 {
		nodes = append(nodes, Node{Name: fmt.Sprintf("host-%04d", i), Allocatable: ResourceList{ResourceCPU: 64000, ResourceMemory: 256 << 30, ResourcePods: 110}})
	}
	s, err := NewSnapshot(nodes, nil)
	if err != nil {
		b.Fatal(err)
	}
	g := &Group{Namespace: "default", Name: "pg", MinCount: 512}
	for i := range 512 {
		g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("pg-%04d", i), SchedulingGroup: "pg",
			Requests: ResourceList{ResourceCPU: 8000, ResourceMemory: 16 << 30}})
	}
	for _, c := range []struct {
		name string
		ns   NodeScoring
	}{{"packing", NodeScoring{}}, {"upstream", UpstreamNodeScoring()}} {
		b.Run(c.name, func(b *testing.B) {
			d, err := Solve(s, g, Options{NodeScoring: c.ns})
			if err != nil || d.Status != Scheduled || len(d.Assignments) != 512 {
				b.Fatalf("%v: %s", err, d.Message)
			}
			b.ReportAllocs()
			for b.Loop() {
				if d, _ := Solve(s, g, Options{NodeScoring: c.ns}); len(d.Assignments) != 512 {
					b.Fatal(d.Message)
				}
			}
		})
	}
}
