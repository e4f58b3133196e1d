package placement_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/placement/placementtest"
)

// labelScore scores a node by its label "score" (0 when absent).
var labelScore = NodeScorerFunc(func(_ *Pod, n NodeInfo) (int64, error) {
	v, _ := strconv.ParseInt(n.Node().Labels["score"], 10, 64)
	return v, nil
})

func scoredNode(name string, milli int64, score string) Node {
	return Node{Name: name, Labels: map[string]string{"score": score}, Allocatable: ResourceList{ResourceCPU: milli, ResourceMemory: 8 << 30}}
}

// TestScenario_NodeScorerChooses: three 1-CPU members on nodes scored 5
// (n1, 2 CPUs), 9 (n2, 1 CPU) and 9 (n3, 4 CPUs) by the hook: m1 takes n2
// (9, before n3 by name), m2 finds n2 full and takes n3, and so does m3:
// the hook's score alone decides, packing would have filled n2 and n1.
func TestScenario_NodeScorerChooses(t *testing.T) {
	s, err := NewSnapshot([]Node{scoredNode("n1", 2000, "5"), scoredNode("n2", 1000, "9"), scoredNode("n3", 4000, "9")}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 3, Members: []Pod{
		cpuMemMember("m1", 1000, 0), cpuMemMember("m2", 1000, 0), cpuMemMember("m3", 1000, 0)}}
	d, err := Solve(s, g, Options{NodeScorer: labelScore})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.Equal(t, map[string]string{"m1": "n2", "m2": "n3", "m3": "n3"}, nodesOf(d))
	require.NoError(t, Verify(s, g, d))
}

// TestScenario_NodeScorerSeesAssumedMembers: a hook that prefers the node
// with the most free CPU after the members assumed so far spreads four
// 1-CPU members over two equal 4-CPU nodes, n1 first on ties.
func TestScenario_NodeScorerSeesAssumedMembers(t *testing.T) {
	s, err := NewSnapshot([]Node{scoredNode("n1", 4000, ""), scoredNode("n2", 4000, "")}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 4, Members: []Pod{
		cpuMemMember("m1", 1000, 0), cpuMemMember("m2", 1000, 0), cpuMemMember("m3", 1000, 0), cpuMemMember("m4", 1000, 0)}}
	freest := NodeScorerFunc(func(_ *Pod, n NodeInfo) (int64, error) { return n.Free(ResourceCPU), nil })
	d, err := Solve(s, g, Options{NodeScorer: freest})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n1", "m2": "n2", "m3": "n1", "m4": "n2"}, nodesOf(d))
}

// TestScenario_NodeScorerAddsToNodeScoring: with the default profile, the
// hook's score is added to the profile's. On two empty equal nodes the
// profile scores 152 each; a hook worth 1 on n2 breaks the tie for m1
// (153 against 152), and m2 spreads to n1 (152 against 134+1). A hook
// worth 100 on n2 outweighs the spread: both go to n2. A hook worth −1 on
// n1 sends m1 to n2 (151 against 152) and m2 still to n1 (151 against
// 134).
func TestScenario_NodeScorerAddsToNodeScoring(t *testing.T) {
	s, err := NewSnapshot([]Node{scoredNode("n1", 4000, "0"), scoredNode("n2", 4000, "1")}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 2, Members: []Pod{cpuMemMember("m1", 1000, 1<<30), cpuMemMember("m2", 1000, 1<<30)}}
	d, err := Solve(s, g, Options{NodeScoring: UpstreamNodeScoring(), NodeScorer: labelScore})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n2", "m2": "n1"}, nodesOf(d))
	s, err = NewSnapshot([]Node{scoredNode("n1", 4000, "0"), scoredNode("n2", 4000, "100")}, nil)
	require.NoError(t, err)
	d, err = Solve(s, g, Options{NodeScoring: UpstreamNodeScoring(), NodeScorer: labelScore})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n2", "m2": "n2"}, nodesOf(d))
	s, err = NewSnapshot([]Node{scoredNode("n1", 4000, "-1"), scoredNode("n2", 4000, "0")}, nil)
	require.NoError(t, err)
	d, err = Solve(s, g, Options{NodeScoring: UpstreamNodeScoring(), NodeScorer: labelScore})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n2", "m2": "n1"}, nodesOf(d))
}

// TestNodeScorer_Error: a scorer's error stops the solve, wrapped in
// ErrHook and naming the hook, the pod and the node; a nil NodeScorerFunc
// is refused.
func TestNodeScorer_Error(t *testing.T) {
	s, err := NewSnapshot([]Node{scoredNode("n1", 4000, "")}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{cpuMemMember("m1", 1000, 0)}}
	lookup := errors.New("no GPU state for node")
	failing := NodeScorerFunc(func(*Pod, NodeInfo) (int64, error) { return 0, lookup })
	_, err = Solve(s, g, Options{NodeScorer: failing})
	require.ErrorIs(t, err, ErrHook)
	require.ErrorIs(t, err, lookup)
	require.EqualError(t, err, `placement: hook failed: PodGroup default/pg: Options.NodeScorer on pod default/m1, node "n1": no GPU state for node`)

	_, err = Solve(s, g, Options{NodeScorer: NodeScorerFunc(nil)})
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, "Options.NodeScorer")
}

// TestProp_NodeScorerSeesOnlyFeasibleNodes: whatever the cluster, group
// and filters, the hook is asked only about nodes where the member passes
// the built-in filters and the caller's, with room for its requests after
// the members assumed so far; the decision keeps the invariants, and its
// members sit on nodes the hook was asked about.
func TestProp_NodeScorerSeesOnlyFeasibleNodes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := placementtest.Snapshots().Draw(t, "snapshot")
		g := placementtest.Groups(s).Draw(t, "group")
		f := placementtest.Filters().Draw(t, "filter")
		weights := rapid.SliceOfN(rapid.Int64Range(-3, 3), s.NumNodes(), s.NumNodes()).Draw(t, "weights")
		asked := map[string]map[string]bool{} // pod name -> nodes
		scorer := NodeScorerFunc(func(p *Pod, n NodeInfo) (int64, error) {
			if !StaticFit(p, n.Node()) {
				return 0, fmt.Errorf("asked about %s on %s, which its static filters reject", p.Name, n.Node().Name)
			}
			if r := f.Filter(p, n); !r.OK() {
				return 0, fmt.Errorf("asked about %s on %s, which the filter rejects: %s", p.Name, n.Node().Name, r.Reason)
			}
			for r, q := range p.Requests {
				if q > 0 && n.Free(r) < q {
					return 0, fmt.Errorf("asked about %s on %s with %d %s free of %d requested", p.Name, n.Node().Name, n.Free(r), r, q)
				}
			}
			if asked[p.Name] == nil {
				asked[p.Name] = map[string]bool{}
			}
			asked[p.Name][n.Node().Name] = true
			return weights[n.ID()], nil
		})
		filters := []Filter{f}
		d, err := Solve(s, g, Options{Filters: filters, NodeScorer: scorer})
		require.NoError(t, err)
		require.NoError(t, placementtest.CheckDecision(s, g, d, filters...))
		for _, a := range d.Assignments {
			require.True(t, asked[a.Pod.Name][a.Node], "%s placed on %s without a score", a.Pod, a.Node)
		}
	})
}

// BenchmarkSolveNodeScorer: the fitting gang of BenchmarkSolveNodeScoring
// (512 members of 8 CPU, 16 GiB on 1,000 empty 64-CPU hosts), its members
// placed one by one by kube-scheduler's default profile built in, and by a
// hook that scores LeastAllocated over cpu and memory from NodeInfo.Free.
func BenchmarkSolveNodeScorer(b *testing.B) {
	var nodes []Node
	for i := range 1000 {
		nodes = append(nodes, Node{Name: fmt.Sprintf("host-%04d", i), Allocatable: ResourceList{ResourceCPU: 64000, ResourceMemory: 256 << 30, ResourcePods: 110}})
	}
	s, err := NewSnapshot(nodes, nil)
	require.NoError(b, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 512}
	for i := range 512 {
		g.Members = append(g.Members, Pod{Namespace: "default", Name: fmt.Sprintf("m%03d", i), SchedulingGroup: "pg",
			Requests: ResourceList{ResourceCPU: 8000, ResourceMemory: 16 << 30}})
	}
	least := NodeScorerFunc(func(_ *Pod, n NodeInfo) (int64, error) {
		return n.Free(ResourceCPU)*100/64000 + n.Free(ResourceMemory)*100/(256<<30), nil
	})
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"NodeScoring=upstream", Options{NodeScoring: UpstreamNodeScoring()}},
		{"NodeScorer=least", Options{NodeScorer: least}},
	} {
		d, err := Solve(s, g, c.opts)
		require.NoError(b, err)
		require.Equal(b, Scheduled, d.Status, d.Message)
		require.Len(b, d.Assignments, 512)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = Solve(s, g, c.opts)
			}
		})
	}
}

// fewestPods is a NodeScoreNormalizer in the manner of upstream's
// PodTopologySpread: ScoreNode counts the pods bound to the node, and
// NormalizeNodeScores inverts the counts relative to the smallest and
// largest among the candidates (100·(max+min−s)/max), so the emptiest
// candidate scores highest. It records what it was asked to normalise.
type fewestPods struct {
	calls [][]string
	err   error
}

func (f *fewestPods) ScoreNode(_ *Pod, n NodeInfo) (int64, error) {
	k := int64(0)
	for range n.Snapshot().PodsOn(n.ID()) {
		k++
	}
	return k, nil
}

func (f *fewestPods) NormalizeNodeScores(_ *Pod, nodes []NodeInfo, scores []int64) error {
	var names []string
	for _, n := range nodes {
		names = append(names, n.Node().Name)
	}
	f.calls = append(f.calls, names)
	if f.err != nil {
		return f.err
	}
	lo, hi := scores[0], scores[0]
	for _, s := range scores {
		lo, hi = min(lo, s), max(hi, s)
	}
	for i, s := range scores {
		if hi == 0 {
			scores[i] = 100
			continue
		}
		scores[i] = 100 * (hi + lo - s) / hi
	}
	return nil
}

// TestScenario_NodeScoreNormalizer: n1 holds 2 bound pods, n2 1, n3 none
// but a filter rejects it. The raw count would send the member to n1; the
// normalised score over the candidates n1 and n2 (0 and 100) sends it to
// n2. NormalizeNodeScores sees the candidates only, in node order, once
// per member. With the default profile added (152 on n2, 152 on n1: both
// empty of requests), the hook's 100 still decides.
func TestScenario_NodeScoreNormalizer(t *testing.T) {
	bound := func(name, node string) Pod { return Pod{Namespace: "default", Name: name, NodeName: node} }
	s, err := NewSnapshot([]Node{scoredNode("n1", 4000, ""), scoredNode("n2", 4000, ""), scoredNode("n3", 4000, "")},
		[]Pod{bound("a", "n1"), bound("b", "n1"), bound("c", "n2")})
	require.NoError(t, err)
	notN3 := FilterFunc(func(_ *Pod, n NodeInfo) Rejection {
		if n.Node().Name == "n3" {
			return Rejection{Reason: "not n3"}
		}
		return Rejection{}
	})
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{cpuMemMember("m1", 1000, 1<<30)}}
	for _, ns := range []NodeScoring{{}, UpstreamNodeScoring()} {
		f := &fewestPods{}
		d, err := Solve(s, g, Options{NodeScorer: f, Filters: []Filter{notN3}, NodeScoring: ns})
		require.NoError(t, err)
		require.Equal(t, map[string]string{"m1": "n2"}, nodesOf(d), "%+v", ns)
		require.Equal(t, [][]string{{"n1", "n2"}}, f.calls)
	}
	raw := NodeScorerFunc((&fewestPods{}).ScoreNode)
	d, err := Solve(s, g, Options{NodeScorer: raw, Filters: []Filter{notN3}})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"m1": "n1"}, nodesOf(d), "not normalised")
}

// TestScenario_NodeScoreNormalizerInSearch: members of 5, 4, 3, 3, 3 and 2
// CPUs on two empty 10-CPU nodes, where every normalised score ties (no
// pod is bound): both greedy passes fill n1 with 5+4 and strand the 2, so
// the exhaustive search runs, asking the normalizer about each member's
// candidates at each depth, and finds 5+3+2 and 4+3+3.
func TestScenario_NodeScoreNormalizerInSearch(t *testing.T) {
	s, err := NewSnapshot([]Node{scoredNode("n1", 10000, ""), scoredNode("n2", 10000, "")}, nil)
	require.NoError(t, err)
	g := &Group{Namespace: "default", Name: "pg", MinCount: 6, Members: []Pod{
		cpuMemMember("a", 5000, 0), cpuMemMember("b", 4000, 0), cpuMemMember("c", 3000, 0),
		cpuMemMember("d", 3000, 0), cpuMemMember("e", 3000, 0), cpuMemMember("f", 2000, 0)}}
	f := &fewestPods{}
	d, err := Solve(s, g, Options{NodeScorer: f})
	require.NoError(t, err)
	require.Equal(t, Scheduled, d.Status, d.Message)
	require.NoError(t, Verify(s, g, d))
	require.Equal(t, map[string]string{"a": "n1", "b": "n2", "c": "n1", "d": "n2", "e": "n2", "f": "n1"}, nodesOf(d))
	require.Greater(t, len(f.calls), 12, "two greedy passes of 6 members, then the search")
}

// TestNodeScoreNormalizerError: an error of NormalizeNodeScores stops the
// solve with an error that wraps ErrHook and it and names the hook.
func TestNodeScoreNormalizerError(t *testing.T) {
	s, err := NewSnapshot([]Node{scoredNode("n1", 4000, "")}, nil)
	require.NoError(t, err)
	boom := errors.New("boom")
	g := &Group{Namespace: "default", Name: "pg", MinCount: 1, Members: []Pod{cpuMemMember("m1", 1000, 0)}}
	_, err = Solve(s, g, Options{NodeScorer: &fewestPods{err: boom}})
	require.ErrorIs(t, err, ErrHook)
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "NormalizeNodeScores")
}
