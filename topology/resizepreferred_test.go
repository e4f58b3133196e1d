package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// An elastic set with a Preferred level grown by Tree.ResizePodSet,
// worked by hand on 2 blocks × 2 racks × 2 hosts of 4 cores (pods of one
// core): the delta goes into the existing pods' domain of the level when
// it fits there, else into the narrowest wider domain holding them that
// fits, and only then wherever a new set would go. In every case a new
// set of the delta's size would take the tighter rack b1/r1 (4 free, a
// busy host beside it), away from the existing pods in b2/r2.
func TestScenario_ResizePreferredSet(t *testing.T) {
	rack := topology.PodSetRequest{PodSet: "workers", Preferred: rackKey}
	block := topology.PodSetRequest{PodSet: "workers", Preferred: blockKey}
	slicedRack := topology.PodSetRequest{PodSet: "workers", Preferred: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	tight := busy("b1-r1-h1", 4)
	for _, tc := range []struct {
		name     string
		existing map[string]int32
		count    int32
		req      topology.PodSetRequest
		others   []placement.Pod
		status   placement.Status
		delta    map[string]int32
		message  string
	}{{
		// b2/r2 has 6 free: the 4 new pods join it, on the host that
		// holds them all (h2) rather than on the tighter rack b1/r1.
		name: "stays in the existing pods' rack", existing: map[string]int32{"b2-r2-h1": 2}, count: 6, req: rack,
		others: []placement.Pod{tight},
		status: placement.Scheduled,
		delta:  map[string]int32{"b2-r2-h2": 4},
	}, {
		// b2/r2 has 2 free: the 4 new pods go to the rack of the same
		// block that holds them, b2/r1, on one host.
		name: "widens to the existing pods' block", existing: map[string]int32{"b2-r2-h1": 2}, count: 6, req: rack,
		others: []placement.Pod{tight, busy("b2-r2-h2", 4)},
		status: placement.Scheduled,
		delta:  map[string]int32{"b2-r1-h1": 4},
	}, {
		// No rack of b2 holds 6 more (4 and 2 free), the block does: the
		// delta spreads over its racks rather than take a rack of b1.
		name: "spreads inside the existing pods' block before leaving it", existing: map[string]int32{"b2-r2-h1": 2}, count: 8, req: rack,
		others: []placement.Pod{busy("b2-r2-h2", 4), busy("b2-r1-h1", 4)},
		status: placement.Scheduled,
		delta:  map[string]int32{"b2-r1-h2": 4, "b2-r2-h1": 2},
	}, {
		// b2 has 6 free, short of 8: the delta is planned as a new set,
		// in one rack of b1.
		name: "leaves the block when it does not fit there", existing: map[string]int32{"b2-r2-h1": 2}, count: 10, req: rack,
		others: []placement.Pod{busy("b2-r1-h1", 4), busy("b2-r1-h2", 4)},
		status: placement.Scheduled,
		delta:  map[string]int32{"b1-r1-h1": 4, "b1-r1-h2": 4},
	}, {
		// A preferred block: the 4 new pods stay in b2, though b1 holds
		// them more tightly.
		name: "stays in the existing pods' block", existing: map[string]int32{"b2-r2-h1": 2}, count: 6, req: block,
		others: []placement.Pod{tight, busy("b1-r1-h2", 4), busy("b1-r2-h1", 4)},
		status: placement.Scheduled,
		delta:  map[string]int32{"b2-r2-h2": 4},
	}, {
		// Sliced (4 per rack, preferred block): the new slice stays in
		// block b2, in the rack that holds it (b2/r2 has 4 free on h2).
		name: "a sliced set's new slice stays in the existing pods' block", existing: map[string]int32{"b2-r2-h1": 4}, count: 8, req: slicedRack,
		others: []placement.Pod{tight, busy("b1-r1-h2", 4), busy("b1-r2-h1", 4)},
		status: placement.Scheduled,
		delta:  map[string]int32{"b2-r2-h2": 4},
	}, {
		// 28 free in all, 30 asked: the set waits with a new set's reason.
		name: "waits when the cluster does not hold the delta", existing: map[string]int32{"b2-r2-h1": 2}, count: 32, req: rack,
		others:  []placement.Pod{busy("b1-r1-h1", 2)},
		status:  placement.Unschedulable,
		message: `pod set "workers" of PodGroup "default/el" needs 30 pods; the cluster holds 28`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := resizeOn(t, tc.existing, tc.count, tc.req, tc.others...)
			require.NoError(t, err)
			require.Equal(t, tc.status, rs.Decision.Status, rs.Decision.Message)
			if tc.delta == nil {
				tc.delta = map[string]int32{}
			}
			require.Equal(t, tc.delta, perNode(rs.Decision.PodSetAssignments))
			if tc.message != "" {
				require.Equal(t, tc.message, rs.Decision.Message)
			}
		})
	}
}
