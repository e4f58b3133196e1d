package gang_test

import (
	"testing"

	. "github.com/gangsched/gangsched/gang"
)

// TestNewPodGroupFromTemplate_GlobalDefaultPriority: a template that names
// no class and sets no priority stamps a PodGroup of the host's global
// default, as admission gives one (and as StampHierarchy does); a class or
// a priority in the template is kept; without a default none is set. The
// stamped value is a copy.
func TestNewPodGroupFromTemplate_GlobalDefaultPriority(t *testing.T) {
	def, seven := int32(50), int32(7)
	for _, tc := range []struct {
		name  string
		class string
		prio  *int32
		def   *int32
		want  string
	}{
		{"neither, default", "", nil, &def, "50"},
		{"neither, no default", "", nil, nil, "unset"},
		{"class, default", "batch", nil, &def, "unset"},
		{"priority, default", "", &seven, &def, "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &Workload{ObjectMeta: ObjectMeta{Namespace: "ns", Name: "w"}, Spec: WorkloadSpec{PodGroupTemplates: []PodGroupTemplate{{
				Name: "workers", SchedulingPolicy: SchedulingPolicy{Gang: &GangSchedulingPolicy{MinCount: 2}},
				PriorityClassName: tc.class, Priority: tc.prio,
			}}}}
			pg, err := NewPodGroupFromTemplate(w, "workers", "pg", StampOptions{DefaultPriority: tc.def})
			if err != nil {
				t.Fatal(err)
			}
			if got := fmtPrio(pg.Spec.Priority); got != tc.want || pg.Spec.PriorityClassName != tc.class {
				t.Fatalf("priority %s class %q, want %s %q", got, pg.Spec.PriorityClassName, tc.want, tc.class)
			}
			if pg.Spec.Priority != nil && (pg.Spec.Priority == tc.def || pg.Spec.Priority == tc.prio) {
				t.Fatal("the stamped priority shares memory with its source")
			}
		})
	}
}
