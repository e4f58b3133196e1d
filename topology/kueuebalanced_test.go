package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// unevenCaps is the cluster of kube/testdata/kueue-oracle/balanced-cluster.yaml:
// hosts of b1/r1 6 4 2 cores, b1/r2 5 3 3, b2/r1 8 1 1, b2/r2 4 4 4.
var unevenCaps = [][][]int64{{{6, 4, 2}, {5, 3, 3}}, {{8, 1, 1}, {4, 4, 4}}}

// TestScenario_KueueBalanced holds PlanOptions.KueueBalanced to the per-host
// counts the real Kueue v0.17 answered with TASBalancedPlacement on
// (kube/testdata/kueue-oracle, the cases named), and to the steps of its
// algorithm where a case has none.
func TestScenario_KueueBalanced(t *testing.T) {
	sl := func(key string, size int32) []topology.SliceLayer {
		return []topology.SliceLayer{{Key: key, Size: size}}
	}
	for _, c := range []struct {
		name   string
		caps   [][][]int64
		count  int32
		req    topology.PodSetRequest
		want   map[string]int32 // nil: Unschedulable
		reason string           // a part of the reason, when Unschedulable
		kind   topology.KueueBalancedReason
	}{
		// Kueue's balanced-threshold: b1's hosts hold ten in two (6 + 5), a
		// threshold of 5; b2's need two too (8 + 4) but the last holds 4. b1
		// wins; each of its two largest hosts takes 5. Without the gate the
		// ten go to rack b2/r1, which holds exactly ten.
		{name: "threshold", caps: unevenCaps, count: 10, req: topology.PodSetRequest{Preferred: rackKey},
			want: map[string]int32{"b1-r1-h1": 5, "b1-r2-h1": 5}},
		// Kueue's balanced-largest: thirteen over three hosts at the
		// threshold 4 (b1: 6, 5, 4; b2 ties, 8, 4, 4, and Kueue picks one in
		// map order); the extra one goes to the largest, b1-r1-h1.
		{name: "largest first", caps: unevenCaps, count: 13, req: topology.PodSetRequest{Preferred: rackKey},
			want: map[string]int32{"b1-r1-h1": 5, "b1-r1-h2": 4, "b1-r2-h1": 4}},
		// Kueue's balanced-seven: b2-r1-h1 alone holds seven, a threshold
		// of 7 that no other block reaches.
		{name: "one host", caps: unevenCaps, count: 7, req: topology.PodSetRequest{Preferred: rackKey},
			want: map[string]int32{"b2-r1-h1": 7}},
		// Kueue's balanced-slices: four slices of two per host; b2-r1-h1
		// holds all four, the highest threshold.
		{name: "slices per host", caps: unevenCaps, count: 8, req: topology.PodSetRequest{Preferred: rackKey, Slices: sl(hostKey, 2)},
			want: map[string]int32{"b2-r1-h1": 8}},
		// Kueue's balanced-block: sixteen preferring a block, balanced over
		// racks: two racks hold them (12 + 12), a threshold of 8; the block
		// that holds them with the least room is b2 (22 against 23), and
		// its two racks take 8 each, split inside by best fit.
		{name: "preferred block", caps: unevenCaps, count: 16, req: topology.PodSetRequest{Preferred: blockKey},
			want: map[string]int32{"b2-r1-h1": 8, "b2-r2-h1": 4, "b2-r2-h2": 4}},
		// Kueue's balanced-host: nine preferring a host, balanced over the
		// hosts of one rack: b1/r1's 6 and 4 at a threshold of 4, the
		// extra one to the larger.
		{name: "preferred host", caps: unevenCaps, count: 9, req: topology.PodSetRequest{Preferred: hostKey},
			want: map[string]int32{"b1-r1-h1": 5, "b1-r1-h2": 4}},
		// Kueue's balanced (kube/testdata/kueue-workloads/balanced.yaml): twelve
		// over hosts of four, three hosts at the threshold 4; both blocks tie
		// and Kueue picks one in map order: here the first path, b1, and in
		// it the first three hosts.
		{name: "tie", caps: uniform(2, 2, 2, 4), count: 12, req: topology.PodSetRequest{Preferred: rackKey},
			want: map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4, "b1-r2-h1": 4}},
		// Kueue's balanced-slice-at-preferred: the preferred level is the
		// slice level, above the hosts: Kueue v0.17's pruning empties every
		// rack, and the set never fits.
		{name: "slice level is the preferred one", caps: uniform(2, 2, 2, 4), count: 4,
			req:    topology.PodSetRequest{Preferred: rackKey, Slices: sl(rackKey, 2)},
			reason: "TAS Balanced Placement", kind: topology.KueueBalancedNoDomainSet},
		// Kueue's balanced-below-threshold (kueue-oracle):
		// racks of 3 + 3 + 3 and 5 + 4 hosts, seven preferring a rack. Over
		// all five hosts two hold seven (5 + 4): a threshold of 3; both racks
		// hold nine, and the one of the higher entropy, 3 + 3 + 3, is taken,
		// whose three hosts at 3 each need nine: "Not enough slices to meet
		// the threshold", though either rack holds the seven.
		{name: "threshold above the set", caps: [][][]int64{{{3, 3, 3}, {5, 4}}}, count: 7,
			req:    topology.PodSetRequest{Preferred: rackKey},
			reason: "need more slices than the set has", kind: topology.KueueBalancedThreshold},
		// Kueue's balanced-leftover (kueue-oracle/balanced-leftover): hosts
		// of 4, 3 and 3 in one rack, three slices of 2 preferring a host:
		// the largest-first fill takes two hosts (2 + 1 slices), a
		// threshold of 1; the two hosts of the least room, 3 + 3 pods, hold
		// the six pods but one slice each: a slice is left over.
		{name: "slice left over", caps: [][][]int64{{{4, 3, 3}}}, count: 6,
			req:    topology.PodSetRequest{Preferred: hostKey, Slices: sl(hostKey, 2)},
			reason: "1 slice left over", kind: topology.KueueBalancedLeftOver},
		// No block's hosts hold 40 (b1 23, b2 22): placed as without the
		// gate, the racks of both blocks filled largest first, the last
		// (b1/r2) by best fit.
		// Kueue's balanced-slices-rack: three slices of four per rack, the
		// block preferred: one rack holds them (threshold 3); the racks of
		// fewer slices are pruned, which leaves both blocks with 12 pods
		// in one rack, a tie Kueue breaks in map order: b1 here.
		{name: "slices per rack", caps: unevenCaps, count: 12, req: topology.PodSetRequest{Preferred: blockKey, Slices: sl(rackKey, 4)},
			want: map[string]int32{"b1-r1-h1": 6, "b1-r1-h2": 4, "b1-r1-h3": 2}},
		// Two slice layers (racks of one slice of 2, hosts of 2): both
		// racks hold 2 slices, and Kueue's tie-break counts their hosts'
		// pods unrounded, 2 + 3 = 5 against 4, so b2/r1 fills first and
		// b1/r1 takes the last slice on its least free host (Kueue v0.17's
		// FindTopologyAssignmentsForFlavor with TASBalancedPlacement and
		// TASMultiLayerTopology, run in-process by the tester peer10:
		// {b1-r1-h1: 2, b2-r1-h1: 4}). Rounded to host slices both held 4,
		// and the path put b1/r1 first.
		{name: "two layers, unrounded pods break the tie", caps: [][][]int64{{{2, 3}}, {{4}}}, count: 6,
			req:  topology.PodSetRequest{Preferred: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}, {Key: hostKey, Size: 2}}},
			want: map[string]int32{"b1-r1-h1": 2, "b2-r1-h1": 4}},
		{name: "fallback", caps: unevenCaps, count: 40, req: topology.PodSetRequest{Preferred: rackKey},
			want: map[string]int32{"b1-r1-h1": 6, "b1-r1-h2": 4, "b1-r1-h3": 2, "b1-r2-h1": 5, "b1-r2-h2": 3,
				"b2-r1-h1": 8, "b2-r2-h1": 4, "b2-r2-h2": 4, "b2-r2-h3": 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot(t, brh(c.caps))
			g := podSetGroup("bal", c.count)
			req := c.req
			req.PodSet = "workers"
			tr := tree(t, s, blockKey, rackKey, hostKey)
			p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{KueueBalanced: true, KueueNotFit: true})
			require.NoError(t, err)
			require.NoError(t, placement.Verify(s, g, p.Decision))
			if c.want == nil {
				require.Equal(t, placement.Unschedulable, p.Decision.Status)
				require.Contains(t, p.Decision.Message, c.reason)
				require.NotNil(t, p.KueueNotFit)
				require.Equal(t, c.kind, p.KueueNotFit.Balanced)
				return
			}
			require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
			require.Equal(t, c.want, counts(p.Decision, "workers"))
		})
	}
}

// Kueue's balanced-leader: a leader and eight workers of one PodSetGroup
// preferring a rack. Beside the leader b1's hosts hold 5, 4, ...: the
// leader's host and one more hold the eight, a threshold of 4 (b2's
// largest host keeps 7 beside the leader, but its next holds 4 with no
// leader: 3 once capped as Kueue caps it). The leader's host b1-r1-h1
// takes the leader and 4 workers, b1-r2-h1 the other 4.
func TestScenario_KueueBalancedLeader(t *testing.T) {
	s := snapshot(t, brh(unevenCaps))
	g := &placement.Group{Namespace: "default", Name: "lws", MinCount: 9, PodSets: []placement.PodSet{
		{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
		{Name: "workers", Count: 8, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
	}}
	reqs := []topology.PodSetRequest{{PodSet: "leader", Preferred: rackKey, Group: "lws"}, {PodSet: "workers", Preferred: rackKey, Group: "lws"}}
	p := plan(t, s, g, topology.PlanOptions{KueueBalanced: true}, reqs...)
	require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
	require.Equal(t, map[string]int32{"b1-r1-h1": 1}, counts(p.Decision, "leader"))
	require.Equal(t, map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4}, counts(p.Decision, "workers"))

	// Without the gate the group goes to one rack, by best fit: b2/r1's
	// ten CPUs.
	p = plan(t, s, g, topology.PlanOptions{}, reqs...)
	require.Equal(t, map[string]int32{"b2-r1-h1": 8}, counts(p.Decision, "workers"))
}

// Kueue's balanced-leader-block: a leader and twelve workers preferring a
// block. The balance gives block b2's racks 6 each, the leader with the
// 6 of b2/r2; carried down to r2's hosts of 4 CPUs (3 beside the leader)
// the first host cannot take all 6, so Kueue cuts its leader count to 0
// and the leader is lost: Kueue writes an assignment its own API refuses
// and never admits the group, and its assumption holds the workers'
// hosts with the counts its split left (13 for 12 workers; the real
// Kueue: kube/testdata/kueue-oracle/preemption/r23). Preferring a rack,
// the same group is balanced over hosts and admitted.
func TestScenario_KueueBalancedLeaderLost(t *testing.T) {
	s := snapshot(t, brh(unevenCaps))
	g := &placement.Group{Namespace: "default", Name: "lws", MinCount: 13, PodSets: []placement.PodSet{
		{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
		{Name: "workers", Count: 12, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}},
	}}
	reqs := []topology.PodSetRequest{{PodSet: "leader", Preferred: blockKey, Group: "lws"}, {PodSet: "workers", Preferred: blockKey, Group: "lws"}}
	p := plan(t, s, g, topology.PlanOptions{KueueBalanced: true}, reqs...)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Contains(t, p.Decision.Message, "the leader is lost carrying it down from b2/r2 to the hosts")
	require.NotNil(t, p.KueueAssumed)
	require.Equal(t, map[string]int32{"b2-r1-h1": 6, "b2-r2-h1": 4, "b2-r2-h2": 3}, counts(p.KueueAssumed.Decision, "workers"))
	require.Empty(t, counts(p.KueueAssumed.Decision, "leader"))

	reqs[0].Preferred, reqs[1].Preferred = rackKey, rackKey
	p = plan(t, s, g, topology.PlanOptions{KueueBalanced: true}, reqs...)
	require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
}

// Kueue's least-spare subset search is cubic in the domains of a set that
// fills them; past its budget the plan takes the largest-first fill. Two
// racks of 5,000 hosts of 1 to 8 CPUs (625 of each size) and 10,000
// one-CPU pods preferring a rack (a search Kueue would run for minutes):
// the fill of one rack takes its hosts of 8, 7 and 105 of 6 CPUs (1,355
// hosts, threshold 10,000 / 1,355 capped by the last one's 6); the 1,870
// pods over the threshold go to the largest first, 2 to each host of 8
// and 1 to each of 7 but the last 5.
func TestKueueBalanced_SearchBounded(t *testing.T) {
	caps := [][][]int64{{make([]int64, 5000)}, {make([]int64, 5000)}}
	for b := range caps {
		for h := range caps[b][0] {
			caps[b][0][h] = int64(1 + (h*7+b*3)%8)
		}
	}
	s := snapshot(t, brh(caps))
	g := podSetGroup("bal", 10000)
	p := plan(t, s, g, topology.PlanOptions{KueueBalanced: true}, topology.PodSetRequest{PodSet: "workers", Preferred: rackKey})
	require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
	require.NoError(t, placement.Verify(s, g, p.Decision))
	got := counts(p.Decision, "workers")
	require.Len(t, got, 1355)
	per := map[int32]int{}
	for host, n := range got {
		require.Equal(t, "b1-r1-", host[:6])
		per[n]++
	}
	require.Equal(t, map[int32]int{8: 625, 7: 620, 6: 110}, per)
}

// With KueueHostAppended the hosts are gangsim's, below a Kueue Topology
// of blocks and racks: Kueue's leaves are the racks, so a set preferring
// a rack is balanced over racks, never over hosts. Ten pods fit in one
// rack of either block (b1/r1 12, b1/r2 11, b2/r1 10, b2/r2 12): a
// threshold of 10 in one rack, the first block's tightest, b1/r2, where
// balancing over hosts gave the two largest of b1 five each (the
// "threshold" case above); the rack's pods go to its hosts as a required
// set's would. A set preferring a block is balanced over its racks as
// without the flag (the "preferred block" case above).
func TestScenario_KueueBalancedHostAppended(t *testing.T) {
	for _, c := range []struct {
		name  string
		count int32
		req   topology.PodSetRequest
		want  map[string]int32
	}{
		{name: "preferred rack", count: 10, req: topology.PodSetRequest{Preferred: rackKey},
			want: map[string]int32{"b1-r2-h1": 5, "b1-r2-h2": 3, "b1-r2-h3": 2}},
		{name: "preferred block", count: 16, req: topology.PodSetRequest{Preferred: blockKey},
			want: map[string]int32{"b2-r1-h1": 8, "b2-r2-h1": 4, "b2-r2-h2": 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot(t, brh(unevenCaps))
			g := podSetGroup("bal", c.count)
			req := c.req
			req.PodSet = "workers"
			tr := tree(t, s, blockKey, rackKey, hostKey)
			p, err := tr.PlanPodSets(s, g, []topology.PodSetRequest{req}, topology.PlanOptions{KueueBalanced: true, KueueHostAppended: true})
			require.NoError(t, err)
			require.NoError(t, placement.Verify(s, g, p.Decision))
			require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
			require.Equal(t, c.want, counts(p.Decision, "workers"))
		})
	}
}
