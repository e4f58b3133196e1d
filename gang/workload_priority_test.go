package gang_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Workload.ValidatePriorities is v1.37's validateWorkloadPriority: every
// template, flat ones too, names the same priorityClassName and priority,
// or the Workload is refused, naming the first template that differs and
// its field. Workload.Validate lets flat templates differ (v1.36's
// v1alpha2 Workloads could), but not a hierarchy's.
func TestWorkload_ValidatePriorities(t *testing.T) {
	p100, p10 := int32(100), int32(10)
	flat := func(classes []string, prios []*int32) *Workload {
		w := &Workload{ObjectMeta: ObjectMeta{Namespace: "default", Name: "w"}}
		for i := range classes {
			w.Spec.PodGroupTemplates = append(w.Spec.PodGroupTemplates, PodGroupTemplate{
				Name: string(rune('a' + i)), SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
				PriorityClassName: classes[i], Priority: prios[i],
			})
		}
		return w
	}
	for _, c := range []struct {
		name string
		w    *Workload
		err  string // of ValidatePriorities; Validate accepts every flat one
	}{
		{"one template", flat([]string{"high"}, []*int32{&p100}), ""},
		{"all unset", flat([]string{"", "", ""}, []*int32{nil, nil, nil}), ""},
		{"all the same", flat([]string{"high", "high"}, []*int32{&p100, &p100}), ""},
		{"a class differs", flat([]string{"high", "high", "low"}, []*int32{&p100, &p100, &p100}),
			`Workload "default/w": spec.podGroupTemplates[2].priorityClassName: "low" differs from spec.podGroupTemplates[0].priorityClassName "high": every template of a Workload carries one priority`},
		{"a priority differs", flat([]string{"", ""}, []*int32{&p100, &p10}),
			`Workload "default/w": spec.podGroupTemplates[1].priority: 10 differs from spec.podGroupTemplates[0].priority 100: every template of a Workload carries one priority`},
		{"one unset", flat([]string{"", ""}, []*int32{nil, &p10}),
			`Workload "default/w": spec.podGroupTemplates[1].priority: 10 differs from spec.podGroupTemplates[0].priority unset: every template of a Workload carries one priority`},
		{"a hierarchy", func() *Workload {
			w := hierarchyWorkload()
			w.Spec.CompositePodGroupTemplates[0].PodGroupTemplates[0].Priority = &p10
			return w
		}(), `Workload "default/w": spec.compositePodGroupTemplates[0].podGroupTemplates[0].priority: 10 differs from spec.compositePodGroupTemplates[0].priority unset: every template of a Workload carries one priority`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.w.Spec.PodGroupTemplates) > 0 {
				require.NoError(t, c.w.Validate())
			}
			if c.err == "" {
				require.NoError(t, c.w.ValidatePriorities())
				return
			}
			require.EqualError(t, c.w.ValidatePriorities(), c.err)
			require.ErrorIs(t, c.w.ValidatePriorities(), placement.ErrInvalid)
		})
	}
	var nilW *Workload
	require.ErrorIs(t, nilW.ValidatePriorities(), placement.ErrInvalid)
}
