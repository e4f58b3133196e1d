package topology_test

import (
	"errors"
	"fmt"
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

// NewTree refuses what no topology is: no keys, more than MaxLevels (a
// 256-key tree of 2,000 nodes took 12 s to build, the tester libbreak's
// finding 09), an empty key, one listed twice.
func TestNewTree_Errors(t *testing.T) {
	s := snapshot(t, []placement.Node{node("h0", 4000, rackKey, "r0")})
	many := make([]string, topology.MaxLevels+1)
	for i := range many {
		many[i] = fmt.Sprintf("l%02d", i)
	}
	_, err := topology.NewTree(s, many[:topology.MaxLevels])
	require.NoError(t, err)
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{nil, "topology tree: keys: no topology keys given"},
		{many, "topology tree: keys: 18 keys, more than the 17 levels a topology may have"},
		{[]string{rackKey, ""}, "topology tree: keys[1]: topology key must not be empty"},
		{[]string{rackKey, hostKey, rackKey}, `topology key "topology.kubernetes.io/rack": keys[2]: listed twice (also keys[0])`},
	} {
		_, err := topology.NewTree(s, tc.keys)
		require.EqualError(t, err, tc.want)
		requireInvalidOrDuplicate(t, err)
	}
}

func requireInvalidOrDuplicate(t *testing.T, err error) {
	t.Helper()
	require.True(t, errors.Is(err, placement.ErrInvalid) || errors.Is(err, placement.ErrDuplicate), "%v", err)
}
