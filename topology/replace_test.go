package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// failure is how a failed node shows in the snapshot.
type failure int

const (
	tainted  failure = iota // still there, tainted NoExecute
	gone                    // not in the snapshot
	notReady                // still there, no taint: only Failed says so
)

func (f failure) String() string { return [...]string{"tainted", "gone", "not ready"}[f] }

// replaceOn reserves the survivors of existing (pods per node of set
// "workers" of "default/el") on a 2 × 2 × 3 cluster of 4-core hosts
// with pods others, the nodes of failed shown as f says, and replaces
// the failed nodes' pods with req, the set's count being count.
func replaceOn(t *testing.T, f failure, existing map[string]int32, failed []string, count int32, req topology.PodSetRequest, others ...placement.Pod) (placement.Repaired, error) {
	t.Helper()
	return replaceWith(t, topology.PlanOptions{}, f, existing, failed, count, req, others...)
}

// replaceWith is replaceOn with plan options opts.
func replaceWith(t *testing.T, opts topology.PlanOptions, f failure, existing map[string]int32, failed []string, count int32, req topology.PodSetRequest, others ...placement.Pod) (placement.Repaired, error) {
	t.Helper()
	var nodes []placement.Node
	for _, n := range brh(uniform(2, 2, 3, 4)) {
		switch isFailed := contains(failed, n.Name); {
		case isFailed && f == gone:
			continue
		case isFailed && f == tainted:
			n.Taints = []placement.Taint{{Key: "node.kubernetes.io/unreachable", Effect: placement.TaintEffectNoExecute}}
		}
		nodes = append(nodes, n)
	}
	var busy []placement.Pod
	for _, p := range others {
		if f != gone || !contains(failed, p.NodeName) {
			busy = append(busy, p)
		}
	}
	s := snapshot(t, nodes, busy...)
	tr := tree(t, s, blockKey, rackKey, hostKey)
	g := podSetGroup("el", count)
	var all, survivors []placement.PodSetAssignment
	for _, n := range brh(uniform(2, 2, 3, 4)) {
		if k := existing[n.Name]; k > 0 {
			all = append(all, placement.PodSetAssignment{PodSet: "workers", Node: n.Name, Count: k})
			if !contains(failed, n.Name) {
				id, _ := s.NodeID(n.Name)
				survivors = append(survivors, placement.PodSetAssignment{PodSet: "workers", Node: n.Name, NodeID: id, Count: k})
			}
		}
	}
	if len(survivors) > 0 {
		var err error
		s, err = s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: survivors}}})
		require.NoError(t, err)
	}
	rep, err := tr.ReplacePodSet(s, g, req, placement.Repair{PodSet: "workers", Existing: all, Failed: failed}, opts)
	if err == nil && rep.Repairable && len(rep.Replacements) > 0 {
		d := rep.Decisions[0]
		require.NoError(t, placement.Verify(s, podSetGroup("el", count-sum(existing)+lostOf(existing, failed)), d))
	}
	return rep, err
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// lostOf sums the pods of existing on failed nodes.
func lostOf(existing map[string]int32, failed []string) int32 {
	var n int32
	for _, f := range failed {
		n += existing[f]
	}
	return n
}

// Node replacement of a sliced set, worked by hand on 2 blocks × 2 racks
// × 3 hosts of 4 cores (the set required in a block): a failed node's
// pods are replaced alike whether the node is tainted, gone from the
// snapshot or only named failed — the survivors stay, the slices the lost
// pods leave incomplete are completed in their own domains, slices lost
// whole go whole anywhere in the required domain, and a set that cannot
// be so repaired must be evicted.
func TestScenario_ReplacePodSet(t *testing.T) {
	rack4 := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	rackHost := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	host2 := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: hostKey, Size: 2}}}
	multi := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{
		{Key: blockKey, Size: 8}, {Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	for _, tc := range []struct {
		name         string
		existing     map[string]int32
		failed       []string
		count        int32 // 0: the pods of existing
		req          topology.PodSetRequest
		others       []placement.Pod
		repairable   bool
		replacements map[string]int32
		after        map[string]int32
		reason       string
	}{{
		// A host slice (2 of rack slice 4) is lost with b1-r1-h1: the
		// rack slice is incomplete, so its 2 pods come back in rack r1,
		// as a host slice on the one host there with room, h3 (h2 is
		// full). Before, a tainted host's slice had only that host as its
		// domain and the set was evicted.
		name: "a lost host slice comes back in its rack", existing: map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2}, failed: []string{"b1-r1-h1"}, req: rackHost,
		others:       []placement.Pod{busy("b1-r1-h2", 2)},
		repairable:   true,
		replacements: map[string]int32{"b1-r1-h3": 2},
		after:        map[string]int32{"b1-r1-h2": 2, "b1-r1-h3": 2},
	}, {
		// A whole rack slice is lost with b1-r1-h1: it comes back whole in
		// the required block b1, in the tightest rack that holds it, r2
		// (h3's 4 cores; h2 is busy), not its old rack r1 (8 free).
		name: "a slice lost whole comes back anywhere in the required block", existing: map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4}, failed: []string{"b1-r1-h1"}, req: rack4,
		others:       []placement.Pod{busy("b1-r2-h2", 4)},
		repairable:   true,
		replacements: map[string]int32{"b1-r2-h3": 4},
		after:        map[string]int32{"b1-r2-h1": 4, "b1-r2-h3": 4},
	}, {
		// Host slices of 2 alone: the lost host slice is whole, so it
		// may go to any host of block b1. Rack b1/r1 is full, so it leaves
		// the rack, for the tightest host of b1/r2 with room, h2 (2 free).
		name: "a host slice lost whole goes to the tightest host of the block", existing: map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2}, failed: []string{"b1-r1-h1"}, req: host2,
		others:       []placement.Pod{busy("b1-r1-h2", 2), busy("b1-r1-h3", 4), busy("b1-r2-h2", 2)},
		repairable:   true,
		replacements: map[string]int32{"b1-r2-h2": 2},
		after:        map[string]int32{"b1-r1-h2": 2, "b1-r2-h2": 2},
	}, {
		// Three layers: the rack slice on b2-r2-h1 is lost, leaving block
		// slice b2 at 4 of 8. It is completed inside b2 by one rack slice;
		// r2 (6 free: h2 2, h3 4) is tighter than r1 (8 free).
		name: "three layers complete the block slice in its block", existing: map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2, "b2-r2-h1": 4}, failed: []string{"b2-r2-h1"}, req: multi,
		others:       []placement.Pod{busy("b2-r2-h2", 2)},
		repairable:   true,
		replacements: map[string]int32{"b2-r2-h2": 2, "b2-r2-h3": 2},
		after:        map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2, "b2-r2-h2": 2, "b2-r2-h3": 2},
	}, {
		// Two hosts fail at once, one pod each of rack slice r1 (2 + 1 +
		// 1 over h1, h2, h3): 2 come back in r1, on h3 (4 free).
		name: "two failed hosts of one slice", existing: map[string]int32{"b1-r1-h1": 1, "b1-r1-h2": 1, "b1-r1-h3": 2, "b1-r2-h1": 4}, failed: []string{"b1-r1-h1", "b1-r1-h2"}, req: rack4,
		repairable:   true,
		replacements: map[string]int32{"b1-r1-h3": 2},
		after:        map[string]int32{"b1-r1-h3": 4, "b1-r2-h1": 4},
	}, {
		// The incomplete rack slice cannot be completed: r1's other hosts
		// are full, though rack r2 is empty. The set must be evicted.
		name: "an incomplete slice with no room in its rack", existing: map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2}, failed: []string{"b1-r1-h1"}, req: rack4,
		others: []placement.Pod{busy("b1-r1-h2", 2), busy("b1-r1-h3", 4)},
		after:  map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2},
		reason: `2 pods of failed node(s) b1-r1-h1 cannot be replaced in their domains: pod set "workers" of PodGroup "default/el" needs 2 more pods in b1/r1 ` +
			`to complete the slice of 4 pods its 2 existing pods began there; it holds 0; the workload must be evicted whole`,
	}, {
		// Every pod was on the failed host: no domain to keep, so the set
		// is planned as new, in the tightest rack of the cluster that
		// holds it: b2/r2, where h3 has 4 free.
		name: "no survivors: planned as new", existing: map[string]int32{"b1-r1-h1": 4}, failed: []string{"b1-r1-h1"}, req: rack4,
		others:       []placement.Pod{busy("b2-r2-h1", 4), busy("b2-r2-h2", 4)},
		repairable:   true,
		replacements: map[string]int32{"b2-r2-h3": 4},
		after:        map[string]int32{"b2-r2-h3": 4},
	}, {
		// The set shrinks to its survivors in the same step: nothing to
		// replace.
		name: "a count the survivors hold", existing: map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4}, failed: []string{"b1-r1-h1"}, count: 4, req: rack4,
		repairable:   true,
		replacements: map[string]int32{},
		after:        map[string]int32{"b1-r2-h1": 4},
	}} {
		for _, f := range []failure{tainted, gone, notReady} {
			t.Run(tc.name+"/"+f.String(), func(t *testing.T) {
				count := tc.count
				if count == 0 {
					count = sum(tc.existing)
				}
				rep, err := replaceOn(t, f, tc.existing, tc.failed, count, tc.req, tc.others...)
				require.NoError(t, err)
				require.Equal(t, tc.repairable, rep.Repairable, rep.Reason)
				require.Equal(t, tc.after, perNode(rep.Assignments))
				if !tc.repairable {
					require.Equal(t, tc.reason, rep.Reason)
					return
				}
				require.Equal(t, tc.replacements, perNode(rep.Replacements))
			})
		}
	}
}

// Bad replacement requests are input errors naming the field.
func TestReplacePodSet_BadInput(t *testing.T) {
	rack4 := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	s := snapshot(t, brh(uniform(1, 2, 2, 4)))
	tr := tree(t, s, blockKey, rackKey, hostKey)
	g := podSetGroup("el", 4)
	existing := []placement.PodSetAssignment{{PodSet: "workers", Node: "b1-r1-h1", Count: 2}, {PodSet: "workers", Node: "b1-r1-h2", Count: 2}}
	for _, tc := range []struct {
		name string
		r    placement.Repair
		err  string
	}{
		{"keep set", placement.Repair{PodSet: "workers", Existing: existing, Failed: []string{"b1-r1-h1"}, Keep: []string{rackKey}},
			`pod set "workers" of PodGroup "default/el": repair.keep: [topology.kubernetes.io/rack]: the levels a replacement keeps come from the set's topology request`},
		{"a failed node twice", placement.Repair{PodSet: "workers", Existing: existing, Failed: []string{"b1-r1-h1", "b1-r1-h1"}},
			`pod set "workers" of PodGroup "default/el": repair.failed[1]: "b1-r1-h1" is empty or listed twice`},
		{"an unknown node not failed", placement.Repair{PodSet: "workers", Existing: append([]placement.PodSetAssignment{{PodSet: "workers", Node: "b9-r1-h1", Count: 1}}, existing...), Failed: []string{"b1-r1-h1"}},
			`pod set "workers" of PodGroup "default/el": repair.existing[0].node: "b9-r1-h1" is not in the snapshot and not listed in repair.failed`},
		{"a set the group lacks", placement.Repair{PodSet: "nope", Existing: existing, Failed: []string{"b1-r1-h1"}},
			`PodGroup "default/el": repair.podSet: the group has no pod set "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tr.ReplacePodSet(s, g, rack4, tc.r, topology.PlanOptions{})
			require.EqualError(t, err, tc.err)
		})
	}
	r := placement.Repair{PodSet: "workers", Existing: existing, Failed: []string{"b1-r1-h1"}}
	_, err := tr.ReplacePodSet(nil, g, rack4, r, topology.PlanOptions{})
	require.ErrorIs(t, err, placement.ErrInvalid, "a nil snapshot")
	_, err = tr.ReplacePodSet(s, nil, rack4, r, topology.PlanOptions{})
	require.ErrorIs(t, err, placement.ErrInvalid, "a nil group")
	other := rack4
	other.PodSet = "leader"
	_, err = tr.ReplacePodSet(s, g, other, r, topology.PlanOptions{})
	require.EqualError(t, err, `pod set "workers" of PodGroup "default/el": request.podSet: "leader" is not the repaired set "workers"`)
}

// A replacement, as a resize, refuses survivors the snapshot does not
// hold (no reservation of the set, no pods bound): its growth would be
// stacked on pods it never counted (the tester libbreak's finding 01).
func TestReplacePodSet_SurvivorsNotHeld(t *testing.T) {
	var nodes []placement.Node
	for _, h := range []string{"h0", "h1", "h2"} {
		nodes = append(nodes, node(h, 4000, rackKey, "r0", hostKey, h))
	}
	s := snapshot(t, nodes)
	tree, err := topology.NewTree(s, []string{rackKey, hostKey})
	require.NoError(t, err)
	g := &placement.Group{Namespace: "d", Name: "g", MinCount: 8, PodSets: []placement.PodSet{{Name: "w", Count: 8, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
	r := placement.Repair{PodSet: "w", Existing: []placement.PodSetAssignment{{Node: "h0", Count: 4}, {Node: "h1", Count: 4}}, Failed: []string{"h1"}}
	for _, prof := range []topology.Profile{topology.GangschedProfile, topology.KueueProfile} {
		_, err := tree.ReplacePodSet(s, g, topology.PodSetRequest{PodSet: "w", Required: rackKey}, r, prof.Options())
		require.EqualError(t, err, `pod set "w" of PodGroup "d/g": resize.existing: lists 4 pods on node "h0", requesting 4000 cpu, but the pods bound there request 0: the snapshot must hold the existing pods (bound, or reserved with Change.Reserve)`, prof.String())
	}
}
