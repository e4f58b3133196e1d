package gang_test

import (
	"fmt"
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
	cpgs, pgs, err := StampHierarchy(hierarchyWorkload(), "train", "job-1", StampOptions{})
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
	_, _, err := StampHierarchy(hierarchyWorkload(), "nope", "r", StampOptions{})
	require.ErrorIs(t, err, placement.ErrNotFound)
	_, _, err = StampHierarchy(hierarchyWorkload(), "train", "", StampOptions{})
	require.ErrorIs(t, err, placement.ErrInvalid)

	w := hierarchyWorkload()
	w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates = nil
	require.EqualError(t, w.Validate(), `Workload "default/w": spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]: must list at least one child template`)
	w = hierarchyWorkload()
	w.Spec.CompositePodGroupTemplates[0].SchedulingPolicy.Gang.MinGroupCount = 0
	require.EqualError(t, w.Validate(), `Workload "default/w": spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount: 0 is below 1`)
	w = hierarchyWorkload()
	w.Spec.PodGroupTemplates = []PodGroupTemplate{{Name: "x", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}}
	require.ErrorContains(t, w.Validate(), "spec: must list templates in exactly one of podGroupTemplates and compositePodGroupTemplates; both are set")
	w = hierarchyWorkload()
	deep := &w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0]
	for range 3 {
		deep.CompositePodGroupTemplates = []CompositePodGroupTemplate{{Name: "d", SchedulingPolicy: CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
			PodGroupTemplates: []PodGroupTemplate{{Name: "l", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}}}}
		deep = &deep.CompositePodGroupTemplates[0]
	}
	require.ErrorContains(t, w.Validate(), "deeper than 4 levels")
}

// A hierarchy has one priority (v1.37's Workload validation): every
// composite and PodGroup template below spec.compositePodGroupTemplates
// names the same priorityClassName and priority, or the Workload is
// refused, naming the first template that differs and its field.
func TestWorkloadValidate_TreePriorities(t *testing.T) {
	p100, p10 := int32(100), int32(10)
	set := func(w *Workload, cls string, prio *int32) {
		var walk func(ts []CompositePodGroupTemplate)
		walk = func(ts []CompositePodGroupTemplate) {
			for i := range ts {
				ts[i].PriorityClassName, ts[i].Priority = cls, prio
				for j := range ts[i].PodGroupTemplates {
					ts[i].PodGroupTemplates[j].PriorityClassName, ts[i].PodGroupTemplates[j].Priority = cls, prio
				}
				walk(ts[i].CompositePodGroupTemplates)
			}
		}
		walk(w.Spec.CompositePodGroupTemplates)
	}
	for _, c := range []struct {
		name   string
		change func(w *Workload)
		err    string
	}{
		{"all unset", func(*Workload) {}, ""},
		{"all the same", func(w *Workload) { set(w, "high", &p100) }, ""},
		{"a leaf below its root", func(w *Workload) {
			set(w, "high", &p100)
			w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates[1].Priority = &p10
		}, `Workload "default/w": spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[1].priority: ` +
			`10 differs from spec.compositePodGroupTemplates[0].priority 100: every template of a hierarchy carries one priority`},
		{"a leaf's priority unset", func(w *Workload) {
			set(w, "high", &p100)
			w.Spec.CompositePodGroupTemplates[0].PodGroupTemplates[0].Priority = nil
		}, `Workload "default/w": spec.compositePodGroupTemplates[0].podGroupTemplates[0].priority: ` +
			`unset differs from spec.compositePodGroupTemplates[0].priority 100: every template of a hierarchy carries one priority`},
		{"an inner class", func(w *Workload) {
			set(w, "high", &p100)
			w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PriorityClassName = "low"
		}, `Workload "default/w": spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].priorityClassName: ` +
			`"low" differs from spec.compositePodGroupTemplates[0].priorityClassName "high": every template of a hierarchy carries one priority`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := hierarchyWorkload()
			c.change(w)
			if c.err == "" {
				require.NoError(t, w.Validate())
				return
			}
			require.EqualError(t, w.Validate(), c.err)
			require.ErrorIs(t, w.Validate(), placement.ErrInvalid)
		})
	}
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

// TestStampHierarchy_GlobalDefaultPriority: the host's global default
// priority goes to every stamped object whose template names no class and
// sets no priority, as the Priority admission plugin gives it (and as the
// kube adapter reads such objects). Without it a tree whose pods were
// admitted at the default fails v1.37's rule (root unset reads 0); with
// it the tree binds. A template's own priority, or its class, is kept.
func TestStampHierarchy_GlobalDefaultPriority(t *testing.T) {
	def, seven := int32(50), int32(7)
	priorities := func(cpgs []*CompositePodGroup, pgs []*PodGroup) []string {
		var out []string
		for _, c := range cpgs {
			out = append(out, c.Name+"="+fmtPrio(c.Spec.Priority))
		}
		for _, pg := range pgs {
			out = append(out, pg.Name+"="+fmtPrio(pg.Spec.Priority))
		}
		return out
	}
	each := func(w *Workload, f func(class *string, prio **int32)) *Workload {
		var walk func(ts []CompositePodGroupTemplate)
		walk = func(ts []CompositePodGroupTemplate) {
			for i := range ts {
				f(&ts[i].PriorityClassName, &ts[i].Priority)
				for j := range ts[i].PodGroupTemplates {
					f(&ts[i].PodGroupTemplates[j].PriorityClassName, &ts[i].PodGroupTemplates[j].Priority)
				}
				walk(ts[i].CompositePodGroupTemplates)
			}
		}
		walk(w.Spec.CompositePodGroupTemplates)
		return w
	}
	all := func(p string) []string {
		return []string{"job-1=" + p, "job-1-workers=" + p, "job-1-leader=" + p, "job-1-workers-a=" + p, "job-1-workers-b=" + p}
	}
	for _, tc := range []struct {
		name string
		w    *Workload
		def  *int32
		want []string
	}{
		{"no default", hierarchyWorkload(), nil, all("unset")},
		{"default", hierarchyWorkload(), &def, all("50")},
		{"templates set 7", each(hierarchyWorkload(), func(_ *string, p **int32) { *p = &seven }), &def, all("7")},
		{"templates name a class", each(hierarchyWorkload(), func(c *string, _ **int32) { *c = "gold" }), &def, all("unset")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cpgs, pgs, err := StampHierarchy(tc.w, "train", "job-1", StampOptions{DefaultPriority: tc.def})
			require.NoError(t, err)
			require.Equal(t, tc.want, priorities(cpgs, pgs))
			if tc.def != nil && cpgs[0].Spec.Priority != nil {
				*cpgs[0].Spec.Priority = 99 // each object has its own copy
				require.Equal(t, tc.want[1:], priorities(cpgs[1:], pgs))
				require.Equal(t, int32(50), def)
			}
		})
	}

	// A one-leaf tree whose pod was admitted at the default (50).
	w := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{
		CompositePodGroupTemplates: []CompositePodGroupTemplate{{
			Name:              "root",
			SchedulingPolicy:  CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 1}},
			PodGroupTemplates: []PodGroupTemplate{{Name: "leaf", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 1}}}},
		}},
	}}
	for _, d := range []*int32{nil, &def} {
		cpgs, pgs, err := StampHierarchy(w, "root", "job", StampOptions{DefaultPriority: d})
		require.NoError(t, err)
		s := NewScheduler(Options{})
		require.NoError(t, s.SetCompositePodGroup(cpgs[0]))
		require.NoError(t, s.SetPodGroup(pgs[0]))
		p := member("p", "job-leaf", cpu(1000), 0)
		p.Priority = 50
		require.NoError(t, s.AddPod(p))
		snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, nil)
		require.NoError(t, err)
		r, ok := s.Cycle(snap, t0)
		require.True(t, ok)
		if d == nil {
			require.ErrorContains(t, r.Err, `pod "default/p": spec.priority: 50 differs from the priority 0 (spec.priority unset) of CompositePodGroup default/job`)
			continue
		}
		require.NoError(t, r.Err)
		require.Equal(t, []string{"p@n1"}, bindNames(r))
	}
}

func fmtPrio(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}
