package kube

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
)

// Dominant resource shares worked by hand from Kueue's rules: 1000 × what
// a node uses beyond its subtree quota ÷ what its parent could lend with
// nothing in use (its potential, summed over flavors), ÷ weight; a root's
// share is 0.
func TestQuotaTree_Share(t *testing.T) {
	var in kueueQueueInputs
	half := 0.5
	// org (root, 4 own) over team (2 own, borrowingLimit 1 towards org) and
	// ClusterQueue c (2); team over a (2) and b (2, weight 0.5).
	for _, o := range []any{
		cohortObj("org", "", "4", "", ""), cohortObj("team", "org", "2", "1", ""),
		cohortCQ("a", "team", "2", "", ""), cohortCQ("b", "team", "2", "", ""), cohortCQ("c", "org", "2", "", ""),
	} {
		require.NoError(t, in.add(o))
	}
	in.q.ClusterQueues["b"].FairWeight = &half
	fr := frOf("f", "cpu")
	for _, c := range []struct {
		name string
		used map[string]int64
		node quotaNode
		want fairShare
	}{
		{"within nominal", map[string]int64{"a": 2}, quotaNode{cq: in.q.ClusterQueues["a"]}, fairShare{weight: 1}},
		// a borrows 3 from team, which could lend it 2 + 2 + its 1 from
		// org = 5 (team's borrowingLimit caps its potential at 6 + 1 = 7;
		// team's potential is min(0 + 12, 7) = 7): 3000/7.
		{"a ClusterQueue borrowing", map[string]int64{"a": 5}, quotaNode{cq: in.q.ClusterQueues["a"]},
			fairShare{weight: 1, ratio: 3000.0 / 7, borrowed: []flavorResource{fr}}},
		{"weight halves", map[string]int64{"b": 5}, quotaNode{cq: in.q.ClusterQueues["b"]},
			fairShare{weight: 0.5, ratio: 3000.0 / 7, borrowed: []flavorResource{fr}}},
		// team's subtree is 6; a 5 + b 3 = 8 in use: 2 beyond, of org's 12.
		{"a cohort borrowing", map[string]int64{"a": 5, "b": 3}, quotaNode{cohort: "team"},
			fairShare{weight: 1, ratio: 2000.0 / 12, borrowed: []flavorResource{fr}}},
		{"a root never borrows", map[string]int64{"a": 5, "b": 3, "c": 9}, quotaNode{cohort: "org"}, fairShare{weight: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			used := quotaUsage{}
			for cq, v := range c.used {
				used[cq] = map[flavorResource]int64{fr: v * 1000} // CPUs in millicores
			}
			got := in.q.indexed().tree(used).share(c.node)
			require.Equal(t, c.want, got)
			require.InDelta(t, c.want.ratio/c.want.weight, got.weighted(), 1e-9)
		})
	}
}

// compareShares: lower first; weight 0 while borrowing after every other,
// among themselves by the unweighted share.
func TestCompareShares(t *testing.T) {
	zero := fairShare{weight: 1}
	low := fairShare{weight: 1, ratio: 100}
	high := fairShare{weight: 2, ratio: 400} // 200
	zw := fairShare{weight: 0, ratio: 50}
	zwHigh := fairShare{weight: 0, ratio: 60}
	for _, c := range []struct {
		a, b fairShare
		want int
	}{
		{zero, low, -1}, {low, high, -1}, {high, low, 1}, {low, low, 0},
		{zw, high, 1}, {high, zw, -1}, {zw, zwHigh, -1}, {fairShare{weight: 0}, zero, 0},
	} {
		require.Equal(t, c.want, compareShares(c.a, c.b), "%+v vs %+v", c.a, c.b)
	}
	require.True(t, math.IsInf(zw.weighted(), 1))
}

// fairLess at one cohort: a candidate whose node borrows none of what it
// asks for goes first, even with the higher share (Kueue's
// FairSharingPrioritizeNonBorrowing, on in v0.17); then shares; then
// priority, creation, name.
func TestFairLess(t *testing.T) {
	f1 := frOf("f1", "cpu")
	f2 := frOf("f2", "cpu")
	wl := func(name string, priority int32, at int) *KueueWorkload {
		return &KueueWorkload{Group: &placement.Group{Namespace: "default", Name: name}, Priority: priority,
			Created: time.Date(2026, 1, 1, 10, 0, at, 0, time.UTC)}
	}
	a := &admitter{queue: []*KueueWorkload{wl("x", 0, 0), wl("y", 0, 1), wl("z", 5, 2)}}
	cand := func(i int, s fairShare, u map[flavorResource]int64) fairCandidate {
		return fairCandidate{i: i, usage: u, shares: map[string]fairShare{"c": s}}
	}
	// x's node borrows f1 heavily but x asks for f2 only.
	x := cand(0, fairShare{weight: 1, ratio: 900, borrowed: []flavorResource{f1}}, map[flavorResource]int64{f2: 1})
	y := cand(1, fairShare{weight: 1, ratio: 100, borrowed: []flavorResource{f1}}, map[flavorResource]int64{f1: 1})
	require.True(t, a.fairLess(x, y, "c"))
	require.False(t, a.fairLess(y, x, "c"))
	// Equal shares: z's priority 5 first; x before y by creation.
	z := cand(2, fairShare{weight: 1, ratio: 900, borrowed: []flavorResource{f1}}, map[flavorResource]int64{f2: 1})
	require.True(t, a.fairLess(z, x, "c"))
	y2 := cand(1, x.shares["c"], x.usage)
	require.True(t, a.fairLess(x, y2, "c"))
	require.False(t, a.fairLess(y2, x, "c"))
}

// fairCohort is a Cohort document of name under parent ("" for a root)
// with quota of tas cpu (flow style), none when "".
func fairCohort(name, parent, quota string) string {
	spec := "{}"
	if parent != "" || quota != "" {
		var fields []string
		if parent != "" {
			fields = append(fields, "parentName: "+parent)
		}
		if quota != "" {
			fields = append(fields, "resourceGroups: [{coveredResources: [cpu], flavors: [{name: tas, resources: [{name: cpu, "+quota+"}]}]}]")
		}
		spec = "{" + strings.Join(fields, ", ") + "}"
	}
	return fmt.Sprintf("kind: Cohort\nmetadata: {name: %s}\nspec: %s", name, spec)
}

// fairOn is a Kueue Configuration turning fair sharing on.
const fairOn = "---\napiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]}\n"

// fairAdmitted is Workload name of count one-CPU pods admitted in
// ClusterQueue cq (LocalQueue lq) on host, created before the others.
func fairAdmitted(name, lq, cq, host string, count int) string {
	return fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: %s, creationTimestamp: '2026-01-01T08:00:00Z'}
spec:
  queueName: %s
  podSets: [%s]
status:
  admission:
    clusterQueue: %s
    podSetAssignments:
    - name: main
      count: %d
      flavors: {cpu: tas}
      resourceUsage: {cpu: "%d"}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        slices: [{domainCount: 1, valuesPerLevel: [{individual: {roots: [%s]}}], podCounts: {individual: [%d]}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
`, name, lq, partialSet("main", int32(count), 0, "kueue.x-k8s.io/podset-unconstrained-topology: 'true'", ""), cq, count, count, host, count)
}

// Fair sharing's order of a cycle's heads over partialNodes (12 one-CPU
// slots), worked by hand in each comment; with fair sharing off (the
// same input without the Configuration) Kueue's classical order admits
// the other head of each pair. Outcomes are in queue order.
func TestAdmitKueueWorkloads_FairSharing(t *testing.T) {
	const short = "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor tas, "
	lc := "kind: LocalQueue\nmetadata: {name: lc}\nspec: {clusterQueue: c}"
	for _, c := range []struct {
		name              string
		queues            []string
		wls               []string
		fair, classical   []KueueAction
		fairMsg, classMsg []string
	}{
		// Cohort c (4 own) over a, b (2 each): 8. va holds 4 of a. w1
		// (3, priority 10) would make a borrow 5 (share 5000/8), w2 (4) b
		// borrow 2 (2000/8): w2 first, then w1 finds 0 left. Classical:
		// both borrow from c, so priority: w1, then w2 finds 1.
		{"the lower share goes first", []string{fairCohort("c", "", "nominalQuota: 4"), cqDoc("a", "c", "nominalQuota: 2"), cqDoc("b", "c", "nominalQuota: 2")},
			[]string{fairAdmitted("va", "la", "a", "r1-h1", 4), strings.Replace(cohortWL("w1", "la", 0, 3), "queueName: la", "queueName: la\n  priority: 10", 1), cohortWL("w2", "lb", 1, 4)},
			[]KueueAction{KueuePending, KueueKept, KueueAdmitted}, []KueueAction{KueueAdmitted, KueueKept, KueuePending},
			[]string{short + "3 more needed", "", "borrows from cohort c: cpu 2 in flavor tas"},
			[]string{"borrows from cohort c: cpu 3 in flavor tas", "", short + "3 more needed"}},
		// As above, b of weight 0.25: w2's share is 2000/8 ÷ 0.25 =
		// 1000 > 625: w1 first (and first classically too, by priority;
		// here w2 is the older, so classically w2 goes first).
		{"a weight divides the share", []string{fairCohort("c", "", "nominalQuota: 4"), cqDoc("a", "c", "nominalQuota: 2"),
			strings.Replace(cqDoc("b", "c", "nominalQuota: 2"), "spec: {", "spec: {fairSharing: {weight: 250m}, ", 1)},
			[]string{fairAdmitted("va", "la", "a", "r1-h1", 4), cohortWL("w1", "la", 1, 3), cohortWL("w2", "lb", 0, 4)},
			[]KueueAction{KueueKept, KueuePending, KueueAdmitted}, []KueueAction{KueueKept, KueueAdmitted, KueuePending},
			[]string{"", short + "3 more needed", "borrows from cohort c: cpu 3 in flavor tas"},
			[]string{"", "borrows from cohort c: cpu 2 in flavor tas", short + "3 more needed"}},
		// top (2 own) over left (l1, l2: 1 each) and right (r1: 1): 5.
		// Heads w1 (l1, 2), w2 (l2, 2), w3 (r1, 2), in that creation
		// order. First pick: at left w1 (tie with w2, older); at top left
		// would use 2 of its 2 (borrows nothing) against right borrowing
		// 1: w1. Second pick, on the usage now: left with w2 would borrow
		// 2, right with w3 1: w3, then w2 finds 1 left. Classically (and
		// in an order fixed at the cycle's start) w2 borrows only from
		// left, w3 from top: w2 goes before w3.
		{"each pick sees the heads admitted before it", []string{fairCohort("top", "", "nominalQuota: 2"), fairCohort("left", "top", ""), fairCohort("right", "top", ""),
			cqDoc("a", "left", "nominalQuota: 1"), cqDoc("b", "left", "nominalQuota: 1"), cqDoc("c", "right", "nominalQuota: 1"), lc},
			[]string{cohortWL("w1", "la", 0, 2), cohortWL("w2", "lb", 1, 2), cohortWL("w3", "lc", 2, 2)},
			[]KueueAction{KueueAdmitted, KueuePending, KueueAdmitted}, []KueueAction{KueueAdmitted, KueueAdmitted, KueuePending},
			[]string{"borrows from cohort left: cpu 1 in flavor tas", short + "1 more needed", "borrows from cohort right: cpu 1 in flavor tas"},
			[]string{"borrows from cohort left: cpu 1 in flavor tas", "borrows from cohort left: cpu 1 in flavor tas", short + "1 more needed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, fair := range []bool{true, false} {
				y := partialNodes + cohortQueues(c.queues...) + strings.Join(c.wls, "")
				want, msgs := c.classical, c.classMsg
				if fair {
					y, want, msgs = y+fairOn, c.fair, c.fairMsg
				}
				outs, _ := admitAll(t, y)
				var got []KueueAction
				var gotMsg []string
				for _, o := range outs {
					got, gotMsg = append(got, o.Action), append(gotMsg, o.Message)
				}
				require.Equal(t, want, got, "fair sharing %v", fair)
				require.Equal(t, msgs, gotMsg, "fair sharing %v", fair)
			}
		})
	}
}
