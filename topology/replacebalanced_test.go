package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Node replacement of a set with a Preferred rack under Balanced, on a
// 2-level topology [rack, host] whose rack is the widest level, worked
// by hand: 3 pods of 1 core, 2 on r1-h1 (2 cores, full) and 1 on r1-h2,
// which is gone; r0-h1 has 4 cores, r1-h3 2 (busy or not), r2-h1 1.
// With warm, another group's set of 2 pods of 2 cores, Required rack,
// was planned first on the same tree (it takes r0, which it fills): as
// Kueue's repair of a Workload's first set before its second. The lost
// pod goes to the survivors' rack when it has room, else to the one
// rack with room, r2, never "0 of 0 placed" on the rack an earlier
// plan counted: before the fix, balanced searched the whole cluster
// for a widest-level preference while only the survivors' rack had
// been counted for the set, so it read r0's count of the other group's
// template (1 slice) and planned the pod there, where nothing fits.
func TestScenario_ReplaceBalancedPreferredWidest(t *testing.T) {
	for _, tc := range []struct {
		name         string
		warm         bool
		rackBusy     bool // r1-h3 full
		replacements map[string]int32
	}{
		{name: "survivors' rack full, after another set's plan", warm: true, rackBusy: true, replacements: map[string]int32{"r2-h1": 1}},
		{name: "survivors' rack full, on a fresh tree", rackBusy: true, replacements: map[string]int32{"r2-h1": 1}},
		{name: "survivors' rack with room, after another set's plan", warm: true, replacements: map[string]int32{"r1-h3": 1}},
		{name: "survivors' rack with room, on a fresh tree", replacements: map[string]int32{"r1-h3": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := []placement.Node{
				node("r0-h1", 4000, rackKey, "r0", hostKey, "r0-h1"),
				node("r1-h1", 2000, rackKey, "r1", hostKey, "r1-h1"),
				node("r1-h3", 2000, rackKey, "r1", hostKey, "r1-h3"),
				node("r2-h1", 1000, rackKey, "r2", hostKey, "r2-h1"),
			}
			var others []placement.Pod
			if tc.rackBusy {
				others = append(others, busy("r1-h3", 2))
			}
			s := snapshot(t, nodes, others...)
			g := podSetGroup("el", 3)
			id, _ := s.NodeID("r1-h1")
			survivors := []placement.PodSetAssignment{{PodSet: "workers", Node: "r1-h1", NodeID: id, Count: 2}}
			s, err := s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: survivors}}})
			require.NoError(t, err)
			tr := tree(t, s, rackKey, hostKey)
			opts := topology.PlanOptions{Balanced: true}
			if tc.warm {
				x := &placement.Group{Namespace: "default", Name: "x", MinCount: 2,
					PodSets: []placement.PodSet{{Name: "s0", Count: 2, Template: placement.Pod{Requests: placement.ResourceList{cpu: 2000}}}}}
				p, err := tr.PlanPodSets(s, x, []topology.PodSetRequest{{PodSet: "s0", Required: rackKey}}, opts)
				require.NoError(t, err)
				require.Equal(t, map[string]int32{"r0-h1": 2}, perNode(p.Decision.PodSetAssignments))
				s, err = s.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: x.Key(), PodSet: "s0", Requests: x.PodSets[0].Template.Requests, Nodes: p.Decision.PodSetAssignments}}})
				require.NoError(t, err)
			}
			req := topology.PodSetRequest{PodSet: "workers", Preferred: rackKey}
			all := []placement.PodSetAssignment{{PodSet: "workers", Node: "r1-h1", Count: 2}, {PodSet: "workers", Node: "r1-h2", Count: 1}}
			rep, err := tr.ReplacePodSet(s, g, req, placement.Repair{PodSet: "workers", Existing: all, Failed: []string{"r1-h2"}}, opts)
			require.NoError(t, err)
			require.True(t, rep.Repairable, rep.Reason)
			require.Equal(t, tc.replacements, perNode(rep.Replacements), rep.Decisions[0].Message)
			require.Equal(t, int32(3), sumOf(rep.Assignments))
			require.NoError(t, placement.Verify(s, podSetGroup("el", 1), rep.Decisions[0]))
		})
	}
}

// sumOf sums the entries' pods.
func sumOf(as []placement.PodSetAssignment) int32 {
	var n int32
	for _, a := range as {
		n += a.Count
	}
	return n
}
