package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestKueueLeaderAware_Table holds PlanOptions.KueueLeaderAware (both
// Kueue profiles) to Kueue v0.17's placement of a leader and workers as
// one request, host by host. Each case's comment is its scenario, worked
// through Kueue's steps; the generated worlds recorded in
// kube/testdata/kueue-oracle/lead-rand-* are the same steps checked
// against the real Kueue.
func TestKueueLeaderAware_Table(t *testing.T) {
	for _, tc := range []struct {
		name      string
		caps      [][][]int64
		leaderCPU int64
		workers   int32
		required  bool
		key       string
		leader    map[string]int32
		want      map[string]int32
		msg       string // when the group does not fit: the reason's start
		// assumed: Kueue takes the plan as a fit and cannot write it
		// (Plan.KueueAssumed), placing no pod of the group.
		assumed bool
		// kueueOnly: with TASBalancedPlacement the balance applies and
		// places the group otherwise (kueuebalancedgroup.go).
		kueueOnly bool
	}{
		{
			// Rack r1 counts 4 workers beside a leader of 2 (its 4-core
			// host gives up 2 of 4, its 2-core host 2 of 2: the least, 2,
			// is taken off 6), r2 2: r1 by best fit. Down to the hosts,
			// the 4-core host, first by workers, takes the leader and the
			// 2 beside it; the last worker goes to the 2-core host.
			name: "leader's host first, beside it what fits", caps: [][][]int64{{{4, 2}, {3}}},
			leaderCPU: 2, workers: 3, required: true, key: rackKey,
			leader: map[string]int32{"b1-r1-h1": 1}, want: map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 1},
		},
		{
			// No rack holds a leader and 10 workers (7 and 3 beside the
			// leader): the preferred rack widens to block b1 (11). The
			// split goes down the whole group at each level: r1 takes the
			// leader and 7, r2 the last 3; on the hosts the leader's takes
			// 3 beside it, the next 4, and r2's host 3.
			name: "preferred rack widens to the block", caps: [][][]int64{{{4, 4}, {4}}},
			leaderCPU: 1, workers: 10, key: rackKey,
			leader: map[string]int32{"b1-r1-h1": 1}, want: map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 4, "b1-r2-h1": 3},
		},
		{
			// Racks in the leader's order: b2/r1 (the leader and 5
			// beside it) before b1/r1 (3 beside it); best fit of 3
			// workers beside the leader picks b1/r1, the tighter.
			name: "best fit among racks with the leader's room", caps: [][][]int64{{{4}}, {{6}}},
			leaderCPU: 1, workers: 3, required: true, key: rackKey,
			leader: map[string]int32{"b1-r1-h1": 1}, want: map[string]int32{"b1-r1-h1": 3},
		},
		{
			// Kueue's best fit of the last domain reads the workers' room
			// alone: b1/r2 (2 workers, no room for a 3-core leader) is
			// tighter than b1/r1 (the leader and 3 beside it), so it is
			// picked, and lacking the leader's room the required rack
			// fails — though b1/r1 holds the group (Kueue: "allows to
			// fit only 2 out of 2 pod(s)", never admitted).
			name: "best fit without the leader's room fails a required rack", caps: [][][]int64{{{6}, {2}}},
			leaderCPU: 3, workers: 2, required: true, key: rackKey,
			msg: `PodSetGroup "g" needs pod set "workers" (2 pods) beside leader "leader" in one topology.kubernetes.io/rack domain`,
		},
		{
			// Preferred, the same world widens to block b1, which counts
			// all 8 workers beside the leader (r2, without the leader's
			// room, gives up none: Kueue's overcount). Split among the
			// racks, best fit again picks r2, which takes the 2 workers
			// but not the leader; r2 again takes nothing, and the split
			// never completes: Kueue keeps no domain, writes empty
			// assignments its Workload API refuses, and never admits.
			name: "preferred: the split loses the leader", caps: [][][]int64{{{6}, {2}}},
			leaderCPU: 3, workers: 2, key: rackKey, kueueOnly: true, assumed: true,
			msg: `PodSetGroup "g": Kueue v0.17's split of pod sets "leader" and "workers" (2 pods) over the domains under b1 does not complete`,
		},
		{
			// A required host: the first by the leader's room and then
			// the most workers beside it is b1-r1-h2 (4 beside), best fit
			// of 2 beside picks b1-r2-h1 (2 beside, the leader's room).
			name: "required host by best fit", caps: [][][]int64{{{0, 5}, {3}}},
			leaderCPU: 1, workers: 2, required: true, key: hostKey,
			leader: map[string]int32{"b1-r2-h1": 1}, want: map[string]int32{"b1-r2-h1": 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(t, brh(tc.caps))
			g := &placement.Group{Namespace: "default", Name: "lws", MinCount: tc.workers + 1, PodSets: []placement.PodSet{
				{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: tc.leaderCPU * 1000}}},
				{Name: "workers", Count: tc.workers, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
			}}
			r := topology.PodSetRequest{Preferred: tc.key, Group: "g"}
			if tc.required {
				r = topology.PodSetRequest{Required: tc.key, Group: "g"}
			}
			lr, wr := r, r
			lr.PodSet, wr.PodSet = "leader", "workers"
			for _, prof := range []topology.Profile{topology.KueueProfile, topology.KueueBalancedProfile} {
				if tc.kueueOnly && prof != topology.KueueProfile {
					continue
				}
				p := plan(t, s, g, prof.Options(), lr, wr)
				if tc.msg != "" {
					require.Equal(t, placement.Unschedulable, p.Decision.Status, "%s: %v", prof, p.Decision.PodSetAssignments)
					require.Contains(t, p.Decision.Message, tc.msg, prof.String())
					require.Equal(t, tc.assumed, p.KueueAssumed != nil, prof.String())
					if tc.assumed {
						require.Equal(t, placement.Scheduled, p.KueueAssumed.Decision.Status)
						require.Empty(t, p.KueueAssumed.Decision.PodSetAssignments)
						require.Contains(t, p.KueueAssumed.Why, tc.msg)
					}
					continue
				}
				require.Equal(t, placement.Scheduled, p.Decision.Status, "%s: %s", prof, p.Decision.Message)
				require.Equal(t, tc.leader, counts(p.Decision, "leader"), prof.String())
				require.Equal(t, tc.want, counts(p.Decision, "workers"), prof.String())
			}
		})
	}
}
