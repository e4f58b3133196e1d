package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/dra"
	"github.com/gangsched/gangsched/placement"
)

// Validate checks a Workload as the API server would. It returns nil or a
// [*placement.FieldError] naming the Workload and the field: an empty
// metadata.name; neither or both of spec.podGroupTemplates and
// spec.compositePodGroupTemplates; a template with an empty or duplicate
// name among its siblings; more than 8 templates in one list; a name
// used twice anywhere in spec.compositePodGroupTemplates; every error [PodGroup.Validate] reports for a
// PodGroup template's policy, constraints, claims and disruption mode,
// and [CompositePodGroup.Validate] for a composite one's; a composite
// template with no child templates; a hierarchy deeper than
// [placement.MaxHierarchyDepth] levels; composite and PodGroup templates
// of spec.compositePodGroupTemplates that do not all name the same
// priorityClassName and priority (v1.37's rule: a hierarchy has one
// priority, its root's).
func (w *Workload) Validate() error {
	if w == nil {
		return placement.Errorf(placement.ErrInvalid, "Workload", "metadata", "is nil")
	}
	obj := objRef("Workload", &w.ObjectMeta)
	if w.Name == "" {
		return placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	// Named at spec, as the API server names its one-of rule.
	switch {
	case len(w.Spec.PodGroupTemplates) == 0 && len(w.Spec.CompositePodGroupTemplates) == 0:
		return placement.Errorf(placement.ErrInvalid, obj, "spec", "must list templates in exactly one of podGroupTemplates and compositePodGroupTemplates; neither is set")
	case len(w.Spec.PodGroupTemplates) > 0 && len(w.Spec.CompositePodGroupTemplates) > 0:
		return placement.Errorf(placement.ErrInvalid, obj, "spec", "must list templates in exactly one of podGroupTemplates and compositePodGroupTemplates; both are set")
	}
	if err := validateTemplates(obj, "spec.", w.Spec.PodGroupTemplates); err != nil {
		return err
	}
	if err := validateCompositeTemplates(obj, "spec.", w.Spec.CompositePodGroupTemplates, 1); err != nil {
		return err
	}
	if err := validateTreeTemplateNames(obj, "spec.", w.Spec.CompositePodGroupTemplates, map[string]bool{}); err != nil {
		return err
	}
	return validateWorkloadPriorities(obj, w, false)
}

// ValidatePriorities checks Kubernetes v1.37's rule for a Workload (the
// v1beta1 API's validateWorkloadPriority, KEP-5710 beta): every template,
// the flat spec.podGroupTemplates and every composite and PodGroup
// template of spec.compositePodGroupTemplates, names the same
// priorityClassName and priority (both unset counts as the same), so
// that the Workload's groups share one priority. v1.36's v1alpha2
// Workloads may differ (KEP-5710 alpha); [Workload.Validate] checks only
// the hierarchies' templates, which exist since v1.37. Errors (a
// [*placement.FieldError], [placement.ErrInvalid]): the first template
// that differs from the first one, its path and field
// (priorityClassName, else priority).
func (w *Workload) ValidatePriorities() error {
	if w == nil {
		return placement.Errorf(placement.ErrInvalid, "Workload", "metadata", "is nil")
	}
	return validateWorkloadPriorities(objRef("Workload", &w.ObjectMeta), w, true)
}

// validateTemplates checks a list of PodGroup templates under path.
func validateTemplates(obj, prefix string, ts []PodGroupTemplate) error {
	if len(ts) > maxTemplates {
		return placement.Errorf(placement.ErrInvalid, obj, prefix+"podGroupTemplates", "lists %d templates; at most %d are allowed", len(ts), maxTemplates)
	}
	seen := map[string]bool{}
	for i := range ts {
		t := &ts[i]
		path := fmt.Sprintf("%spodGroupTemplates[%d]", prefix, i)
		if t.Name == "" {
			return placement.Errorf(placement.ErrInvalid, obj, path+".name", "must not be empty")
		}
		if seen[t.Name] {
			return placement.Errorf(placement.ErrDuplicate, obj, path+".name", "template %q appears twice", t.Name)
		}
		seen[t.Name] = true
		if err := validateGroupSpec(obj, path, &t.SchedulingPolicy, &t.SchedulingConstraints, t.ResourceClaims, t.DisruptionMode); err != nil {
			return err
		}
		if err := validatePreemptionPolicy(obj, path+".preemptionPolicy", t.PreemptionPolicy); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks a PodGroup as the API server would. It returns nil or a
// [*placement.FieldError] naming the PodGroup and the field: an empty
// metadata.name; a podGroupTemplateRef without a workload or with an empty
// workloadName or podGroupTemplateName; a schedulingPolicy that sets
// neither or both of gang and basic; a gang minCount below 1; an empty or
// duplicate topology key; a resource claim with an empty or duplicate name
// or not exactly one of resourceClaimName and resourceClaimTemplateName; a
// disruptionMode other than Pod or PodGroup; a parentCompositePodGroupName
// without a podGroupTemplateRef (upstream's dependentRequired); a
// condition with an empty type, a duplicate type or an unknown status.
//
// minCount above the number of members is not an error here: members
// arrive over time, and the scheduling cycle waits for them (the quorum
// gate).
func (pg *PodGroup) Validate() error {
	if pg == nil {
		return placement.Errorf(placement.ErrInvalid, "PodGroup", "metadata", "is nil")
	}
	obj := objRef("PodGroup", &pg.ObjectMeta)
	if pg.Name == "" {
		return placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	if ref := pg.Spec.PodGroupTemplateRef; ref != nil {
		switch {
		case ref.Workload == nil:
			return placement.Errorf(placement.ErrInvalid, obj, "spec.podGroupTemplateRef.workload", "must be set when podGroupTemplateRef is")
		case ref.Workload.WorkloadName == "":
			return placement.Errorf(placement.ErrInvalid, obj, "spec.podGroupTemplateRef.workload.workloadName", "must not be empty")
		case ref.Workload.PodGroupTemplateName == "":
			return placement.Errorf(placement.ErrInvalid, obj, "spec.podGroupTemplateRef.workload.podGroupTemplateName", "must not be empty")
		}
	}
	s := &pg.Spec
	if err := validateGroupSpec(obj, "spec", &s.SchedulingPolicy, &s.SchedulingConstraints, s.ResourceClaims, s.DisruptionMode); err != nil {
		return err
	}
	if err := dra.CheckGroupDeviceConstraints(obj, "spec.deviceConstraints", s.DeviceConstraints); err != nil {
		return err
	}
	if err := validatePreemptionPolicy(obj, "spec.preemptionPolicy", s.PreemptionPolicy); err != nil {
		return err
	}
	if pg.Spec.ParentCompositePodGroupName != "" && pg.Spec.PodGroupTemplateRef == nil {
		// v1beta1: parentCompositePodGroupName requires workloadRef.
		return placement.Errorf(placement.ErrInvalid, obj, "spec.parentCompositePodGroupName", "requires spec.podGroupTemplateRef (workloadRef)")
	}
	return validateConditions(obj, pg.Status.Conditions)
}

// validatePreemptionPolicy accepts an unset preemptionPolicy (field, a
// spec's or a template's), PreemptLowerPriority and Never.
func validatePreemptionPolicy(obj, field string, p placement.PreemptionPolicy) error {
	switch p {
	case "", placement.PreemptLowerPriority, placement.PreemptNever:
		return nil
	}
	return placement.Errorf(placement.ErrInvalid, obj, field, "%q is not PreemptLowerPriority or Never", p)
}

func validateGroupSpec(obj, path string, pol *SchedulingPolicy, cons *SchedulingConstraints, claims []PodGroupResourceClaim, dm DisruptionMode) error {
	switch {
	case pol.Gang == nil && pol.Basic == nil:
		return placement.Errorf(placement.ErrInvalid, obj, path+".schedulingPolicy", "must set exactly one of gang and basic; neither is set")
	case pol.Gang != nil && pol.Basic != nil:
		return placement.Errorf(placement.ErrInvalid, obj, path+".schedulingPolicy", "must set exactly one of gang and basic; both are set")
	case pol.Gang != nil && pol.Gang.MinCount < 1:
		return placement.Errorf(placement.ErrInvalid, obj, path+".schedulingPolicy.gang.minCount", "%d is below 1", pol.Gang.MinCount)
	}
	keys := map[[2]string]bool{} // key, and whether it is a slice layer: a level may hold both
	for i, t := range cons.Topology {
		f := fmt.Sprintf("%s.schedulingConstraints.topology[%d].key", path, i)
		if t.Key == "" {
			return placement.Errorf(placement.ErrInvalid, obj, f, "must not be empty")
		}
		if t.SliceSize < 0 {
			return placement.Errorf(placement.ErrInvalid, obj, fmt.Sprintf("%s.schedulingConstraints.topology[%d].sliceSize", path, i), "%d is below 0", t.SliceSize)
		}
		k := [2]string{t.Key, fmt.Sprint(t.SliceSize > 0)}
		if keys[k] {
			return placement.Errorf(placement.ErrDuplicate, obj, f, "key %q appears twice", t.Key)
		}
		keys[k] = true
	}
	names := map[string]bool{}
	for i, c := range claims {
		f := fmt.Sprintf("%s.resourceClaims[%d]", path, i)
		if c.Name == "" {
			return placement.Errorf(placement.ErrInvalid, obj, f+".name", "must not be empty")
		}
		if names[c.Name] {
			return placement.Errorf(placement.ErrDuplicate, obj, f+".name", "claim %q appears twice", c.Name)
		}
		names[c.Name] = true
		if (c.ResourceClaimName == "") == (c.ResourceClaimTemplateName == "") {
			return placement.Errorf(placement.ErrInvalid, obj, f, "must set exactly one of resourceClaimName and resourceClaimTemplateName")
		}
	}
	switch dm {
	case "", DisruptionModePod, DisruptionModePodGroup:
	default:
		return placement.Errorf(placement.ErrInvalid, obj, path+".disruptionMode", "%q is not Pod or PodGroup", dm)
	}
	return nil
}
