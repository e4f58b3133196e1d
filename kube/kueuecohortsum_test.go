package kube

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// walkedUsage is a cohort's usage summed over its subtree at the read,
// as [quotaTree.usageOf] summed it before the sums were kept: the oracle
// of [cohortSums].
func walkedUsage(t quotaTree, n quotaNode, fr flavorResource) int64 {
	if n.cq != nil {
		return t.used[n.cq.Name][fr]
	}
	var v int64
	for _, c := range t.children(n.cohort) {
		v = sum(v, max(0, walkedUsage(t, c, fr)-t.localOf(c, fr)))
	}
	return v
}

// The cohort sums the admitter keeps equal the usage summed over each
// cohort's subtree, after every change to the usage: additions and
// removals by addUsage, candidates taken out by usedWithout and put back,
// with lendingLimits at every level, quantities that saturate, and
// cohorts in cycles of spec.parentName (whose usage reads 0).
func TestProp_CohortSums(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var in kueueQueueInputs
		nCohorts := rapid.IntRange(1, 4).Draw(rt, "cohorts")
		cpus := func(label string, hi int) string { return strconv.Itoa(rapid.IntRange(0, hi).Draw(rt, label)) }
		for i := range nCohorts {
			parent := ""
			// Mostly a tree; now and then a parent not above it, which
			// may close a cycle.
			if p := rapid.IntRange(-1, nCohorts-1).Draw(rt, "parent"); p >= 0 && (p < i || rapid.IntRange(0, 4).Draw(rt, "cycle") == 0) {
				parent = fmt.Sprintf("c%d", p)
			}
			lend := ""
			if parent != "" && rapid.Bool().Draw(rt, "cohort lends") {
				lend = cpus("cohort lendingLimit", 4)
			}
			require.NoError(rt, in.add(cohortObj(fmt.Sprintf("c%d", i), parent, cpus("cohort nominal", 4), "", lend)))
		}
		nCQs := rapid.IntRange(1, 5).Draw(rt, "cqs")
		var cqs []string
		for i := range nCQs {
			cohort := ""
			if c := rapid.IntRange(-1, nCohorts-1).Draw(rt, "cohort"); c >= 0 {
				cohort = fmt.Sprintf("c%d", c)
			}
			nominal := rapid.IntRange(0, 8).Draw(rt, "nominal")
			lend := ""
			if cohort != "" && rapid.Bool().Draw(rt, "lends") {
				lend = strconv.Itoa(rapid.IntRange(0, nominal).Draw(rt, "lendingLimit"))
			}
			name := fmt.Sprintf("q%d", i)
			cqs = append(cqs, name)
			require.NoError(rt, in.add(cohortCQ(name, cohort, strconv.Itoa(nominal), "", lend)))
		}
		_, q := in.result()
		q = q.indexed()
		a := &admitter{opts: KueueOptions{Queues: q}}
		a.countUsage(nil)
		frs := []flavorResource{frOf("f", "cpu"), frOf("g", "cpu")}
		amount := rapid.OneOf(rapid.Int64Range(0, 10_000), rapid.Just(int64(math.MaxInt64)), rapid.Int64Range(math.MaxInt64/2, math.MaxInt64))
		usage := func() map[flavorResource]int64 {
			return map[flavorResource]int64{rapid.SampledFrom(frs).Draw(rt, "fr"): amount.Draw(rt, "amount")}
		}
		check := func(step string) {
			tree := a.quota()
			for name := range q.Cohorts {
				n := quotaNode{cohort: name}
				for _, fr := range frs {
					want := int64(0)
					if !tree.inCycle(n) {
						want = walkedUsage(tree, n, fr)
					}
					require.Equal(rt, want, tree.usage(n, fr), "%s: cohort %s, %v", step, name, fr)
				}
			}
		}
		for i := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			cq := rapid.SampledFrom(cqs).Draw(rt, "cq")
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0:
				a.addUsage(cq, usage(), 1)
			case 1:
				a.addUsage(cq, usage(), -1)
			default:
				var removed []*preemptCand
				for range rapid.IntRange(1, 4).Draw(rt, "candidates") {
					removed = append(removed, &preemptCand{cq: q.ClusterQueues[rapid.SampledFrom(cqs).Draw(rt, "of")], usage: usage()})
				}
				before := quotaUsage{}
				for name, u := range a.used {
					before[name] = maps.Clone(u)
				}
				// The copy a cycle's nominations keep for candidates seen
				// twice is the usage and sums usedWithout makes in place.
				for k, c := range removed {
					c.i = k
				}
				a.nominating = &nominationCache{collected: map[string][]*KueueClusterQueue{}}
				_, kept := a.goneTree(removed)
				require.False(rt, kept, "candidates seen once")
				gone, kept := a.goneTree(removed)
				require.True(rt, kept, "candidates seen twice")
				a.nominating = nil
				_, undo := a.usedWithout(removed)
				check(fmt.Sprintf("step %d, candidates out", i))
				require.Equal(rt, a.used, gone.used, "step %d: the nominations' copy", i)
				for name := range q.Cohorts {
					for _, fr := range frs {
						n := quotaNode{cohort: name}
						require.Equal(rt, a.quota().usage(n, fr), gone.usage(n, fr), "step %d: the nominations' copy, cohort %s, %v", i, name, fr)
					}
				}
				undo()
				require.Equal(rt, before, a.used)
			}
			check(fmt.Sprintf("step %d", i))
		}
	})
}
