package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// PlanOptions.KueueNegativeCounts: a node whose bound pods request more
// than its allocatable counts as a negative number of pods in its
// domains' totals under both Kueue profiles, as Kueue v0.17's TAS counts
// it; gangsched's profile counts it as 0. Each world was run on the real
// Kueue (kube/testdata/kueue-oracle/overcommit-*), which gave the kueue
// answers.
func TestPlanPodSets_KueueNegativeCounts(t *testing.T) {
	for _, c := range []struct {
		name      string
		caps      [][][]int64
		host      string // the host given a bound pod of 4 CPUs
		count     int32
		key       string
		kueue     map[string]int32 // nil: Unschedulable, with msg
		msg       string
		gangsched map[string]int32
	}{
		{
			// b1-r1-h1 (2 CPUs) counts -2: r1 holds 4 - 2 = 2, r2 3;
			// no rack holds 4 (Kueue: "allows to fit only 3 out of 4").
			name: "a rack lowered below the set", caps: [][][]int64{{{2, 4}, {3}}}, host: "b1-r1-h1", count: 4, key: rackKey,
			msg:       `pod set "main" of PodGroup "default/w" needs 4 pods in one topology.kubernetes.io/rack domain; the best, b1/r2, holds 3`,
			gangsched: map[string]int32{"b1-r1-h2": 4},
		},
		{
			// r1 (2) is now the best fit for 2 pods, on its host with room.
			name: "a rack lowered to the best fit", caps: [][][]int64{{{2, 4}, {3}}}, host: "b1-r1-h1", count: 2, key: rackKey,
			kueue: map[string]int32{"b1-r1-h2": 2}, gangsched: map[string]int32{"b1-r2-h1": 2},
		},
		{
			// Block b1 counts 5 + 2 - 2 = 5, the best fit before b2 (6);
			// below it the hosts are pooled, the one with 5 taking all.
			name: "a block lowered to the best fit", caps: [][][]int64{{{5, 2}, {2}}, {{6}}}, host: "b1-r1-h2", count: 5, key: blockKey,
			kueue: map[string]int32{"b1-r1-h1": 5}, gangsched: map[string]int32{"b2-r1-h1": 5},
		},
		{
			// A host in deficit never takes a pod, nor counts below 0
			// where the set asks for a host.
			name: "a host level", caps: [][][]int64{{{2, 3}}}, host: "b1-r1-h1", count: 3, key: hostKey,
			kueue: map[string]int32{"b1-r1-h2": 3}, gangsched: map[string]int32{"b1-r1-h2": 3},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			bound := placement.Pod{Namespace: "default", Name: "big", NodeName: c.host, Requests: placement.ResourceList{cpu: 4000}}
			s := snapshot(t, brh(c.caps), bound)
			g := &placement.Group{Namespace: "default", Name: "w", MinCount: c.count, PodSets: []placement.PodSet{
				{Name: "main", Count: c.count, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
			r := topology.PodSetRequest{PodSet: "main", Required: c.key}
			for _, prof := range []topology.Profile{topology.KueueProfile, topology.KueueBalancedProfile} {
				p := plan(t, s, g, prof.Options(), r)
				if c.kueue == nil {
					require.Equal(t, placement.Unschedulable, p.Decision.Status, prof.String())
					require.Contains(t, p.Decision.Message, c.msg, prof.String())
					continue
				}
				require.Equal(t, placement.Scheduled, p.Decision.Status, "%s: %s", prof, p.Decision.Message)
				require.Equal(t, c.kueue, counts(p.Decision, "main"), prof.String())
			}
			p := plan(t, s, g, topology.GangschedProfile.Options(), r)
			require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
			require.Equal(t, c.gangsched, counts(p.Decision, "main"))
		})
	}
}
