package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestInGroupOrder_Table holds PlanOptions.InGroupOrder (both Kueue
// profiles) to Kueue v0.17's order: a Workload's sets and PodSetGroups are
// planned in spec.podSets order, each taking its pods' capacity before
// the next, whatever their names; gangsched's profile keeps name order.
// The world is brk5 finding 03's: block b1 holds 10 cores (r1: 1 + 4,
// r2: 4 + 1), b2 14 (r1: 2 + 4, r2: 3 + 5); every pod takes 1 core and
// every set is required at block, so the set planned first takes b1 by
// best fit (10 ≥ 9, fewer than 14) and the other gets b2. The first two
// orders are recorded against the real Kueue in
// kube/testdata/kueue-oracle/order-*.
func TestInGroupOrder_Table(t *testing.T) {
	caps := [][][]int64{{{1, 4}, {4, 1}}, {{2, 4}, {3, 5}}}
	// onB1 and onB2 are a 9-pod set's hosts (or a group's 9 pods) in
	// either block: b1's by best fit down the racks and hosts, b2's the
	// largest hosts first.
	onB1 := map[string]int32{"b1-r1-h1": 1, "b1-r1-h2": 4, "b1-r2-h1": 4}
	onB2 := map[string]int32{"b2-r1-h2": 4, "b2-r2-h2": 5}
	type set struct {
		name  string
		count int32
		group string
	}
	for _, tc := range []struct {
		name string
		sets []set // spec order
		// kueue and gangsched are each set's pods per host, by profile.
		kueue, gangsched map[string]map[string]int32
	}{
		{
			name:      "two sets, z first in spec",
			sets:      []set{{"z-workers", 9, ""}, {"a-workers", 9, ""}},
			kueue:     map[string]map[string]int32{"z-workers": onB1, "a-workers": onB2},
			gangsched: map[string]map[string]int32{"a-workers": onB1, "z-workers": onB2},
		},
		{
			name:      "two sets, a first in spec",
			sets:      []set{{"a-workers", 9, ""}, {"z-workers", 9, ""}},
			kueue:     map[string]map[string]int32{"a-workers": onB1, "z-workers": onB2},
			gangsched: map[string]map[string]int32{"a-workers": onB1, "z-workers": onB2},
		},
		{
			// Kueue's leader-aware search puts each leader on the host
			// its rack and host order reaches first, its workers beside.
			name: "two groups, zg first in spec",
			sets: []set{{"z-leader", 1, "zg"}, {"z-workers", 8, "zg"}, {"a-leader", 1, "ag"}, {"a-workers", 8, "ag"}},
			kueue: map[string]map[string]int32{
				"z-leader": {"b1-r1-h2": 1}, "z-workers": {"b1-r1-h1": 1, "b1-r1-h2": 3, "b1-r2-h1": 4},
				"a-leader": {"b2-r2-h2": 1}, "a-workers": {"b2-r1-h2": 4, "b2-r2-h2": 4},
			},
		},
		{
			name: "two groups, ag first in spec",
			sets: []set{{"a-leader", 1, "ag"}, {"a-workers", 8, "ag"}, {"z-leader", 1, "zg"}, {"z-workers", 8, "zg"}},
			kueue: map[string]map[string]int32{
				"a-leader": {"b1-r1-h2": 1}, "a-workers": {"b1-r1-h1": 1, "b1-r1-h2": 3, "b1-r2-h1": 4},
				"z-leader": {"b2-r2-h2": 1}, "z-workers": {"b2-r1-h2": 4, "b2-r2-h2": 4},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(t, brh(caps))
			g := &placement.Group{Namespace: "default", Name: "two"}
			var reqs []topology.PodSetRequest
			for _, ps := range tc.sets {
				g.PodSets = append(g.PodSets, placement.PodSet{Name: ps.name, Count: ps.count, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}})
				g.MinCount += ps.count
				reqs = append(reqs, topology.PodSetRequest{PodSet: ps.name, Required: blockKey, Group: ps.group})
			}
			check := func(prof topology.Profile, want map[string]map[string]int32) {
				p := plan(t, s, g, prof.Options(), reqs...)
				require.Equal(t, placement.Scheduled, p.Decision.Status, "%s: %s", prof, p.Decision.Message)
				for name, hosts := range want {
					require.Equal(t, hosts, counts(p.Decision, name), "%s: %s", prof, name)
				}
				// The answer stays in name order whatever the plan's.
				for i := 1; i < len(p.PodSets); i++ {
					require.Less(t, p.PodSets[i-1].Name, p.PodSets[i].Name, prof.String())
				}
			}
			for _, prof := range []topology.Profile{topology.KueueProfile, topology.KueueBalancedProfile} {
				check(prof, tc.kueue)
			}
			if tc.gangsched != nil {
				check(topology.GangschedProfile, tc.gangsched)
			}
		})
	}
}
