package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Among otherwise equal candidates (priority, quota reserved at the same
// time), Kueue's CandidatesOrdering compares metadata.uid: with UIDs on
// every candidate the smaller goes first, else namespace and name decide.
func TestAdmitKueueWorkloads_PreemptionTieBreak(t *testing.T) {
	uid := func(y, u string) string {
		if u == "" {
			return y
		}
		return strings.Replace(y, "metadata: {", "metadata: {uid: "+u+", ", 1)
	}
	for _, c := range []struct {
		name, uidE1, uidE2, uidE3, victim string
	}{
		{"UIDs: the smaller first", "ffffffff-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002", "55555555-0000-0000-0000-000000000003", "e2"},
		{"UIDs the other way round", "00000000-0000-0000-0000-000000000001", "ffffffff-0000-0000-0000-000000000002", "55555555-0000-0000-0000-000000000003", "e1"},
		{"no UIDs: by name", "", "", "", "e1"},
		{"a UID missing: by name", "ffffffff-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002", "", "e1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wls := uid(preemptWL("e1", "la", 0, 0, 4, "", "r1-h1:4", 0), c.uidE1) + uid(preemptWL("e2", "la", 0, 1, 4, "", "r1-h2:4", 0), c.uidE2) +
				uid(preemptWL("e3", "la", 5, 2, 4, "", "r2-h1:4", 0), c.uidE3) + preemptWL("hi", "la", 10, 9, 4, "", "", 0)
			outs, _ := admitAll(t, partialNodes+cohortQueues(preemptCQ("a", "", 12, "withinClusterQueue: LowerPriority"))+wls)
			require.Equal(t, "default/hi", outs[0].Workload.String())
			require.Equal(t, KueueAdmitted, outs[0].Action)
			require.Equal(t, "preempted default/"+c.victim+" (InClusterQueue)", outs[0].Message)
		})
	}
}
