package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// maxTemplates is how many templates one list of a Workload may hold:
// spec.podGroupTemplates, spec.compositePodGroupTemplates and each
// composite template's two lists (upstream's WorkloadMaxPodGroupTemplates
// and the +k8s:maxItems=8 of each list, v1.36 to v1.38).
const maxTemplates = 8

// validateTreeTemplateNames holds the templates of a hierarchy to one
// name each across the whole of spec.compositePodGroupTemplates, as the
// v1.37 API server does (pkg/apis/scheduling/validation,
// validateWorkloadTemplateNamesUniqueness): a stamped group is named
// after its template, so two templates of one name, in different
// subtrees or a PodGroup template named as a composite one above it,
// would stamp clashing groups. names holds the names met so far. The
// order of checks is upstream's, so that the template named is the
// same: a list of composite templates against the names met, then each
// of them in turn, its PodGroup templates against the names met (its
// siblings and ancestors included) and then its composite children.
// Duplicates within one list are [validateTemplates]'s and
// [validateCompositeTemplates]'s. Errors: [placement.ErrDuplicate] at
// the later template's name.
func validateTreeTemplateNames(obj, prefix string, ts []CompositePodGroupTemplate, names map[string]bool) error {
	for i := range ts {
		if names[ts[i].Name] {
			return placement.Errorf(placement.ErrDuplicate, obj, fmt.Sprintf("%scompositePodGroupTemplates[%d].name", prefix, i),
				"template %q is named twice in the Workload", ts[i].Name)
		}
	}
	for i := range ts {
		names[ts[i].Name] = true
	}
	for i := range ts {
		path := fmt.Sprintf("%scompositePodGroupTemplates[%d]", prefix, i)
		for j, pt := range ts[i].PodGroupTemplates {
			if names[pt.Name] {
				return placement.Errorf(placement.ErrDuplicate, obj, fmt.Sprintf("%s.podGroupTemplates[%d].name", path, j),
					"template %q is named twice in the Workload", pt.Name)
			}
		}
		for _, pt := range ts[i].PodGroupTemplates {
			names[pt.Name] = true
		}
		if err := validateTreeTemplateNames(obj, path+".", ts[i].CompositePodGroupTemplates, names); err != nil {
			return err
		}
	}
	return nil
}
