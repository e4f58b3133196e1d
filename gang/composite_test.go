package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func hierarchyWorkload() *Workload {
	gang5 := SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 5}}
	rack := SchedulingConstraints{Topology: []TopologyConstraint{{Key: rackKey}}}
	return &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{
		CompositePodGroupTemplates: []CompositePodGroupTemplate{{
			Name:                  "train",
			SchedulingPolicy:      CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints: SchedulingConstraints{Topology: []TopologyConstraint{{Key: blockKey}}},
			DisruptionMode:        CompositeDisruptionAll,
			PodGroupTemplates:     []PodGroupTemplate{{Name: "leader", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 1}}}},
			CompositePodGroupTemplates: []CompositePodGroupTemplate{{
				Name:              "workers",
				SchedulingPolicy:  CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
				PodGroupTemplates: []PodGroupTemplate{{Name: "a", SchedulingPolicy: gang5, SchedulingConstraints: rack}, {Name: "b", SchedulingPolicy: gang5, SchedulingConstraints: rack}},
			}},
		}},
	}}
}

// Stamping a hierarchy from a Workload names every object after its
// parent and template, links each child to its parent and refers back to
// the Workload; the stamped objects are accepted by the scheduler.
func TestStampHierarchy(t *testing.T) {
	cpgs, pgs, err := StampHierarchy(hierarchyWorkload(), "train", "job-1")
	require.NoError(t, err)
	var names []string
	for _, c := range cpgs {
		names = append(names, c.Name+"<"+c.Spec.ParentCompositePodGroupName)
	}
	for _, pg := range pgs {
		names = append(names, pg.Name+"<"+pg.Spec.ParentCompositePodGroupName)
	}
	require.Equal(t, []string{"job-1<", "job-1-workers<job-1", "job-1-leader<job-1", "job-1-workers-a<job-1-workers", "job-1-workers-b<job-1-workers"}, names)
	require.Equal(t, CompositeDisruptionAll, cpgs[0].Spec.DisruptionMode)
	require.Equal(t, "train", cpgs[0].Spec.TemplateRef.PodGroupTemplateName)
	require.Equal(t, "a", pgs[1].Spec.PodGroupTemplateRef.Workload.PodGroupTemplateName)
	s := NewScheduler(Options{})
	for _, c := range cpgs {
		require.NoError(t, s.SetCompositePodGroup(c))
	}
	for _, pg := range pgs {
		require.NoError(t, s.SetPodGroup(pg))
	}
}

func TestStampHierarchy_Errors(t *testing.T) {
	_, _, err := StampHierarchy(hierarchyWorkload(), "nope", "r")
	require.ErrorIs(t, err, placement.ErrNotFound)
	_, _, err = StampHierarchy(hierarchyWorkload(), "train", "")
	require.ErrorIs(t, err, placement.ErrInvalid)

	w := hierarchyWorkload()
	w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates = nil
	require.EqualError(t, w.Validate(), `Workload "default/w": spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]: must list at least one child template`)
	w = hierarchyWorkload()
	w.Spec.CompositePodGroupTemplates[0].SchedulingPolicy.Gang.MinGroupCount = 0
	require.ErrorContains(t, w.Validate(), `spec.compositePodGroupTemplates[0]: CompositePodGroup "train": spec.schedulingPolicy.gang.minGroupCount: 0 is below 1`)
	w = hierarchyWorkload()
	w.Spec.PodGroupTemplates = []PodGroupTemplate{{Name: "x", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}}
	require.ErrorContains(t, w.Validate(), "spec.compositePodGroupTemplates: must not be set with spec.podGroupTemplates")
	w = hierarchyWorkload()
	deep := &w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0]
	for range 3 {
		deep.CompositePodGroupTemplates = []CompositePodGroupTemplate{{Name: "d", SchedulingPolicy: CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
			PodGroupTemplates: []PodGroupTemplate{{Name: "l", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}}}}
		deep = &deep.CompositePodGroupTemplates[0]
	}
	require.ErrorContains(t, w.Validate(), "deeper than 4 levels")
}

func TestCompositePodGroup_Validate(t *testing.T) {
	for _, tc := range []struct {
		mut  func(c *CompositePodGroup)
		want string
	}{
		{func(c *CompositePodGroup) { c.Name = "" }, `CompositePodGroup "default/": metadata.name: must not be empty`},
		{func(c *CompositePodGroup) { c.Spec.ParentCompositePodGroupName = "r" }, `spec.parentCompositePodGroupName: names the group itself`},
		{func(c *CompositePodGroup) { c.Spec.SchedulingPolicy.Gang = nil }, `spec.schedulingPolicy: must set exactly one of gang and basic; neither is set`},
		{func(c *CompositePodGroup) { c.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{} }, `both are set`},
		{func(c *CompositePodGroup) { c.Spec.SchedulingPolicy.Gang.MinGroupCount = -1 }, `spec.schedulingPolicy.gang.minGroupCount: -1 is below 1`},
		{func(c *CompositePodGroup) {
			c.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{Key: "a"}, {Key: "b"}}
		}, `spec.schedulingConstraints.topology: lists 2 constraints; at most one is allowed`},
		{func(c *CompositePodGroup) { c.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{}} }, `topology[0].key: must not be empty`},
		{func(c *CompositePodGroup) { c.Spec.DisruptionMode = "Some" }, `spec.disruptionMode: "Some" is not Single or All`},
		{func(c *CompositePodGroup) { c.Status.Conditions = []Condition{{Type: "X", Status: "Maybe"}} }, `status.conditions[0].status: "Maybe" is not True, False or Unknown`},
	} {
		c := cpg("r", "", "", 1)
		tc.mut(c)
		require.ErrorContains(t, NewScheduler(Options{}).SetCompositePodGroup(c), tc.want)
	}
	var nilC *CompositePodGroup
	require.ErrorIs(t, nilC.Validate(), placement.ErrInvalid)
}
