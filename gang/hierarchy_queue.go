package gang

import (
	"slices"

	"github.com/gangsched/gangsched/placement"
	"github.com/gangsched/gangsched/preemption"
)

// This file keeps the queue's view of hierarchies current: a leaf of a
// tree queues by its root's priority, and a change of a CompositePodGroup
// wakes the leaves whose tree it may let through.

// setRootPriority sets g.rootPrio from the root of g's hierarchy: its
// root's priority (0 when unset) when g is a leaf whose root exists, else
// nil. Upstream's queue sorts a hierarchy by its root's priority, 0 when
// unset (QueuedPodGroupInfo.GetPriority), whatever its leaves and pods
// say, and the tree preempts at that priority too. g must be detached
// (the priority is part of its key in the active tree).
func (s *Scheduler) setRootPriority(g *group) {
	g.rootPrio = nil
	if g.pg == nil || g.pg.Spec.ParentCompositePodGroupName == "" {
		return
	}
	if root, _ := s.rootOf(g.pg); root != nil {
		p := podGroupPriorityOf(root.Spec.Priority)
		g.rootPrio = &p
	}
}

// refileLeaves files every leaf of a hierarchy again after a
// CompositePodGroup changed, with its root's priority now. With
// wakeGated, a gated leaf becomes active (its tree's quorum is checked at
// the next cycle); a backing-off leaf whose root is woken becomes active
// too. O(groups log groups).
func (s *Scheduler) refileLeaves(wakeGated bool, woken *placement.Key) {
	for _, k := range s.sortedGroupKeys() {
		g := s.q.groups[k]
		if g.pg == nil || g.pg.Spec.ParentCompositePodGroupName == "" {
			continue
		}
		s.q.detach(g)
		s.setRootPriority(g)
		switch {
		case g.state == Gated && wakeGated:
			g.state = Active
		case g.state == BackingOff && woken != nil:
			if root, _ := s.rootOf(g.pg); root != nil && root.Key() == *woken {
				g.state = Active
			}
		}
		s.q.place(g)
	}
}

// rootKeyOf is the key of c's hierarchy's root, or nil when a
// CompositePodGroup above c is missing (or the chain is a cycle).
func (s *Scheduler) rootKeyOf(c *CompositePodGroup) *placement.Key {
	root := c
	if c.Spec.ParentCompositePodGroupName != "" {
		if root, _ = s.rootFrom(c.Namespace, c.Spec.ParentCompositePodGroupName); root == nil {
			return nil
		}
	}
	k := root.Key()
	return &k
}

// policyChanged reports whether b's schedulingPolicy asks for another
// number of children than a's: minGroupCount, or gang and basic swapped.
func policyChanged(a, b *CompositePodGroup) bool {
	return (a.Spec.SchedulingPolicy.Gang == nil) != (b.Spec.SchedulingPolicy.Gang == nil) || a.minChildren() != b.minChildren()
}

// hierarchyPriority is the priority of the hierarchy PodGroup pg is a
// leaf of, as upstream's GetPodPriority finds it: the walk up through
// spec.parentCompositePodGroupName ends at the root, at the last
// CompositePodGroup that exists (a missing parent), after
// placement.MaxHierarchyDepth levels, or before a CompositePodGroup it
// has met already (a cycle), and the priority of the one it ends at (0
// when unset) is the priority of every pod below it. ok is false when pg
// has no parent or its parent does not exist.
func (s *Scheduler) hierarchyPriority(pg *PodGroup) (prio int32, ok bool) {
	var seen [placement.MaxHierarchyDepth]string
	name := pg.Spec.ParentCompositePodGroupName
	for depth := 1; name != "" && depth < placement.MaxHierarchyDepth && !slices.Contains(seen[:depth], name); depth++ {
		c, found := s.cpgs[placement.Key{Namespace: pg.Namespace, Name: name}]
		if !found {
			break
		}
		seen[depth] = name
		prio, ok = podGroupPriorityOf(c.Spec.Priority), true
		name = c.Spec.ParentCompositePodGroupName
	}
	return prio, ok
}

// preemptionPriority is the priority preemption gives member p of pg, as
// a victim or a nominee: up to v1.37 its hierarchy's (hierarchyPriority)
// when pg is a leaf of one, else memberPriority. A tree preempts at its
// root's priority, so its members must rank there too: at a leaf's lower
// priority, a group between the two would ignore their nominated room,
// or pick a member held there as a victim. v1.38 ranks every pod at its
// own priority, as victim ([Profile.groupOverride]) and as nominee
// (v1.38.0-beta.0 pkg/scheduler/framework/preemption/executor.go
// getLowerPriorityNominatedPods reads PodPriority), so p holds its room
// at its own.
func (s *Scheduler) preemptionPriority(pg *PodGroup, p *placement.Pod) int32 {
	if !s.opts.Profile.rankAsHierarchy() {
		return p.Priority
	}
	if pg != nil {
		if prio, ok := s.hierarchyPriority(pg); ok {
			return prio
		}
	}
	return memberPriority(pg, p)
}

// hierarchyInput is preemptionInput plus the hierarchies the bound pods'
// PodGroups belong to: every PodGroup's parent, and every
// CompositePodGroup's parent and disruptionMode.
func (s *Scheduler) hierarchyInput() preemption.HierarchyInput {
	in := preemption.HierarchyInput{Input: s.preemptionInput(),
		Parents: map[placement.Key]string{}, Composites: map[placement.Key]preemption.CompositeSpec{}}
	for k, g := range s.q.groups {
		if g.pg != nil && g.pg.Spec.ParentCompositePodGroupName != "" {
			in.Parents[k] = g.pg.Spec.ParentCompositePodGroupName
		}
	}
	for k, c := range s.cpgs {
		in.Composites[k] = preemption.CompositeSpec{Parent: c.Spec.ParentCompositePodGroupName, All: c.Spec.DisruptionMode == CompositeDisruptionAll}
	}
	return in
}
