package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Node replacement under KueueProfile (PlanOptions.KueueReplacement), on
// the 2 × 2 × 3 cluster of 4-core hosts of TestScenario_ReplacePodSet,
// worked by Kueue v0.17's rule (findReplacementAssignment): the lost pods
// are one request of their count with the set's request, confined to the
// incomplete slice's domain when the lost count breaks the outermost
// slice (the slices becoming the innermost layer the count fills whole),
// else to the survivors' required domain, else to nothing.
func TestScenario_ReplacePodSetKueue(t *testing.T) {
	rack4 := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	multi := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{
		{Key: blockKey, Size: 8}, {Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	for _, tc := range []struct {
		name         string
		existing     map[string]int32
		failed       []string
		req          topology.PodSetRequest
		others       []placement.Pod
		repairable   bool
		replacements map[string]int32
		reason       string
	}{{
		// Three layers, a rack slice (4 pods) lost with b2-r2-h1: 4 breaks
		// the block slice of 8 alone, so the replacement is confined to
		// block b2, as slices of the innermost layer 4 fills, hosts of 2;
		// no rack slice is kept. Best fit takes rack r2 (3 host slices
		// free: h2 1, h3 2) over r1 (4), then host h3, which holds both
		// slices. gangsched's own profile keeps a rack slice of 4 and
		// spreads it over r2's h2 and h3.
		name: "three layers: a lost rack slice comes back as host slices", existing: map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2, "b2-r2-h1": 4}, failed: []string{"b2-r2-h1"}, req: multi,
		others:       []placement.Pod{busy("b2-r2-h2", 2)},
		repairable:   true,
		replacements: map[string]int32{"b2-r2-h3": 4},
	}, {
		// Preferred rack without slices: nothing confines the lost pods,
		// planned as a new set of 2 would be: the best-fit rack of the
		// whole cluster, b2/r2 (2 free on h3), not the survivors' b1/r1
		// (6 free), where gangsched's profile keeps them.
		name: "a preferred set's lost pods go to the best-fit rack anywhere", existing: map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2}, failed: []string{"b1-r1-h1"},
		req:          topology.PodSetRequest{PodSet: "workers", Preferred: rackKey},
		others:       []placement.Pod{busy("b2-r2-h1", 4), busy("b2-r2-h2", 4), busy("b2-r2-h3", 2)},
		repairable:   true,
		replacements: map[string]int32{"b2-r2-h3": 2},
	}, {
		// Slices of 2 per rack, 3 pods lost with b1-r1-h1 (one slice
		// whole, half of the other, whose second pod survives on h2): 3
		// is no multiple of 2, so all 3 are confined to the incomplete
		// slice's rack b1/r1, whose hosts hold 1 more pod (h2). Kueue
		// evicts; gangsched's profile completes r1 on h2 and puts the
		// slice lost whole in rack b1/r2.
		name: "a broken slice confines the slice lost whole with it", existing: map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 1}, failed: []string{"b1-r1-h1"},
		req:    topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}}},
		others: []placement.Pod{busy("b1-r1-h2", 2), busy("b1-r1-h3", 4)},
		reason: `3 pods of failed node(s) b1-r1-h1 cannot be replaced in their domains: confined to b1/r1, Kueue's replacement domain: ` +
			`pod set "workers" of PodGroup "default/el" needs 3 pods in one example.com/block domain; the best, b1, holds 1; the workload must be evicted whole`,
	}, {
		// Slices alone (4 per rack), 2 of a slice lost: confined to rack
		// b1/r1, but 2 fill no slice, and a set of slices alone then
		// names no level: Kueue fails the request ("topology level not
		// specified") and evicts, room or not.
		name: "a slice-only set whose lost pods fill no slice", existing: map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2}, failed: []string{"b1-r1-h1"},
		req: topology.PodSetRequest{PodSet: "workers", Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}},
		reason: `2 pods of failed node(s) b1-r1-h1 cannot be replaced in their domains: no slice layer's size divides the 2 pods lost, and a set of slices alone then names ` +
			`no topology level for their replacement (Kueue v0.17: "topology level not specified"); the workload must be evicted whole`,
	}, {
		// The same required set, its lost pods a whole slice: confined to
		// the survivors' block b1, the slice kept, best fit b1/r2.
		name: "a slice lost whole stays in the required block", existing: map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4}, failed: []string{"b1-r1-h1"}, req: rack4,
		others:       []placement.Pod{busy("b1-r2-h2", 4)},
		repairable:   true,
		replacements: map[string]int32{"b1-r2-h3": 4},
	}} {
		for _, f := range []failure{tainted, gone, notReady} {
			t.Run(tc.name+"/"+f.String(), func(t *testing.T) {
				rep, err := replaceWith(t, topology.KueueProfile.Options(), f, tc.existing, tc.failed, sum(tc.existing), tc.req, tc.others...)
				require.NoError(t, err)
				require.Equal(t, tc.repairable, rep.Repairable, rep.Reason)
				if !tc.repairable {
					require.Equal(t, tc.reason, rep.Reason)
					require.Equal(t, tc.existing, perNode(rep.Assignments))
					return
				}
				require.Equal(t, tc.replacements, perNode(rep.Replacements))
				require.Equal(t, sum(tc.existing), sumOf(rep.Assignments))
			})
		}
	}
}

// The libbreak tester's differential cases (Kueue v0.17's own TAS code
// run on the same nodes, finding 05), at one pod per 1000m: hosts
// b<block>-r<rack>-h<host> with their pod room, the set's pods before
// the failure, and the one gone node.
func TestScenario_ReplacePodSetKueueDifferential(t *testing.T) {
	for _, tc := range []struct {
		name         string
		room         map[string]int64 // pods per host
		existing     map[string]int32
		failed       string
		req          topology.PodSetRequest
		repairable   bool
		replacements map[string]int32
	}{{
		// Seed 8676: preferred rack, slices of 2 per rack, 8 pods; 3 lost
		// with b0-r1-h2 break rack r1's slice, so all 3 are confined to
		// b0/r1, whose hosts hold 1 more pod (h3): Kueue evicts ("allows
		// to fit only 1 out of 3 pod(s)").
		name: "seed 8676", failed: "b0-r1-h2",
		room:     map[string]int64{"b0-r0-h0": 2, "b0-r1-h0": 2, "b0-r1-h1": 0, "b0-r1-h2": 3, "b0-r1-h3": 4, "b0-r2-h0": 2, "b0-r2-h1": 0},
		existing: map[string]int32{"b0-r1-h0": 2, "b0-r1-h2": 3, "b0-r1-h3": 3},
		req:      topology.PodSetRequest{PodSet: "workers", Preferred: rackKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 2}}},
	}, {
		// Seed 852: required block, slices of 2 per block, 6 pods; 3 lost
		// with b1-r0-h1 are one request of 3 in block b1 (no slices: 2
		// does not divide 3), best fit one host: b1-r0-h3 (5 free).
		name: "seed 852", failed: "b1-r0-h1",
		room: map[string]int64{"b0-r0-h0": 1, "b0-r0-h1": 3, "b1-r0-h0": 1, "b1-r0-h1": 3, "b1-r0-h2": 4, "b1-r0-h3": 5,
			"b2-r0-h0": 2, "b2-r0-h1": 2, "b2-r0-h2": 2, "b2-r0-h3": 1, "b2-r1-h0": 4, "b2-r1-h1": 4, "b2-r1-h2": 3,
			"b2-r2-h0": 0, "b2-r2-h1": 5, "b2-r2-h2": 2, "b2-r2-h3": 2},
		existing:     map[string]int32{"b1-r0-h0": 1, "b1-r0-h1": 3, "b1-r0-h2": 2},
		req:          topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: blockKey, Size: 2}}},
		repairable:   true,
		replacements: map[string]int32{"b1-r0-h3": 3},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var nodes []placement.Node
			for name, pods := range tc.room {
				if name != tc.failed {
					nodes = append(nodes, node(name, pods*1000, blockKey, name[:2], rackKey, name[3:5], hostKey, name))
				}
			}
			s := snapshot(t, nodes)
			g := podSetGroup("el", sum(tc.existing))
			var all, survivors []placement.PodSetAssignment
			for name, k := range tc.existing {
				all = append(all, placement.PodSetAssignment{PodSet: "workers", Node: name, Count: k})
				if name != tc.failed {
					id, _ := s.NodeID(name)
					survivors = append(survivors, placement.PodSetAssignment{PodSet: "workers", Node: name, NodeID: id, Count: k})
				}
			}
			s, err := s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: survivors}}})
			require.NoError(t, err)
			tr := tree(t, s, blockKey, rackKey, hostKey)
			rep, err := tr.ReplacePodSet(s, g, tc.req, placement.Repair{PodSet: "workers", Existing: all, Failed: []string{tc.failed}}, topology.KueueProfile.Options())
			require.NoError(t, err)
			require.Equal(t, tc.repairable, rep.Repairable, rep.Reason)
			if tc.repairable {
				require.Equal(t, tc.replacements, perNode(rep.Replacements))
			}
		})
	}
}

// When the failed node was the last node of the cluster (so no node
// carries a level's key any more), the set cannot be repaired: an answer
// with a reason under every profile, not a request error.
func TestReplacePodSet_LastNodeGone(t *testing.T) {
	s0 := snapshot(t, nil)
	tr0 := tree(t, s0, blockKey, rackKey, hostKey)
	g := podSetGroup("el", 2)
	req := topology.PodSetRequest{PodSet: "workers", Preferred: blockKey}
	for _, p := range []topology.Profile{topology.GangschedProfile, topology.KueueProfile, topology.KueueBalancedProfile} {
		t.Run(p.String(), func(t *testing.T) {
			existing := []placement.PodSetAssignment{{PodSet: "workers", Node: "n1", Count: 2}}
			rep, err := tr0.ReplacePodSet(s0, g, req, placement.Repair{PodSet: "workers", Existing: existing, Failed: []string{"n1"}}, p.Options())
			require.NoError(t, err)
			require.False(t, rep.Repairable)
			require.Equal(t, existing, rep.Assignments)
			require.Equal(t, placement.Unresolvable, rep.Decisions[0].Status)
			require.Contains(t, rep.Reason, `2 pods of failed node(s) n1 cannot be replaced in their domains: no domain at the topology level "example.com/block": `)
		})
	}
}
