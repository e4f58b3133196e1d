package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// reclaimStatus is a status listing reclaimable pods ("main: 2").
func reclaimStatus(sets ...string) string {
	var rs []string
	for _, s := range sets {
		name, n, _ := strings.Cut(s, ": ")
		rs = append(rs, fmt.Sprintf("{name: %s, count: %s}", name, n))
	}
	return "status:\n  reclaimablePods: [" + strings.Join(rs, ", ") + "]\n"
}

// A pending Workload asks for its counts less its reclaimable pods, in
// quota and in the pods placed, as Kueue's totalRequestsFromPodSets
// counts them, and is admitted at that count. Over three hosts of 4 CPUs
// (racks r1 of two, r2 of one), ClusterQueue a of the quota given, b's
// held on r1-h1 when given.
func TestAdmitKueueWorkloads_PendingReclaimablePods(t *testing.T) {
	const twoSets = "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: p, creationTimestamp: '2026-01-01T10:00:09Z'}\nspec:\n  queueName: la\n  podSets: [" +
		"{name: launcher, count: 1, template: {metadata: {annotations: {kueue.x-k8s.io/podset-unconstrained-topology: 'true'}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}, " +
		"{name: workers, count: 4, template: {metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}, spec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}]\n"
	partialP := strings.Replace(preemptWL("p", "la", 0, 9, 8, "", "", 0), "{name: main, count: 8, ", "{name: main, count: 8, minCount: 2, ", 1)
	for _, c := range []struct {
		name        string
		quota       int
		held, p, st string
		action      KueueAction
		msg         string
		pods        [][]string // per set, "host:n"
		usage       string     // status.admission's counts and resourceUsage, per set
	}{
		{"quota: 6 pods, 2 reclaimable, in 4 CPUs", 4, "", preemptWL("p", "la", 0, 9, 6, "", "", 0), reclaimStatus("main: 2"),
			KueueAdmitted, "", [][]string{{"r1-h1:4"}}, "main 4 cpu=4"},
		{"quota: 6 pods, 1 reclaimable, in 4 CPUs", 4, "", preemptWL("p", "la", 0, 9, 6, "", "", 0), reclaimStatus("main: 1"),
			KueuePending, "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor tas, earlier pod sets' requests (0) + this pod set's request (5) > nominal quota (4)", nil, ""},
		// r1-h1 is held: a rack holds 4 free CPUs at most.
		{"topology: 6 pods in a rack, 2 reclaimable", 12, preemptWL("b1", "lb", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("p", "la", 0, 9, 6, "rack", "", 0), reclaimStatus("main: 2"),
			KueueAdmitted, "", [][]string{{"r1-h2:4"}}, "main 4 cpu=4"},
		{"topology: 6 pods in a rack, none reclaimable", 12, preemptWL("b1", "lb", 0, 0, 4, "", "r1-h1:4", 0), preemptWL("p", "la", 0, 9, 6, "rack", "", 0), "",
			KueuePending, `pod set "main" needs 6 pods in one rack domain; the best, r1, holds 4`, nil, ""},
		// A set whose pods are all reclaimable asks for none: it is a set
		// of count 0, whose topologyAssignment Kueue writes without
		// slices, which its Workload API refuses: the Workload holds the
		// workers' quota (their rack too, while admission runs) and is
		// never written.
		{"a set all reclaimable", 4, "", twoSets, reclaimStatus("launcher: 1"),
			KueuePending, `pod set "launcher" of no pods places no slice: Kueue assumes it (cpu 4 in flavor tas)`, nil, ""},
		// Partial admission searches from the reduced count: 6 less
		// Kueue's binary search's steps.
		{"partial admission from the reduced count", 4, "", partialP, reclaimStatus("main: 2"),
			KueueAdmitted, `partially admitted: pod set "main" with 4 of 6 pods (minCount 2)`, [][]string{{"r1-h1:4"}}, "main 4 cpu=4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := partialNodes + cohortQueues(preemptCQ("a", "", c.quota, ""), preemptCQ("b", "", 4, "")) + c.held + c.p + c.st
			outs, cl := admitAll(t, y)
			o := outs[len(outs)-1]
			require.Equal(t, "default/p", o.Workload.String())
			require.Equal(t, c.action, o.Action, o.Message)
			if c.msg != "" || c.action == KueueAdmitted {
				require.Contains(t, o.Message, c.msg)
			}
			var got [][]string
			for _, set := range o.PodSets {
				var hs []string
				for _, p := range set {
					hs = append(hs, fmt.Sprintf("%s:%d", p.Node, p.Count))
				}
				got = append(got, hs)
			}
			require.Equal(t, c.pods, got)
			requireNoOverlap(t, cl)
			w := cl.KueueWorkloads[len(cl.KueueWorkloads)-1].Obj
			var usage []string
			if adm := w.Status.Admission; adm != nil {
				for _, psa := range adm.PodSetAssignments {
					u := fmt.Sprintf("%s %d", psa.Name, *psa.Count)
					if q, ok := psa.ResourceUsage["cpu"]; ok {
						u += " cpu=" + q.String()
					}
					usage = append(usage, u)
				}
			}
			require.Equal(t, c.usage, strings.Join(usage, "; "))
		})
	}
}

// A Workload admitted at its count less the pods reclaimable then (as
// gangsim and Kueue write it) keeps that count in a second run: it is not
// grown back to spec.podSets' count. It holds that count's quota, or
// fewer pods' once more are reclaimable; q (one pod) fits only then.
func TestAdmitKueueWorkloads_AdmittedAfterReclaimKept(t *testing.T) {
	held := strings.Replace(preemptWL("held", "la", 0, 0, 4, "", "r1-h1:4", 0), "{name: main, count: 4, ", "{name: main, count: 6, ", 1)
	q := preemptWL("q", "la", 0, 9, 1, "", "", 0)
	for _, c := range []struct {
		reclaim string
		q       KueueAction
	}{
		{"main: 2", KueuePending},
		{"main: 3", KueueAdmitted},
	} {
		t.Run(c.reclaim, func(t *testing.T) {
			st := "  reclaimablePods: [{name: main, count: " + strings.TrimPrefix(c.reclaim, "main: ") + "}]\n"
			outs, cl := admitAll(t, partialNodes+cohortQueues(preemptCQ("a", "", 4, ""))+held+st+q)
			require.Len(t, outs, 2)
			require.Equal(t, [2]KueueAction{KueueKept, c.q}, [2]KueueAction{outs[0].Action, outs[1].Action}, outs[1].Message)
			require.Equal(t, pods("main", "r1-h1:4"), outs[0].PodSets[0])
			requireNoOverlap(t, cl)
		})
	}
}

// A preempted Workload with reclaimable pods is queued again at its count
// less them: low (6 pods, 2 of them reclaimable, admitted at 4) is
// preempted by hi (priority 10, 8 pods, ClusterQueue a's whole quota) and
// then waits for 4 CPUs, not 6.
func TestAdmitKueueWorkloads_PreemptedReclaimableRequeued(t *testing.T) {
	low := strings.Replace(preemptWL("low", "la", 0, 0, 4, "", "r1-h1:4", 0), "{name: main, count: 4, ", "{name: main, count: 6, ", 1) +
		"  reclaimablePods: [{name: main, count: 2}]\n"
	outs, _ := admitAll(t, partialNodes+cohortQueues(preemptCQ("a", "", 8, "withinClusterQueue: LowerPriority"))+
		low+preemptWL("hi", "la", 10, 9, 8, "", "", 0))
	require.Len(t, outs, 2)
	require.Equal(t, "default/hi", outs[0].Workload.String())
	require.Equal(t, KueueAdmitted, outs[0].Action, outs[0].Message)
	require.Equal(t, KueuePreempted, outs[1].Action)
	require.Contains(t, outs[1].Message, "insufficient unused quota for cpu in flavor tas, 4 more needed")
}
