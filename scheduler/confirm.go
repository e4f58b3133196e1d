package scheduler

import (
	"fmt"

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
}
