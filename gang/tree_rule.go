package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// treeGroup is one group of a hierarchy below its root as v1.38's
// validateChildPodGroup reads it.
type treeGroup struct {
	obj      string // objRef of the group
	parent   string // its parent CompositePodGroup's name
	workload string // the Workload its template reference names ("" without one)
	priority *int32
	policy   placement.PreemptionPolicy
	basic    bool // schedulingPolicy basic
	single   bool // disruptionMode set to single (a PodGroup's Pod)
}

// checkTreeGroups is v1.38's rule for the groups of root's hierarchy
// (v1.38.0-beta.0 pkg/scheduler/schedule_one_podgroup.go
// validatePodGroupHierarchy, its validateChildPodGroup). Every
// CompositePodGroup below the root and every leaf PodGroup, in that
// order of checks:
//   - names the root's Workload in its template reference (a PodGroup
//     without one names ""; a root without one, which the API server
//     would refuse, is not checked);
//   - has the root's priority (either unset reads 0);
//   - when it sets spec.preemptionPolicy, sets the policy the pods are
//     held to (the root's when set, else the first queued pod's, which
//     policy is seeded with here);
//   - is not basic under a gang parent;
//   - does not set disruptionMode single under a parent whose
//     disruptionMode is all (an unset mode is neither).
//
// Upstream walks the tree depth first, checking each group and then its
// pods; here every group is checked before any pod, CompositePodGroups
// in the order of cpgs, then leaves in key order, so with several faults
// the first one named may differ (the reason does not). Errors name the
// group and the field. Not modelled: upstream's depth check (a
// CompositePodGroup at depth 4), since a deeper tree never gets a cycle
// here (its leaves wait, gated).
func checkTreeGroups(root *CompositePodGroup, cpgs []*CompositePodGroup, leaves []*group, policy *policyRule) error {
	for _, l := range leaves {
		if ms := l.sortedMembers(); len(ms) > 0 {
			policy.seed(&ms[0])
			break
		}
	}
	parents := make(map[string]*CompositePodGroup, len(cpgs))
	var groups []treeGroup
	for _, c := range cpgs {
		parents[c.Name] = c
		if c == root {
			continue
		}
		groups = append(groups, treeGroup{obj: objRef("CompositePodGroup", &c.ObjectMeta), parent: c.Spec.ParentCompositePodGroupName,
			workload: compositeWorkload(c), priority: c.Spec.Priority, policy: c.Spec.PreemptionPolicy,
			basic: c.Spec.SchedulingPolicy.Basic != nil, single: c.Spec.DisruptionMode == CompositeDisruptionSingle})
	}
	for _, l := range leaves {
		pg := l.pg
		g := treeGroup{obj: objRef("PodGroup", &pg.ObjectMeta), parent: pg.Spec.ParentCompositePodGroupName,
			priority: pg.Spec.Priority, policy: pg.Spec.PreemptionPolicy,
			basic: pg.Spec.SchedulingPolicy.Basic != nil, single: pg.Spec.DisruptionMode == DisruptionModePod}
		if r := pg.Spec.PodGroupTemplateRef; r != nil && r.Workload != nil {
			g.workload = r.Workload.WorkloadName
		}
		groups = append(groups, g)
	}
	for _, g := range groups {
		if err := checkTreeGroup(root, parents[g.parent], g, policy); err != nil {
			return err
		}
	}
	return nil
}

// checkTreeGroup holds one group g of root's tree, whose parent is
// parent, to checkTreeGroups' rule.
func checkTreeGroup(root, parent *CompositePodGroup, g treeGroup, policy *policyRule) error {
	const since = "since v1.38 every group of a hierarchy"
	if w := compositeWorkload(root); root.Spec.TemplateRef != nil && g.workload != w {
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.workloadRef.workloadName",
			"%q differs from %q, the Workload of CompositePodGroup %s, its hierarchy's root (%s belongs to its root's Workload)", g.workload, w, root.Key(), since)
	}
	if got, want := effectivePriority(g.priority), effectivePriority(root.Spec.Priority); podGroupPriorityOf(g.priority) != podGroupPriorityOf(root.Spec.Priority) {
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.priority",
			"%s differs from the priority %s of CompositePodGroup %s, its hierarchy's root (%s carries its root's priority: give it the root's priorityClassName)",
			got, want, root.Key(), since)
	}
	if g.policy != "" && policy.want != "" && g.policy != policy.want {
		from := policy.first
		if from == "" {
			from = fmt.Sprintf("the spec.preemptionPolicy of CompositePodGroup %s, its hierarchy's root", root.Key())
		}
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.preemptionPolicy",
			"%s differs from %s, %s (since v1.38 a group of a hierarchy that sets a preemption policy sets its pods': give it the root's priority class, or leave it unset)",
			g.policy, policy.want, from)
	}
	if parent == nil {
		return nil // the walk that gathered the tree found it under a parent it has
	}
	if parent.Spec.SchedulingPolicy.Gang != nil && g.basic {
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.schedulingPolicy",
			"basic under the gang CompositePodGroup %s (since v1.38 a gang's children are gangs)", parent.Key())
	}
	if parent.Spec.DisruptionMode == CompositeDisruptionAll && g.single {
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.disruptionMode",
			"single under CompositePodGroup %s, whose disruptionMode is all (since v1.38 the children of an all group are not disrupted one by one: set all, or leave it unset)", parent.Key())
	}
	return nil
}

// compositeWorkload is the Workload c's template reference names, "" when
// it has none.
func compositeWorkload(c *CompositePodGroup) string {
	if r := c.Spec.TemplateRef; r != nil {
		return r.WorkloadName
	}
	return ""
}

// podGroupPriorityOf is a PodGroup's or CompositePodGroup's priority
// with an unset one read as 0, as upstream's PodGroupPriority and
// CompositePodGroupPriority do.
func podGroupPriorityOf(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
