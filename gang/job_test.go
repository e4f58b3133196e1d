package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

func i32(v int32) *int32 { return &v }

func indexedJob(parallelism, completions int32) *Job {
	return &Job{
		ObjectMeta: ObjectMeta{Namespace: "ml", Name: "train"},
		UID:        "0b6f1e4c-uid",
		Spec: JobSpec{
			Parallelism:    i32(parallelism),
			Completions:    i32(completions),
			CompletionMode: CompletionModeIndexed,
			Template:       PodTemplateSpec{PriorityClassName: "high", Priority: i32(1000)},
		},
	}
}

// J1: an Indexed Job of parallelism and completions 8 without a schedulingGroup is
// eligible; its Workload, its gang PodGroup of min 8 and its pods are stamped with
// deterministic names.
func TestScenario_J1(t *testing.T) {
	j := indexedJob(8, 8)
	ok, reason := JobEligible(j)
	require.True(t, ok, reason)
	st, ok, err := StampJob(j)
	require.NoError(t, err)
	require.True(t, ok)

	w := st.Workload
	require.Equal(t, "ml", w.Namespace)
	require.Equal(t, "train-960492e8", w.Name)
	require.NoError(t, w.Validate())
	require.Len(t, w.Spec.PodGroupTemplates, 1)
	tmpl := w.Spec.PodGroupTemplates[0]
	require.Equal(t, JobTemplateName, tmpl.Name)
	require.Equal(t, &GangSchedulingPolicy{MinCount: 8}, tmpl.SchedulingPolicy.Gang)
	require.Nil(t, tmpl.SchedulingPolicy.Basic)
	jobOwner := OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "train", UID: "0b6f1e4c-uid", Controller: true}
	require.Equal(t, []OwnerReference{jobOwner}, w.OwnerReferences)

	pg := st.PodGroup
	require.NoError(t, pg.Validate())
	require.Equal(t, placement.Key{Namespace: "ml", Name: "train-960492e8-job"}, pg.Key())
	require.Equal(t, &WorkloadPodGroupTemplateReference{WorkloadName: w.Name, PodGroupTemplateName: JobTemplateName}, pg.Spec.PodGroupTemplateRef.Workload)
	require.Equal(t, int32(8), pg.Spec.SchedulingPolicy.Gang.MinCount)
	require.Equal(t, "high", pg.Spec.PriorityClassName)
	require.Equal(t, int32(1000), *pg.Spec.Priority)
	require.Equal(t, jobOwner, pg.OwnerReferences[0])

	require.Equal(t, &PodSchedulingGroup{PodGroupName: pg.Name}, st.Template.SchedulingGroup, "every pod names the PodGroup")
	require.Nil(t, j.Spec.Template.SchedulingGroup, "the Job itself is not modified")

	// Deterministic: same Job, same names; another UID, another name.
	again, _, _ := StampJob(indexedJob(8, 8))
	require.Equal(t, st, again)
	other := indexedJob(8, 8)
	other.UID = "another"
	st2, _, _ := StampJob(other)
	require.NotEqual(t, w.Name, st2.Workload.Name)
}

func requireNotEligible(t *testing.T, j *Job, reason string) {
	t.Helper()
	ok, got := JobEligible(j)
	require.False(t, ok)
	require.Equal(t, reason, got)
	st, ok, err := StampJob(j)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, JobStamp{}, st)
}

// J2: a Job of parallelism 1, or with parallelism unset, is not eligible.
func TestScenario_J2(t *testing.T) {
	requireNotEligible(t, indexedJob(1, 1), "spec.parallelism is not above 1")
	j := indexedJob(1, 1)
	j.Spec.Parallelism = nil
	requireNotEligible(t, j, "spec.parallelism is not above 1")
}

// J3: completions other than parallelism, or unset, make a Job not eligible.
func TestScenario_J3(t *testing.T) {
	requireNotEligible(t, indexedJob(4, 5), "spec.completions does not equal spec.parallelism")
	j := indexedJob(4, 4)
	j.Spec.Completions = nil
	requireNotEligible(t, j, "spec.completions does not equal spec.parallelism")
}

// J4: a NonIndexed (or unset) completionMode makes a Job not eligible.
func TestScenario_J4(t *testing.T) {
	j := indexedJob(4, 4)
	j.Spec.CompletionMode = CompletionModeNonIndexed
	requireNotEligible(t, j, "spec.completionMode is not Indexed")
	j.Spec.CompletionMode = ""
	requireNotEligible(t, j, "spec.completionMode is not Indexed")
}

// J5: a template that already sets schedulingGroup is not eligible and is left as it is.
func TestScenario_J5(t *testing.T) {
	j := indexedJob(4, 4)
	j.Spec.Template.SchedulingGroup = &PodSchedulingGroup{PodGroupName: "jobset-workers"}
	requireNotEligible(t, j, "spec.template.spec.schedulingGroup is already set")
	require.Equal(t, "jobset-workers", j.Spec.Template.SchedulingGroup.PodGroupName, "nothing is overwritten")
}

// J6: a PodGroup stamped from a Workload template carries its policy, constraints,
// claims, priority and disruption mode, and names the Workload and the template.
func TestScenario_J6(t *testing.T) {
	w := &Workload{
		ObjectMeta: ObjectMeta{Namespace: "default", Name: "training-job-workload"},
		Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{
			{Name: "launcher", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}},
			{
				Name:                  "workers",
				SchedulingPolicy:      SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 4}},
				SchedulingConstraints: SchedulingConstraints{Topology: []TopologyConstraint{{Key: "topology.kubernetes.io/rack"}}},
				ResourceClaims:        []PodGroupResourceClaim{{Name: "nic", ResourceClaimTemplateName: "rdma-nic"}},
				PriorityClassName:     "training",
				Priority:              i32(500),
				DisruptionMode:        DisruptionModePodGroup,
			},
		}},
	}
	pg, err := NewPodGroupFromTemplate(w, "workers", "training-job-workers-pg", StampOptions{})
	require.NoError(t, err)
	require.NoError(t, pg.Validate())
	want := &PodGroup{
		ObjectMeta: ObjectMeta{
			Namespace: "default", Name: "training-job-workers-pg",
			OwnerReferences: []OwnerReference{{APIVersion: APIVersion, Kind: "Workload", Name: "training-job-workload"}},
		},
		Spec: PodGroupSpec{
			PodGroupTemplateRef: &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{
				WorkloadName: "training-job-workload", PodGroupTemplateName: "workers",
			}},
			SchedulingPolicy:      SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 4}},
			SchedulingConstraints: SchedulingConstraints{Topology: []TopologyConstraint{{Key: "topology.kubernetes.io/rack"}}},
			ResourceClaims:        []PodGroupResourceClaim{{Name: "nic", ResourceClaimTemplateName: "rdma-nic"}},
			PriorityClassName:     "training",
			Priority:              i32(500),
			DisruptionMode:        DisruptionModePodGroup,
		},
	}
	require.Equal(t, want, pg)

	// Deep copies: changing the PodGroup leaves the Workload alone.
	pg.Spec.SchedulingPolicy.Gang.MinCount = 99
	*pg.Spec.Priority = 1
	pg.Spec.SchedulingConstraints.Topology[0].Key = "x"
	pg.Spec.ResourceClaims[0].Name = "y"
	tw := w.Spec.PodGroupTemplates[1]
	require.Equal(t, int32(4), tw.SchedulingPolicy.Gang.MinCount)
	require.Equal(t, int32(500), *tw.Priority)
	require.Equal(t, "topology.kubernetes.io/rack", tw.SchedulingConstraints.Topology[0].Key)
	require.Equal(t, "nic", tw.ResourceClaims[0].Name)

	_, err = NewPodGroupFromTemplate(w, "missing", "pg", StampOptions{})
	require.ErrorIs(t, err, placement.ErrNotFound)
	require.EqualError(t, err, `PodGroup "default/pg": spec.podGroupTemplateRef.workload.podGroupTemplateName: Workload "default/training-job-workload" has no template "missing"`)
}
