package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestCycleTree_TooDeep: the API server accepts CompositePodGroups one by
// one, so a chain c0 > c1 > ... above a leaf may be deeper than the
// 4 levels (leaves counted) a tree may have. v1.38.0-beta.0's
// validatePodGroupSubtree fails such a tree's cycle at the
// CompositePodGroup at depth 4 (root at 1): every CompositePodGroup reads
// CompositePodGroupError, the leaf PodGroupError, no pod binds. v1.37.2
// fails it with SchedulerError where its walk down (GetPodGroupStates)
// passes the limit; gangsched fails it there always (see Profile). A tree
// of exactly 4 levels binds under both. Checked with kubeoracle
// (kube/testdata/v138/too-deep.yaml).
func TestCycleTree_TooDeep(t *testing.T) {
	for _, tc := range []struct {
		profile Profile
		levels  int // CompositePodGroups above the leaf
		binds   []string
		conds   []string
	}{
		{ProfileV138, 3, []string{"a-0@n1", "a-1@n1"}, []string{
			"CompositePodGroup c0 CompositePodGroupInitiallyScheduled=True Scheduled",
			"CompositePodGroup c1 CompositePodGroupInitiallyScheduled=True Scheduled",
			"CompositePodGroup c2 CompositePodGroupInitiallyScheduled=True Scheduled",
			"PodGroup a PodGroupScheduled=True Scheduled",
		}},
		{ProfileV138, 4, nil, []string{
			"CompositePodGroup c0 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c1 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c2 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c3 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"PodGroup a PodGroupScheduled=False PodGroupError",
		}},
		{ProfileV138, 6, nil, []string{
			"CompositePodGroup c0 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c1 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c2 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c3 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c4 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"CompositePodGroup c5 CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
			"PodGroup a PodGroupScheduled=False PodGroupError",
		}},
		{ProfileV137, 3, []string{"a-0@n1", "a-1@n1"}, []string{"PodGroup a PodGroupScheduled=True Scheduled"}},
		{ProfileV137, 4, nil, []string{"PodGroup a PodGroupScheduled=False SchedulerError"}},
	} {
		t.Run(fmt.Sprintf("%s/%d levels", tc.profile, tc.levels), func(t *testing.T) {
			h := newHarness(t, Options{Profile: tc.profile}, []placement.Node{cpuNode("n1", 4000)})
			parent := ""
			for i := range tc.levels {
				name := fmt.Sprintf("c%d", i)
				h.setCPG(cpg(name, parent, "", 1))
				parent = name
			}
			h.setPG(leafPG("a", parent, "", 2))
			h.addMembers("a", 2, 1000, 0)
			r, ok := h.s.Cycle(h.snap, h.now)
			require.True(t, ok)
			require.Equal(t, tc.binds, bindNames(r))
			require.Equal(t, tc.conds, treeConds(r))
			if tc.binds != nil {
				require.NoError(t, r.Err)
				return
			}
			require.EqualError(t, r.Err, `CompositePodGroup default/c0: CompositePodGroup default/c3: spec.parentCompositePodGroupName: `+
				`the hierarchy below CompositePodGroup default/c0 is deeper than 4 levels (its leaves counted)`)
			require.ErrorIs(t, r.Err, placement.ErrInvalid)
		})
	}
}
