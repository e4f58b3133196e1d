package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestProfile_V138TreeGroupRule: v1.38.0-beta.0's
// validatePodGroupHierarchy (pkg/scheduler/schedule_one_podgroup.go)
// holds every group of a tree below its root, not only the pods, to the
// root: its Workload, its priority (unset reads 0) and, when it sets one,
// its preemption policy (the root's when set, else the first queued
// pod's); and no basic group under a gang, no single one under an all
// (an unset mode is single: an API server defaults it so).
// A tree root > mid > leaf a, all pods at the root's priority 100 and
// policy unset, binds under v1.37 whatever mid and a say; under v1.38 it
// fails, naming the group and the field, and every object of the tree
// reads CompositePodGroupError (CompositePodGroups) or PodGroupError
// (PodGroups), as updatePodGroupConditionWithError writes them.
func TestProfile_V138TreeGroupRule(t *testing.T) {
	p7 := int32(7)
	for _, tc := range []struct {
		name  string
		setup func(mid *CompositePodGroup, leaf *PodGroup)
		err   string
	}{
		{"inner CompositePodGroup's priority", func(mid *CompositePodGroup, _ *PodGroup) { mid.Spec.Priority = &p7 },
			`CompositePodGroup default/root: CompositePodGroup "default/mid": spec.priority: 7 differs from the priority 100 of CompositePodGroup default/root, ` +
				`its hierarchy's root (since v1.38 every group of a hierarchy carries its root's priority: give it the root's priorityClassName)`},
		{"inner CompositePodGroup's priority unset", func(mid *CompositePodGroup, _ *PodGroup) { mid.Spec.Priority = nil },
			`CompositePodGroup default/root: CompositePodGroup "default/mid": spec.priority: 0 (spec.priority unset) differs from the priority 100 of CompositePodGroup default/root, ` +
				`its hierarchy's root (since v1.38 every group of a hierarchy carries its root's priority: give it the root's priorityClassName)`},
		{"leaf's policy against the first pod's", func(_ *CompositePodGroup, leaf *PodGroup) { leaf.Spec.PreemptionPolicy = placement.PreemptNever },
			`CompositePodGroup default/root: PodGroup "default/a": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/a-0"'s ` +
				`(since v1.38 a group of a hierarchy that sets a preemption policy sets its pods': give it the root's priority class, or leave it unset)`},
		{"inner CompositePodGroup's policy against the first pod's", func(mid *CompositePodGroup, _ *PodGroup) { mid.Spec.PreemptionPolicy = placement.PreemptNever },
			`CompositePodGroup default/root: CompositePodGroup "default/mid": spec.preemptionPolicy: Never differs from PreemptLowerPriority, pod "default/a-0"'s ` +
				`(since v1.38 a group of a hierarchy that sets a preemption policy sets its pods': give it the root's priority class, or leave it unset)`},
		{"leaf of another Workload", func(_ *CompositePodGroup, leaf *PodGroup) {
			leaf.Spec.PodGroupTemplateRef.Workload.WorkloadName = "other"
		},
			`CompositePodGroup default/root: PodGroup "default/a": spec.workloadRef.workloadName: "other" differs from "w", the Workload of CompositePodGroup default/root, ` +
				`its hierarchy's root (since v1.38 every group of a hierarchy belongs to its root's Workload)`},
		{"basic under a gang", func(mid *CompositePodGroup, _ *PodGroup) {
			mid.Spec.SchedulingPolicy = CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}}
		}, `CompositePodGroup default/root: CompositePodGroup "default/mid": spec.schedulingPolicy: basic under the gang CompositePodGroup default/root (since v1.38 a gang's children are gangs)`},
		{"single under all", func(mid *CompositePodGroup, leaf *PodGroup) {
			mid.Spec.DisruptionMode = CompositeDisruptionAll
			leaf.Spec.DisruptionMode = DisruptionModePod
		}, `CompositePodGroup default/root: PodGroup "default/a": spec.disruptionMode: single under CompositePodGroup default/mid, whose disruptionMode is all ` +
			`(since v1.38 the children of an all group are not disrupted one by one: set all; an API server stores an unset mode as single)`},
		{"unset under all", func(mid *CompositePodGroup, leaf *PodGroup) {
			mid.Spec.DisruptionMode = CompositeDisruptionAll
			leaf.Spec.DisruptionMode = ""
		}, `CompositePodGroup default/root: PodGroup "default/a": spec.disruptionMode: unset under CompositePodGroup default/mid, whose disruptionMode is all ` +
			`(since v1.38 the children of an all group are not disrupted one by one: set all; an API server stores an unset mode as single)`},
	} {
		for _, profile := range []Profile{ProfileV137, ProfileV138} {
			t.Run(tc.name+"/"+string(profile), func(t *testing.T) {
				h := newHarness(t, Options{Profile: profile}, []placement.Node{cpuNode("n1", 4000)})
				root := cpg("root", "", "", 1)
				root.Spec.TemplateRef = &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "root"}
				h.setCPG(root)
				mid := cpg("mid", "root", "", 1)
				mid.Spec.TemplateRef = &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "mid"}
				leaf := leafPG("a", "mid", "", 2)
				tc.setup(mid, leaf)
				h.setCPG(mid)
				h.setPG(leaf)
				h.addMembers("a", 2, 1000, 0)
				r, ok := h.s.Cycle(h.snap, h.now)
				require.True(t, ok)
				if profile == ProfileV137 {
					require.NoError(t, r.Err)
					require.Equal(t, []string{"a-0@n1", "a-1@n1"}, bindNames(r))
					return
				}
				require.EqualError(t, r.Err, tc.err)
				require.ErrorIs(t, r.Err, placement.ErrInvalid)
				require.Empty(t, r.Bind)
				require.Equal(t, []string{
					"CompositePodGroup mid CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
					"CompositePodGroup root CompositePodGroupInitiallyScheduled=False CompositePodGroupError",
					"PodGroup a PodGroupScheduled=False PodGroupError",
				}, treeConds(r))
			})
		}
	}
}
