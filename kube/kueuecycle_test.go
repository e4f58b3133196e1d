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
