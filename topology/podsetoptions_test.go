package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// ssdGroup is podSetGroup with a template preferring nodes labelled
// disk=ssd (weight 10).
func ssdGroup(name string, count int32) *placement.Group {
	g := podSetGroup(name, count)
	g.PodSets[0].Template.NodeAffinity = &placement.NodeAffinity{Preferred: []placement.PreferredSchedulingTerm{{Weight: 10,
		Preference: placement.NodeSelectorTerm{MatchExpressions: []placement.NodeSelectorRequirement{{Key: "disk", Operator: placement.NodeSelectorOpIn, Values: []string{"ssd"}}}}}}}
	return g
}

// withLabel sets label k=v on the named nodes.
func withLabel(nodes []placement.Node, k, v string, names ...string) []placement.Node {
	for i := range nodes {
		for _, n := range names {
			if nodes[i].Name == n {
				nodes[i].Labels[k] = v
			}
		}
	}
	return nodes
}

// Preferred node affinity with PlanOptions.NodeAffinityPreferred (Kueue's
// TASRespectNodeAffinityPreferred): the rack whose nodes score highest
// comes first, and inside it the preferred node; without the option (the
// default, as Kueue's gate) the template's preferred terms change nothing.
func TestScenario_PodSetPreferredNodeAffinity(t *testing.T) {
	s := snapshot(t, withLabel(brh(uniform(1, 2, 2, 4)), "disk", "ssd", "b1-r2-h2"))
	req := topology.PodSetRequest{PodSet: "workers", Required: rackKey}
	on := topology.PlanOptions{NodeAffinityPreferred: true}
	for _, tc := range []struct {
		count   int32
		opts    topology.PlanOptions
		want    map[string]int32
		comment string
	}{
		{3, topology.PlanOptions{}, map[string]int32{"b1-r1-h1": 3}, "best fit: the first rack and host of the tightest"},
		{3, on, map[string]int32{"b1-r2-h2": 3}, "the ssd host's rack, and the ssd host in it"},
		{6, topology.PlanOptions{}, map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 2}, "best fit"},
		{6, on, map[string]int32{"b1-r2-h2": 4, "b1-r2-h1": 2}, "the ssd host full first"},
	} {
		p := plan(t, s, ssdGroup("aff", tc.count), tc.opts, req)
		require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
		require.Equal(t, tc.want, counts(p.Decision, "workers"), tc.comment)
	}

	// Rack r2 holds five pods, its ssd host four. Required: the preferred
	// rack does not hold six, so the next rack in order that does, r1, is
	// taken. Preferred: Kueue widens to the block instead, where the
	// preferred rack takes five pods and the other one; below the block
	// the hosts of both racks are pooled (no slice level), so the ssd
	// host takes four and the tightest of the rest two.
	caps := uniform(1, 2, 2, 4)
	caps[0][1][0] = 1
	s = snapshot(t, withLabel(brh(caps), "disk", "ssd", "b1-r2-h2"))
	p := plan(t, s, ssdGroup("aff", 6), on, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 2}, counts(p.Decision, "workers"))
	p = plan(t, s, ssdGroup("aff", 6), on, topology.PodSetRequest{PodSet: "workers", Preferred: rackKey})
	require.Equal(t, "b1", p.PodSets[0].Domain)
	require.Equal(t, map[string]int32{"b1-r2-h2": 4, "b1-r1-h1": 2}, counts(p.Decision, "workers"))
}

// The caller's filters (PlanOptions.Filters) reject nodes as Solve's do;
// each sees the set's pods by the set's name; an error stops the plan.
func TestPlanPodSets_Filters(t *testing.T) {
	s := snapshot(t, brh(uniform(1, 2, 2, 4)))
	req := topology.PodSetRequest{PodSet: "workers", Required: rackKey}
	var seen []string
	noH1 := placement.FilterFunc(func(p *placement.Pod, n placement.NodeInfo) placement.Rejection {
		seen = append(seen, p.Key().String())
		if n.Node().Name == "b1-r1-h1" {
			return placement.Rejection{Reason: "not h1"}
		}
		return placement.Rejection{}
	})
	p := plan(t, s, podSetGroup("f", 6), topology.PlanOptions{Filters: []placement.Filter{noH1}}, req)
	require.Equal(t, map[string]int32{"b1-r2-h1": 4, "b1-r2-h2": 2}, counts(p.Decision, "workers"))
	require.Contains(t, seen, "default/workers")

	p = plan(t, s, podSetGroup("f", 10), topology.PlanOptions{Filters: []placement.Filter{noH1}}, topology.PodSetRequest{PodSet: "workers", Required: blockKey})
	// Ten in the block: its hosts pooled in path order, h1 of r1 left out.
	require.Equal(t, map[string]int32{"b1-r1-h2": 4, "b1-r2-h1": 4, "b1-r2-h2": 2}, counts(p.Decision, "workers"))

	tr := tree(t, s, blockKey, rackKey, hostKey)
	boom := errors.New("lookup failed")
	failing := placement.FilterFunc(func(*placement.Pod, placement.NodeInfo) placement.Rejection { return placement.Rejection{Err: boom} })
	_, err := tr.PlanPodSets(s, podSetGroup("f", 2), []topology.PodSetRequest{req}, topology.PlanOptions{Filters: []placement.Filter{noH1, failing}})
	require.ErrorIs(t, err, placement.ErrHook)
	require.ErrorIs(t, err, boom)
	require.EqualError(t, err, `placement: hook failed: PodGroup f: PlanOptions.Filters[1] on pod default/workers, node "b1-r1-h2": lookup failed`)
	_, err = tr.PlanPodSets(s, podSetGroup("f", 2), []topology.PodSetRequest{req}, topology.PlanOptions{Filters: []placement.Filter{nil}})
	require.EqualError(t, err, `PodGroup "default/f": PlanOptions.Filters[0]: must not be nil`)
}

// Kueue's LeastFreeCapacity for an unconstrained set, from KEP-2724's
// examples: on nodes that hold 3, 3, 2 and 1 pods, seven pods take the
// nodes from the least free, 1, 2, 3 and the last one pod; on nodes of 6,
// 5, 4, 3 and 2 in slices of 2 per host, ten pods take 2, 4, 2 and 2 of
// the nodes of 5, 4, 3 and 2 (the node of 4 before the node of 5: among
// nodes of two slices, the tighter), where BestFit puts twelve on 6, 4
// and 2.
func TestScenario_PodSetLeastFreeCapacityKEPExamples(t *testing.T) {
	s := snapshot(t, brh([][][]int64{{{3, 3, 2, 1}}}))
	p := plan(t, s, podSetGroup("lfc", 7), topology.PlanOptions{}, topology.PodSetRequest{PodSet: "workers", Unconstrained: true})
	require.Equal(t, map[string]int32{"b1-r1-h4": 1, "b1-r1-h3": 2, "b1-r1-h1": 3, "b1-r1-h2": 1}, counts(p.Decision, "workers"))

	s = snapshot(t, brh([][][]int64{{{6, 5, 4, 3, 2}}}))
	p = plan(t, s, podSetGroup("lfc", 10), topology.PlanOptions{}, topology.PodSetRequest{PodSet: "workers", Slices: []topology.SliceLayer{{Key: hostKey, Size: 2}}})
	require.Equal(t, map[string]int32{"b1-r1-h2": 2, "b1-r1-h3": 4, "b1-r1-h4": 2, "b1-r1-h5": 2}, counts(p.Decision, "workers"))
	p = plan(t, s, podSetGroup("bf", 12), topology.PlanOptions{}, topology.PodSetRequest{PodSet: "workers", Required: rackKey, Slices: []topology.SliceLayer{{Key: hostKey, Size: 2}}})
	require.Equal(t, map[string]int32{"b1-r1-h1": 6, "b1-r1-h3": 4, "b1-r1-h5": 2}, counts(p.Decision, "workers"))
}

// Nodes that tie go by their domains' paths, as Kueue's level values do,
// not by node name: of two equal nodes, the one in rack r1 first though
// its name sorts last.
func TestScenario_PodSetLeastFreeTiesByPath(t *testing.T) {
	s := snapshot(t, []placement.Node{
		node("z-node", 2000, blockKey, "b1", rackKey, "r1", hostKey, "z-node"),
		node("a-node", 2000, blockKey, "b1", rackKey, "r2", hostKey, "a-node"),
	})
	p := plan(t, s, podSetGroup("tie", 2), topology.PlanOptions{}, topology.PodSetRequest{PodSet: "workers", Unconstrained: true})
	require.Equal(t, map[string]int32{"z-node": 2}, counts(p.Decision, "workers"))
}

// Preferred node affinity chooses a PodSetGroup's rack: the workers'
// template (the largest set's, which Kueue scores a group by) prefers
// the ssd host b1-r2-h2. Without the option best fit takes the first
// rack; with it rack r2, the leader on its first host and the workers on
// the ssd host. When the preferred rack cannot hold the whole group, the
// next rack in order that does is taken.
func TestScenario_PodSetGroupPreferredNodeAffinity(t *testing.T) {
	group := func(workers int32) *placement.Group {
		g := ssdGroup("lws", workers)
		g.MinCount++
		g.PodSets = append([]placement.PodSet{{Name: "leader", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}, g.PodSets...)
		return g
	}
	reqs := []topology.PodSetRequest{{PodSet: "leader", Required: rackKey, Group: "g"}, {PodSet: "workers", Required: rackKey, Group: "g"}}
	on := topology.PlanOptions{NodeAffinityPreferred: true}
	s := snapshot(t, withLabel(brh(uniform(1, 2, 2, 4)), "disk", "ssd", "b1-r2-h2"))

	p := plan(t, s, group(3), topology.PlanOptions{}, reqs...)
	require.Equal(t, "b1/r1", p.Decision.Placement.Name)
	require.Equal(t, map[string]int32{"b1-r1-h1": 1}, counts(p.Decision, "leader"))
	require.Equal(t, map[string]int32{"b1-r1-h1": 3}, counts(p.Decision, "workers"))

	p = plan(t, s, group(3), on, reqs...)
	require.Equal(t, "b1/r2", p.Decision.Placement.Name)
	require.Equal(t, map[string]int32{"b1-r2-h1": 1}, counts(p.Decision, "leader"))
	require.Equal(t, map[string]int32{"b1-r2-h2": 3}, counts(p.Decision, "workers"))

	// Rack r2 keeps three cores (one on h1, two on the ssd host): it
	// holds the three workers alone but not with the leader, so r1 takes
	// the group.
	caps := uniform(1, 2, 2, 4)
	caps[0][1] = []int64{1, 2}
	s = snapshot(t, withLabel(brh(caps), "disk", "ssd", "b1-r2-h2"))
	p = plan(t, s, group(3), on, reqs...)
	require.Equal(t, "b1/r1", p.Decision.Placement.Name)
	require.Equal(t, map[string]int32{"b1-r1-h1": 1}, counts(p.Decision, "leader"))
	require.Equal(t, map[string]int32{"b1-r1-h1": 3}, counts(p.Decision, "workers"))
}

// Preferred node affinity chooses a balanced set's racks. Twelve pods
// over racks of eight: two racks, six each. Without the option the
// first block's racks take them (every split is as tight); with the ssd
// host b2-r1-h1 block b2's split wins, and inside rack r1 the ssd host
// fills first. The even split stays first: with b2's racks cut to four
// cores each (three racks needed), b1's two-rack split wins again.
func TestScenario_BalancedPreferredNodeAffinity(t *testing.T) {
	req := topology.PodSetRequest{PodSet: "workers", Preferred: rackKey}
	on := topology.PlanOptions{Balanced: true, NodeAffinityPreferred: true}
	s := snapshot(t, withLabel(brh(uniform(2, 2, 2, 4)), "disk", "ssd", "b2-r1-h1"))
	p := plan(t, s, ssdGroup("bal", 12), topology.PlanOptions{Balanced: true}, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 2, "b1-r2-h1": 4, "b1-r2-h2": 2}, counts(p.Decision, "workers"))
	p = plan(t, s, ssdGroup("bal", 12), on, req)
	require.Equal(t, map[string]int32{"b2-r1-h1": 4, "b2-r1-h2": 2, "b2-r2-h1": 4, "b2-r2-h2": 2}, counts(p.Decision, "workers"))

	// One block of three racks, the ssd host in r3: r3 and the first of
	// the others, r1, take six each.
	s = snapshot(t, withLabel(brh(uniform(1, 3, 2, 4)), "disk", "ssd", "b1-r3-h2"))
	p = plan(t, s, ssdGroup("bal", 12), topology.PlanOptions{Balanced: true}, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 2, "b1-r2-h1": 4, "b1-r2-h2": 2}, counts(p.Decision, "workers"))
	p = plan(t, s, ssdGroup("bal", 12), on, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 2, "b1-r3-h2": 4, "b1-r3-h1": 2}, counts(p.Decision, "workers"))

	caps := [][][]int64{{{4, 4}, {4, 4}}, {{2, 2}, {2, 2}, {2, 2}}}
	s = snapshot(t, withLabel(brh(caps), "disk", "ssd", "b2-r1-h1", "b2-r2-h1", "b2-r3-h1"))
	p = plan(t, s, ssdGroup("bal", 12), on, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 2, "b1-r2-h1": 4, "b1-r2-h2": 2}, counts(p.Decision, "workers"))
}
