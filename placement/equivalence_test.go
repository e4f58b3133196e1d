package placement_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

func batchSolve(t require.TestingT, c batchCase, g *Group) Decision {
	d, err := Solve(c.s, g, c.opts)
	require.NoError(t, err, c.desc)
	if d.Status == Scheduled {
		require.NoError(t, Verify(c.s, g, d, c.opts.Filters...), c.desc)
	}
	return d
}

func rapidBatchCase(t *rapid.T) batchCase {
	c, err := drawBatchCase(t)
	require.NoError(t, err)
	return c
}

// perNode counts a decision's placed pods per pod set (a member counts
// under the set it was expanded from, "<set>-<i>", or its own name) and
// node.
func perNode(d Decision) map[string]int32 {
	out := map[string]int32{}
	strip := regexp.MustCompile(`-\d{5}$`)
	for _, a := range d.Assignments {
		out[strip.ReplaceAllString(a.Pod.Name, "")+"@"+a.Node]++
	}
	for _, a := range d.PodSetAssignments {
		out[a.PodSet+"@"+a.Node] += a.Count
	}
	return out
}

// TestProp_BatchCasesVerify: every Scheduled decision of the batched
// and one-by-one paths (pod sets, derived snapshots, domains of
// consecutive IDs, hooks) keeps the invariants, and so does the same group
// with its pod sets listed as members.
func TestProp_BatchCasesVerify(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapidBatchCase(t)
		batchSolve(t, c, c.g)
		batchSolve(t, c, c.expanded)
	})
}

// TestProp_BatchPodSetsEqualExpandedMembers: a pod set decides as its pods
// listed one by one as members would (without caller Filters, under which
// a set's pods stay one class to the search and members do not): the same
// status, placement, pods per node, score and reasons, and — diagnosis
// answers once per row of a set's waiting pods — the same Unresolvable
// or Unschedulable verdict.
func TestProp_BatchPodSetsEqualExpandedMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapidBatchCase(t)
		c.opts.Filters = nil
		sets := batchSolve(t, c, c.g)
		members := batchSolve(t, c, c.expanded)
		require.Equal(t, members.Status, sets.Status, "%s\nmembers: %s\nsets: %s", c.desc, members.Message, sets.Message)
		require.Equal(t, members.Placement, sets.Placement, c.desc)
		require.Equal(t, members.MostFit, sets.MostFit, c.desc)
		require.Equal(t, members.Score, sets.Score, c.desc)
		require.Equal(t, members.Reasons, sets.Reasons, c.desc)
		require.Equal(t, members.Proven, sets.Proven, c.desc)
		require.Equal(t, perNode(members), perNode(sets), c.desc)
	})
}

// TestProp_UnresolvableWithFiltersEqualExpanded: with a caller Filter
// too, when pod sets and the same pods as members place alike, the
// diagnosis (asked once per row of waiting pods of a set, once per pod
// for members) gives the same status and reasons.
func TestProp_UnresolvableWithFiltersEqualExpanded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapidBatchCase(t)
		c.opts.Filters = []Filter{FilterFunc(func(_ *Pod, ni NodeInfo) Rejection {
			if ni.ID()%3 == 1 {
				return Rejection{Reason: "node(s) were odd", Unresolvable: true}
			}
			return Rejection{}
		})}
		c.opts.SearchBudget = 1 // the greedy passes only: they place sets and members alike
		c.opts.Budget = 0
		sets := batchSolve(t, c, c.g)
		members := batchSolve(t, c, c.expanded)
		if sets.MostFit != members.MostFit || sets.Placement.Name != members.Placement.Name {
			return // a cut search may end apart
		}
		unres := func(s Status) bool { return s == Unresolvable }
		require.Equal(t, unres(members.Status), unres(sets.Status), "%s\nmembers: %s\nsets: %s", c.desc, members.Message, sets.Message)
		require.Equal(t, members.Reasons, sets.Reasons, c.desc)
	})
}

// TestProp_NoopFilterEqualsBatched: a caller Filter that accepts
// everything sends the solver down the one-by-one paths; the greedy passes
// (the search cut at once) must place exactly as the batched ones.
func TestProp_NoopFilterEqualsBatched(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapidBatchCase(t)
		c.opts.Filters = nil
		c.opts.SearchBudget = 1
		c.opts.Budget = 0 // a filter's calls count: a tight budget runs out sooner one by one
		fast := batchSolve(t, c, c.g)
		c.opts.Filters = []Filter{noopFilter}
		slow := batchSolve(t, c, c.g)
		if fast.Status == Scheduled || slow.Status == Scheduled {
			require.Equal(t, slow.Status, fast.Status, "%s\nslow: %s\nfast: %s", c.desc, slow.Message, fast.Message)
			require.Equal(t, slow.Placement, fast.Placement, c.desc)
			require.Equal(t, slow.Assignments, fast.Assignments, c.desc)
			require.Equal(t, slow.PodSetAssignments, fast.PodSetAssignments, c.desc)
			require.Equal(t, slow.Waiting, fast.Waiting, c.desc)
			require.Equal(t, slow.Score, fast.Score, c.desc)
		}
		require.Equal(t, slow.MostFit, fast.MostFit, "%s\nslow: %s\nfast: %s", c.desc, slow.Message, fast.Message)
	})
}

// TestProp_BatchCasesInAnyInputOrder: the same cluster built from
// shuffled nodes and pods, the same changes applied in shuffled order,
// and a group with its members and pod sets shuffled, give the identical
// decision — Steps included, and whether or not the class index of each
// snapshot on the way was built before the next was derived.
func TestProp_BatchCasesInAnyInputOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapidBatchCase(t)
		want := batchSolve(t, c, c.g)
		nodes := rapid.Permutation(c.nodes).Draw(t, "nodes")
		pods := rapid.Permutation(c.pods).Draw(t, "pods")
		s, err := NewSnapshot(nodes, pods)
		require.NoError(t, err)
		for _, ch := range c.changes {
			ch.Remove = rapid.Permutation(ch.Remove).Draw(t, "remove")
			ch.Bind = rapid.Permutation(ch.Bind).Draw(t, "bind")
			s, err = s.Apply(ch)
			require.NoError(t, err)
		}
		g := *c.g
		g.Members = rapid.Permutation(g.Members).Draw(t, "members")
		g.PodSets = rapid.Permutation(g.PodSets).Draw(t, "podSets")
		c.s = s
		got := batchSolve(t, c, &g)
		require.Equal(t, want, got, c.desc)
	})
}

// TestBatchCases_FeasibleAndInfeasible: the generator yields groups that are
// scheduled and groups that are not, over each kind of placement.
func TestBatchCases_FeasibleAndInfeasible(t *testing.T) {
	seen := map[Status]int{}
	for seed := range uint64(200) {
		c, err := seeded(seed, drawBatchCase)
		require.NoError(t, err)
		seen[batchSolve(t, c, c.g).Status]++
	}
	require.Positive(t, seen[Scheduled])
	require.Positive(t, seen[Unschedulable])
	require.Positive(t, seen[Unresolvable])
}
