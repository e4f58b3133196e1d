package topology_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// resizeOn reserves existing (pods per node) for set "workers" of the
// group "default/el" on a 2 × 2 × 2 cluster of 4-core hosts with pods
// others, and resizes the set to count with req.
func resizeOn(t *testing.T, existing map[string]int32, count int32, req topology.PodSetRequest, others ...placement.Pod) (placement.Resized, error) {
	t.Helper()
	return resizeOnCores(t, 4, existing, count, req, others...)
}

// resizeOnCores is resizeOn with hosts of cores CPUs.
func resizeOnCores(t *testing.T, cores int64, existing map[string]int32, count int32, req topology.PodSetRequest, others ...placement.Pod) (placement.Resized, error) {
	t.Helper()
	s := snapshot(t, brh(uniform(2, 2, 2, cores)), others...)
	tr := tree(t, s, blockKey, rackKey, hostKey)
	g := podSetGroup("el", count)
	var nodes []placement.PodSetAssignment
	for id := range placement.NodeID(s.NumNodes()) {
		if k := existing[s.Node(id).Name]; k > 0 {
			nodes = append(nodes, placement.PodSetAssignment{PodSet: "workers", Node: s.Node(id).Name, NodeID: id, Count: k})
		}
	}
	s, err := s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: nodes}}})
	require.NoError(t, err)
	rs, err := tr.ResizePodSet(s, g, req, placement.Resize{PodSet: "workers", Existing: nodes}, topology.PlanOptions{})
	if err == nil && rs.Decision.Status == placement.Scheduled && len(rs.Decision.PodSetAssignments) > 0 {
		delta := podSetGroup("el", count-sum(existing))
		require.NoError(t, placement.Verify(s, delta, rs.Decision))
	}
	return rs, err
}

func sum(m map[string]int32) int32 {
	var n int32
	for _, k := range m {
		n += k
	}
	return n
}

// perNode maps the entries' nodes to their counts.
func perNode(as []placement.PodSetAssignment) map[string]int32 {
	out := map[string]int32{}
	for _, a := range as {
		out[a.Node] = a.Count
	}
	return out
}

func busy(node string, cores int64) placement.Pod {
	return placement.Pod{Namespace: "x", Name: "busy-" + node, NodeName: node, Requests: placement.ResourceList{cpu: cores * 1000}}
}

// An elastic sliced set resized by Tree.ResizePodSet, worked by hand on
// 2 blocks × 2 racks × 2 hosts of 4 cores: the existing pods never move,
// a growth completes the slices they leave incomplete inside their slice
// domains first and adds whole new slices inside the required domain,
// and a shrink leaves whole slices.
func TestScenario_ResizeSlicedSet(t *testing.T) {
	rack4 := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	multi := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{
		{Key: blockKey, Size: 8}, {Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	rackHost := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	spread := topology.PodSetRequest{PodSet: "workers", Slices: multi.Slices} // no required level: blocks of 8 anywhere
	for _, tc := range []struct {
		name     string
		existing map[string]int32
		count    int32
		req      topology.PodSetRequest
		others   []placement.Pod
		status   placement.Status
		delta    map[string]int32 // the pods added
		after    map[string]int32 // the set's pods after
		removed  map[string]int32
		message  string
	}{{
		// One slice in b1/r1 grows by two: they go to the required block
		// b1, both in rack r2, which holds them whole (fewest racks).
		name: "grows by whole slices in the required block", existing: map[string]int32{"b1-r1-h1": 4}, count: 12, req: rack4,
		status: placement.Scheduled,
		delta:  map[string]int32{"b1-r2-h1": 4, "b1-r2-h2": 4},
		after:  map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4, "b1-r2-h2": 4},
	}, {
		// Two pods of the b1/r1 slice were lost (a gone node): the two
		// that replace them stay in r1, on the tighter host h1 (2 free),
		// though rack r2 has more room; the new slice needs a rack with
		// 4 free: r1's h2, as r2 has 2 left.
		name: "completes an incomplete slice in its rack first", existing: map[string]int32{"b1-r1-h1": 2, "b1-r2-h1": 4}, count: 12, req: rack4,
		others: []placement.Pod{busy("b1-r2-h2", 2)},
		status: placement.Scheduled,
		delta:  map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 4},
		after:  map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4, "b1-r2-h1": 4},
	}, {
		// Three layers (8 per block, 4 per rack, 2 per host): a rack
		// slice in b2/r1 (2 + 2) leaves its block slice half done. Its
		// other rack slice goes to the tighter rack, r1 itself (2 + 2
		// beside them); the next block slice, required in b2, fills r2.
		name: "three layers complete the block slice then add one", existing: map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2}, count: 16, req: multi,
		status: placement.Scheduled,
		delta:  map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2, "b2-r2-h1": 4, "b2-r2-h2": 4},
		after:  map[string]int32{"b2-r1-h1": 4, "b2-r1-h2": 4, "b2-r2-h1": 4, "b2-r2-h2": 4},
	}, {
		// With b2-r2-h2 one core short, rack r2 holds one rack slice
		// (host slices 2 + 1 of 2), so b2 has no room for a second block
		// slice: the set keeps its pods and waits.
		name: "waits when the required block has no room for the new slice", existing: map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2}, count: 16, req: multi,
		others: []placement.Pod{busy("b2-r2-h2", 1)},
		status: placement.Unschedulable,
		after:  map[string]int32{"b2-r1-h1": 2, "b2-r1-h2": 2},
		message: `pod set "workers" of PodGroup "default/el" needs 1 slice of 8 pods (each in one example.com/block domain) in one example.com/block domain; ` +
			`the best, b2, holds 0 slices (0 of 1 slice of 8 in one example.com/block domain, 1 of 2 slices of 4 in one topology.kubernetes.io/rack domain, 3 of 4 slices of 2 in one kubernetes.io/hostname domain) (besides the 4 pods that complete its existing pods' slices)`,
	}, {
		// A shrink by one slice empties the least filled rack, the last
		// by name among equals: r2.
		name: "shrinks by whole slices", existing: map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 2, "b1-r2-h2": 2}, count: 4, req: rack4,
		status:  placement.Scheduled,
		after:   map[string]int32{"b1-r1-h1": 4},
		removed: map[string]int32{"b1-r2-h1": 2, "b1-r2-h2": 2},
	}, {
		// The existing pods lost one of a slice (3 in b1/r1) and hold one
		// pod beyond a slice in b1/r2: the least filled rack r1 goes
		// first, then the lone pod on b1-r2-h2, leaving a whole slice.
		name: "shrinks incomplete slices to whole ones", existing: map[string]int32{"b1-r1-h1": 3, "b1-r2-h1": 4, "b1-r2-h2": 1}, count: 4, req: rack4,
		status:  placement.Scheduled,
		after:   map[string]int32{"b1-r2-h1": 4},
		removed: map[string]int32{"b1-r1-h1": 3, "b1-r2-h2": 1},
	}, {
		// Host slices of 2 with pods 1 + 3 and 3 + 1 per rack: the lone
		// pods go first, then one pod of each 3, so each rack keeps one
		// whole host slice (least filled first would have emptied r2 and
		// kept 1 + 3, no whole slices).
		name: "re-picks pods to keep host slices whole", existing: map[string]int32{"b1-r1-h1": 1, "b1-r1-h2": 3, "b1-r2-h1": 3, "b1-r2-h2": 1}, count: 4,
		req:     topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: hostKey, Size: 2}}},
		status:  placement.Scheduled,
		after:   map[string]int32{"b1-r1-h2": 2, "b1-r2-h1": 2},
		removed: map[string]int32{"b1-r1-h1": 1, "b1-r1-h2": 1, "b1-r2-h1": 1, "b1-r2-h2": 1},
	}, {
		// Two layers (4 per rack, 2 per host), whole: r1 holds 8, r2 4.
		// Down by one rack slice: the least filled rack r2 empties.
		name: "two layers lose the least filled rack slice", existing: map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4, "b1-r2-h1": 2, "b1-r2-h2": 2}, count: 8, req: rackHost,
		status:  placement.Scheduled,
		after:   map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4},
		removed: map[string]int32{"b1-r2-h1": 2, "b1-r2-h2": 2},
	}, {
		// Down by two rack slices: r2 empties, then r1 gives up one of
		// its hosts, a tie that goes to the last by name, h2.
		name: "two layers lose whole slices down to the hosts", existing: map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4, "b1-r2-h1": 2, "b1-r2-h2": 2}, count: 4, req: rackHost,
		status:  placement.Scheduled,
		after:   map[string]int32{"b1-r1-h1": 4},
		removed: map[string]int32{"b1-r1-h2": 4, "b1-r2-h1": 2, "b1-r2-h2": 2},
	}, {
		// Two layers, a pod lost on b1-r1-h1 (3 left): r1's 5 pods keep
		// one rack slice, r2's 4 one too. Both can keep 4; r2 holds
		// fewer pods, so it goes, and r1 sheds its odd pod.
		name: "two layers re-pick an incomplete rack", existing: map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 2, "b1-r2-h1": 2, "b1-r2-h2": 2}, count: 4, req: rackHost,
		status:  placement.Scheduled,
		after:   map[string]int32{"b1-r1-h1": 2, "b1-r1-h2": 2},
		removed: map[string]int32{"b1-r1-h1": 1, "b1-r2-h1": 2, "b1-r2-h2": 2},
	}, {
		// Three layers (8 per block, 4 per rack, 2 per host) over two
		// blocks: b1 holds 8, b2 16 (4 in r1, 8 in r2). Down by two block
		// slices: b1 empties, then b2's least filled rack r1.
		name: "three layers lose the least filled block, then rack", existing: map[string]int32{
			"b1-r1-h1": 4, "b1-r1-h2": 4, "b2-r1-h1": 2, "b2-r1-h2": 2, "b2-r2-h1": 4, "b2-r2-h2": 4}, count: 8, req: spread,
		status:  placement.Scheduled,
		after:   map[string]int32{"b2-r2-h1": 4, "b2-r2-h2": 4},
		removed: map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4, "b2-r1-h1": 2, "b2-r1-h2": 2},
	}, {
		// Three layers, pods lost in b1 (3 on each of three hosts): its
		// 9 pods hold one rack slice (2 + 2 in r1) but no block slice, so
		// they all go, though b1 holds more pods than b2, whose 8 stay.
		name: "three layers drop a block that lost its slice", existing: map[string]int32{
			"b1-r1-h1": 3, "b1-r1-h2": 3, "b1-r2-h1": 3, "b2-r1-h1": 4, "b2-r1-h2": 4}, count: 8, req: spread,
		status:  placement.Scheduled,
		after:   map[string]int32{"b2-r1-h1": 4, "b2-r1-h2": 4},
		removed: map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 3, "b1-r2-h1": 3},
	}, {
		name: "keeps the same count", existing: map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4}, count: 8, req: rack4,
		status: placement.Scheduled,
		after:  map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := resizeOn(t, tc.existing, tc.count, tc.req, tc.others...)
			require.NoError(t, err)
			require.Equal(t, tc.status, rs.Decision.Status, rs.Decision.Message)
			if tc.delta == nil {
				tc.delta = map[string]int32{}
			}
			if tc.removed == nil {
				tc.removed = map[string]int32{}
			}
			require.Equal(t, tc.delta, perNode(rs.Decision.PodSetAssignments))
			require.Equal(t, tc.after, perNode(rs.Assignments))
			require.Equal(t, tc.removed, perNode(rs.Removed))
			if tc.message != "" {
				require.Equal(t, tc.message, rs.Decision.Message)
			}
		})
	}
}

// Bad resizes of a sliced set are input errors naming the field.
func TestResizePodSet_BadInput(t *testing.T) {
	rack4 := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	for _, tc := range []struct {
		name     string
		existing map[string]int32
		count    int32
		req      topology.PodSetRequest
		err      string
		breaks   bool // the error wraps ErrShrinkBreaksSlices
	}{
		{"a count not a multiple of the slice size", map[string]int32{"b1-r1-h1": 4}, 10, rack4,
			`pod set "workers" of PodGroup "default/el": count: 10 pods is not a multiple of the slice size 4`, false},
		{"existing pods in two required domains", map[string]int32{"b1-r1-h1": 4, "b2-r1-h1": 4}, 12, rack4,
			`pod set "workers" of PodGroup "default/el": resize.existing: has pods in two domains of its required level "example.com/block", b1 and b2: the set already breaks its constraint`, false},
		{"a shrink to a count not a multiple of the slice size", map[string]int32{"b1-r1-h1": 4, "b1-r2-h1": 4}, 6, rack4,
			`pod set "workers" of PodGroup "default/el": count: 6 pods is not a multiple of the slice size 4`, false},
		// A pod lost from each of two rack slices (3 + 3 + 3 in two
		// racks): r2's 6 pods hold one whole slice, r1's 3 none, so no 8
		// of them are whole slices.
		{"a shrink its pods cannot keep in whole slices", map[string]int32{"b1-r1-h1": 3, "b1-r2-h1": 3, "b1-r2-h2": 3}, 8, rack4,
			`pod set "workers" of PodGroup "default/el": resize.existing: its 9 pods hold at most 4 pods in whole slices, fewer than the 8 to keep`, true},
		{"a request for another set", map[string]int32{"b1-r1-h1": 4}, 8, topology.PodSetRequest{PodSet: "other", Required: blockKey},
			`PodGroup "default/el": request.podSet: "other" is not the resized set "workers"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resizeOn(t, tc.existing, tc.count, tc.req)
			require.EqualError(t, err, tc.err)
			require.ErrorIs(t, err, placement.ErrInvalid)
			require.Equal(t, tc.breaks, errors.Is(err, topology.ErrShrinkBreaksSlices))
		})
	}
}

// A sliced shrink empties first the domain that can keep the fewest pods
// in whole slices, not the one holding the fewest pods: on 8-core hosts
// with rack slices of 4 and host slices of 2, rack r1 (5 + 3: 8 pods, 4
// of them whole slices) and r2 (4 + 4: 8 pods, all whole) hold 8 pods
// each. Down to 8, r1 goes whole and r2 stays; by pods alone the tie
// would take 4 of r2 (the last by name) and leave two half-used racks.
func TestScenario_ShrinkEmptiesTheDomainKeepingFewest(t *testing.T) {
	rackHost := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	rs, err := resizeOnCores(t, 8, map[string]int32{"b1-r1-h1": 5, "b1-r1-h2": 3, "b1-r2-h1": 4, "b1-r2-h2": 4}, 8, rackHost)
	require.NoError(t, err)
	require.Equal(t, map[string]int32{"b1-r2-h1": 4, "b1-r2-h2": 4}, perNode(rs.Assignments))
	require.Equal(t, map[string]int32{"b1-r1-h1": 5, "b1-r1-h2": 3}, perNode(rs.Removed))
	require.Equal(t, `pod set "workers" shrinks from 16 to 8 pods`, rs.Decision.Message)
}
