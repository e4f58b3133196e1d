package gang

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// validateCompositeTemplates checks composite templates under prefix, at
// depth (1 for the roots): names, policies, constraints, children, depth.
func validateCompositeTemplates(obj, prefix string, ts []CompositePodGroupTemplate, depth int) error {
	if len(ts) > maxTemplates {
		return placement.Errorf(placement.ErrInvalid, obj, prefix+"compositePodGroupTemplates", "lists %d templates; at most %d are allowed", len(ts), maxTemplates)
	}
	seen := map[string]bool{}
	for i := range ts {
		t := &ts[i]
		path := fmt.Sprintf("%scompositePodGroupTemplates[%d]", prefix, i)
		switch {
		case t.Name == "":
			return placement.Errorf(placement.ErrInvalid, obj, path+".name", "must not be empty")
		case seen[t.Name]:
			return placement.Errorf(placement.ErrDuplicate, obj, path+".name", "template %q appears twice", t.Name)
		case len(t.PodGroupTemplates) == 0 && len(t.CompositePodGroupTemplates) == 0:
			return placement.Errorf(placement.ErrInvalid, obj, path, "must list at least one child template")
		case depth >= placement.MaxHierarchyDepth:
			return placement.Errorf(placement.ErrInvalid, obj, path, "the hierarchy is deeper than %d levels", placement.MaxHierarchyDepth)
		}
		seen[t.Name] = true
		if err := validatePreemptionPolicy(obj, path+".preemptionPolicy", t.PreemptionPolicy); err != nil {
			return err
		}
		// The spec rules are CompositePodGroup's; check them on a stand-in
		// and report them at the template's field, as the API server does
		// (spec.x of the stand-in is <path>.x).
		c := CompositePodGroup{ObjectMeta: ObjectMeta{Name: t.Name}, Spec: compositeSpec(t, "")}
		if err := c.Validate(); err != nil {
			var fe *placement.FieldError
			if !errors.As(err, &fe) {
				return placement.Errorf(placement.ErrInvalid, obj, path, "%v", err)
			}
			return &placement.FieldError{Object: obj, Field: path + strings.TrimPrefix(fe.Field, "spec"), Detail: fe.Detail, Err: fe.Err}
		}
		if err := validateTemplates(obj, path+".", t.PodGroupTemplates); err != nil {
			return err
		}
		if err := validateCompositeTemplates(obj, path+".", t.CompositePodGroupTemplates, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// templatePriority is one template's priorityClassName and priority, and
// the path of the template that set them.
type templatePriority struct {
	path      string
	className string
	priority  *int32
}

// validateWorkloadPriorities checks that the templates of w name the same
// priorityClassName and priority, as the v1.37 API server's Workload
// validation (validateWorkloadPriority) does: with flat, every template,
// spec.podGroupTemplates first, then each hierarchy of
// spec.compositePodGroupTemplates depth first (a composite template, its
// composite children, then its PodGroup templates); without, only the
// hierarchies' templates. A hierarchy is queued, preempts and is
// preempted at its root's priority, so a template that says otherwise
// would be a priority no pod of it could run at. The error names the
// first template that differs and the field.
func validateWorkloadPriorities(obj string, w *Workload, flat bool) error {
	what := "hierarchy"
	if flat {
		what = "Workload"
	}
	var first *templatePriority
	check := func(path, className string, priority *int32) error {
		if first == nil {
			first = &templatePriority{path, className, priority}
			return nil
		}
		switch {
		case className != first.className:
			return placement.Errorf(placement.ErrInvalid, obj, path+".priorityClassName",
				"%q differs from %s.priorityClassName %q: every template of a %s carries one priority", className, first.path, first.className, what)
		case (priority == nil) != (first.priority == nil) || (priority != nil && *priority != *first.priority):
			return placement.Errorf(placement.ErrInvalid, obj, path+".priority",
				"%s differs from %s.priority %s: every template of a %s carries one priority", fmtPriority(priority), first.path, fmtPriority(first.priority), what)
		}
		return nil
	}
	var walk func(prefix string, ts []CompositePodGroupTemplate) error
	walk = func(prefix string, ts []CompositePodGroupTemplate) error {
		for i := range ts {
			t := &ts[i]
			path := fmt.Sprintf("%scompositePodGroupTemplates[%d]", prefix, i)
			if err := check(path, t.PriorityClassName, t.Priority); err != nil {
				return err
			}
			if err := walk(path+".", t.CompositePodGroupTemplates); err != nil {
				return err
			}
			for j := range t.PodGroupTemplates {
				pt := &t.PodGroupTemplates[j]
				if err := check(fmt.Sprintf("%s.podGroupTemplates[%d]", path, j), pt.PriorityClassName, pt.Priority); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if flat {
		for i := range w.Spec.PodGroupTemplates {
			t := &w.Spec.PodGroupTemplates[i]
			if err := check(fmt.Sprintf("spec.podGroupTemplates[%d]", i), t.PriorityClassName, t.Priority); err != nil {
				return err
			}
		}
	}
	return walk("spec.", w.Spec.CompositePodGroupTemplates)
}

// fmtPriority prints a priority, "unset" for nil.
func fmtPriority(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

func compositeSpec(t *CompositePodGroupTemplate, parent string) CompositePodGroupSpec {
	return CompositePodGroupSpec{
		ParentCompositePodGroupName: parent,
		SchedulingPolicy:            CompositeSchedulingPolicy{Gang: copyPtr(t.SchedulingPolicy.Gang), Basic: copyPtr(t.SchedulingPolicy.Basic)},
		SchedulingConstraints:       SchedulingConstraints{Topology: slices.Clone(t.SchedulingConstraints.Topology)},
		PriorityClassName:           t.PriorityClassName,
		Priority:                    copyPtr(t.Priority),
		DisruptionMode:              t.DisruptionMode,
	}
}

// StampHierarchy stamps the hierarchy of Workload w's composite template
// templateName as a workload controller (JobSet, LeaderWorkerSet) does
// through upstream's builder (k8s.io/component-helpers workloadbuilder,
// newCompositePodGroup and newPodGroup): the root CompositePodGroup is
// named rootName, and every child "<parent>-<template name>", so that the
// names are deterministic and unique. Each object lives in w's namespace,
// carries deep copies of its template's fields (schedulingPolicy,
// schedulingConstraints, priorityClassName, priority, disruptionMode, a
// PodGroup's resourceClaims), names its parent, refers back to w and its
// template, and lists w as a (non-controlling) owner. The results are in
// depth-first order, siblings in template order. opts.DefaultPriority
// fills a priority no template sets (see [StampOptions]).
//
// A template's preemptionPolicy is copied under opts.Profile v1.38 only
// ([Profile.StampsPreemptionPolicy]): v0.38.0-beta.0's builder copies it,
// v0.37.2's does not. Either way the Priority admission plugin then sets
// the object's from its class when it runs for the field (v1.37 only with
// the PodGroupPreemptionPolicy gate, v1.38 always), refusing a copied
// value that differs from the class's; without a class, and no
// globalDefault, a v1.38 object keeps the template's.
//
// Errors (a [*placement.FieldError]): w fails [Workload.Validate]; no root
// composite template is named templateName (wraps placement.ErrNotFound);
// rootName is empty.
func StampHierarchy(w *Workload, templateName, rootName string, opts StampOptions) ([]*CompositePodGroup, []*PodGroup, error) {
	if err := w.Validate(); err != nil {
		return nil, nil, err
	}
	obj := objRef("CompositePodGroup", &ObjectMeta{Namespace: w.Namespace, Name: rootName})
	i := slices.IndexFunc(w.Spec.CompositePodGroupTemplates, func(t CompositePodGroupTemplate) bool { return t.Name == templateName })
	if i < 0 {
		return nil, nil, placement.Errorf(placement.ErrNotFound, obj, "spec.workloadRef.templateName",
			"Workload %q has no compositePodGroupTemplate %q", w.Key().String(), templateName)
	}
	if rootName == "" {
		return nil, nil, placement.Errorf(placement.ErrInvalid, obj, "metadata.name", "must not be empty")
	}
	owner := []OwnerReference{{APIVersion: "scheduling.k8s.io/v1beta1", Kind: "Workload", Name: w.Name}}
	var cpgs []*CompositePodGroup
	var pgs []*PodGroup
	var stamp func(t *CompositePodGroupTemplate, name, parent string)
	stamp = func(t *CompositePodGroupTemplate, name, parent string) {
		c := &CompositePodGroup{ObjectMeta: ObjectMeta{Namespace: w.Namespace, Name: name, OwnerReferences: slices.Clone(owner)},
			Spec: compositeSpec(t, parent)}
		c.Spec.TemplateRef = &WorkloadPodGroupTemplateReference{WorkloadName: w.Name, PodGroupTemplateName: t.Name}
		c.Spec.Priority = admittedPriority(c.Spec.PriorityClassName, c.Spec.Priority, opts.DefaultPriority)
		c.Spec.PreemptionPolicy = opts.Profile.stampedPolicy(t.PreemptionPolicy)
		cpgs = append(cpgs, c)
		for j := range t.PodGroupTemplates {
			pt := &t.PodGroupTemplates[j]
			pgs = append(pgs, &PodGroup{
				ObjectMeta: ObjectMeta{Namespace: w.Namespace, Name: name + "-" + pt.Name, OwnerReferences: slices.Clone(owner)},
				Spec: PodGroupSpec{
					PodGroupTemplateRef:         &PodGroupTemplateReference{Workload: &WorkloadPodGroupTemplateReference{WorkloadName: w.Name, PodGroupTemplateName: pt.Name}},
					ParentCompositePodGroupName: name,
					SchedulingPolicy:            copyPolicy(pt.SchedulingPolicy),
					SchedulingConstraints:       SchedulingConstraints{Topology: slices.Clone(pt.SchedulingConstraints.Topology)},
					ResourceClaims:              slices.Clone(pt.ResourceClaims),
					PriorityClassName:           pt.PriorityClassName,
					Priority:                    admittedPriority(pt.PriorityClassName, pt.Priority, opts.DefaultPriority),
					PreemptionPolicy:            opts.Profile.stampedPolicy(pt.PreemptionPolicy),
					DisruptionMode:              pt.DisruptionMode,
				},
			})
		}
		for j := range t.CompositePodGroupTemplates {
			ct := &t.CompositePodGroupTemplates[j]
			stamp(ct, name+"-"+ct.Name, name)
		}
	}
	stamp(&w.Spec.CompositePodGroupTemplates[i], rootName, "")
	return cpgs, pgs, nil
}

// admittedPriority is the spec.priority of a stamped object whose
// template says class and priority: a copy of priority, or of def when
// the template names no class and sets no priority (def nil: none).
func admittedPriority(class string, priority, def *int32) *int32 {
	if class == "" && priority == nil {
		return copyPtr(def)
	}
	return copyPtr(priority)
}
