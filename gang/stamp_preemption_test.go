package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestStamp_PreemptionPolicy: a template's preemptionPolicy (v1beta1
// PodGroupTemplate and CompositePodGroupTemplate, k8s.io/api v0.37.2) is
// validated but not copied onto what StampHierarchy and
// NewPodGroupFromTemplate stamp, as upstream's workloadbuilder
// (k8s.io/component-helpers v0.37.2, newPodGroup, newCompositePodGroup)
// does not copy it: the Priority admission plugin sets it from the
// object's class. A value other than PreemptLowerPriority or Never is
// refused, naming the template's field.
func TestStamp_PreemptionPolicy(t *testing.T) {
	lower, never := placement.PreemptLowerPriority, placement.PreemptNever
	policies := func(cpgs []*CompositePodGroup, pgs []*PodGroup) []string {
		var out []string
		for _, c := range cpgs {
			out = append(out, c.Name+"="+string(c.Spec.PreemptionPolicy))
		}
		for _, pg := range pgs {
			out = append(out, pg.Name+"="+string(pg.Spec.PreemptionPolicy))
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		root, inner placement.PreemptionPolicy // train's, workers'
		leader, a   placement.PreemptionPolicy // PodGroup templates (b keeps none)
	}{
		{"none", "", "", "", ""},
		{"all Never", never, never, never, never},
		{"each its own", never, lower, "", lower},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := hierarchyWorkload()
			train := &w.Spec.CompositePodGroupTemplates[0]
			train.PreemptionPolicy, train.CompositePodGroupTemplates[0].PreemptionPolicy = tc.root, tc.inner
			train.PodGroupTemplates[0].PreemptionPolicy = tc.leader
			train.CompositePodGroupTemplates[0].PodGroupTemplates[0].PreemptionPolicy = tc.a
			cpgs, pgs, err := StampHierarchy(w, "train", "job-1", nil)
			require.NoError(t, err)
			require.Equal(t, []string{"job-1=", "job-1-workers=", "job-1-leader=", "job-1-workers-a=", "job-1-workers-b="}, policies(cpgs, pgs))
		})
	}

	w := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{
		{Name: "never", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}, PreemptionPolicy: never},
		{Name: "unset", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}},
	}}}
	for _, tmpl := range []string{"never", "unset"} {
		pg, err := NewPodGroupFromTemplate(w, tmpl, "pg-"+tmpl, nil)
		require.NoError(t, err)
		require.Equal(t, placement.PreemptionPolicy(""), pg.Spec.PreemptionPolicy, tmpl)
	}

	w.Spec.PodGroupTemplates[1].PreemptionPolicy = "Sometimes"
	require.EqualError(t, w.Validate(), `Workload "default/w": spec.podGroupTemplates[1].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	h := hierarchyWorkload()
	h.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates[1].PreemptionPolicy = "Sometimes"
	_, _, err := StampHierarchy(h, "train", "job-1", nil)
	require.EqualError(t, err, `Workload "default/w": spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[1].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	h = hierarchyWorkload()
	h.Spec.CompositePodGroupTemplates[0].PreemptionPolicy = "Sometimes"
	require.EqualError(t, h.Validate(), `Workload "default/w": spec.compositePodGroupTemplates[0].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
}

// TestStampHierarchy_TemplatePolicyHoldsNoPod: a tree stamped from a root
// template that says Never has no spec.preemptionPolicy, as upstream's
// builder leaves it, so under v1.37's rule its pods are held to one
// another's policy only: a pod admitted with PreemptLowerPriority binds
// as one with Never does (upstream's admission, gate on, would set the
// root's from its class, not from the template).
func TestStampHierarchy_TemplatePolicyHoldsNoPod(t *testing.T) {
	w := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{
		CompositePodGroupTemplates: []CompositePodGroupTemplate{{
			Name:              "root",
			SchedulingPolicy:  CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 1}},
			PreemptionPolicy:  placement.PreemptNever,
			PodGroupTemplates: []PodGroupTemplate{{Name: "leaf", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 1}}}},
		}},
	}}
	for _, pp := range []placement.PreemptionPolicy{placement.PreemptLowerPriority, placement.PreemptNever} {
		cpgs, pgs, err := StampHierarchy(w, "root", "job", nil)
		require.NoError(t, err)
		s := NewScheduler(Options{Profile: ProfileV137})
		require.NoError(t, s.SetCompositePodGroup(cpgs[0]))
		require.NoError(t, s.SetPodGroup(pgs[0]))
		p := member("p", "job-leaf", cpu(1000), 0)
		p.PreemptionPolicy, p.Priority = pp, 0 // the tree has no priority: 0
		require.NoError(t, s.AddPod(p))
		snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, nil)
		require.NoError(t, err)
		r, ok := s.Cycle(snap, t0)
		require.True(t, ok)
		require.NoError(t, r.Err, pp)
		require.Equal(t, []string{"p@n1"}, bindNames(r))
	}
}
