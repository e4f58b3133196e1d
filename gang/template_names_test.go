package gang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	. "github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// Template names are unique across a Workload's hierarchies, and each
// list holds at most 8 templates, as the v1.37 API server says (the e2e
// table TestValidationMatchesAPIServer runs the same objects through it;
// the fields named here are the ones it names).
func TestWorkloadValidate_TreeNamesAndListSizes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(w *Workload)
		field string
		want  error
	}{
		{"a PodGroup template named as one in another subtree", func(w *Workload) {
			second := w.Spec.CompositePodGroupTemplates[0]
			second.Name, second.CompositePodGroupTemplates = "eval", nil
			w.Spec.CompositePodGroupTemplates = append(w.Spec.CompositePodGroupTemplates, second)
		}, "spec.compositePodGroupTemplates[1].podGroupTemplates[0].name", placement.ErrDuplicate},
		{"a PodGroup template named as its parent", func(w *Workload) {
			w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates[1].Name = "workers"
		}, "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[1].name", placement.ErrDuplicate},
		{"a composite template named as a PodGroup template above it", func(w *Workload) {
			w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].Name = "leader"
		}, "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].name", placement.ErrDuplicate},
		{"9 PodGroup templates in one list", func(w *Workload) {
			ts := &w.Spec.CompositePodGroupTemplates[0].CompositePodGroupTemplates[0].PodGroupTemplates
			for i := len(*ts); i < 9; i++ {
				*ts = append(*ts, PodGroupTemplate{Name: fmt.Sprintf("x%d", i), SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}})
			}
		}, "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates", placement.ErrInvalid},
		{"9 root composite templates", func(w *Workload) {
			for i := 1; i < 9; i++ {
				w.Spec.CompositePodGroupTemplates = append(w.Spec.CompositePodGroupTemplates, CompositePodGroupTemplate{Name: fmt.Sprintf("r%d", i),
					SchedulingPolicy:  CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
					PodGroupTemplates: []PodGroupTemplate{{Name: fmt.Sprintf("p%d", i), SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}}})
			}
		}, "spec.compositePodGroupTemplates", placement.ErrInvalid},
		{"8 root composite templates of distinct names", func(w *Workload) {
			for i := 1; i < 8; i++ {
				w.Spec.CompositePodGroupTemplates = append(w.Spec.CompositePodGroupTemplates, CompositePodGroupTemplate{Name: fmt.Sprintf("r%d", i),
					SchedulingPolicy:  CompositeSchedulingPolicy{Basic: &BasicSchedulingPolicy{}},
					PodGroupTemplates: []PodGroupTemplate{{Name: fmt.Sprintf("p%d", i), SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}}}})
			}
		}, "", nil},
		{"9 flat PodGroup templates", func(w *Workload) {
			w.Spec.CompositePodGroupTemplates = nil
			for i := range 9 {
				w.Spec.PodGroupTemplates = append(w.Spec.PodGroupTemplates, PodGroupTemplate{Name: fmt.Sprintf("p%d", i), SchedulingPolicy: SchedulingPolicy{Basic: &BasicSchedulingPolicy{}}})
			}
		}, "spec.podGroupTemplates", placement.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := hierarchyWorkload()
			tc.edit(w)
			err := w.Validate()
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
			var fe *placement.FieldError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, tc.field, fe.Field, "%v", err)
		})
	}
}
