package placement_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	. "github.com/gangsched/gangsched/placement"
)

func adv5Solve(t require.TestingT, c adv5Case, g *Group) Decision {
	d, err := Solve(c.s, g, c.opts)
	require.NoError(t, err, c.desc)
	if d.Status == Scheduled {
		require.NoError(t, Verify(c.s, g, d, c.opts.Filters...), c.desc)
	}
	return d
}

func adv5DrawCase(t *rapid.T) adv5Case {
	c, err := adv5Draw(rapid.Uint64().Draw(t, "seed"))
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

// TestProp_Adv5DecisionsVerify: every Scheduled decision of the batched
// and one-by-one paths (pod sets, derived snapshots, domains of
// consecutive IDs, hooks) keeps the invariants, and so does the same group
// with its pod sets listed as members.
func TestProp_Adv5DecisionsVerify(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := adv5DrawCase(t)
		adv5Solve(t, c, c.g)
		adv5Solve(t, c, c.expanded)
	})
}

// TestProp_Adv5PodSetsEqualExpandedMembers: a pod set decides as its pods
// listed one by one as members would (without caller Filters, under which
// a set's pods stay one class to the search and members do not): the same
// status, placement, pods per node, score and reasons, and — diagnosis
// answers once per row of a set's waiting pods — the same Unresolvable
// or Unschedulable verdict.
func TestProp_Adv5PodSetsEqualExpandedMembers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := adv5DrawCase(t)
		c.opts.Filters = nil
		sets := adv5Solve(t, c, c.g)
		members := adv5Solve(t, c, c.expanded)
		require.Equal(t, members.Status, sets.Status, "%s\nmembers: %s\nsets: %s", c.desc, members.Message, sets.Message)
		require.Equal(t, members.Placement, sets.Placement, c.desc)
		require.Equal(t, members.MostFit, sets.MostFit, c.desc)
		require.Equal(t, members.Score, sets.Score, c.desc)
		require.Equal(t, members.Reasons, sets.Reasons, c.desc)
		require.Equal(t, members.Proven, sets.Proven, c.desc)
		require.Equal(t, perNode(members), perNode(sets), c.desc)
	})
}

// TestProp_Adv5UnresolvableWithFiltersEqualExpanded: with a caller Filter
// too, when pod sets and the same pods as members place alike, the
// diagnosis (asked once per row of waiting pods of a set, once per pod
// for members) gives the same status and reasons.
func TestProp_Adv5UnresolvableWithFiltersEqualExpanded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := adv5DrawCase(t)
		c.opts.Filters = []Filter{FilterFunc(func(_ *Pod, ni NodeInfo) Rejection {
			if ni.ID()%3 == 1 {
				return Rejection{Reason: "node(s) were odd", Unresolvable: true}
			}
			return Rejection{}
		})}
		c.opts.SearchBudget = 1 // the greedy passes only: they place sets and members alike
		c.opts.Budget = 0
		sets := adv5Solve(t, c, c.g)
		members := adv5Solve(t, c, c.expanded)
		if sets.MostFit != members.MostFit || sets.Placement.Name != members.Placement.Name {
			return // a cut search may end apart
		}
		unres := func(s Status) bool { return s == Unresolvable }
		require.Equal(t, unres(members.Status), unres(sets.Status), "%s\nmembers: %s\nsets: %s", c.desc, members.Message, sets.Message)
		require.Equal(t, members.Reasons, sets.Reasons, c.desc)
	})
}

// TestProp_Adv5NoopFilterEqualsBatched: a caller Filter that accepts
// everything sends the solver down the one-by-one paths; the greedy passes
// (the search cut at once) must place exactly as the batched ones.
func TestProp_Adv5NoopFilterEqualsBatched(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := adv5DrawCase(t)
		c.opts.Filters = nil
		c.opts.SearchBudget = 1
		c.opts.Budget = 0 // a filter's calls count: a tight budget runs out sooner one by one
		fast := adv5Solve(t, c, c.g)
		c.opts.Filters = []Filter{adv5Noop}
		slow := adv5Solve(t, c, c.g)
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

// TestProp_Adv5InputOrderChangesNothing: the same cluster built from
// shuffled nodes and pods, the same changes applied in shuffled order,
// and a group with its members and pod sets shuffled, give the identical
// decision — Steps included, and whether or not the class index of each
// snapshot on the way was built before the next was derived.
func TestProp_Adv5InputOrderChangesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := adv5DrawCase(t)
		want := adv5Solve(t, c, c.g)
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
		got := adv5Solve(t, c, &g)
		require.Equal(t, want, got, c.desc)
	})
}

// adv5Reference solves the cases of seeds from..to-1 one after another
// and returns their decisions; cheap keeps only those that a caller Filter
// (a call per pod and node) keeps cheap.
func adv5Reference(t *testing.T, from, to uint64, cheap bool) ([]adv5Case, []Decision) {
	var cs []adv5Case
	var ds []Decision
	for seed := from; seed < to; seed++ {
		c, err := adv5Draw(seed)
		require.NoError(t, err)
		if cheap && c.s.NumNodes()*len(c.expanded.Members) > 100_000 {
			continue
		}
		cs = append(cs, c)
		ds = append(ds, adv5Solve(t, c, c.g))
	}
	return cs, ds
}

// TestAdv5_SameAfterOtherSolves: a Solve's scratch memory comes from a
// pool; a decision must not depend on what the solves before it (other
// snapshots, node counts, resources, group sizes) left there. Each case is
// solved again after all the others, in reverse and shuffled orders.
func TestAdv5_SameAfterOtherSolves(t *testing.T) {
	cs, want := adv5Reference(t, 5000, 5100, false)
	for i := len(cs) - 1; i >= 0; i-- {
		require.Equal(t, want[i], adv5Solve(t, cs[i], cs[i].g), cs[i].desc)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, i := range r.Perm(len(cs)) {
		require.Equal(t, want[i], adv5Solve(t, cs[i], cs[i].g), cs[i].desc)
		// Interleave the same pods as members: other shapes of scratch.
		adv5Solve(t, cs[i], cs[i].expanded)
	}
}

// TestAdv5_ConcurrentSolves: solves on several goroutines, some on the
// same snapshots, each get their own scratch memory (run with -race).
func TestAdv5_ConcurrentSolves(t *testing.T) {
	cs, want := adv5Reference(t, 6000, 6040, false)
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(cs))
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for _, i := range r.Perm(len(cs)) {
				d, err := Solve(cs[i].s, cs[i].g, cs[i].opts)
				if err == nil && !equalDecisions(d, want[i]) {
					err = fmt.Errorf("case %d (%s): concurrent decision differs", i, cs[i].desc)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func equalDecisions(a, b Decision) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

// TestAdv5_PanickingHookLeavesNoTrace: a hook that panics in the middle of
// an attempt leaves its solve's scratch half written; the solves after it
// must not see that.
func TestAdv5_PanickingHookLeavesNoTrace(t *testing.T) {
	cs, want := adv5Reference(t, 7000, 7040, true)
	for i, c := range cs {
		calls := 0
		boom := c
		boom.opts.Filters = append(slices.Clone(c.opts.Filters), FilterFunc(func(*Pod, NodeInfo) Rejection {
			calls++
			if calls == 3+i%5 {
				panic("boom")
			}
			return Rejection{}
		}))
		boom.opts.Scorer = PlacementScorerFunc(func(*Snapshot, *Group, *Placement, []Assignment) int64 { panic("boom") })
		func() {
			defer func() { _ = recover() }()
			_, _ = Solve(boom.s, boom.g, boom.opts)
		}()
		for j := range cs {
			if j%10 == i%10 {
				require.Equal(t, want[j], adv5Solve(t, cs[j], cs[j].g), cs[j].desc)
			}
		}
	}
}

// TestAdv5_ReentrantSolves: hooks that call Solve themselves (a host
// asking a what-if inside its filter or scorer) get correct answers, and
// the outer solve's decision is the one it makes without them.
func TestAdv5_ReentrantSolves(t *testing.T) {
	cs, want := adv5Reference(t, 8000, 8040, true)
	for i, c := range cs {
		inner := cs[(i+1)%len(cs)]
		plain := c
		plain.opts.Filters = append(slices.Clone(c.opts.Filters), adv5Noop)
		ref := adv5Solve(t, plain, plain.g)
		calls := 0
		nested := c
		nested.opts.Filters = append(slices.Clone(c.opts.Filters), FilterFunc(func(*Pod, NodeInfo) Rejection {
			if calls++; calls <= 2 {
				require.Equal(t, want[(i+1)%len(cs)], adv5Solve(t, inner, inner.g), inner.desc)
			}
			return Rejection{}
		}))
		if c.opts.Scorer != nil {
			score := c.opts.Scorer
			sc := PlacementScorerFunc(func(s *Snapshot, g *Group, p *Placement, a []Assignment) int64 {
				require.Equal(t, want[(i+1)%len(cs)], adv5Solve(t, inner, inner.g), inner.desc)
				return score.Score(s, g, p, a)
			})
			nested.opts.Scorer = sc
		}
		got := adv5Solve(t, nested, nested.g)
		got.Steps, ref.Steps = 0, 0
		require.Equal(t, ref, got, c.desc)
	}
}

// TestAdv5Gen_FeasibleAndInfeasible: the generator yields groups that are
// scheduled and groups that are not, over each kind of placement.
func TestAdv5Gen_FeasibleAndInfeasible(t *testing.T) {
	seen := map[Status]int{}
	for seed := range uint64(200) {
		c, err := adv5Draw(seed)
		require.NoError(t, err)
		seen[adv5Solve(t, c, c.g).Status]++
	}
	require.Positive(t, seen[Scheduled])
	require.Positive(t, seen[Unschedulable])
	require.Positive(t, seen[Unresolvable])
}

// TestAdv5_ConcurrentDerivedSnapshots: goroutines derive snapshots from
// one shared parent (whose class index another goroutine may be building
// at the same time) and solve on parent and children; every decision is
// the one a lone goroutine makes (run with -race).
func TestAdv5_ConcurrentDerivedSnapshots(t *testing.T) {
	for seed := uint64(9000); seed < 9012; seed++ {
		c, err := adv5Draw(seed)
		require.NoError(t, err)
		parent, err := NewSnapshot(c.nodes, c.pods)
		require.NoError(t, err)
		var changes []Change
		for k := range 4 {
			var ch Change
			for i := k; i < len(c.nodes); i += 5 + k {
				ch.Bind = append(ch.Bind, Pod{Namespace: "ns", Name: fmt.Sprintf("y%d-%05d", k, i), NodeName: c.nodes[i].Name,
					Requests: ResourceList{ResourceCPU: 2000}})
			}
			changes = append(changes, ch)
		}
		solveOn := func(s *Snapshot) (Decision, error) { return Solve(s, c.g, c.opts) }
		want := make([]Decision, len(changes)+1)
		{
			// A lone goroutine, on fresh copies of the same snapshots.
			fresh, err := NewSnapshot(c.nodes, c.pods)
			require.NoError(t, err)
			for k, ch := range changes {
				child, err := fresh.Apply(ch)
				require.NoError(t, err)
				want[k], err = solveOn(child)
				require.NoError(t, err)
			}
			want[len(changes)], err = solveOn(fresh)
			require.NoError(t, err)
		}
		if seed%2 == 0 {
			// The parent's class index built: the children derive theirs.
			_, err := Solve(parent, &Group{Namespace: "warm", Name: "w", MinCount: 1,
				Members: []Pod{{Namespace: "warm", Name: "w", SchedulingGroup: "w", Requests: ResourceList{ResourceCPU: 1}}}}, Options{})
			require.NoError(t, err)
		}
		var wg sync.WaitGroup
		got := make([]Decision, len(changes)+1)
		errs := make([]error, len(changes)+1)
		for k := range changes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				child, err := parent.Apply(changes[k])
				if err == nil {
					got[k], err = solveOn(child)
				}
				errs[k] = err
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[len(changes)], errs[len(changes)] = solveOn(parent)
		}()
		wg.Wait()
		for k := range got {
			require.NoError(t, errs[k])
			require.Equal(t, want[k], got[k], "seed %d snapshot %d: %s", seed, k, c.desc)
		}
	}
}
