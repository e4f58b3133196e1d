package topology_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

const gpu = placement.ResourceGPU

var propKeys = []string{zoneKey, rackKey, hostKey}

// tcase is a small cluster, a PodGroup and its topology constraints.
type tcase struct {
	nodes   []placement.Node
	pods    []placement.Pod // bound: other pods and the group's bound members
	group   placement.Group
	cs      []topology.Constraint
	scoring topology.Scoring
}

// genCase draws small clusters (1–8 nodes, 2–3 values per level so that
// domains collide, labels sometimes missing or empty) and groups of 1–4
// pending members, 0–2 bound. homogeneous gives every pending member the
// same requests; requiredOnly draws a required key and no preferred one.
func genCase(homogeneous, requiredOnly bool) *rapid.Generator[tcase] {
	return rapid.Custom(func(t *rapid.T) tcase {
		var c tcase
		n := rapid.IntRange(1, 8).Draw(t, "nodes")
		withGPU := rapid.Bool().Draw(t, "withGPU")
		for i := range n {
			nd := placement.Node{Name: fmt.Sprintf("n%02d", i), Labels: map[string]string{},
				Allocatable: placement.ResourceList{cpu: rapid.Int64Range(0, 8).Draw(t, "cpu")}}
			if withGPU {
				nd.Allocatable[gpu] = rapid.Int64Range(0, 2).Draw(t, "gpu")
			}
			for _, k := range propKeys {
				if rapid.IntRange(0, 7).Draw(t, "missing") > 0 {
					nd.Labels[k] = rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "value")
				}
			}
			if rapid.IntRange(0, 5).Draw(t, "tainted") == 0 {
				nd.Taints = []placement.Taint{{Key: "dedicated", Value: "gpu", Effect: placement.TaintEffectNoSchedule}}
			}
			c.nodes = append(c.nodes, nd)
		}
		for i := range rapid.IntRange(0, 4).Draw(t, "others") {
			c.pods = append(c.pods, placement.Pod{Namespace: "x", Name: fmt.Sprintf("o%d", i),
				NodeName: c.nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name,
				Requests: placement.ResourceList{cpu: rapid.Int64Range(0, 4).Draw(t, "ocpu")}})
		}
		g := placement.Group{Namespace: "default", Name: "pg"}
		if rapid.IntRange(0, 3).Draw(t, "basic") == 0 {
			g.Policy = placement.PolicyBasic
		}
		bound := rapid.IntRange(0, 2).Draw(t, "bound")
		for i := range bound {
			p := member(fmt.Sprintf("b%d", i), "pg", rapid.Int64Range(0, 2).Draw(t, "bcpu"))
			p.NodeName = c.nodes[rapid.IntRange(0, n-1).Draw(t, "bon")].Name
			c.pods = append(c.pods, p)
		}
		tolerate := rapid.Bool().Draw(t, "tolerate")
		req := func() placement.ResourceList {
			rl := placement.ResourceList{cpu: rapid.Int64Range(0, 4).Draw(t, "mcpu")}
			if withGPU {
				rl[gpu] = rapid.Int64Range(0, 1).Draw(t, "mgpu")
			}
			return rl
		}
		shared := req()
		// Sometimes members must avoid each other's nodes (required pod
		// anti-affinity among members).
		spread := !homogeneous && rapid.IntRange(0, 3).Draw(t, "antiAffinity") == 0
		for i := range rapid.IntRange(1, 4).Draw(t, "pending") {
			p := placement.Pod{Namespace: "default", Name: fmt.Sprintf("m%d", i), SchedulingGroup: "pg", Requests: shared}
			if !homogeneous {
				p.Requests = req()
			}
			if spread {
				p.Labels = map[string]string{"app": "x"}
				p.Affinity = &placement.Affinity{PodAntiAffinity: &placement.PodAffinity{Required: []placement.PodAffinityTerm{{
					LabelSelector: placement.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: hostKey}}}}
			}
			if tolerate {
				p.Tolerations = []placement.Toleration{{Key: "dedicated", Operator: placement.TolerationOpExists}}
			}
			g.Members = append(g.Members, p)
		}
		g.MinCount = int32(rapid.IntRange(1, bound+len(g.Members)).Draw(t, "min"))
		c.group = g
		r := rapid.IntRange(-1, len(propKeys)-1).Draw(t, "required")
		if requiredOnly {
			r = rapid.IntRange(0, len(propKeys)-1).Draw(t, "required")
		}
		if r >= 0 {
			c.cs = append(c.cs, required(propKeys[r]))
		}
		if !requiredOnly {
			if p := rapid.IntRange(-1, len(propKeys)-1).Draw(t, "preferred"); p >= 0 {
				c.cs = append(c.cs, preferred(propKeys[p]))
			}
		}
		c.scoring = rapid.SampledFrom([]topology.Scoring{topology.MostAllocated, topology.BestFit}).Draw(t, "scoring")
		return c
	})
}

// tree builds c's snapshot and its topology tree over propKeys.
func (c tcase) tree(t require.TestingT) (*placement.Snapshot, *topology.Tree) {
	s, err := placement.NewSnapshot(c.nodes, c.pods)
	require.NoError(t, err)
	tr, err := topology.NewTree(s, propKeys)
	require.NoError(t, err)
	return s, tr
}

// outcome solves c; err is set for the inputs SolverOptions or Generate
// reject (a key no node carries, bound members outside one domain).
func (c tcase) outcome(t require.TestingT) (*placement.Snapshot, *topology.Tree, placement.Decision, error) {
	s, tr := c.tree(t)
	opts, err := tr.SolverOptions(c.cs, c.scoring)
	if err != nil {
		return s, tr, placement.Decision{}, err
	}
	d, err := placement.Solve(s, &c.group, opts)
	return s, tr, d, err
}

// expectedError says why the case must be rejected, or "" when it must not.
func (c tcase) expectedError(s *placement.Snapshot, tr *topology.Tree) string {
	for _, cs := range c.cs {
		l, _ := tr.Level(cs.Key)
		if _, ok := first(tr.Domains(l)); !ok {
			return "no node carries " + cs.Key
		}
	}
	r := -1
	for _, cs := range c.cs {
		if l, _ := tr.Level(cs.Key); !cs.Preferred {
			r = max(r, l)
		}
	}
	if r < 0 {
		return ""
	}
	doms := map[topology.DomainID]bool{}
	for _, p := range s.GroupMembers(c.group.Key()) {
		id, _ := s.NodeOf(p)
		d, ok := tr.DomainOf(id, r)
		if !ok {
			return "bound member outside every domain"
		}
		doms[d.ID] = true
	}
	if len(doms) > 1 {
		return "bound members in two domains"
	}
	return ""
}

func first[V any](seq func(func(V) bool)) (V, bool) {
	for v := range seq {
		return v, true
	}
	var zero V
	return zero, false
}

// TestProp_Invariants: every decision verifies (capacity, all-or-nothing,
// bound members kept, filters) and, with a required key, all members share
// one domain (invariant 5); rejected inputs are exactly those that must be.
func TestProp_Invariants(t *testing.T) { rapid.Check(t, propInvariants) }

// FuzzSolve runs the invariant property under the fuzzer.
func FuzzSolve(f *testing.F) { f.Fuzz(rapid.MakeFuzz(propInvariants)) }

func propInvariants(t *rapid.T) {
	{
		c := genCase(false, false).Draw(t, "case")
		s, tr, d, err := c.outcome(t)
		if want := c.expectedError(s, tr); want != "" {
			require.Error(t, err, want)
			require.True(t, errors.Is(err, placement.ErrInvalid) || errors.Is(err, placement.ErrNotFound), err.Error())
			return
		}
		require.NoError(t, err)
		require.NoError(t, tr.Verify(s, &c.group, d, c.cs))
	}
}

// TestProp_PermutationInvariance: the decision does not depend on the order
// of nodes, bound pods, members or constraints, nor on which snapshot the
// tree served before.
func TestProp_PermutationInvariance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(false, false).Draw(t, "case")
		_, _, want, wantErr := c.outcome(t)

		p := c
		p.nodes = rapid.Permutation(c.nodes).Draw(t, "nodes")
		p.pods = rapid.Permutation(c.pods).Draw(t, "pods")
		p.group.Members = rapid.Permutation(c.group.Members).Draw(t, "members")
		p.cs = rapid.Permutation(c.cs).Draw(t, "constraints")
		s, err := placement.NewSnapshot(p.nodes, p.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, propKeys)
		require.NoError(t, err)
		opts, err := tr.SolverOptions(p.cs, p.scoring)
		if wantErr != nil {
			if err != nil {
				// The error names the offending entry, by its index.
				require.Equal(t, errors.Is(wantErr, placement.ErrNotFound), errors.Is(err, placement.ErrNotFound))
				return
			}
		} else {
			require.NoError(t, err)
		}
		// Let the tree serve a derived snapshot first: its aggregates move
		// there and back.
		other := member("zz", "other", rapid.Int64Range(0, 3).Draw(t, "zzcpu"))
		other.NodeName = p.nodes[rapid.IntRange(0, len(p.nodes)-1).Draw(t, "zzon")].Name
		s2, err := s.Apply(placement.Change{Bind: []placement.Pod{other}})
		require.NoError(t, err)
		_, _ = placement.Solve(s2, &p.group, opts)
		got, err := placement.Solve(s, &p.group, opts)
		if wantErr != nil {
			require.Error(t, err)
			require.Equal(t, wantErr.Error(), err.Error())
			return
		}
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}

// exhaustive is the oracle generator: every domain of the required level
// that holds all bound members, one rank.
func exhaustive(tr *topology.Tree, level int) placement.PlacementGenerator {
	return placement.PlacementGeneratorFunc(func(s *placement.Snapshot, g placement.GroupView) ([]placement.Placement, error) {
		var out []placement.Placement
		bound := s.GroupMembers(g.Key())
	next:
		for d := range tr.Domains(level) {
			for _, p := range bound {
				id, _ := s.NodeOf(p)
				if _, ok := slices.BinarySearch(d.Nodes, id); !ok {
					continue next
				}
			}
			out = append(out, placement.Placement{Name: d.Path, Nodes: d.Nodes})
		}
		return out, nil
	})
}

// TestProp_SameAsExhaustive: with a required key and no caller hooks, the
// tiered generator picks exactly what trying every domain picks, and the
// MostAllocated scorer gives placement.DefaultScorer's scores; when nothing
// fits it says so too.
func TestProp_SameAsExhaustive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(false, true).Draw(t, "case")
		s, tr, got, err := c.outcome(t)
		if c.expectedError(s, tr) != "" {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		level, _ := tr.Level(c.cs[0].Key)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		require.NoError(t, err)
		oracle := placement.Options{Generator: exhaustive(tr, level), Scorer: opts.Scorer}
		if c.scoring == topology.MostAllocated {
			oracle.Scorer = placement.DefaultScorer{}
		}
		want, err := placement.Solve(s, &c.group, oracle)
		require.NoError(t, err)
		require.Equal(t, want.Status == placement.Scheduled, got.Status == placement.Scheduled, "want %s, got %s", want.Message, got.Message)
		if want.Status == placement.Scheduled {
			require.Equal(t, want.Placement.Name, got.Placement.Name)
			require.Equal(t, want.Assignments, got.Assignments)
			require.Equal(t, want.Score, got.Score)
		} else {
			// When no domain can hold the group, one domain explains why:
			// it never claims more than the best domain holds.
			require.LessOrEqual(t, got.MostFit, want.MostFit)
		}
	})
}

// TestProp_RequiredComplete: with a required key, the group is placed
// whenever some domain of that level can hold its minimum (brute force over
// every assignment on small trees). Members are homogeneous, for which the
// solver's per-placement packing is exact, so a miss would be the
// generator's.
func TestProp_RequiredComplete(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(true, true).Draw(t, "case")
		s, tr, d, err := c.outcome(t)
		if c.expectedError(s, tr) != "" {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		level, _ := tr.Level(c.cs[0].Key)
		need := 1
		bound := len(s.GroupMembers(c.group.Key()))
		if c.group.IsGang() {
			need = max(int(c.group.MinCount)-bound, 1)
		}
		feasible := false
		for dom := range tr.Domains(level) {
			if holdsBound(s, c.group.Key(), dom.Nodes) && bruteFits(s, &c.group.Members[0], dom.Nodes, need) {
				feasible = true
				break
			}
		}
		require.Equal(t, feasible, d.Status == placement.Scheduled, d.Message)
	})
}

func holdsBound(s *placement.Snapshot, g placement.Key, nodes []placement.NodeID) bool {
	for _, p := range s.GroupMembers(g) {
		id, _ := s.NodeOf(p)
		if !slices.Contains(nodes, id) {
			return false
		}
	}
	return true
}

// bruteFits tries every way of putting k copies of p on nodes.
func bruteFits(s *placement.Snapshot, p *placement.Pod, nodes []placement.NodeID, k int) bool {
	used := map[placement.NodeID]int64{}
	var try func(left int) bool
	try = func(left int) bool {
		if left == 0 {
			return true
		}
		for _, id := range nodes {
			if !placement.StaticFit(p, s.Node(id)) {
				continue
			}
			ok := true
			for r, q := range p.Requests {
				if q > 0 && s.Free(id, r)-used[id]*q < q {
					ok = false
				}
			}
			if !ok {
				continue
			}
			used[id]++
			if try(left - 1) {
				return true
			}
			used[id]--
		}
		return false
	}
	return try(k)
}

// TestProp_AggregatesFollowSnapshots: the tree's per-domain sums and maxima
// of free capacity equal a recount over the domain's nodes, on snapshots
// reached by chains and forks of Apply in any order.
func TestProp_AggregatesFollowSnapshots(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(false, false).Draw(t, "case")
		s, tr := c.tree(t)
		snaps := []*placement.Snapshot{s}
		for i := range rapid.IntRange(1, 6).Draw(t, "steps") {
			from := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "from")]
			var ch placement.Change
			for p := range from.Pods() {
				if rapid.IntRange(0, 3).Draw(t, "remove") == 0 {
					ch.Remove = append(ch.Remove, p.Key())
				}
			}
			for j := range rapid.IntRange(0, 3).Draw(t, "binds") {
				p := member(fmt.Sprintf("s%d-%d", i, j), "", rapid.Int64Range(0, 3).Draw(t, "cpu"))
				p.NodeName = c.nodes[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "on")].Name
				ch.Bind = append(ch.Bind, p)
			}
			next, err := from.Apply(ch)
			require.NoError(t, err)
			snaps = append(snaps, next)
			at := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "check")]
			for l := range propKeys {
				for d := range tr.Domains(l) {
					for _, r := range []placement.ResourceName{cpu, gpu, placement.ResourcePods} {
						sum, largest, err := tr.Free(at, d.ID, r)
						require.NoError(t, err)
						var wantSum int64
						wantMax := int64(-1 << 63)
						for _, id := range d.Nodes {
							f := at.Free(id, r)
							wantSum = satAdd(wantSum, max(f, 0))
							wantMax = max(wantMax, f)
						}
						if !slices.Contains(at.Resources(), r) {
							wantSum, wantMax = 0, 0
						}
						require.Equal(t, wantSum, sum, "sum of %s in %s", r, d.Path)
						require.Equal(t, wantMax, largest, "max of %s in %s", r, d.Path)
					}
				}
			}
		}
	})
}

func satAdd(a, b int64) int64 {
	if a > (1<<63-1)-b {
		return 1<<63 - 1
	}
	return a + b
}

// TestGenerators_FeasibleAndInfeasible: the case generators yield scheduled
// and unscheduled decisions, rejected inputs, bound members, and all
// kinds of constraints, so the properties above can fail.
func TestGenerators_FeasibleAndInfeasible(t *testing.T) {
	for _, gen := range []struct {
		name string
		g    *rapid.Generator[tcase]
	}{{"any", genCase(false, false)}, {"homogeneous required", genCase(true, true)}} {
		counts := map[string]int{}
		for i := range 300 {
			c := gen.g.Example(i)
			s, tr, d, err := c.outcome(t)
			switch {
			case err != nil:
				counts["error"]++
			case d.Status == placement.Scheduled:
				counts["scheduled"]++
			default:
				counts["not scheduled"]++
			}
			if c.expectedError(s, tr) == "" && len(s.GroupMembers(c.group.Key())) > 0 && err == nil && d.Status == placement.Scheduled {
				counts["scheduled with bound"]++
			}
		}
		for _, k := range []string{"error", "scheduled", "not scheduled", "scheduled with bound"} {
			require.Positive(t, counts[k], "%s: %s never drawn: %v", gen.name, k, counts)
		}
	}
}

// TestProp_PlacementsInPathOrderPerRank checks the order Generate documents
// (SolverOptions): within one rank, placements come in path order, the
// order the solver breaks equal scores in — whichever way the first tier
// was cut.
func TestProp_PlacementsInPathOrderPerRank(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(false, false).Draw(t, "case")
		s, tr := c.tree(t)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		if err != nil || opts.Generator == nil {
			return // a key no node carries (TestProp_Invariants checks the error), or no constraint
		}
		ps, err := opts.Generator.Generate(s, placement.GroupView{Group: &c.group})
		if err != nil {
			return // bound members outside one domain: likewise
		}
		for i := 1; i < len(ps); i++ {
			if ps[i].Rank == ps[i-1].Rank && ps[i].Name != "" && ps[i].Name <= ps[i-1].Name {
				t.Fatalf("rank %d: %q after %q", ps[i].Rank, ps[i].Name, ps[i-1].Name)
			}
		}
	})
}

// TestProp_TiersAsBySorting: Generate finds the first tier's domain in a
// pass when the best-bound domain holds every member; the placements —
// names, nodes, ranks, order — are those of cutting the tier by sorting
// every candidate by bound (GenerateSortingTiers, the code before), with
// ties of the bound, bound members, affinity, sub-groups, preferred keys
// and both scorings.
func TestProp_TiersAsBySorting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genCase(rapid.Bool().Draw(t, "homogeneous"), false).Draw(t, "case")
		if rapid.IntRange(0, 3).Draw(t, "subGroup") == 0 {
			c.group.SubGroups = []placement.SubGroup{{Name: "all", MinCount: 1}}
		}
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, propKeys)
		require.NoError(t, err)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		if err != nil || opts.Generator == nil {
			return // a key no node carries, or no constraint
		}
		gen := opts.Generator.(*topology.Generator)
		want, werr := gen.GenerateSortingTiers(s, placement.GroupView{Group: &c.group})
		got, gerr := gen.Generate(s, placement.GroupView{Group: &c.group})
		require.Equal(t, werr, gerr)
		require.Equal(t, want, got)
	})
}

// TestProp_WideTiersAsBySorting is TestProp_TiersAsBySorting on clusters
// of 10–60 nodes in 3 zones and 8 racks, where many racks tie on their
// bound and the best-bound one may or may not hold the group.
func TestProp_WideTiersAsBySorting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(10, 60).Draw(t, "nodes")
		var nodes []placement.Node
		for i := range n {
			nodes = append(nodes, placement.Node{Name: fmt.Sprintf("n%02d", i), Allocatable: placement.ResourceList{cpu: rapid.Int64Range(0, 8).Draw(t, "cpu")},
				Labels: map[string]string{zoneKey: fmt.Sprint(rapid.IntRange(0, 2).Draw(t, "zone")), rackKey: fmt.Sprint(rapid.IntRange(0, 7).Draw(t, "rack")), hostKey: fmt.Sprint(i)}})
		}
		g := placement.Group{Namespace: "default", Name: "pg", Policy: placement.PolicyGang}
		var pods []placement.Pod
		if rapid.IntRange(0, 3).Draw(t, "bound") == 0 {
			b := member("b0", "pg", 1)
			b.NodeName = nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name
			pods = append(pods, b)
		}
		same := rapid.Bool().Draw(t, "homogeneous")
		q := rapid.Int64Range(1, 3).Draw(t, "mcpu")
		for i := range rapid.IntRange(1, 8).Draw(t, "pending") {
			if !same {
				q = rapid.Int64Range(1, 3).Draw(t, "mcpu")
			}
			g.Members = append(g.Members, member(fmt.Sprintf("m%d", i), "pg", q))
		}
		g.MinCount = int32(rapid.IntRange(1, len(pods)+len(g.Members)).Draw(t, "min"))
		if rapid.IntRange(0, 4).Draw(t, "subGroup") == 0 {
			g.SubGroups = []placement.SubGroup{{Name: "all", MinCount: 1}}
		}
		var cs []topology.Constraint
		if r := rapid.IntRange(-1, 1).Draw(t, "required"); r >= 0 {
			cs = append(cs, required(propKeys[r]))
		}
		if p := rapid.IntRange(-1, 1).Draw(t, "preferred"); p >= 0 {
			cs = append(cs, preferred(propKeys[p]))
		}
		s, err := placement.NewSnapshot(nodes, pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, propKeys)
		require.NoError(t, err)
		opts, err := tr.SolverOptions(cs, rapid.SampledFrom([]topology.Scoring{topology.MostAllocated, topology.BestFit}).Draw(t, "scoring"))
		if err != nil || opts.Generator == nil {
			return
		}
		gen := opts.Generator.(*topology.Generator)
		want, werr := gen.GenerateSortingTiers(s, placement.GroupView{Group: &g})
		got, gerr := gen.Generate(s, placement.GroupView{Group: &g})
		require.Equal(t, werr, gerr)
		require.Equal(t, want, got)
	})
}

// TestProp_ScoreSumsAsScore checks that the solver's shortcut for a
// SumScorer — the Scorer handed the sums of its classes, no assignments
// listed but the winner's — decides exactly as the same Scorer called as a
// plain PlacementScorer on every placement's assignments, with both
// scorings, on members and on pod sets.
func TestProp_ScoreSumsAsScore(t *testing.T) {
	outcomes := map[placement.Status]int{}
	rapid.Check(t, func(t *rapid.T) {
		homogeneous := rapid.Bool().Draw(t, "homogeneous")
		c := genCase(homogeneous, false).Draw(t, "case")
		if homogeneous && rapid.Bool().Draw(t, "asPodSet") {
			tmpl := c.group.Members[0]
			c.group.PodSets = []placement.PodSet{{Name: "w", Count: int32(len(c.group.Members)), Template: tmpl}}
			c.group.Members = nil
		}
		s, err := placement.NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		tr, err := topology.NewTree(s, propKeys)
		require.NoError(t, err)
		opts, err := tr.SolverOptions(c.cs, c.scoring)
		if err != nil {
			return // a key no node carries
		}
		if opts.Scorer == nil { // no constraint: the solver's default
			opts.Scorer = placement.DefaultScorer{}
		}
		_, isSums := opts.Scorer.(placement.SumScorer)
		require.True(t, isSums)
		fast, ferr := placement.Solve(s, &c.group, opts)
		opts.Scorer = placement.PlacementScorerFunc(opts.Scorer.Score)
		slow, serr := placement.Solve(s, &c.group, opts)
		require.Equal(t, serr, ferr)
		require.Equal(t, slow, fast)
		outcomes[fast.Status]++
	})
	require.Positive(t, outcomes[placement.Scheduled])
	require.Positive(t, outcomes[placement.Unschedulable]+outcomes[placement.Unresolvable])
}
