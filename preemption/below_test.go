package preemption_test

import (
	"fmt"
	"maps"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// belowCoverage counts what TestProp_BelowIsTheScan compared, so that the
// property is known to see each kind of answer from the pods below.
type belowCoverage struct {
	preempt, none, cannot, fellBack int
}

// The candidates read from the pods below the preemptor's priority (and
// the groups whose spec.priority is below it) give exactly the plan of the
// pass over every bound group: for Find and Index.Find, on a world's
// snapshot and snapshots derived from it with Apply, with the preemptor at
// any priority (below every pod, among them, above all) or overridden by
// its PodGroup, and with collectBelow's limit drawn so that it also gives
// way to the pass part way.
func TestProp_BelowIsTheScan(t *testing.T) {
	var cov belowCoverage
	rapid.Check(t, func(t *rapid.T) {
		w := worldGen.Draw(t, "world")
		w.in.PodGroups = maps.Clone(w.in.PodGroups)
		if rapid.IntRange(0, 3).Draw(t, "override") == 0 {
			w.in.PodGroups[w.group.Key()] = preemption.PodGroupSpec{Priority: ptr(rapid.Int32Range(0, 5).Draw(t, "hi-prio"))}
		}
		x, err := preemption.NewIndex(w.in)
		require.NoError(t, err)
		snaps := []*placement.Snapshot{w.snapshot(t)}
		for i := range rapid.IntRange(0, 2).Draw(t, "derived") {
			snaps = append(snaps, w.derive(t, snaps[len(snaps)-1], fmt.Sprintf("d%d", i)))
		}
		opts := w.opts()
		// Every preemptor priority: below every pod (1 to 4), among
		// them, above all.
		for prio := int32(0); prio <= 5; prio++ {
			for i := range w.group.Members {
				w.group.Members[i].Priority = prio
			}
			for _, s := range snaps {
				want, wantErr := preemption.FindBelow(s, &w.group, w.in, opts, -1)
				limit := rapid.SampledFrom([]int{0, 0, 1, 2, 4}).Draw(t, "limit")
				got, err := preemption.FindBelow(s, &w.group, w.in, opts, limit)
				samePlan(t, want, wantErr, got, err)
				got, err = x.FindBelow(s, &w.group, opts, limit)
				samePlan(t, want, wantErr, got, err)
				if err != nil {
					continue
				}
				switch {
				case limit > 0 && got.Candidates > limit:
					cov.fellBack++
				case got.Outcome == preemption.Preempt:
					cov.preempt++
				case got.Outcome == preemption.CannotHelp && got.Candidates == 0:
					cov.none++
				case got.Outcome == preemption.CannotHelp:
					cov.cannot++
				}
			}
		}
	})
	require.Positive(t, cov.preempt, "no search from the pods below preempted")
	require.Positive(t, cov.none, "no search found no candidate")
	require.Positive(t, cov.cannot, "no search found candidates that cannot help")
	require.Positive(t, cov.fellBack, "no search gave way to the pass over every group")
}

// TestBelow_ExactVictims: only pods and groups below the preemptor count,
// whichever way they are read. On n1 run a high pod, a low pod of no group
// and a whole group with one low and one high member (whole, so as high as
// its highest: no candidate); on n2 a high pod of a group whose
// spec.priority is low (a candidate) and a low pod of a group whose
// spec.priority is high (none). A gang of two 1-CPU members at mid
// priority evicts the low pod and the overridden group's pod, one on each
// node, and counts two candidates.
func TestBelow_ExactVictims(t *testing.T) {
	nodes := []placement.Node{node("n1", cpu(4000)), node("n2", cpu(2000))}
	pods := []placement.Pod{
		bound("a-0", "n1", "a", high, cpu(1000)),
		bound("u", "n1", "", low, cpu(1000)),
		bound("m-0", "n1", "mixed", low, cpu(1000)),
		bound("m-1", "n1", "mixed", high, cpu(1000)),
		bound("o-0", "n2", "over", high, cpu(1000)),
		bound("k-0", "n2", "kept", low, cpu(1000)),
	}
	in := preemption.Input{PodGroups: map[placement.Key]preemption.PodGroupSpec{
		key("mixed"): {DisruptionMode: preemption.DisruptionModePodGroup},
		key("over"):  {Priority: ptr(low)},
		key("kept"):  {Priority: ptr(high)},
	}}
	g := gang("pre", 2, 2, mid, cpu(1000))
	x, err := preemption.NewIndex(in)
	require.NoError(t, err)
	base := snapshot(nodes, nil)
	derived, err := base.Apply(placement.Change{Bind: pods})
	require.NoError(t, err)
	for _, s := range []*placement.Snapshot{snapshot(nodes, pods), derived} {
		for _, below := range []int{0, 1, -1} {
			for name, find := range map[string]func() (preemption.Plan, error){
				"Find":  func() (preemption.Plan, error) { return preemption.FindBelow(s, g, in, placement.Options{}, below) },
				"Index": func() (preemption.Plan, error) { return x.FindBelow(s, g, placement.Options{}, below) },
			} {
				plan, err := find()
				require.NoError(t, err)
				require.Equal(t, preemption.Preempt, plan.Outcome, "%s, limit %d", name, below)
				require.Equal(t, []string{"o-0", "u"}, evicted(plan), "%s, limit %d", name, below)
				require.Equal(t, 2, plan.Candidates, "%s, limit %d", name, below)
			}
		}
	}
}

// TestBelow_NoneBelowAmongMany: a preemptor at the lowest priority among
// many bound groups finds no candidate, and one above a few finds just
// those few, as the pass over every group does.
func TestBelow_NoneBelowAmongMany(t *testing.T) {
	nodes := []placement.Node{node("n1", cpu(102_000))} // full
	var pods []placement.Pod
	for i := range 100 {
		pods = append(pods, bound(fmt.Sprintf("h%03d-0", i), "n1", fmt.Sprintf("h%03d", i), mid, cpu(1000)))
	}
	pods = append(pods, bound("l0-0", "n1", "l0", low, cpu(1000)), bound("l1-0", "n1", "", low, cpu(1000)))
	s := snapshot(nodes, pods)
	for _, tc := range []struct {
		prio       int32
		outcome    preemption.Outcome
		candidates int
		victims    []string
	}{
		{low, preemption.CannotHelp, 0, nil},
		{mid, preemption.Preempt, 2, []string{"l0-0", "l1-0"}},
	} {
		g := gang("pre", 2, 2, tc.prio, cpu(1000))
		for _, below := range []int{0, -1} {
			plan, err := preemption.FindBelow(s, g, preemption.Input{}, placement.Options{}, below)
			require.NoError(t, err)
			require.Equal(t, tc.outcome, plan.Outcome, "priority %d, limit %d", tc.prio, below)
			require.Equal(t, tc.candidates, plan.Candidates, "priority %d, limit %d", tc.prio, below)
			require.Equal(t, tc.victims, evicted(plan), "priority %d, limit %d", tc.prio, below)
		}
	}
}
