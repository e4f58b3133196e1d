package topology_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestKueueBalanced_ChildrenOrderKept holds KueueBalancedProfile to the
// one answer Kueue v0.17 gave in 3,000 runs of its own
// FindTopologyAssignmentsForFlavor (TASBalancedPlacement on, run
// in-process beside gangsched) on worlds cut down from the tester
// libbreak's random cases (finding 04, seeds 11771, 13814 and 23480;
// node names and CPUs as there). Kueue sorts the preferred-level
// children of the domain it balances a set in, in place, and a later set
// of the Workload meets them in that order: where gangsched broke such a
// tie by path it gave an answer no Kueue run gives.
func TestKueueBalanced_ChildrenOrderKept(t *testing.T) {
	type set struct {
		name  string
		count int32
		milli int64
		pref  string
		group string
	}
	lead := func(milli int64, pref string) set { return set{"leader", 1, milli, pref, "lws"} }
	work := func(n int32, milli int64, pref string) set { return set{"workers", n, milli, pref, "lws"} }
	for _, c := range []struct {
		name  string
		hosts map[string]int64 // b<i>-r<j>-h<k> → milli-CPU
		sets  []set            // in spec order
		want  map[string]map[string]int32
	}{
		// Seed 11771: the group (leader and seven workers of 500m) fills
		// r0; its sort leaves r0, r2, r1 (room beside the leader 8, 4, 3).
		// z's two 1-CPU pods fit r1's host and r2's alike (2 each, entropy
		// 0): Kueue meets r2 first and takes it; by path it was r1.
		{name: "seed 11771: the group's order breaks z's tie",
			hosts: map[string]int64{"b0-r0-h0": 2000, "b0-r0-h1": 2500, "b0-r1-h0": 2000, "b0-r2-h0": 2500},
			sets:  []set{lead(500, rackKey), work(7, 500, rackKey), {"z", 2, 1000, rackKey, ""}},
			want: map[string]map[string]int32{
				"leader":  {"b0-r0-h1": 1},
				"workers": {"b0-r0-h0": 3, "b0-r0-h1": 4},
				"z":       {"b0-r2-h0": 2},
			}},
		// Seed 13814: z (two 1.5-CPU pods) first, balanced over the hosts
		// of r1 at a threshold of 1; its sort leaves r1, r2, r0 (slices 3,
		// 3, 1; r1 and r2 alike, by path). The group (seven 1-CPU workers,
		// a 500m leader) then sorts r2 first (5 workers beside the leader)
		// and ties r1 and r0 (2 each, entropy 0): Kueue meets r1 first and
		// takes r2 and r1; by path it took r0, where no Kueue run puts the
		// leader.
		{name: "seed 13814: z's order breaks the group's tie",
			hosts: map[string]int64{"b2-r0-h0": 2500, "b2-r1-h0": 1500, "b2-r1-h1": 2000, "b2-r1-h2": 2000,
				"b2-r2-h0": 2500, "b2-r2-h1": 2000, "b2-r2-h2": 2000},
			sets: []set{{"z", 2, 1500, rackKey, ""}, work(7, 1000, rackKey), lead(500, rackKey)},
			want: map[string]map[string]int32{
				"leader":  {"b2-r2-h0": 1},
				"workers": {"b2-r1-h2": 2, "b2-r2-h0": 2, "b2-r2-h1": 2, "b2-r2-h2": 1},
				"z":       {"b2-r1-h0": 1, "b2-r1-h1": 1},
			}},
		// Seed 23480: the group (a 1.5-CPU leader, five 1-CPU workers)
		// balanced in b1 leaves its racks r2, r1, r0; z (two 500m pods
		// preferring a block) is balanced over b1's racks in that order
		// and lands in r2, where by path it took r0.
		{name: "seed 23480: the group's order is z's order of racks",
			hosts: map[string]int64{"b0-r0-h0": 2000, "b0-r0-h1": 2000, "b1-r0-h0": 1500, "b1-r1-h0": 2500,
				"b1-r2-h0": 500, "b1-r2-h1": 2500, "b1-r2-h2": 2500},
			sets: []set{lead(1500, rackKey), work(5, 1000, rackKey), {"z", 2, 500, blockKey, ""}},
			want: map[string]map[string]int32{
				"leader":  {"b1-r1-h0": 1},
				"workers": {"b1-r1-h0": 1, "b1-r2-h1": 2, "b1-r2-h2": 2},
				"z":       {"b1-r2-h0": 1, "b1-r2-h1": 1},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var nodes []placement.Node
			for name, milli := range c.hosts {
				p := strings.Split(name, "-")
				nodes = append(nodes, node(name, milli, blockKey, p[0], rackKey, p[1], hostKey, name))
			}
			s := snapshot(t, nodes)
			g := &placement.Group{Namespace: "default", Name: "w"}
			var reqs []topology.PodSetRequest
			for _, st := range c.sets {
				g.PodSets = append(g.PodSets, placement.PodSet{Name: st.name, Count: st.count,
					Template: placement.Pod{Requests: placement.ResourceList{cpu: st.milli}}})
				g.MinCount += st.count
				reqs = append(reqs, topology.PodSetRequest{PodSet: st.name, Preferred: st.pref, Group: st.group})
			}
			p := plan(t, s, g, topology.KueueBalancedProfile.Options(), reqs...)
			require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
			for name, want := range c.want {
				require.Equal(t, want, counts(p.Decision, name), name)
			}
		})
	}
}
