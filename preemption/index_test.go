package preemption_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// derive applies a random change to s: some bound pods removed, some bound
// anew — in a group of the input, in a group it does not name, in the
// preemptor's group, or in none.
func (w *world) derive(t *rapid.T, s *placement.Snapshot, label string) *placement.Snapshot {
	var ch placement.Change
	for p := range s.Pods() {
		if rapid.IntRange(0, 3).Draw(t, label+"-remove") == 0 {
			ch.Remove = append(ch.Remove, p.Key())
		}
	}
	for i := range rapid.IntRange(0, 3).Draw(t, label+"-bind") {
		p := placement.Pod{Namespace: ns, Name: fmt.Sprintf("%s-new%d", label, i),
			NodeName: w.nodes[rapid.IntRange(0, len(w.nodes)-1).Draw(t, label+"-on")].Name,
			Priority: rapid.Int32Range(1, 4).Draw(t, label+"-prio"),
			Requests: placement.ResourceList{placement.ResourceCPU: rapid.Int64Range(0, 2).Draw(t, label+"-cpu")},
			Labels:   map[string]string{"app": "a"},
		}
		p.SchedulingGroup = rapid.SampledFrom([]string{"", "g0", "g1", "g2", "g3", "hi"}).Draw(t, label+"-group")
		ch.Bind = append(ch.Bind, p)
	}
	d, err := s.Apply(ch)
	require.NoError(t, err)
	return d
}

// samePlan requires Index.Find's answer to be Find's: the same plan (After
// compared by its pods) or the same error.
func samePlan(t require.TestingT, want preemption.Plan, wantErr error, got preemption.Plan, gotErr error) {
	if wantErr != nil {
		require.EqualError(t, gotErr, wantErr.Error())
		return
	}
	require.NoError(t, gotErr)
	require.Equal(t, want.Outcome, got.Outcome)
	require.Equal(t, want.Victims, got.Victims)
	require.Equal(t, want.Decision, got.Decision)
	require.Equal(t, want.MostFreeable, got.MostFreeable)
	require.Equal(t, want.Candidates, got.Candidates)
	require.Equal(t, want.Solves, got.Solves)
	require.Equal(t, want.Message, got.Message)
	require.Equal(t, podsOf(want.After), podsOf(got.After))
}

func podsOf(s *placement.Snapshot) []placement.Key {
	var out []placement.Key
	for p := range s.Pods() {
		out = append(out, p.Key())
	}
	return out
}

// indexCoverage counts, over one run of TestProp_IndexEqualsFind, the
// comparisons made with the Index warm and their outcomes, so that the
// property is known to reach the cached path with victims and without.
type indexCoverage struct {
	warmPreempt, warmOther, derived int
}

// Index.Find answers as Find does, on the snapshot a world builds, on
// snapshots derived from it with Apply (groups removed, changed, added),
// on a second base built from the same pods, in a drawn order with
// repeats (the Index warm, cold, or warm for another base; its candidates
// from the pods below the preemptor's priority or from every group), and from
// several goroutines at once, and after a search of a cluster of another
// size; and Verify accepts each plan that places
// the group.
func TestProp_IndexEqualsFind(t *testing.T) {
	var cov indexCoverage
	// One run of 100 worlds has about 12 warm searches that find victims,
	// but they come in clumps (a standard deviation of 5 over 30 runs, one
	// run with none), so it misses them about once in 30 to 1,000; run
	// again (at most 20 rounds) until every kind was seen.
	for round := 0; round < 20 && (cov.warmPreempt == 0 || cov.warmOther == 0 || cov.derived == 0); round++ {
		rapid.Check(t, func(t *rapid.T) { checkIndex(t, worldGen.Draw(t, "world"), &cov) })
	}
	require.Positive(t, cov.warmPreempt, "no warm search found victims")
	require.Positive(t, cov.warmOther, "every warm search found victims")
	require.Positive(t, cov.derived, "no derived snapshot searched warm")
}

func checkIndex(t *rapid.T, w world, cov *indexCoverage) {
	x, err := preemption.NewIndex(w.in)
	require.NoError(t, err)
	s := w.snapshot(t)
	snaps := []*placement.Snapshot{s, w.snapshot(t)} // two bases
	for i := range rapid.IntRange(1, 4).Draw(t, "derived") {
		from := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "from")]
		snaps = append(snaps, w.derive(t, from, fmt.Sprintf("d%d", i)))
	}
	opts := w.opts()
	type answer struct {
		plan preemption.Plan
		err  error
	}
	want := make([]answer, len(snaps))
	for i, sn := range snaps {
		want[i].plan, want[i].err = preemption.Find(sn, &w.group, w.in, opts)
	}
	for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(snaps)-1), 1, 8).Draw(t, "order") {
		// The join is read only by the pass over every group, which the
		// cluster's few pods take only when told to.
		below := rapid.SampledFrom([]int{0, -1}).Draw(t, "below")
		warm := x.JoinedGroups() > 0 && below < 0
		got, err := x.FindBelow(snaps[i], &w.group, opts, below)
		samePlan(t, want[i].plan, want[i].err, got, err)
		if err == nil && (got.Outcome == preemption.Preempt || got.Outcome == preemption.Fits) {
			// Find verifies only what Solve did not decide on After itself.
			require.NoError(t, placement.Verify(got.After, &w.group, got.Decision, opts.Filters...))
		}
		if warm && err == nil {
			if got.Outcome == preemption.Preempt {
				cov.warmPreempt++
			} else {
				cov.warmOther++
			}
			if i >= 2 {
				cov.derived++
			}
		}
	}
	// Another cluster (of another size, often: the scratch the Index
	// keeps is per node) with the Index's input, then the first again.
	o := worldGen.Draw(t, "other")
	os := o.snapshot(t)
	wantO, errO := preemption.Find(os, &o.group, w.in, o.opts())
	gotO, err := x.Find(os, &o.group, o.opts())
	samePlan(t, wantO, errO, gotO, err)
	got0, err := x.Find(snaps[0], &w.group, opts)
	samePlan(t, want[0].plan, want[0].err, got0, err)
	var wg sync.WaitGroup
	got := make([]answer, 4*len(snaps))
	for k := range got {
		wg.Go(func() {
			got[k].plan, got[k].err = x.Find(snaps[k%len(snaps)], &w.group, opts)
		})
	}
	wg.Wait()
	for k := range got {
		samePlan(t, want[k%len(snaps)].plan, want[k%len(snaps)].err, got[k].plan, got[k].err)
	}
}

// A bad input is refused by NewIndex with Find's error.
func TestProp_NewIndexBadInput(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := badInputGen.Draw(t, "world")
		_, want := preemption.Find(w.snapshot(t), &w.group, w.in, w.opts())
		require.Error(t, want)
		x, err := preemption.NewIndex(w.in)
		if verr := preemption.ValidateInput(&w.in); verr != nil {
			require.EqualError(t, err, verr.Error())
			require.Nil(t, x)
			return
		}
		require.NoError(t, err)
		_, got := x.Find(w.snapshot(t), &w.group, w.opts())
		require.EqualError(t, got, want.Error())
	})
}

// The Index holds its own copy of the input: a caller that changes its
// map afterwards does not change the Index's answers.
func TestIndexCopiesInput(t *testing.T) {
	nodes := []placement.Node{node("n1", cpu(2000))}
	pods := []placement.Pod{bound("a-0", "n1", "a", low, cpu(1000)), bound("a-1", "n1", "a", low, cpu(1000))}
	s := snapshot(nodes, pods)
	g := gang("hi", 1, 1, high, cpu(1000))
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{key("a"): {DisruptionMode: preemption.DisruptionModePodGroup}}}
	x, err := preemption.NewIndex(in)
	require.NoError(t, err)
	in.PodGroups[key("a")] = preemption.PodGroupSpec{DisruptionMode: preemption.DisruptionModePod}
	plan, err := x.Find(s, g, placement.Options{})
	require.NoError(t, err)
	require.Equal(t, preemption.Preempt, plan.Outcome)
	require.Equal(t, []string{"a-0", "a-1"}, evicted(plan)) // the whole group, as when built
}
