package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// TestKueueLeader: Kueue v0.17's leader of a PodSetGroup of two sets is
// the second in g.PodSets' order unless it has more pods than the first,
// whatever order the requests come in; other groups have none.
func TestKueueLeader(t *testing.T) {
	set := func(name string, count int32) placement.PodSet { return placement.PodSet{Name: name, Count: count} }
	req := func(name, group string) topology.PodSetRequest {
		return topology.PodSetRequest{PodSet: name, Required: rackKey, Group: group}
	}
	for _, c := range []struct {
		name          string
		sets          []placement.PodSet
		reqs          []topology.PodSetRequest
		lead, workers string
		ok            bool
	}{
		{"one pod each: the second leads", []placement.PodSet{set("a", 1), set("b", 1)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g")}, "b", "a", true},
		{"one pod each, the other order", []placement.PodSet{set("b", 1), set("a", 1)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g")}, "a", "b", true},
		{"the second has more pods: the first leads", []placement.PodSet{set("l", 1), set("w", 3)},
			[]topology.PodSetRequest{req("w", "g"), req("l", "g")}, "l", "w", true},
		{"the second has fewer pods: it leads", []placement.PodSet{set("w", 3), set("l", 1)},
			[]topology.PodSetRequest{req("w", "g"), req("l", "g")}, "l", "w", true},
		{"equal counts above one: the second leads", []placement.PodSet{set("a", 2), set("b", 2)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g")}, "b", "a", true},
		{"a set between", []placement.PodSet{set("a", 1), set("x", 5), set("b", 1)},
			[]topology.PodSetRequest{req("a", "g"), req("x", ""), req("b", "g")}, "b", "a", true},
		{"three sets", []placement.PodSet{set("a", 1), set("b", 2), set("c", 2)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g"), req("c", "g")}, "", "", false},
		{"one set", []placement.PodSet{set("a", 1), set("b", 2)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "")}, "", "", false},
		{"a set the group lacks", []placement.PodSet{set("a", 1)},
			[]topology.PodSetRequest{req("a", "g"), req("b", "g")}, "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &placement.Group{Namespace: "default", Name: "w", PodSets: c.sets}
			lead, workers, ok := topology.KueueLeader(g, c.reqs, "g")
			require.Equal(t, c.ok, ok)
			require.Equal(t, c.lead, lead)
			require.Equal(t, c.workers, workers)
		})
	}
	_, _, ok := topology.KueueLeader(nil, nil, "g")
	require.False(t, ok)
}

// TestKueueLeaderAware_SpecOrder: under the Kueue profiles PlanPodSets
// takes Kueue v0.17's leader of a PodSetGroup of two one-pod sets (the
// second in g.PodSets' order) and filters the group's hosts by the
// workers' node selector alone, as Kueue does; each answer below is the
// one Kueue's TAS gives (FindTopologyAssignmentsForFlavor run in-process
// on the same nodes and sets, 2026-12-07). Swapping the two sets' places
// in g.PodSets swaps the leader, and so the answer.
func TestKueueLeaderAware_SpecOrder(t *testing.T) {
	// Set "sel" (1 pod, 1 core) selects pool=w, set "any" (1 pod, 1 core)
	// selects nothing; rack r1 has b1-r1-h1 (1 core, pool=w) and
	// b1-r1-h2 (3 cores, no pool label).
	sel := placement.PodSet{Name: "sel", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}, NodeSelector: map[string]string{"pool": "w"}}}
	anyp := placement.PodSet{Name: "any", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}
	nodes := []placement.Node{
		node("b1-r1-h1", 1000, blockKey, "b1", rackKey, "r1", hostKey, "b1-r1-h1", "pool", "w"),
		node("b1-r1-h2", 3000, blockKey, "b1", rackKey, "r1", hostKey, "b1-r1-h2"),
	}
	// The finding's world: block b1 of b1-r1-h1 (0.5 core), b1-r1-h2 (2
	// cores), b1-r2-h1 (0.5 core); "small" 1 pod of 0.5 core, "big" 1 pod
	// of 1 core, both required in the block.
	small := placement.PodSet{Name: "small", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 500}}}
	big := placement.PodSet{Name: "big", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}
	tie := []placement.Node{
		node("b1-r1-h1", 500, blockKey, "b1", rackKey, "r1", hostKey, "b1-r1-h1"),
		node("b1-r1-h2", 2000, blockKey, "b1", rackKey, "r1", hostKey, "b1-r1-h2"),
		node("b1-r2-h1", 500, blockKey, "b1", rackKey, "r2", hostKey, "b1-r2-h1"),
	}
	// Seed 13332 of the in-process differential: racks r1 (0 and 1
	// core), r2 (1.5 cores), r3 (2.5 and 2 cores); "w" 1 pod of 1 core,
	// then "l" 1 pod of 1.5 cores, preferring the block.
	w := placement.PodSet{Name: "w", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}
	l := placement.PodSet{Name: "l", Count: 1, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1500}}}
	twice := []placement.Node{
		node("b1-r1-h1", 0, blockKey, "b1", rackKey, "r1", hostKey, "b1-r1-h1"),
		node("b1-r1-h2", 1000, blockKey, "b1", rackKey, "r1", hostKey, "b1-r1-h2"),
		node("b1-r2-h1", 1500, blockKey, "b1", rackKey, "r2", hostKey, "b1-r2-h1"),
		node("b1-r3-h1", 2500, blockKey, "b1", rackKey, "r3", hostKey, "b1-r3-h1"),
		node("b1-r3-h2", 2000, blockKey, "b1", rackKey, "r3", hostKey, "b1-r3-h2"),
	}
	for _, c := range []struct {
		name      string
		nodes     []placement.Node
		sets      []placement.PodSet
		key       string
		preferred bool
		// kueueOnly: TASBalancedPlacement balances a preferred group and
		// places it otherwise (kueuebalancedgroup.go).
		kueueOnly bool
		want      map[string]string // pod set → host, nil when Unschedulable
		// assumed: Kueue's TAS answers the group and its API refuses the
		// answer ([topology.Plan].KueueAssumed).
		assumed bool
		// held: the pods Kueue's assumption places (KueueAssumed.Decision).
		held map[string]string
		// refused: the leader is on a host its own filters refuse, so
		// placement.Verify of the caller's group refuses the plan.
		refused bool
	}{
		// Kueue's workers are "sel": the hosts are b1-r1-h1 alone, whose
		// one core holds the leader or the worker, not both. Kueue's rack
		// counts both (the leader and, without it, the worker) and the
		// split down to the host does not complete: empty assignments.
		{name: "sel first, any leads", nodes: nodes, sets: []placement.PodSet{sel, anyp}, key: rackKey, assumed: true},
		// Kueue's workers are "any": both hosts pass, and b1-r1-h2 holds
		// the leader "sel" beside its worker, though sel's own selector
		// refuses that host (Kueue never reads it).
		{name: "any first, sel leads", nodes: nodes, sets: []placement.PodSet{anyp, sel}, key: rackKey,
			want: map[string]string{"any": "b1-r1-h2", "sel": "b1-r1-h2"}, refused: true},
		// The finding's world. Leader "big" beside worker "small": only
		// b1-r1-h2 holds the leader; the block's split does not complete.
		{name: "small first, big leads", nodes: tie, sets: []placement.PodSet{small, big}, key: blockKey, assumed: true},
		// Leader "small" beside worker "big": both on b1-r1-h2.
		{name: "big first, small leads", nodes: tie, sets: []placement.PodSet{big, small}, key: blockKey,
			want: map[string]string{"big": "b1-r1-h2", "small": "b1-r1-h2"}},
		// Leader "l": the block splits among its racks r3, r1, r2 (most
		// workers first); the best fit of the worker beside a leader
		// swaps r1 in for r3, which takes the worker but not the leader,
		// then meets r1 again in its own place and leaves it none; r2
		// takes the leader. Down to the hosts the same happens to
		// b1-r1-h2: Kueue writes the leader on b1-r2-h1 and the workers
		// empty, never admitted; its assumption holds the leader.
		{name: "the workers lost on the way down", nodes: twice, sets: []placement.PodSet{w, l}, key: blockKey, preferred: true, kueueOnly: true,
			assumed: true, held: map[string]string{"l": "b1-r2-h1"}},
	} {
		for _, prof := range []topology.Profile{topology.KueueProfile, topology.KueueBalancedProfile} {
			if c.kueueOnly && prof != topology.KueueProfile {
				continue
			}
			t.Run(c.name+"/"+prof.String(), func(t *testing.T) {
				g := &placement.Group{Namespace: "default", Name: "lws", PodSets: c.sets, MinCount: 2}
				var reqs []topology.PodSetRequest
				for _, s := range c.sets {
					r := topology.PodSetRequest{PodSet: s.Name, Required: c.key, Group: "lws"}
					if c.preferred {
						r.Required, r.Preferred = "", c.key
					}
					reqs = append(reqs, r)
				}
				s := snapshot(t, c.nodes)
				p, err := tree(t, s, blockKey, rackKey, hostKey).PlanPodSets(s, g, reqs, prof.Options())
				require.NoError(t, err)
				got := map[string]string{}
				for _, a := range p.Decision.PodSetAssignments {
					got[a.PodSet] = a.Node
				}
				require.Equal(t, c.assumed, p.KueueAssumed != nil, p.Decision.Message)
				if c.held != nil {
					held := map[string]string{}
					for _, a := range p.KueueAssumed.Decision.PodSetAssignments {
						held[a.PodSet] = a.Node
					}
					require.Equal(t, c.held, held)
				}
				if c.want == nil {
					require.Equal(t, placement.Unschedulable, p.Decision.Status)
					return
				}
				require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
				require.Equal(t, c.want, got)
				if c.refused {
					require.Error(t, placement.Verify(s, g, p.Decision))
				} else {
					require.NoError(t, placement.Verify(s, g, p.Decision))
				}
			})
		}
	}
}
