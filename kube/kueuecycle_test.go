package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cycleNodes are hosts r1-h1 (5 CPUs, rack r1) and r2-h1 (4 CPUs, rack
// r2) of flavor tas's pool.
const cycleNodes = `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: r1-h1, labels: {kubernetes.io/hostname: r1-h1, rack: r1, pool: tas}}
status: {allocatable: {cpu: '5', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: r2-h1, labels: {kubernetes.io/hostname: r2-h1, rack: r2, pool: tas}}
status: {allocatable: {cpu: '4', pods: '110'}}
`

// twoHosts are hosts h1 and h2 (4 CPUs each, rack r1) of flavor tas's
// pool.
const twoHosts = `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: t}
spec: {levels: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}
---
apiVersion: v1
kind: Node
metadata: {name: h1, labels: {kubernetes.io/hostname: h1, rack: r1, pool: tas}}
status: {allocatable: {cpu: '4', pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: h2, labels: {kubernetes.io/hostname: h2, rack: r1, pool: tas}}
status: {allocatable: {cpu: '4', pods: '110'}}
`

// admittedOnH1 is Workload name of 4 one-CPU pods on one host, of
// priority 5, created before the others, admitted in ClusterQueue cq with
// all 4 pods on host h1.
func admittedOnH1(name, lq, cq string) string {
	return fmt.Sprintf(`---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: %s, creationTimestamp: '2026-01-01T08:00:00Z'}
spec:
  queueName: %s
  priority: 5
  podSets: [%s]
status:
  admission:
    clusterQueue: %s
    podSetAssignments:
    - name: main
      count: 4
      flavors: {cpu: tas}
      resourceUsage: {cpu: "4"}
      topologyAssignment:
        levels: [kubernetes.io/hostname]
        slices: [{domainCount: 1, valuesPerLevel: [{individual: {roots: [h1]}}], podCounts: {individual: [4]}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T09:00:00Z"}
`, name, lq, partialSet("main", 4, 0, "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname", ""), cq)
}

// hostWL is a pending Workload of count one-CPU pods on one host, in
// LocalQueue lq, created at second at, its pods selecting nodeSelector
// (flow style, "" for none).
func hostWL(name, lq string, at int, count int32, nodeSelector string) string {
	set := partialSet("main", count, 0, "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname", "")
	if nodeSelector != "" {
		set = strings.Replace(set, "spec: {containers:", "spec: {nodeSelector: {"+nodeSelector+"}, containers:", 1)
	}
	return strings.Replace(partialWL(name, at, "["+set+"]"), "queueName: lq", "queueName: "+lq, 1)
}

// Kueue's scheduling cycles (one head per ClusterQueue, planned on the
// cycle's starting state, not borrowing before borrowing): outcomes in
// queue order, worked by hand in each comment; admitting in queue order,
// each Workload seeing those before it, would answer otherwise.
func TestAdmitKueueWorkloads_Cycles(t *testing.T) {
	type want struct {
		action KueueAction
		msg    string
		hosts  string // host×pods of each admitted pod set
	}
	const short = "couldn't assign flavors to pod set main: insufficient "
	for _, c := range []struct {
		name   string
		nodes  string
		queues []string
		wls    []string
		want   []want
	}{
		// a 4 + b 8 in cohort c. Cycle 1 heads: w1 (a, borrows 2) and
		// w2 (b, within nominal): w2 goes first though younger; w1 then
		// finds 12 − 8 = 4 and is skipped; cycle 2 it waits. In queue
		// order w1 would take 6 and w2 wait.
		{"a borrowing head goes after one within nominal quota", partialNodes,
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 8")},
			[]string{cohortWL("w1", "la", 0, 6), cohortWL("w2", "lb", 1, 8)},
			[]want{{KueuePending, short + "unused quota for cpu in flavor tas, 2 more needed", ""}, {KueueAdmitted, "", "r1-h1×4 r1-h2×4"}}},
		// a 4 + b 2 in cohort c (6). Cycle 1 heads: w1 (a's, within) and
		// w2 (b's, rack r2 only, borrows 2); w3 is not a head: w1, then w2
		// (4 of the 4 left) are admitted; cycle 2 w3 finds nothing left.
		// Admitting a's Workloads within nominal quota first would admit
		// w1 and w3 and leave w2 short.
		{"one head per ClusterQueue a cycle", partialNodes,
			[]string{cqDoc("a", "c", "nominalQuota: 4"), cqDoc("b", "c", "nominalQuota: 2")},
			[]string{cohortWL("w1", "la", 0, 2), hostWL("w2", "lb", 1, 4, "rack: r2"), cohortWL("w3", "la", 2, 2)},
			[]want{{KueueAdmitted, "", "r1-h1×2"}, {KueueAdmitted, "borrows from cohort c: cpu 2 in flavor tas", "r2-h1×4"}, {KueuePending, short + "unused quota for cpu in flavor tas, 2 more needed", ""}}},
		// a and b in cohorts of their own. w1 (3 pods, rack r1 only) takes
		// r1-h1, leaving 2. w2 (2 pods) is planned in the same cycle on the
		// starting state, where the tightest host is r2-h1 (4 < 5), and
		// still fits there; in queue order it would see w1 and take r1-h1
		// (2 left).
		{"heads are planned on the cycle's starting state", cycleNodes,
			[]string{cqDoc("a", "ca", "nominalQuota: 9"), cqDoc("b", "cb", "nominalQuota: 9")},
			[]string{hostWL("w1", "la", 0, 3, "rack: r1"), hostWL("w2", "lb", 1, 2, "")},
			[]want{{KueueAdmitted, "", "r1-h1×3"}, {KueueAdmitted, "", "r2-h1×2"}}},
		// w1 (3 pods, rack r2 only) takes r2-h1, leaving 1. w2 (4 pods),
		// planned on the cycle's starting state on r2-h1 (4 < 5), no
		// longer fits there after w1: it is skipped, stays b's head and is
		// planned again in the next cycle, on r1-h1.
		{"a head whose nodes filled in the cycle waits for the next", cycleNodes,
			[]string{cqDoc("a", "ca", "nominalQuota: 9"), cqDoc("b", "cb", "nominalQuota: 9")},
			[]string{hostWL("w1", "la", 0, 3, "rack: r2"), hostWL("w2", "lb", 1, 4, "")},
			[]want{{KueueAdmitted, "", "r2-h1×3"}, {KueueAdmitted, "", "r1-h1×4"}}},
		// Cohort org 12: a (12, reclaims from lower priorities), b and
		// d (0 each). vb (b, priority 5) borrows h1. Cycle 1 heads: pre
		// (a, priority 10, h1 only) and x (d, borrows 4). pre goes first
		// (within nominal quota), reclaims vb and keeps its room; Kueue
		// goes on with the cycle: x still fits on h2 (4 + 4 of 12) and is
		// admitted. Cycle 2: pre takes h1; vb, queued again, finds no
		// host. Ending the cycle at the preemption would admit vb on h2
		// in cycle 2, before x.
		{"a preemptor does not end its cycle", twoHosts,
			[]string{strings.Replace(cqDoc("a", "org", "nominalQuota: 12"), "spec: {", "spec: {preemption: {reclaimWithinCohort: LowerPriority}, ", 1),
				cqDoc("b", "org", "nominalQuota: 0"), cqDoc("d", "org", "nominalQuota: 0"),
				"kind: LocalQueue\nmetadata: {name: ld}\nspec: {clusterQueue: d}"},
			[]string{admittedOnH1("vb", "lb", "b"),
				strings.Replace(hostWL("pre", "la", 0, 4, "kubernetes.io/hostname: h1"), "queueName: la", "queueName: la\n  priority: 10", 1),
				hostWL("x", "ld", 1, 4, "")},
			[]want{
				{KueueAdmitted, "preempted default/vb (InCohortReclamation)", "h1×4"},
				{KueuePreempted, `preempted by default/pre (InCohortReclamation); queued again: in flavor tas: pod set "main" needs 4 pods in one kubernetes.io/hostname domain; the best, r1/h1, holds 0`, ""},
				{KueueAdmitted, "borrows from cohort org: cpu 4 in flavor tas", "h2×4"}}},
		// Cohort org 8: a and c (4 each, reclaim from lower priorities),
		// b and d (0). vb (b, priority 5) borrows h1. Cycle 1 heads, all
		// nominated on the starting state: p1 (a, priority 10, h1 only)
		// and p2 (c, priority 9, h1 only), both to preempt vb, and x (d,
		// borrows 4). p1 preempts vb and keeps its room; p2's victim
		// overlaps, so it is skipped, untried (Kueue's "overlapping
		// preemption targets"); x fits on h2 (4 + 4 of 8) and is
		// admitted. Cycle 2: p1 takes h1 and the cohort's 8 are used: p2
		// and vb wait for quota (p2 may reclaim x's 4, but x's host is
		// not h1). Ending cycle 1 at p1's preemption would let vb
		// (priority 5, before x) take h2 in cycle 2.
		{"two heads nominate one victim: the first preempts, the cycle goes on", twoHosts,
			[]string{strings.Replace(cqDoc("a", "org", "nominalQuota: 4"), "spec: {", "spec: {preemption: {reclaimWithinCohort: LowerPriority}, ", 1),
				strings.Replace(cqDoc("c", "org", "nominalQuota: 4"), "spec: {", "spec: {preemption: {reclaimWithinCohort: LowerPriority}, ", 1),
				cqDoc("b", "org", "nominalQuota: 0"), cqDoc("d", "org", "nominalQuota: 0"),
				"kind: LocalQueue\nmetadata: {name: lc}\nspec: {clusterQueue: c}",
				"kind: LocalQueue\nmetadata: {name: ld}\nspec: {clusterQueue: d}"},
			[]string{admittedOnH1("vb", "lb", "b"),
				strings.Replace(hostWL("p1", "la", 0, 4, "kubernetes.io/hostname: h1"), "queueName: la", "queueName: la\n  priority: 10", 1),
				strings.Replace(hostWL("p2", "lc", 1, 4, "kubernetes.io/hostname: h1"), "queueName: lc", "queueName: lc\n  priority: 9", 1),
				hostWL("x", "ld", 2, 4, "")},
			[]want{
				{KueueAdmitted, "preempted default/vb (InCohortReclamation)", "h1×4"},
				{KueuePending, short + "unused quota for cpu in flavor tas, 4 more needed", ""},
				{KueuePreempted, "preempted by default/p1 (InCohortReclamation); queued again: " + short + "unused quota for cpu in flavor tas, 4 more needed", ""},
				{KueueAdmitted, "borrows from cohort org: cpu 4 in flavor tas", "h2×4"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outs, _ := admitAll(t, c.nodes+cohortQueues(c.queues...)+strings.Join(c.wls, ""))
			var got []want
			for _, o := range outs {
				var hosts []string
				for _, ps := range o.PodSets {
					for _, a := range ps {
						hosts = append(hosts, fmt.Sprintf("%s×%d", a.Node, a.Count))
					}
				}
				got = append(got, want{o.Action, o.Message, strings.Join(hosts, " ")})
			}
			require.Equal(t, c.want, got)
		})
	}
}
