package scheduler

import (
	"fmt"
	"slices"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// confirmBound writes the condition of PodGroups that are scheduled but do
// not say so: a scheduler killed between its bindings and its condition
// write leaves a PodGroup with minCount members bound, none pending, and
// no True condition; no cycle would ever run for it again. The caller
// holds s.mu and passes the current snapshot.
func (s *Scheduler) confirmBound(snap *placement.Snapshot, w *work) {
	for k := range s.state.unconfirmed {
		st, ok := s.gs.Group(k)
		if !ok || st.PodGroup == nil {
			delete(s.state.unconfirmed, k)
			continue
		}
		if c, ok := st.PodGroup.Condition(gang.PodGroupScheduled); ok && c.Status == gang.ConditionTrue {
			delete(s.state.unconfirmed, k)
			continue
		}
		if len(st.Pending) > 0 {
			continue // a cycle will decide it
		}
		minCount := int32(1)
		if g := st.PodGroup.Spec.SchedulingPolicy.Gang; g != nil {
			minCount = g.MinCount
		}
		bound := len(snap.GroupMembers(k))
		if int32(bound) < minCount {
			continue
		}
		delete(s.state.unconfirmed, k)
		w.conditions = append(w.conditions, conditionWrite{group: k, cond: gang.Condition{
			Type: gang.PodGroupScheduled, Status: gang.ConditionTrue, Reason: gang.ReasonScheduled,
			Message:            fmt.Sprintf("%d members bound (of min %d)", bound, minCount),
			LastTransitionTime: s.now(),
		}})
	}
	s.confirmComposites(snap, w)
}

// confirmComposites does for CompositePodGroups what confirmBound does for
// PodGroups: a scheduler killed between a tree's bindings and its
// condition writes leaves CompositePodGroups whose subtree is scheduled
// (minGroupCount children met, 1 for basic; a leaf met with minCount
// members bound) with nothing pending below them and no True condition,
// and no cycle would run for the tree again. A subtree with a pending
// member is left to its cycle, which writes the conditions itself. The
// caller holds s.mu. O(groups + composites) while any is unconfirmed.
func (s *Scheduler) confirmComposites(snap *placement.Snapshot, w *work) {
	if len(s.state.unconfirmedComposites) == 0 {
		return
	}
	children := map[placement.Key][]placement.Key{} // parent -> child PodGroups
	for k := range s.state.groups {
		if st, ok := s.gs.Group(k); ok && st.PodGroup != nil && st.PodGroup.Spec.ParentCompositePodGroupName != "" {
			p := placement.Key{Namespace: k.Namespace, Name: st.PodGroup.Spec.ParentCompositePodGroupName}
			children[p] = append(children[p], k)
		}
	}
	subtrees := map[placement.Key][]placement.Key{} // parent -> child CompositePodGroups
	for k := range s.state.composites {
		if c, ok := s.gs.CompositePodGroup(k); ok && c.Spec.ParentCompositePodGroupName != "" {
			p := placement.Key{Namespace: k.Namespace, Name: c.Spec.ParentCompositePodGroupName}
			subtrees[p] = append(subtrees[p], k)
		}
	}
	leafMet := func(k placement.Key) (met, pending bool) {
		st, _ := s.gs.Group(k)
		minCount := int32(1)
		if g := st.PodGroup.Spec.SchedulingPolicy.Gang; g != nil {
			minCount = max(g.MinCount, 1)
		}
		return int32(len(snap.GroupMembers(k))) >= minCount, len(st.Pending) > 0
	}
	// met reports whether composite k's subtree is scheduled, how many of
	// its children are, and whether any member below it is pending.
	var met func(k placement.Key, depth int) (ok bool, n, min int, pending bool)
	met = func(k placement.Key, depth int) (bool, int, int, bool) {
		c, ok := s.gs.CompositePodGroup(k)
		if !ok || depth > placement.MaxHierarchyDepth {
			return false, 0, 0, false
		}
		min, n, pending := 1, 0, false
		if g := c.Spec.SchedulingPolicy.Gang; g != nil {
			min = int(g.MinGroupCount)
		}
		for _, l := range children[k] {
			m, p := leafMet(l)
			if m {
				n++
			}
			pending = pending || p
		}
		for _, sub := range subtrees[k] {
			m, _, _, p := met(sub, depth+1)
			if m {
				n++
			}
			pending = pending || p
		}
		return n >= min, n, min, pending
	}
	keys := make([]placement.Key, 0, len(s.state.unconfirmedComposites))
	for k := range s.state.unconfirmedComposites {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, placement.Key.Compare)
	for _, k := range keys {
		c, ok := s.gs.CompositePodGroup(k)
		if !ok {
			delete(s.state.unconfirmedComposites, k)
			continue
		}
		if cond, ok := c.Condition(gang.CompositePodGroupScheduled); ok && cond.Status == gang.ConditionTrue {
			delete(s.state.unconfirmedComposites, k)
			continue
		}
		ok, n, min, pending := met(k, 1)
		if !ok || pending {
			continue
		}
		delete(s.state.unconfirmedComposites, k)
		w.conditions = append(w.conditions, conditionWrite{kind: kindComposite, group: k, cond: gang.Condition{
			Type: gang.CompositePodGroupScheduled, Status: gang.ConditionTrue, Reason: gang.ReasonScheduled,
			Message:            fmt.Sprintf("%d children scheduled (of min %d)", n, min),
			LastTransitionTime: s.now(),
		}})
	}
}
