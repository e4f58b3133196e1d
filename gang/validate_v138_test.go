package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestWorkload_ValidateV138: what v1.38.0-beta.0's ValidateWorkloadSpec
// adds to v1.37's (which Validate checks and every case passes): one
// preemptionPolicy across the templates, all only on a gang, and a gang's
// (all's) children gangs (all), each error naming the template's field.
func TestWorkload_ValidateV138(t *testing.T) {
	const w = `Workload "default/w": `
	never := placement.PreemptNever
	fix := func(h *Workload) { // hierarchyWorkload made valid under v1.38
		train := &h.Spec.CompositePodGroupTemplates[0]
		train.CompositePodGroupTemplates[0].SchedulingPolicy = CompositeSchedulingPolicy{Gang: &CompositeGangSchedulingPolicy{MinGroupCount: 1}}
		train.CompositePodGroupTemplates[0].DisruptionMode = CompositeDisruptionAll
		train.PodGroupTemplates[0].DisruptionMode = DisruptionModePodGroup
		for i := range train.CompositePodGroupTemplates[0].PodGroupTemplates {
			train.CompositePodGroupTemplates[0].PodGroupTemplates[i].DisruptionMode = DisruptionModePodGroup
		}
	}
	for _, tc := range []struct {
		name   string
		change func(h *Workload)
		err    string
	}{
		{"valid", fix, ""},
		{"basic under gang", func(*Workload) {},
			w + `spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].schedulingPolicy: must be a gang under the gang template spec.compositePodGroupTemplates[0] (since v1.38)`},
		{"not all under all", func(h *Workload) {
			fix(h)
			h.Spec.CompositePodGroupTemplates[0].PodGroupTemplates[0].DisruptionMode = DisruptionModePod
		}, w + `spec.compositePodGroupTemplates[0].podGroupTemplates[0].disruptionMode: must be all under spec.compositePodGroupTemplates[0], whose disruptionMode is all (since v1.38)`},
		{"all without gang", func(h *Workload) {
			fix(h)
			train := &h.Spec.CompositePodGroupTemplates[0]
			train.SchedulingPolicy = CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}}
		}, w + `spec.compositePodGroupTemplates[0].disruptionMode: all needs a gang schedulingPolicy (since v1.38)`},
		{"preemption policies differ", func(h *Workload) {
			fix(h)
			h.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates[1].PreemptionPolicy = never
		}, w + `spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[1].preemptionPolicy: Never differs from spec.compositePodGroupTemplates[0].preemptionPolicy unset: ` +
			`since v1.38 every template of a Workload has one preemption policy`},
		{"flat all without gang", func(h *Workload) {
			h.Spec.CompositePodGroupTemplates = nil
			h.Spec.PodGroupTemplates = []PodGroupTemplate{{Name: "p", SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}, DisruptionMode: DisruptionModePodGroup}}
		}, w + `spec.podGroupTemplates[0].disruptionMode: all needs a gang schedulingPolicy (since v1.38)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hierarchyWorkload()
			tc.change(h)
			require.NoError(t, h.Validate())
			require.NoError(t, h.ValidatePriorities())
			err := h.ValidateV138()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
			require.ErrorIs(t, err, placement.ErrInvalid)
		})
	}
	var nilW *Workload
	require.Error(t, nilW.ValidateV138())
}
