package placement_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/placement"
)

// batchReference solves the cases of seeds from..to-1 one after another
// and returns their decisions; cheap keeps only those that a caller Filter
// (a call per pod and node) keeps cheap.
func batchReference(t *testing.T, from, to uint64, cheap bool) ([]batchCase, []Decision) {
	var cs []batchCase
	var ds []Decision
	for seed := from; seed < to; seed++ {
		c, err := seeded(seed, drawBatchCase)
		require.NoError(t, err)
		if cheap && c.s.NumNodes()*len(c.expanded.Members) > 100_000 {
			continue
		}
		cs = append(cs, c)
		ds = append(ds, batchSolve(t, c, c.g))
	}
	return cs, ds
}

// TestSolve_SameAfterOtherSolves: a Solve's scratch memory comes from a
// pool; a decision must not depend on what the solves before it (other
// snapshots, node counts, resources, group sizes) left there. Each case is
// solved again after all the others, in reverse and shuffled orders.
func TestSolve_SameAfterOtherSolves(t *testing.T) {
	cs, want := batchReference(t, 5000, 5100, false)
	for i := len(cs) - 1; i >= 0; i-- {
		require.Equal(t, want[i], batchSolve(t, cs[i], cs[i].g), cs[i].desc)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, i := range r.Perm(len(cs)) {
		require.Equal(t, want[i], batchSolve(t, cs[i], cs[i].g), cs[i].desc)
		// Interleave the same pods as members: other shapes of scratch.
		batchSolve(t, cs[i], cs[i].expanded)
	}
}

// TestSolve_ConcurrentOnSharedSnapshots: solves on several goroutines, some on the
// same snapshots, each get their own scratch memory (run with -race).
func TestSolve_ConcurrentOnSharedSnapshots(t *testing.T) {
	cs, want := batchReference(t, 6000, 6040, false)
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

// TestSolve_PanickingHookLeavesNoTrace: a hook that panics in the middle of
// an attempt leaves its solve's scratch half written; the solves after it
// must not see that.
func TestSolve_PanickingHookLeavesNoTrace(t *testing.T) {
	cs, want := batchReference(t, 7000, 7040, true)
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
		boom.opts.Scorer = PlacementScorerFunc(func(*Snapshot, GroupView, *Placement, []Assignment) (int64, error) { panic("boom") })
		func() {
			defer func() { _ = recover() }()
			_, _ = Solve(boom.s, boom.g, boom.opts)
		}()
		for j := range cs {
			if j%10 == i%10 {
				require.Equal(t, want[j], batchSolve(t, cs[j], cs[j].g), cs[j].desc)
			}
		}
	}
}

// TestSolve_ReentrantFromHooks: hooks that call Solve themselves (a host
// asking a what-if inside its filter or scorer) get correct answers, and
// the outer solve's decision is the one it makes without them.
func TestSolve_ReentrantFromHooks(t *testing.T) {
	cs, want := batchReference(t, 8000, 8040, true)
	for i, c := range cs {
		inner := cs[(i+1)%len(cs)]
		plain := c
		plain.opts.Filters = append(slices.Clone(c.opts.Filters), noopFilter)
		ref := batchSolve(t, plain, plain.g)
		calls := 0
		nested := c
		nested.opts.Filters = append(slices.Clone(c.opts.Filters), FilterFunc(func(*Pod, NodeInfo) Rejection {
			if calls++; calls <= 2 {
				require.Equal(t, want[(i+1)%len(cs)], batchSolve(t, inner, inner.g), inner.desc)
			}
			return Rejection{}
		}))
		if c.opts.Scorer != nil {
			score := c.opts.Scorer
			sc := PlacementScorerFunc(func(s *Snapshot, g GroupView, p *Placement, a []Assignment) (int64, error) {
				require.Equal(t, want[(i+1)%len(cs)], batchSolve(t, inner, inner.g), inner.desc)
				return score.Score(s, g, p, a)
			})
			nested.opts.Scorer = sc
		}
		got := batchSolve(t, nested, nested.g)
		got.Steps, ref.Steps = 0, 0
		require.Equal(t, ref, got, c.desc)
	}
}

// TestApply_ConcurrentDerivedSnapshots: goroutines derive snapshots from
// one shared parent (whose class index another goroutine may be building
// at the same time) and solve on parent and children; every decision is
// the one a lone goroutine makes (run with -race).
func TestApply_ConcurrentDerivedSnapshots(t *testing.T) {
	for seed := uint64(9000); seed < 9012; seed++ {
		c, err := seeded(seed, drawBatchCase)
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

// TestSolve_ConcurrentShapeCases solves the same inputs from several goroutines at
// once (the scratch pool and topology's locks are shared): each decision
// is the sequential one. Run with -race.
func TestSolve_ConcurrentShapeCases(t *testing.T) {
	const n = 120
	want := make([]string, n)
	for seed := range n {
		c, err := seeded(uint64(seed), drawShapeCase)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Solve(c.s, c.g, c.opts)
		want[seed] = decisionJSON(t, d, err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*n)
	for w := range 4 {
		wg.Go(func() {
			for k := range n {
				seed := (k + w*31) % n
				c, err := seeded(uint64(seed), drawShapeCase)
				if err != nil {
					errs <- err.Error()
					return
				}
				d, err := Solve(c.s, c.g, c.opts)
				if err == nil {
					b, _ := json.Marshal(d)
					if string(b) != want[seed] {
						errs <- fmt.Sprintf("seed %d: concurrent %s, sequential %s", seed, b, want[seed])
					}
				} else if "error: "+err.Error() != want[seed] {
					errs <- fmt.Sprintf("seed %d: concurrent error %v, sequential %s", seed, err, want[seed])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestSolve_SameAfterCutSolves solves each input right after another one cut
// short by a small budget (which may leave pooled memory in any state a
// solve can) and right after a trivial one: the decisions are equal.
func TestSolve_SameAfterCutSolves(t *testing.T) {
	s0, err := NewSnapshot([]Node{{Name: "n", Allocatable: ResourceList{ResourceCPU: 1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	trivial := &Group{Namespace: "t", Name: "t", MinCount: 1, Members: []Pod{{Namespace: "t", Name: "t", SchedulingGroup: "t"}}}
	for seed := range uint64(shapeSeeds) {
		c, err := seeded(seed, drawShapeCase)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := seeded(seed+100_003, drawShapeCase)
		if err != nil {
			t.Fatal(err)
		}
		prev.opts.Budget = int64(1 + seed%97)
		_, _ = Solve(prev.s, prev.g, prev.opts)
		d1, err1 := Solve(c.s, c.g, c.opts)
		if _, err := Solve(s0, trivial, Options{}); err != nil {
			t.Fatal(err)
		}
		d2, err2 := Solve(c.s, c.g, c.opts)
		if a, b := decisionJSON(t, d1, err1), decisionJSON(t, d2, err2); a != b {
			t.Errorf("seed %d (%s): after a cut solve\n%s\nafter a trivial one\n%s", seed, c.desc, a, b)
		}
	}
}
