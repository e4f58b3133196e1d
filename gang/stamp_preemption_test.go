package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestStamp_PreemptionPolicy: what StampHierarchy and
// NewPodGroupFromTemplate copy from a template, per profile. Both
// releases' builders copy schedulingPolicy, schedulingConstraints,
// priorityClassName, priority, disruptionMode and a PodGroup's
// resourceClaims; v1.38's (k8s.io/component-helpers v0.38.0-beta.0
// workloadbuilder newPodGroup, newCompositePodGroup) copies
// preemptionPolicy too, v1.37's (v0.37.2) leaves it to admission. The
// objects are compared whole.
func TestStamp_PreemptionPolicy(t *testing.T) {
	lower, never := placement.PreemptLowerPriority, placement.PreemptNever
	prio := func() *int32 { return new(int32(7)) }
	rack := SchedulingConstraints{Topology: []TopologyConstraint{{Key: rackKey}}}
	w := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{
		CompositePodGroupTemplates: []CompositePodGroupTemplate{{
			Name:                  "root",
			SchedulingPolicy:      CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 2}},
			SchedulingConstraints: SchedulingConstraints{Topology: []TopologyConstraint{{Key: blockKey}}},
			PriorityClassName:     "high",
			Priority:              prio(),
			PreemptionPolicy:      never,
			DisruptionMode:        CompositeDisruptionAll,
			PodGroupTemplates: []PodGroupTemplate{
				{Name: "a", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 2}}, SchedulingConstraints: rack,
					ResourceClaims: []PodGroupResourceClaim{{Name: "shared", ResourceClaimName: "c"}}, PriorityClassName: "high", Priority: prio(),
					PreemptionPolicy: lower, DisruptionMode: DisruptionModePodGroup},
				{Name: "b", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}, PriorityClassName: "high", Priority: prio()},
			},
		}},
	}}
	owner := []OwnerReference{{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload", Name: "w"}}
	wantTree := func(root, a placement.PreemptionPolicy) ([]*CompositePodGroup, []*PodGroup) {
		return []*CompositePodGroup{{
				ObjectMeta: ObjectMeta{Namespace: "default", Name: "job", OwnerReferences: owner},
				Spec: CompositePodGroupSpec{
					TemplateRef:           &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "root"},
					SchedulingPolicy:      CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 2}},
					SchedulingConstraints: SchedulingConstraints{Topology: []TopologyConstraint{{Key: blockKey}}},
					PriorityClassName:     "high", Priority: prio(), PreemptionPolicy: root, DisruptionMode: CompositeDisruptionAll,
				},
			}}, []*PodGroup{{
				ObjectMeta: ObjectMeta{Namespace: "default", Name: "job-a", OwnerReferences: owner},
				Spec: PodGroupSpec{
					PodGroupTemplateRef:         &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "a"}},
					ParentCompositePodGroupName: "job",
					SchedulingPolicy:            SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 2}}, SchedulingConstraints: rack,
					ResourceClaims:    []PodGroupResourceClaim{{Name: "shared", ResourceClaimName: "c"}},
					PriorityClassName: "high", Priority: prio(), PreemptionPolicy: a, DisruptionMode: DisruptionModePodGroup,
				},
			}, {
				ObjectMeta: ObjectMeta{Namespace: "default", Name: "job-b", OwnerReferences: owner},
				Spec: PodGroupSpec{
					PodGroupTemplateRef:         &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "b"}},
					ParentCompositePodGroupName: "job",
					SchedulingPolicy:            SchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
					PriorityClassName:           "high", Priority: prio(),
				},
			}}
	}
	flat := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{
		{Name: "workers", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 2}}, PriorityClassName: "high", Priority: prio(), PreemptionPolicy: never},
	}}}
	wantFlat := func(policy placement.PreemptionPolicy) *PodGroup {
		return &PodGroup{
			ObjectMeta: ObjectMeta{Namespace: "default", Name: "w-workers", OwnerReferences: []OwnerReference{{APIVersion: APIVersion, Kind: "Workload", Name: "w"}}},
			Spec: PodGroupSpec{
				PodGroupTemplateRef: &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{WorkloadName: "w", PodGroupTemplateName: "workers"}},
				SchedulingPolicy:    SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 2}},
				PriorityClassName:   "high", Priority: prio(), PreemptionPolicy: policy,
			},
		}
	}
	for _, tc := range []struct {
		profile       Profile
		root, a, flat placement.PreemptionPolicy // the stamped objects' policies; b's template sets none
	}{
		{ProfileV137, "", "", ""},
		{ProfileV138, never, lower, never},
		{"", never, lower, never}, // the newest
	} {
		t.Run(string(tc.profile), func(t *testing.T) {
			cpgs, pgs, err := StampHierarchy(w, "root", "job", StampOptions{Profile: tc.profile})
			require.NoError(t, err)
			wantC, wantP := wantTree(tc.root, tc.a)
			require.Equal(t, wantC, cpgs)
			require.Equal(t, wantP, pgs)
			pg, err := NewPodGroupFromTemplate(flat, "workers", "w-workers", StampOptions{Profile: tc.profile})
			require.NoError(t, err)
			require.Equal(t, wantFlat(tc.flat), pg)
		})
	}
	require.True(t, ProfileV138.StampsPreemptionPolicy())
	require.False(t, ProfileV137.StampsPreemptionPolicy())
	require.False(t, ProfileV136.StampsPreemptionPolicy())

	w = &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{
		{Name: "never", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}, PreemptionPolicy: never},
		{Name: "unset", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}},
	}}}
	w.Spec.PodGroupTemplates[1].PreemptionPolicy = "Sometimes"
	require.EqualError(t, w.Validate(), `Workload "default/w": spec.podGroupTemplates[1].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	h := hierarchyWorkload()
	h.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates[1].PreemptionPolicy = "Sometimes"
	_, _, err := StampHierarchy(h, "train", "job-1", StampOptions{})
	require.EqualError(t, err, `Workload "default/w": spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[1].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
	h = hierarchyWorkload()
	h.Spec.CompositePodGroupTemplates[0].PreemptionPolicy = "Sometimes"
	require.EqualError(t, h.Validate(), `Workload "default/w": spec.compositePodGroupTemplates[0].preemptionPolicy: "Sometimes" is not PreemptLowerPriority or Never`)
}

// TestStampHierarchy_TemplatePolicyHoldsNoPod: a tree stamped under v1.37
// from a root template that says Never has no spec.preemptionPolicy, as
// v1.37's builder leaves it, so under v1.37's rule its pods are held to one
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
		cpgs, pgs, err := StampHierarchy(w, "root", "job", StampOptions{Profile: ProfileV137})
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

// TestStampHierarchy_TemplatePolicyHoldsPodsV138: under v1.38 the same
// tree is stamped with the root template's Never, and v1.38 holds the
// pods to the root's policy when set: a Never pod binds, a
// PreemptLowerPriority one fails the cycle, naming pod and field.
func TestStampHierarchy_TemplatePolicyHoldsPodsV138(t *testing.T) {
	w := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{
		CompositePodGroupTemplates: []CompositePodGroupTemplate{{
			Name:              "root",
			SchedulingPolicy:  CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 1}},
			PreemptionPolicy:  placement.PreemptNever,
			PodGroupTemplates: []PodGroupTemplate{{Name: "leaf", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 1}}, PreemptionPolicy: placement.PreemptNever}},
		}},
	}}
	for _, tc := range []struct {
		pod  placement.PreemptionPolicy
		want string // the cycle's error; "" binds
	}{
		{placement.PreemptNever, ""},
		{placement.PreemptLowerPriority, `CompositePodGroup default/job: pod "default/p": spec.preemptionPolicy: PreemptLowerPriority differs from Never, the spec.preemptionPolicy of CompositePodGroup default/job, the root of its PodGroup default/job-leaf's hierarchy (since v1.38 every pod of a hierarchy has its root's preemption policy when the root sets one: give the pods the root's priority class)`},
	} {
		cpgs, pgs, err := StampHierarchy(w, "root", "job", StampOptions{Profile: ProfileV138})
		require.NoError(t, err)
		require.Equal(t, placement.PreemptNever, cpgs[0].Spec.PreemptionPolicy)
		s := NewScheduler(Options{Profile: ProfileV138})
		require.NoError(t, s.SetCompositePodGroup(cpgs[0]))
		require.NoError(t, s.SetPodGroup(pgs[0]))
		p := member("p", "job-leaf", cpu(1000), 0)
		p.PreemptionPolicy, p.Priority = tc.pod, 0
		require.NoError(t, s.AddPod(p))
		snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, nil)
		require.NoError(t, err)
		r, ok := s.Cycle(snap, t0)
		require.True(t, ok)
		if tc.want == "" {
			require.NoError(t, r.Err)
			require.Equal(t, []string{"p@n1"}, bindNames(r))
			continue
		}
		require.EqualError(t, r.Err, tc.want)
	}
}
