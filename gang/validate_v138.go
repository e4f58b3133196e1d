package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// ValidateV138 checks what Kubernetes v1.38's API server adds to v1.37's
// rules ([Workload.Validate], [Workload.ValidatePriorities]) when a
// v1beta1 Workload is created (v1.38.0-beta.0
// pkg/apis/scheduling/validation ValidateWorkloadSpec,
// validateWorkloadPriority, validatePodGroupTemplate,
// validateCompositePodGroupTemplate), in its order:
//   - every template, flat or of a hierarchy, sets one preemptionPolicy
//     (unset is a value of its own), as it names one priority;
//   - a template that is not a gang does not set disruptionMode all
//     (a PodGroup template's PodGroup);
//   - every child of a gang composite template is a gang, and every
//     child of one whose disruptionMode is all is all.
//
// Updates, which v1.38 lets keep older mixed values, are not checked.
// Errors (a [*placement.FieldError], [placement.ErrInvalid]): the first
// template that breaks a rule, its path and field.
func (w *Workload) ValidateV138() error {
	if w == nil {
		return placement.Errorf(placement.ErrInvalid, "Workload", "metadata", "is nil")
	}
	obj := objRef("Workload", &w.ObjectMeta)
	if err := validateOnePolicy(obj, w); err != nil {
		return err
	}
	for i := range w.Spec.PodGroupTemplates {
		gang, all := w.Spec.PodGroupTemplates[i].isGangAll()
		if err := allNeedsGang(obj, fmt.Sprintf("spec.podGroupTemplates[%d]", i), gang, all); err != nil {
			return err
		}
	}
	for i := range w.Spec.CompositePodGroupTemplates {
		if err := validateNestingV138(obj, fmt.Sprintf("spec.compositePodGroupTemplates[%d]", i), &w.Spec.CompositePodGroupTemplates[i]); err != nil {
			return err
		}
	}
	return nil
}

// isGangAll reports whether t is a gang and whether its disruptionMode is all.
func (t *PodGroupTemplate) isGangAll() (gang, all bool) {
	return t.SchedulingPolicy.Gang != nil, t.DisruptionMode == DisruptionModePodGroup
}

// isGangAll reports whether t is a gang and whether its disruptionMode is all.
func (t *CompositePodGroupTemplate) isGangAll() (gang, all bool) {
	return t.SchedulingPolicy.Gang != nil, t.DisruptionMode == CompositeDisruptionAll
}

// allNeedsGang refuses disruptionMode all on a template at path that is
// not a gang.
func allNeedsGang(obj, path string, gang, all bool) error {
	if all && !gang {
		return placement.Errorf(placement.ErrInvalid, obj, path+".disruptionMode", "all needs a gang schedulingPolicy (since v1.38)")
	}
	return nil
}

// validateNestingV138 checks composite template t at path and its
// subtree: all needs gang, and a gang's (all's) children are gangs (all).
func validateNestingV138(obj, path string, t *CompositePodGroupTemplate) error {
	gang, all := t.isGangAll()
	if err := allNeedsGang(obj, path, gang, all); err != nil {
		return err
	}
	child := func(cpath string, cgang, call bool) error {
		switch {
		case gang && !cgang:
			return placement.Errorf(placement.ErrInvalid, obj, cpath+".schedulingPolicy", "must be a gang under the gang template %s (since v1.38)", path)
		case all && !call:
			return placement.Errorf(placement.ErrInvalid, obj, cpath+".disruptionMode", "must be all under %s, whose disruptionMode is all (since v1.38)", path)
		}
		return nil
	}
	for i := range t.CompositePodGroupTemplates {
		c := &t.CompositePodGroupTemplates[i]
		cpath := fmt.Sprintf("%s.compositePodGroupTemplates[%d]", path, i)
		cgang, call := c.isGangAll()
		if err := child(cpath, cgang, call); err != nil {
			return err
		}
		if err := validateNestingV138(obj, cpath, c); err != nil {
			return err
		}
	}
	for i := range t.PodGroupTemplates {
		cpath := fmt.Sprintf("%s.podGroupTemplates[%d]", path, i)
		cgang, call := t.PodGroupTemplates[i].isGangAll()
		if err := child(cpath, cgang, call); err != nil {
			return err
		}
		if err := allNeedsGang(obj, cpath, cgang, call); err != nil {
			return err
		}
	}
	return nil
}

// validateOnePolicy refuses a template whose preemptionPolicy differs from
// the first template's, in validateWorkloadPriority's order: the flat
// templates, then each hierarchy depth first (a composite template, its
// composite children, then its PodGroup templates).
func validateOnePolicy(obj string, w *Workload) error {
	var firstPath string
	var first placement.PreemptionPolicy
	check := func(path string, p placement.PreemptionPolicy) error {
		switch {
		case firstPath == "":
			firstPath, first = path, p
		case p != first:
			return placement.Errorf(placement.ErrInvalid, obj, path+".preemptionPolicy",
				"%s differs from %s.preemptionPolicy %s: since v1.38 every template of a Workload has one preemption policy", fmtPolicy(p), firstPath, fmtPolicy(first))
		}
		return nil
	}
	for i := range w.Spec.PodGroupTemplates {
		if err := check(fmt.Sprintf("spec.podGroupTemplates[%d]", i), w.Spec.PodGroupTemplates[i].PreemptionPolicy); err != nil {
			return err
		}
	}
	var walk func(prefix string, ts []CompositePodGroupTemplate) error
	walk = func(prefix string, ts []CompositePodGroupTemplate) error {
		for i := range ts {
			t := &ts[i]
			path := fmt.Sprintf("%scompositePodGroupTemplates[%d]", prefix, i)
			if err := check(path, t.PreemptionPolicy); err != nil {
				return err
			}
			if err := walk(path+".", t.CompositePodGroupTemplates); err != nil {
				return err
			}
			for j := range t.PodGroupTemplates {
				if err := check(fmt.Sprintf("%s.podGroupTemplates[%d]", path, j), t.PodGroupTemplates[j].PreemptionPolicy); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk("spec.", w.Spec.CompositePodGroupTemplates)
}

// fmtPolicy prints a preemption policy, "unset" when empty.
func fmtPolicy(p placement.PreemptionPolicy) string {
	if p == "" {
		return "unset"
	}
	return string(p)
}
