package gang_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func TestPodGroupValidate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mutate   func(pg *PodGroup)
		sentinel error
		msg      string
	}{
		{"empty name", func(pg *PodGroup) { pg.Name = "" }, placement.ErrInvalid,
			`PodGroup "default/": metadata.name: must not be empty`},
		{"no policy", func(pg *PodGroup) { pg.Spec.SchedulingPolicy = SchedulingPolicy{} }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.schedulingPolicy: must set exactly one of gang and basic; neither is set`},
		{"both policies", func(pg *PodGroup) { pg.Spec.SchedulingPolicy.Basic = &BasicSchedulingPolicy{} }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.schedulingPolicy: must set exactly one of gang and basic; both are set`},
		{"minCount 0", func(pg *PodGroup) { pg.Spec.SchedulingPolicy.Gang.MinCount = 0 }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.schedulingPolicy.gang.minCount: 0 is below 1`},
		{"empty topology key", func(pg *PodGroup) { pg.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{}} }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.schedulingConstraints.topology[0].key: must not be empty`},
		{"duplicate topology key", func(pg *PodGroup) {
			pg.Spec.SchedulingConstraints.Topology = []TopologyConstraint{{Key: "rack"}, {Key: "rack"}}
		}, placement.ErrDuplicate, `PodGroup "default/pg1": spec.schedulingConstraints.topology[1].key: key "rack" appears twice`},
		{"claim without source", func(pg *PodGroup) { pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "gpu"}} }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.resourceClaims[0]: must set exactly one of resourceClaimName and resourceClaimTemplateName`},
		{"claim with both sources", func(pg *PodGroup) {
			pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "gpu", ResourceClaimName: "a", ResourceClaimTemplateName: "b"}}
		}, placement.ErrInvalid, `PodGroup "default/pg1": spec.resourceClaims[0]: must set exactly one of resourceClaimName and resourceClaimTemplateName`},
		{"duplicate claim", func(pg *PodGroup) {
			pg.Spec.ResourceClaims = []PodGroupResourceClaim{{Name: "gpu", ResourceClaimName: "a"}, {Name: "gpu", ResourceClaimName: "b"}}
		}, placement.ErrDuplicate, `PodGroup "default/pg1": spec.resourceClaims[1].name: claim "gpu" appears twice`},
		{"disruption mode", func(pg *PodGroup) { pg.Spec.DisruptionMode = "All" }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.disruptionMode: "All" is not Pod or PodGroup`},
		{"ref without workload", func(pg *PodGroup) { pg.Spec.PodGroupTemplateRef = &PodGroupTemplateReference{} }, placement.ErrInvalid,
			`PodGroup "default/pg1": spec.podGroupTemplateRef.workload: must be set when podGroupTemplateRef is`},
		{"ref without template", func(pg *PodGroup) {
			pg.Spec.PodGroupTemplateRef = &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{WorkloadName: "w"}}
		}, placement.ErrInvalid, `PodGroup "default/pg1": spec.podGroupTemplateRef.workload.podGroupTemplateName: must not be empty`},
		{"condition status", func(pg *PodGroup) {
			pg.Status.Conditions = []Condition{{Type: PodGroupScheduled, Status: "Maybe"}}
		}, placement.ErrInvalid, `PodGroup "default/pg1": status.conditions[0].status: "Maybe" is not True, False or Unknown`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := gangPG("pg1", 3)
			require.NoError(t, pg.Validate())
			tc.mutate(pg)
			err := pg.Validate()
			require.ErrorIs(t, err, tc.sentinel)
			require.EqualError(t, err, tc.msg)
			// The scheduler refuses it and stays empty.
			s := NewScheduler(Options{})
			require.Error(t, s.SetPodGroup(pg))
			_, known := s.Group(pg.Key())
			require.False(t, known, "nothing half applied")
		})
	}
}

func TestWorkloadValidate(t *testing.T) {
	ok := func() *Workload {
		return &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}, Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{
			{Name: "a", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 2}}},
		}}}
	}
	require.NoError(t, ok().Validate())
	for _, tc := range []struct {
		mutate func(w *Workload)
		msg    string
	}{
		{func(w *Workload) { w.Name = "" }, `Workload "default/": metadata.name: must not be empty`},
		{func(w *Workload) { w.Spec.PodGroupTemplates = nil }, `Workload "default/w": spec: must list templates in exactly one of podGroupTemplates and compositePodGroupTemplates; neither is set`},
		{func(w *Workload) { w.Spec.PodGroupTemplates[0].Name = "" }, `Workload "default/w": spec.podGroupTemplates[0].name: must not be empty`},
		{func(w *Workload) {
			w.Spec.PodGroupTemplates = append(w.Spec.PodGroupTemplates, w.Spec.PodGroupTemplates[0])
		}, `Workload "default/w": spec.podGroupTemplates[1].name: template "a" appears twice`},
		{func(w *Workload) { w.Spec.PodGroupTemplates[0].SchedulingPolicy.Gang.MinCount = -1 },
			`Workload "default/w": spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: -1 is below 1`},
	} {
		w := ok()
		tc.mutate(w)
		require.EqualError(t, w.Validate(), tc.msg)
		_, err := NewPodGroupFromTemplate(w, "a", "pg", StampOptions{})
		require.Error(t, err, "stamping from an invalid Workload fails")
	}
}

func TestAddPodErrors(t *testing.T) {
	good := member("p1", "pg1", cpu(1000), 0)
	for _, tc := range []struct {
		mutate func(p *placement.Pod)
		msg    string
	}{
		{func(p *placement.Pod) { p.Name = "" }, `pod "default/": metadata.name: must not be empty`},
		{func(p *placement.Pod) { p.SchedulingGroup = "" }, `pod "default/p1": spec.schedulingGroup.podGroupName: must not be empty: only members of a PodGroup are queued here`},
		{func(p *placement.Pod) { p.NodeName = "n1" }, `pod "default/p1": spec.nodeName: is "n1": only pending pods are queued`},
		{func(p *placement.Pod) { p.Requests = cpu(-1) }, `pod "default/p1": requests[cpu]: -1 is negative, or the name is empty or "pods"`},
		{func(p *placement.Pod) { p.Requests = placement.ResourceList{placement.ResourcePods: 1} }, `pod "default/p1": requests[pods]: 1 is negative, or the name is empty or "pods"`},
	} {
		p := good
		tc.mutate(&p)
		s := NewScheduler(Options{})
		require.EqualError(t, s.AddPod(p), tc.msg)
		_, known := s.Group(key("pg1"))
		require.False(t, known, "nothing half applied")
	}
	s := NewScheduler(Options{})
	require.NoError(t, s.AddPod(good))
	err := s.AddPod(good)
	require.ErrorIs(t, err, placement.ErrDuplicate)
	st, _ := s.Group(key("pg1"))
	require.Len(t, st.Pending, 1)
}

func TestStampJobErrors(t *testing.T) {
	for _, tc := range []struct {
		mutate func(j *Job)
		msg    string
	}{
		{func(j *Job) { j.Name = "" }, `Job "ml/": metadata.name: must not be empty`},
		{func(j *Job) { j.Spec.Parallelism = i32(-2) }, `Job "ml/train": spec.parallelism: -2 is negative`},
		{func(j *Job) { j.Spec.Completions = i32(-1) }, `Job "ml/train": spec.completions: -1 is negative`},
		{func(j *Job) { j.Spec.CompletionMode = "Sparse" }, `Job "ml/train": spec.completionMode: "Sparse" is not Indexed or NonIndexed`},
	} {
		j := indexedJob(4, 4)
		tc.mutate(j)
		_, ok, err := StampJob(j)
		require.False(t, ok)
		require.ErrorIs(t, err, placement.ErrInvalid)
		require.EqualError(t, err, tc.msg)
	}
	// A long name is cut so that the PodGroup name stays a DNS subdomain.
	j := indexedJob(4, 4)
	j.Name = strings.Repeat("a", 300)
	st, ok, err := StampJob(j)
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, st.PodGroup.Name, 253)
}

// FuzzStampJob: any Job gives an error, "not eligible", or valid objects
// with bounded names; never a panic.
func FuzzStampJob(f *testing.F) {
	f.Add("train", "ml", "uid", int32(8), int32(8), "Indexed", false)
	f.Add("", "", "", int32(-1), int32(0), "x", true)
	f.Fuzz(func(t *testing.T, name, ns, uid string, par, comp int32, mode string, hasGroup bool) {
		j := &Job{ObjectMeta: ObjectMeta{Namespace: ns, Name: name}, UID: uid,
			Spec: JobSpec{Parallelism: &par, Completions: &comp, CompletionMode: CompletionMode(mode)}}
		if hasGroup {
			j.Spec.Template.SchedulingGroup = &PodSchedulingGroup{PodGroupName: "x"}
		}
		st, ok, err := StampJob(j)
		if err != nil || !ok {
			require.False(t, ok)
			require.Equal(t, JobStamp{}, st)
			return
		}
		eligible, _ := JobEligible(j)
		require.True(t, eligible)
		require.NoError(t, st.Workload.Validate())
		require.NoError(t, st.PodGroup.Validate())
		require.LessOrEqual(t, len(st.PodGroup.Name), 253)
		require.Equal(t, par, st.PodGroup.Spec.SchedulingPolicy.Gang.MinCount)
	})
}

// FuzzPodGroup: SetPodGroup accepts exactly what Validate accepts, and a
// stamped PodGroup of a valid Workload validates; never a panic.
func FuzzPodGroup(f *testing.F) {
	f.Add("pg", int32(3), true, false, "rack", "claim", "tmpl", "", "PodGroup")
	f.Add("", int32(0), false, false, "", "", "", "", "bad")
	f.Fuzz(func(t *testing.T, name string, min int32, gang, basic bool, topo, claim, claimTmpl, claimName, mode string) {
		pol := SchedulingPolicy{}
		if gang {
			pol.Gang = &GangSchedulingPolicy{MinCount: min}
		}
		if basic {
			pol.Basic = &BasicSchedulingPolicy{}
		}
		spec := PodGroupTemplate{Name: "t", SchedulingPolicy: pol, DisruptionMode: DisruptionMode(mode),
			SchedulingConstraints: SchedulingConstraints{Topology: []TopologyConstraint{{Key: topo}}},
			ResourceClaims:        []PodGroupResourceClaim{{Name: claim, ResourceClaimTemplateName: claimTmpl, ResourceClaimName: claimName}},
		}
		w := &Workload{ObjectMeta: ObjectMeta{Namespace: "ns", Name: "w"}, Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{spec}}}
		pg, err := NewPodGroupFromTemplate(w, "t", name, StampOptions{})
		if w.Validate() == nil && name != "" {
			require.NoError(t, err)
		}
		if err != nil {
			require.ErrorAs(t, err, new(*placement.FieldError))
			return
		}
		require.NoError(t, pg.Validate())
		s := NewScheduler(Options{})
		require.NoError(t, s.SetPodGroup(pg))
	})
}

// FuzzAddPod: AddPod takes or refuses any pod with an error naming it, and
// a cycle over whatever it took never panics and never binds an invalid
// pod.
func FuzzAddPod(f *testing.F) {
	f.Add("p1", "pg1", "", "cpu", int64(1000), int32(1))
	f.Add("", "", "n1", "pods", int64(-1), int32(0))
	f.Add("p1", "pg1", "", "example.com/foo", int64(3), int32(5))
	f.Fuzz(func(t *testing.T, name, group, nodeName, res string, q int64, min int32) {
		snap, err := placement.NewSnapshot([]placement.Node{cpuNode("n1", 4000)}, nil)
		require.NoError(t, err)
		s := NewScheduler(Options{})
		if pg := gangPG("pg1", min); pg.Validate() == nil {
			require.NoError(t, s.SetPodGroup(pg))
		}
		p := placement.Pod{Namespace: "default", Name: name, SchedulingGroup: group, NodeName: nodeName,
			Requests: placement.ResourceList{placement.ResourceName(res): q}}
		if err := s.AddPod(p); err != nil {
			require.ErrorAs(t, err, new(*placement.FieldError))
			return
		}
		require.True(t, q >= 0 && name != "" && group != "" && nodeName == "")
		r, ok := s.Cycle(snap, t0)
		if !ok {
			return
		}
		if r.Err != nil {
			require.Empty(t, r.Bind)
			return
		}
		for _, b := range r.Bind {
			require.Equal(t, "n1", b.NodeName)
		}
	})
}

func TestNilInputs(t *testing.T) {
	require.ErrorIs(t, (*PodGroup)(nil).Validate(), placement.ErrInvalid)
	require.ErrorIs(t, (*Workload)(nil).Validate(), placement.ErrInvalid)
	_, err := NewPodGroupFromTemplate(nil, "a", "b", StampOptions{})
	require.ErrorIs(t, err, placement.ErrInvalid)
	_, ok, err := StampJob(nil)
	require.False(t, ok)
	require.ErrorIs(t, err, placement.ErrInvalid)
	ok, _ = JobEligible(nil)
	require.False(t, ok)
	s := NewScheduler(Options{})
	require.ErrorIs(t, s.SetPodGroup(nil), placement.ErrInvalid)
	r, ok := s.Cycle(nil, t0)
	require.False(t, ok)
	require.ErrorIs(t, r.Err, placement.ErrInvalid)
}
