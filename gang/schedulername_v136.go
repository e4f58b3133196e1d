package gang

import "github.com/gangsched/gangsched/placement"

// checkNamesV136 is v1.36's scheduler-name rule: v1.36.3's group cycle
// (pkg/scheduler/schedule_one_podgroup.go frameworkForPodGroup) picks one
// profile for the pods it popped from the queue, the pending ones, and
// fails when two of them name different schedulers; bound members are not
// looked at. It fails before the cycle starts, so it writes no PodGroup
// condition ([Profile.writesRuleCondition]): each pending pod goes back to
// the queue with PodScheduled False/SchedulerError. pending is in member
// order; the error names the first pod that differs from the first one.
func checkNamesV136(pending []placement.Pod) error {
	names := nameRule{rule: "v1.36 holds a group's pending pods to one scheduler"}
	for i := range pending {
		if err := names.check(&pending[i]); err != nil {
			return err
		}
	}
	return nil
}

// writesRuleCondition reports whether a cycle that fails a member rule
// (checkMembers) writes the PodGroup's condition: v1.36.3 fails its
// scheduler-name check before the cycle, so only the pods learn of it;
// v1.37 and v1.38 write SchedulerError or PodGroupError.
func (p Profile) writesRuleCondition() bool { return p.newest() != ProfileV136 }
