package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Kueue's account of a set that does not fit ([topology.Plan].KueueNotFit)
// on one block of two racks of two hosts (2, 2 and 3, 3 CPUs), where
// b1-r1-h1 runs 4 CPUs (Kueue counts it -2 pods) and b1-r2-h1 runs 3 (0
// pods, for want of CPU): rack r1 counts 0 pods, r2 3, the block 3. A
// required level reports its fullest domain, the others every domain of
// the level searched added up, negative hosts included; b1-r2-h1 is the
// one node with no room at all (b1-r1-h1's count is below zero, which
// Kueue does not count as excluded).
func TestPlanPodSets_KueueNotFit(t *testing.T) {
	s := snapshot(t, brh([][][]int64{{{2, 2}, {3, 3}}}),
		placement.Pod{Namespace: "default", Name: "big", NodeName: "b1-r1-h1", Requests: placement.ResourceList{cpu: 4000}},
		placement.Pod{Namespace: "default", Name: "full", NodeName: "b1-r2-h1", Requests: placement.ResourceList{cpu: 3000}})
	one := func(count int32) *placement.Group {
		return &placement.Group{Namespace: "default", Name: "w", MinCount: count, PodSets: []placement.PodSet{
			{Name: "main", Count: count, Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
	}
	full := []topology.KueueFullNode{{Node: 2, Resource: cpu}}
	for _, c := range []struct {
		name  string
		count int32
		req   topology.PodSetRequest
		want  topology.KueueNotFit
	}{
		{"required rack: the fullest", 4, topology.PodSetRequest{PodSet: "main", Required: rackKey},
			topology.KueueNotFit{PodSet: "main", Fit: 3, Total: 4, SliceSize: 1, Full: full}},
		{"preferred rack: the block's total", 9, topology.PodSetRequest{PodSet: "main", Preferred: rackKey},
			topology.KueueNotFit{PodSet: "main", Fit: 3, Total: 9, SliceSize: 1, Full: full}},
		{"unconstrained: every host's, -2 included", 9, topology.PodSetRequest{PodSet: "main", Unconstrained: true},
			topology.KueueNotFit{PodSet: "main", Fit: 3, Total: 9, SliceSize: 1, Full: full}},
		{"slices of 2 per host required in a rack: r1 counts -1 + 1", 6,
			topology.PodSetRequest{PodSet: "main", Required: rackKey, Slices: []topology.SliceLayer{{Key: hostKey, Size: 2}}},
			topology.KueueNotFit{PodSet: "main", Fit: 1, Total: 3, SliceSize: 2, Full: full}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plan(t, s, one(c.count), topology.KueueProfile.Options(), c.req)
			require.Equal(t, placement.Unschedulable, p.Decision.Status)
			require.NotNil(t, p.KueueNotFit, p.Decision.Message)
			require.Equal(t, c.want, *p.KueueNotFit)
			// gangsched's profile, and a plan that fits, carry none.
			require.Nil(t, plan(t, s, one(c.count), topology.GangschedProfile.Options(), c.req).KueueNotFit)
			require.Nil(t, plan(t, s, one(2), topology.KueueProfile.Options(), c.req).KueueNotFit)
		})
	}
}
