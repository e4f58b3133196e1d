package gang

import (
	"fmt"

	"github.com/gangsched/gangsched/placement"
)

// nameRule holds the pods of a PodGroup or hierarchy to one
// spec.schedulerName, the first pod's, as upstream's group cycle does
// before it schedules (v1.37.2 pkg/scheduler/schedule_one_podgroup.go
// validatePodGroup; v1.38.0-beta.0 validatePodGroupHierarchy): the first
// queued pod names the scheduler, then each pod, pending then bound, is
// compared with it, before its priority and preemption policy. A bound
// member another scheduler placed breaks it as a pending one does.
// Upstream then looks the name up among its profiles; here the host hands
// the cycle only pending pods of the names it serves (gangsched-scheduler
// its one, gangsim its profiles'), so that check has no counterpart. The zero nameRule takes the first pod it
// checks as the first.
type nameRule struct {
	seeded bool
	want   string
	first  placement.Key
	// kind is "group" or "hierarchy", for the message.
	kind string
	// rule, when set, is the message's statement of the rule in place of
	// v1.37's (v1.36 holds only the pending pods to one name).
	rule string
}

// check seeds the rule with m when it has no first pod yet, else fails
// when m names another scheduler, naming m and the field.
func (r *nameRule) check(m *placement.Pod) error {
	if !r.seeded {
		r.seeded, r.want, r.first = true, m.SchedulerName, m.Key()
		return nil
	}
	if m.SchedulerName == r.want {
		return nil
	}
	rule := r.rule
	if rule == "" {
		rule = "since v1.37 every pod of a " + r.kind + ", pending or bound, names one scheduler"
	}
	return placement.Errorf(placement.ErrInvalid, fmt.Sprintf("pod %q", m.Key().String()), "spec.schedulerName",
		"%q differs from %q, pod %q's (%s: give them one spec.schedulerName)",
		m.SchedulerName, r.want, r.first.String(), rule)
}
