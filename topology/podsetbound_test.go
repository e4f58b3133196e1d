package topology_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// boundOn makes k bound members of group g, one core each, on node.
func boundOn(g, node string, k int) []placement.Pod {
	out := make([]placement.Pod, k)
	for i := range out {
		out[i] = placement.Pod{Namespace: "default", Name: fmt.Sprintf("%s-bound-%s-%d", g, node, i), SchedulingGroup: g, NodeName: node,
			Requests: placement.ResourceList{cpu: 1000}}
	}
	return out
}

// Five members of a set in slices of four per rack are bound: two in
// b1/r1, three in b1/r2. Seven more pods complete both racks' slices
// first (two in r1 on the host that has room for exactly two, one in r2
// beside the three), then the four left make a new slice in the
// required block b1: rack r1, whose free host holds it whole. Every
// rack then holds whole slices: r1 8 pods, r2 4.
func TestScenario_PodSetSlicesWithBoundMembers(t *testing.T) {
	bound := append(boundOn("sliced", "b1-r1-h1", 2), boundOn("sliced", "b1-r2-h1", 3)...)
	s := snapshot(t, brh(uniform(2, 2, 2, 4)), bound...)
	req := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{{Key: rackKey, Size: 4}}}
	p := plan(t, s, podSetGroup("sliced", 7), topology.PlanOptions{}, req)
	require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
	require.Equal(t, 5, p.Decision.Bound)
	require.Equal(t, "b1", p.PodSets[0].Domain)
	require.Equal(t, map[string]int32{"b1-r1-h1": 2, "b1-r2-h1": 1, "b1-r1-h2": 4}, counts(p.Decision, "workers"))

	// Three pods only complete the two slices begun.
	p = plan(t, s, podSetGroup("sliced", 3), topology.PlanOptions{}, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 2, "b1-r2-h1": 1}, counts(p.Decision, "workers"))

	// Members planned as the set are planned alike.
	g := gang("sliced", 7, members("sliced", 7, 1000))
	mreq := req
	mreq.PodSet = ""
	p = plan(t, s, g, topology.PlanOptions{}, mreq)
	require.Equal(t, map[string]int32{"b1-r1-h1": 2, "b1-r2-h1": 1, "b1-r1-h2": 4}, counts(p.Decision, ""))

	// Fifteen pods: three new slices do not fit in b1 beside the bound
	// ones (each rack keeps one slice of room after the completions), and
	// the bound members keep the set in b1.
	p = plan(t, s, podSetGroup("sliced", 15), topology.PlanOptions{}, req)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Equal(t, `pod set "workers" of PodGroup "default/sliced" needs 3 slices of 4 pods (each in one topology.kubernetes.io/rack domain) in one example.com/block domain; the best, b1, holds 2 slices (besides the 3 pods that complete its bound members' slices)`, p.Decision.Message)

	// A rack with no room to complete its slice.
	full := append(bound, placement.Pod{Namespace: "x", Name: "other", NodeName: "b1-r2-h1", Requests: placement.ResourceList{cpu: 1000}},
		placement.Pod{Namespace: "x", Name: "other2", NodeName: "b1-r2-h2", Requests: placement.ResourceList{cpu: 4000}})
	s2 := snapshot(t, brh(uniform(2, 2, 2, 4)), full...)
	p = plan(t, s2, podSetGroup("sliced", 7), topology.PlanOptions{}, req)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Equal(t, `pod set "workers" of PodGroup "default/sliced" needs 1 more pod in b1/r2 to complete the slice of 4 pods its 3 bound members began there; it holds 0`, p.Decision.Message)

	// Counts that do not make whole slices with the bound members, and a
	// second sliced set, are input errors naming the field.
	tr := tree(t, s, blockKey, rackKey, hostKey)
	_, err := tr.PlanPodSets(s, podSetGroup("sliced", 6), []topology.PodSetRequest{req}, topology.PlanOptions{})
	require.EqualError(t, err, `pod set "workers" of PodGroup "default/sliced": count: 6 pods and 5 bound members are not a multiple of the slice size 4`)
	two := podSetGroup("sliced", 3)
	two.PodSets = append(two.PodSets, placement.PodSet{Name: "more", Count: 4, Template: two.PodSets[0].Template})
	more := req
	more.PodSet = "more"
	_, err = tr.PlanPodSets(s, two, []topology.PodSetRequest{req, more}, topology.PlanOptions{})
	require.EqualError(t, err, `pod set "workers" of PodGroup "default/sliced": slices: the group has 5 bound members, which belong to its one sliced set, and pod set "more" of PodGroup "default/sliced" is sliced too`)
}

// Three slice layers (8 pods per block, 4 per rack, 2 per host) around
// one bound member on b1-r1-h1, on hosts of four cores. Innermost first:
// its host slice takes one more pod beside it; its rack then needs one
// more host slice, which the tighter host (h1, two cores left) takes; its
// block then needs one more rack slice, which the tighter rack (r1, one
// host of four left) takes. Seven pods complete the three layers; the
// eight left make a new block slice in the required block b1 (rack r2),
// whose every domain then holds whole slices of its layer.
func TestScenario_PodSetMultiLayerSlicesWithBoundMembers(t *testing.T) {
	bound := boundOn("multi", "b1-r1-h1", 1)
	s := snapshot(t, brh(uniform(2, 2, 2, 4)), bound...)
	req := topology.PodSetRequest{PodSet: "workers", Required: blockKey, Slices: []topology.SliceLayer{
		{Key: blockKey, Size: 8}, {Key: rackKey, Size: 4}, {Key: hostKey, Size: 2}}}
	p := plan(t, s, podSetGroup("multi", 15), topology.PlanOptions{}, req)
	require.Equal(t, placement.Scheduled, p.Decision.Status, p.Decision.Message)
	require.Equal(t, 1, p.Decision.Bound)
	require.Equal(t, "b1", p.PodSets[0].Domain)
	require.Equal(t, map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 4, "b1-r2-h1": 4, "b1-r2-h2": 4}, counts(p.Decision, "workers"))

	// Seven pods only complete the slices begun, at every layer.
	p = plan(t, s, podSetGroup("multi", 7), topology.PlanOptions{}, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 4}, counts(p.Decision, "workers"))

	// Slices alone (no required level) complete the same way, and the
	// new block slice goes to the block with the fewest slices of room
	// (LeastFreeCapacity): b1, one slice, against b2's two.
	free := req
	free.Required = ""
	p = plan(t, s, podSetGroup("multi", 15), topology.PlanOptions{}, free)
	require.Equal(t, map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 4, "b1-r2-h1": 4, "b1-r2-h2": 4}, counts(p.Decision, "workers"))

	// Members planned as the set are planned alike.
	mreq := req
	mreq.PodSet = ""
	p = plan(t, s, gang("multi", 15, members("multi", 15, 1000)), topology.PlanOptions{}, mreq)
	require.Equal(t, map[string]int32{"b1-r1-h1": 3, "b1-r1-h2": 4, "b1-r2-h1": 4, "b1-r2-h2": 4}, counts(p.Decision, ""))

	// Twenty-three pods: two new block slices do not fit in b1 beside
	// the completed ones.
	p = plan(t, s, podSetGroup("multi", 23), topology.PlanOptions{}, req)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Equal(t, `pod set "workers" of PodGroup "default/multi" needs 2 slices of 8 pods (each in one example.com/block domain) in one example.com/block domain; the best, b1, holds 1 slice (1 of 2 slices of 8 in one example.com/block domain, 2 of 4 slices of 4 in one topology.kubernetes.io/rack domain, 4 of 8 slices of 2 in one kubernetes.io/hostname domain) (besides the 7 pods that complete its bound members' slices)`, p.Decision.Message)

	// Another pod on b1-r1-h2 leaves rack r1 no room for a rack slice:
	// the block's completion goes to r2 (its first host), and no new
	// block slice fits beside it.
	busy := append(bound, placement.Pod{Namespace: "x", Name: "other", NodeName: "b1-r1-h2", Requests: placement.ResourceList{cpu: 3000}})
	s2 := snapshot(t, brh(uniform(2, 2, 2, 4)), busy...)
	p = plan(t, s2, podSetGroup("multi", 7), topology.PlanOptions{}, req)
	require.Equal(t, map[string]int32{"b1-r1-h1": 3, "b1-r2-h1": 4}, counts(p.Decision, "workers"))
	p = plan(t, s2, podSetGroup("multi", 15), topology.PlanOptions{}, req)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)

	// A host with no room to complete its host slice.
	full := append(bound, placement.Pod{Namespace: "x", Name: "other", NodeName: "b1-r1-h1", Requests: placement.ResourceList{cpu: 3000}})
	s3 := snapshot(t, brh(uniform(2, 2, 2, 4)), full...)
	p = plan(t, s3, podSetGroup("multi", 7), topology.PlanOptions{}, req)
	require.Equal(t, placement.Unschedulable, p.Decision.Status)
	require.Equal(t, `pod set "workers" of PodGroup "default/multi" needs 1 more pod in b1/r1/b1-r1-h1 to complete the slice of 2 pods its 1 bound member began there; it holds 0`, p.Decision.Message)
}
