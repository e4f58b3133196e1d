package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/internal/cputime"
	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// BenchmarkShrinkSliced: a running 4,096-pod set planned in slices of 32
// per rack and 8 per host over 1,000 hosts (10 blocks × 10 racks × 10
// hosts of 8 CPUs) shrinks to 2,048 pods, its existing pods passed back
// as reserved. "sliced" keeps whole slices (Tree.ResizePodSet's sliced
// shrink); "unsliced" is the same pods of a set without slices (the
// least-filled shrink of placement.SolveResize), for comparison.
func BenchmarkShrinkSliced(b *testing.B) {
	s0 := snapshot(b, brh(uniform(10, 10, 10, 8)))
	tr := tree(b, s0, blockKey, rackKey, hostKey)
	sliced := topology.PodSetRequest{PodSet: "workers", Slices: []topology.SliceLayer{{Key: rackKey, Size: 32}, {Key: hostKey, Size: 8}}}
	p, err := tr.PlanPodSets(s0, podSetGroup("el", 4096), []topology.PodSetRequest{sliced}, topology.PlanOptions{})
	require.NoError(b, err)
	require.Equal(b, placement.Scheduled, p.Decision.Status, p.Decision.Message)
	existing := p.Decision.PodSetAssignments
	g := podSetGroup("el", 2048)
	s, err := s0.Apply(placement.Change{Reserve: []placement.PodSetUsage{{Group: g.Key(), PodSet: "workers", Requests: g.PodSets[0].Template.Requests, Nodes: existing}}})
	require.NoError(b, err)
	for _, c := range []struct {
		name string
		req  topology.PodSetRequest
	}{{"sliced", sliced}, {"unsliced", topology.PodSetRequest{PodSet: "workers"}}} {
		b.Run(c.name, func(b *testing.B) {
			cputime.Loop(b, func() {
				rs, err := tr.ResizePodSet(s, g, c.req, placement.Resize{PodSet: "workers", Existing: existing}, topology.PlanOptions{})
				if err != nil || len(rs.Removed) == 0 {
					b.Fatal(err, rs.Decision.Message)
				}
			})
		})
	}
}
