package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/topology"
)

// Errors name what the caller got wrong (the tester libbreak's finding
// 06): a nil snapshot is the plan's, not Verify's; a nil or zero Tree is
// the tree's, not the snapshot's, and does not panic; a Resize naming a
// set the group lacks is resize.podSet's.
func TestTree_ErrorsNameTheCallersMistake(t *testing.T) {
	s := snapshot(t, []placement.Node{node("h0", 4000, rackKey, "r0")})
	tree, err := topology.NewTree(s, []string{rackKey})
	require.NoError(t, err)
	g := &placement.Group{Namespace: "d", Name: "g", MinCount: 2, PodSets: []placement.PodSet{{Name: "w", Count: 2,
		Template: placement.Pod{Requests: placement.ResourceList{cpu: 1000}}}}}
	req := []topology.PodSetRequest{{PodSet: "w", Required: rackKey}}
	notBuilt := "topology: tree: not built with NewTree (nil or a zero Tree)"

	_, err = tree.PlanPodSets(nil, g, req, topology.PlanOptions{})
	require.EqualError(t, err, "topology plan: snapshot: must not be nil")
	var zero topology.Tree
	_, err = zero.PlanPodSets(s, g, req, topology.PlanOptions{})
	require.EqualError(t, err, notBuilt)
	var none *topology.Tree
	_, err = none.PlanPodSets(s, g, req, topology.PlanOptions{})
	require.EqualError(t, err, notBuilt)
	_, err = none.ResizePodSet(s, g, req[0], placement.Resize{PodSet: "w"}, topology.PlanOptions{})
	require.EqualError(t, err, notBuilt)
	_, _, err = none.Free(s, 0, cpu)
	require.EqualError(t, err, notBuilt)
	_, err = tree.ResizePodSet(s, g, req[0], placement.Resize{PodSet: "nope"}, topology.PlanOptions{})
	require.EqualError(t, err, `PodGroup "d/g": resize.podSet: the group has no pod set "nope"`)
	require.ErrorIs(t, err, placement.ErrNotFound)
}
