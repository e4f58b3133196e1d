package gang

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gangsched/gangsched/placement"
)

// treeGroup is one group of a hierarchy below its root as v1.38's
// validateChildPodGroup reads it.
type treeGroup struct {
	obj      string // objRef of the group
	workload string // the Workload its template reference names ("" without one)
	priority *int32
	policy   placement.PreemptionPolicy
	basic    bool // schedulingPolicy basic
	// mode is its disruptionMode unless it is all: "single" (a PodGroup's
	// Pod), or "unset", which an API server stores as single (v1.37.2 and
	// v1.38.0-beta.0 default it), so v1.38 reads it as single.
	mode string
}

// compositeTreeGroup is c as a group of a tree.
func compositeTreeGroup(c *CompositePodGroup) treeGroup {
	return treeGroup{obj: objRef("CompositePodGroup", &c.ObjectMeta), workload: compositeWorkload(c), priority: c.Spec.Priority,
		policy: c.Spec.PreemptionPolicy, basic: c.Spec.SchedulingPolicy.Basic != nil, mode: notAll(c.Spec.DisruptionMode == CompositeDisruptionAll, c.Spec.DisruptionMode == "")}
}

// leafTreeGroup is pg as a group (leaf) of a tree.
func leafTreeGroup(pg *PodGroup) treeGroup {
	g := treeGroup{obj: objRef("PodGroup", &pg.ObjectMeta), priority: pg.Spec.Priority, policy: pg.Spec.PreemptionPolicy,
		basic: pg.Spec.SchedulingPolicy.Basic != nil, mode: notAll(pg.Spec.DisruptionMode == DisruptionModePodGroup, pg.Spec.DisruptionMode == "")}
	if r := pg.Spec.PodGroupTemplateRef; r != nil && r.Workload != nil {
		g.workload = r.Workload.WorkloadName
	}
	return g
}

// treeChild is a child of a CompositePodGroup in v1.38's walk: a
// CompositePodGroup or a leaf.
type treeChild struct {
	meta *ObjectMeta
	cpg  *CompositePodGroup // nil for a leaf
	leaf *group
}

// walkTreeV138 is v1.38's rule for t's tree (v1.38.0-beta.0
// pkg/scheduler/schedule_one_podgroup.go validatePodGroupHierarchy and
// validatePodGroupSubtree), in its order: depth first from the root, a
// parent's children in creation order (metadata.creationTimestamp; unset
// reads as the earliest), then by name, a CompositePodGroup before a
// PodGroup of the same name (PodGroupInfo.sortChildren). At each child:
//   - a CompositePodGroup at depth placement.MaxHierarchyDepth (root at
//     1) fails the tree: its leaves would lie deeper than the limit;
//   - the child names the root's Workload in its template reference (a
//     PodGroup without one names ""; a root without one, which the API
//     server would refuse, is not checked), has the root's priority
//     (either unset reads 0), sets, when it sets spec.preemptionPolicy,
//     the policy the pods are held to (the root's when set, else the
//     first pod's, which policy is seeded with), is not basic under a gang
//     parent, and is not single under a parent whose disruptionMode is
//     all (an unset mode reads single: the API server stores it so);
//   - then a CompositePodGroup's children in turn, or a leaf's pods
//     (pods: its pending then its bound ones).
//
// So the first fault named is the first in the walk, a group's or a
// pod's. Errors name the object and the field.
func walkTreeV138(t *tree, policy *policyRule, pods func(l *group) error) error {
	kids := map[string][]treeChild{}
	for _, c := range t.cpgs {
		if c != t.root {
			kids[c.Spec.ParentCompositePodGroupName] = append(kids[c.Spec.ParentCompositePodGroupName], treeChild{meta: &c.ObjectMeta, cpg: c})
		}
	}
	for _, l := range t.leaves {
		kids[l.pg.Spec.ParentCompositePodGroupName] = append(kids[l.pg.Spec.ParentCompositePodGroupName], treeChild{meta: &l.pg.ObjectMeta, leaf: l})
	}
	for _, k := range kids {
		slices.SortFunc(k, func(a, b treeChild) int {
			return cmp.Or(a.meta.CreationTimestamp.Compare(b.meta.CreationTimestamp), strings.Compare(a.meta.Name, b.meta.Name),
				cmp.Compare(boolRank(a.cpg == nil), boolRank(b.cpg == nil)))
		})
	}
	var walk func(parent *CompositePodGroup, depth int) error
	walk = func(parent *CompositePodGroup, depth int) error {
		for _, ch := range kids[parent.Name] {
			if c := ch.cpg; c != nil {
				if depth+1 == placement.MaxHierarchyDepth {
					return tooDeep(t.root, c)
				}
				if err := checkTreeGroup(t.root, parent, compositeTreeGroup(c), policy); err != nil {
					return err
				}
				if err := walk(c, depth+1); err != nil {
					return err
				}
				continue
			}
			if err := checkTreeGroup(t.root, parent, leafTreeGroup(ch.leaf.pg), policy); err != nil {
				return err
			}
			if err := pods(ch.leaf); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(t.root, 1)
}

// notAll is a treeGroup's mode: "" when all, else "unset" or "single".
func notAll(all, unset bool) string {
	switch {
	case all:
		return ""
	case unset:
		return "unset"
	}
	return "single"
}

// boolRank is 1 for true, 0 for false.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkTreeGroup holds one group g of root's tree, whose parent is
// parent, to walkTreeV138's rule for a group.
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
	if parent.Spec.SchedulingPolicy.Gang != nil && g.basic {
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.schedulingPolicy",
			"basic under the gang CompositePodGroup %s (since v1.38 a gang's children are gangs)", parent.Key())
	}
	if parent.Spec.DisruptionMode == CompositeDisruptionAll && g.mode != "" {
		return placement.Errorf(placement.ErrInvalid, g.obj, "spec.disruptionMode",
			"%s under CompositePodGroup %s, whose disruptionMode is all (since v1.38 the children of an all group are not disrupted one by one: set all; an API server stores an unset mode as single)", g.mode, parent.Key())
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
